"""Bounds checks on a Message flatbuffer before the generated accessors read it.

The accessors that ``flatc --python`` generates trust their input: an offset
that points outside the buffer makes them raise ``struct.error`` or read the
wrong bytes. :func:`verify_message` checks the buffer first, the way the C++
flatbuffers ``Verifier`` does when Arrow C++ calls ``VerifyMessage``, for
exactly the tables arrowsparse reads:

* every uoffset, soffset, vtable, vector and string lies inside the buffer;
* scalars, offsets and structs are aligned to their size relative to the
  start of the buffer;
* strings end in a NUL byte inside the buffer;
* required fields are present;
* tables nest at most 128 deep and at most ``8 * len(buf)`` tables are
  visited.

Headers other than Tensor and SparseTensor, and members of the ``Type``
union other than Int and FloatingPoint, are checked only up to their vtable,
since their fields are never read. The field numbers below are the
positions in ``ipc/internal/flatbuf/schema/*.fbs``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ._errors import ArrowSparseError

MAX_DEPTH = 128
# FLATBUFFERS_MAX_BUFFER_SIZE (2^31 - 1).
MAX_FLATBUFFER_SIZE = 2**31 - 1

# Header kinds (MessageHeader union tags).
HEADER_SCHEMA, HEADER_DICTIONARY_BATCH, HEADER_RECORD_BATCH = 1, 2, 3
HEADER_TENSOR, HEADER_SPARSE_TENSOR = 4, 5
HEADER_NAMES = {0: "NONE", 1: "Schema", 2: "DictionaryBatch", 3: "RecordBatch",
                4: "Tensor", 5: "SparseTensor"}

# Type union tags used by tensors; the largest tag of the Type union.
TYPE_NONE, TYPE_INT, TYPE_FLOATING_POINT = 0, 2, 3
MAX_TYPE_TAG = 26

# SparseTensorIndex union tags.
INDEX_COO, INDEX_CSX, INDEX_CSF = 1, 2, 3

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")


@dataclass(frozen=True)
class _Table:
    pos: int  # position of the table (its soffset)
    vt: int  # position of its vtable
    vsize: int  # vtable size in bytes


class _Verifier:
    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.n = len(buf)
        self.depth = 0
        self.tables = 0
        self.max_tables = 8 * len(buf)

    # -- primitives ---------------------------------------------------

    def fail(self, msg: str) -> ArrowSparseError:
        return ArrowSparseError("invalid flatbuffer metadata: " + msg)

    def in_range(self, pos: int, size: int) -> bool:
        # The C++ Verifier's strict test: size < len and pos <= len - size.
        return pos >= 0 and 0 <= size < self.n and pos <= self.n - size

    def scalar(self, pos: int, size: int, align: int, what: str) -> None:
        if not self.in_range(pos, size):
            raise self.fail(f"{what}: {size} bytes at {pos} lie outside the {self.n}-byte buffer")
        if pos & (align - 1):
            raise self.fail(f"{what} at byte {pos} is not {align}-byte aligned")

    def u16(self, pos: int) -> int:
        return _U16.unpack_from(self.buf, pos)[0]

    def u32(self, pos: int) -> int:
        return _U32.unpack_from(self.buf, pos)[0]

    def offset(self, pos: int, what: str) -> int:
        """Follows the uoffset stored at pos and returns the target position."""
        self.scalar(pos, 4, 4, what + " offset")
        o = self.u32(pos)
        if o == 0 or o > 2**31 - 1:
            raise self.fail(f"{what}: offset at byte {pos} is zero or negative")
        target = pos + o
        if not self.in_range(target, 1):
            raise self.fail(f"{what}: offset at byte {pos} points to {target}, "
                            f"outside the {self.n}-byte buffer")
        return target

    def table(self, pos: int, what: str) -> _Table:
        """Checks a table header and its vtable; the caller calls leave()."""
        self.scalar(pos, 4, 4, what + " vtable offset")
        soff = self.u32(pos)
        if soff >= 2**31:
            soff -= 2**32
        vt = pos - soff
        self.depth += 1
        self.tables += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"{what}: tables nested deeper than {MAX_DEPTH}")
        if self.tables > self.max_tables:
            raise self.fail(f"{what}: more than {self.max_tables} tables")
        self.scalar(vt, 2, 2, what + " vtable")
        vsize = self.u16(vt)
        if vsize & 1:
            raise self.fail(f"{what}: vtable size {vsize} at byte {vt} is odd")
        if not self.in_range(vt, vsize):
            raise self.fail(f"{what}: {vsize}-byte vtable at byte {vt} lies outside "
                            f"the {self.n}-byte buffer")
        return _Table(pos, vt, vsize)

    def leave(self) -> None:
        self.depth -= 1

    def field_pos(self, t: _Table, fid: int) -> int:
        """Position of field fid of t, or -1 if it is absent."""
        vo = 4 + 2 * fid
        if vo >= t.vsize:
            return -1
        fo = self.u16(t.vt + vo)
        return -1 if fo == 0 else t.pos + fo

    def scalar_field(self, t: _Table, fid: int, size: int, align: int,
                     required: bool, what: str) -> None:
        p = self.field_pos(t, fid)
        if p < 0:
            if required:
                raise self.fail(f"required field {what} is missing")
            return
        self.scalar(p, size, align, what)

    def offset_field(self, t: _Table, fid: int, required: bool, what: str) -> int:
        p = self.field_pos(t, fid)
        if p < 0:
            if required:
                raise self.fail(f"required field {what} is missing")
            return -1
        return self.offset(p, what)

    def vector(self, pos: int, elem_size: int, what: str) -> int:
        self.scalar(pos, 4, 4, what + " length")
        n = self.u32(pos)
        if n >= MAX_FLATBUFFER_SIZE // elem_size:
            raise self.fail(f"{what}: vector length {n} at byte {pos} is too large")
        if not self.in_range(pos, 4 + elem_size * n):
            raise self.fail(f"{what}: vector of {n} elements at byte {pos} runs past "
                            f"the end of the {self.n}-byte buffer")
        return n

    def string(self, pos: int, what: str) -> None:
        n = self.vector(pos, 1, what)
        end = pos + 4 + n
        if not self.in_range(end, 1) or self.buf[end] != 0:
            raise self.fail(f"{what}: string at byte {pos} is not NUL-terminated inside the buffer")

    def vector_field(self, t: _Table, fid: int, elem_size: int, required: bool,
                     what: str) -> tuple[int, int]:
        p = self.offset_field(t, fid, required, what)
        if p < 0:
            return p, 0
        return p, self.vector(p, elem_size, what)

    def table_at(self, pos: int) -> int:
        # A vector element's uoffset, followed without VerifyOffset as in
        # C++; the table check bounds the result.
        return pos + self.u32(pos)

    def opaque_table(self, pos: int, what: str) -> None:
        self.table(pos, what)
        self.leave()

    # -- tables -------------------------------------------------------

    def message(self) -> None:
        root = self.offset(0, "root")
        t = self.table(root, "Message")
        self.scalar_field(t, 0, 2, 2, False, "Message.version")
        self.scalar_field(t, 1, 1, 1, False, "Message.header_type")
        hdr = self.offset_field(t, 2, False, "Message.header")
        if hdr >= 0:
            p = self.field_pos(t, 1)
            kind = self.buf[p] if p >= 0 else 0
            if kind == HEADER_TENSOR:
                self.tensor(hdr)
            elif kind == HEADER_SPARSE_TENSOR:
                self.sparse_tensor(hdr)
            elif kind in (HEADER_SCHEMA, HEADER_DICTIONARY_BATCH, HEADER_RECORD_BATCH):
                self.opaque_table(hdr, f"Message.header ({HEADER_NAMES[kind]})")
        self.scalar_field(t, 3, 8, 8, False, "Message.bodyLength")
        p, n = self.vector_field(t, 4, 4, False, "Message.custom_metadata")
        for i in range(n):
            self.key_value(p + 4 + 4 * i)
        self.leave()

    def key_value(self, elem: int) -> None:
        t = self.table(self.table_at(elem), "KeyValue")
        for fid, name in ((0, "KeyValue.key"), (1, "KeyValue.value")):
            p = self.offset_field(t, fid, False, name)
            if p >= 0:
                self.string(p, name)
        self.leave()

    def type_union(self, t: _Table, tag_id: int, val_id: int, what: str) -> None:
        self.scalar_field(t, tag_id, 1, 1, False, what + "_type")
        p = self.offset_field(t, val_id, True, what)
        tp = self.field_pos(t, tag_id)
        tag = self.buf[tp] if tp >= 0 else 0
        if tag == TYPE_NONE:
            return
        if tag == TYPE_INT:
            self.int_table(p, what + " (Int)")
        elif tag == TYPE_FLOATING_POINT:
            ft = self.table(p, what + " (FloatingPoint)")
            self.scalar_field(ft, 0, 2, 2, False, what + ".precision")
            self.leave()
        elif tag <= MAX_TYPE_TAG:
            self.opaque_table(p, f"{what} (Type tag {tag})")
        # Unknown union members are not verified, as in C++.

    def int_table(self, pos: int, what: str) -> None:
        t = self.table(pos, what)
        self.scalar_field(t, 0, 4, 4, False, what + ".bitWidth")
        self.scalar_field(t, 1, 1, 1, False, what + ".is_signed")
        self.leave()

    def required_int(self, t: _Table, fid: int, what: str) -> None:
        self.int_table(self.offset_field(t, fid, True, what), what)

    def shape(self, t: _Table, fid: int, what: str) -> None:
        p, n = self.vector_field(t, fid, 4, True, what)
        for i in range(n):
            dt = self.table(self.table_at(p + 4 + 4 * i), f"{what}[{i}]")
            self.scalar_field(dt, 0, 8, 8, False, "TensorDim.size")
            np_ = self.offset_field(dt, 1, False, "TensorDim.name")
            if np_ >= 0:
                self.string(np_, "TensorDim.name")
            self.leave()

    def tensor(self, pos: int) -> None:
        t = self.table(pos, "Tensor")
        self.type_union(t, 0, 1, "Tensor.type")
        self.shape(t, 2, "Tensor.shape")
        self.vector_field(t, 3, 8, False, "Tensor.strides")
        self.scalar_field(t, 4, 16, 8, True, "Tensor.data")
        self.leave()

    def sparse_tensor(self, pos: int) -> None:
        t = self.table(pos, "SparseTensor")
        self.type_union(t, 0, 1, "SparseTensor.type")
        self.shape(t, 2, "SparseTensor.shape")
        self.scalar_field(t, 3, 8, 8, False, "SparseTensor.non_zero_length")
        self.scalar_field(t, 4, 1, 1, False, "SparseTensor.sparseIndex_type")
        ip = self.offset_field(t, 5, True, "SparseTensor.sparseIndex")
        tp = self.field_pos(t, 4)
        tag = self.buf[tp] if tp >= 0 else 0
        if tag == INDEX_COO:
            self.coo(ip)
        elif tag == INDEX_CSX:
            self.csx(ip)
        elif tag == INDEX_CSF:
            self.csf(ip)
        self.scalar_field(t, 6, 16, 8, True, "SparseTensor.data")
        self.leave()

    def coo(self, pos: int) -> None:
        t = self.table(pos, "SparseTensorIndexCOO")
        self.required_int(t, 0, "SparseTensorIndexCOO.indicesType")
        self.vector_field(t, 1, 8, False, "SparseTensorIndexCOO.indicesStrides")
        self.scalar_field(t, 2, 16, 8, True, "SparseTensorIndexCOO.indicesBuffer")
        self.scalar_field(t, 3, 1, 1, False, "SparseTensorIndexCOO.isCanonical")
        self.leave()

    def csx(self, pos: int) -> None:
        t = self.table(pos, "SparseMatrixIndexCSX")
        self.scalar_field(t, 0, 2, 2, False, "SparseMatrixIndexCSX.compressedAxis")
        self.required_int(t, 1, "SparseMatrixIndexCSX.indptrType")
        self.scalar_field(t, 2, 16, 8, True, "SparseMatrixIndexCSX.indptrBuffer")
        self.required_int(t, 3, "SparseMatrixIndexCSX.indicesType")
        self.scalar_field(t, 4, 16, 8, True, "SparseMatrixIndexCSX.indicesBuffer")
        self.leave()

    def csf(self, pos: int) -> None:
        t = self.table(pos, "SparseTensorIndexCSF")
        self.required_int(t, 0, "SparseTensorIndexCSF.indptrType")
        self.vector_field(t, 1, 16, True, "SparseTensorIndexCSF.indptrBuffers")
        self.required_int(t, 2, "SparseTensorIndexCSF.indicesType")
        self.vector_field(t, 3, 16, True, "SparseTensorIndexCSF.indicesBuffers")
        self.vector_field(t, 4, 4, True, "SparseTensorIndexCSF.axisOrder")
        self.leave()


def verify_message(buf: bytes) -> None:
    """Verifies the Message flatbuffer in buf or raises ArrowSparseError."""
    if len(buf) > MAX_FLATBUFFER_SIZE:
        raise ArrowSparseError(f"metadata of {len(buf)} bytes exceeds the flatbuffers limit "
                               f"of {MAX_FLATBUFFER_SIZE} bytes")
    _Verifier(buf).message()
