"""The field metadata of a pyarrow type as the C data interface exports it.

pyarrow shows C++-defined extension types (``arrow.variable_shape_tensor``
in pyarrow 25) as a generic ``BaseExtensionType`` without their serialized
metadata; the exported ``ArrowSchema`` carries it under
``ARROW:extension:metadata``.
"""

from __future__ import annotations

import ctypes
import struct

import pyarrow as pa


class _ArrowSchema(ctypes.Structure):
    pass


_Release = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ArrowSchema))
_ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


def exported_metadata(t: pa.DataType) -> dict[bytes, bytes]:
    """The key/value metadata of the ArrowSchema that exports type t."""
    schema = _ArrowSchema()
    t._export_to_c(ctypes.addressof(schema))
    try:
        out: dict[bytes, bytes] = {}
        if not schema.metadata:
            return out
        base = schema.metadata

        def i32(off: int) -> int:
            return struct.unpack("=i", ctypes.string_at(base + off, 4))[0]

        n, off = i32(0), 4
        for _ in range(n):
            klen = i32(off)
            key = ctypes.string_at(base + off + 4, klen)
            off += 4 + klen
            vlen = i32(off)
            value = ctypes.string_at(base + off + 4, vlen)
            off += 4 + vlen
            out[key] = value
        return out
    finally:
        if schema.release:
            _Release(schema.release)(ctypes.pointer(schema))
