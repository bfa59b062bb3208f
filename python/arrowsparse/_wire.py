"""Framing and flatbuffer metadata of Tensor and SparseTensor messages.

This module knows nothing of tensor objects: it parses a frame, verifies and
decodes its metadata into the small model below, makes the structural
checks that need only the metadata and the body length, and encodes a model
back into bytes laid out exactly as Arrow C++'s FlatBufferBuilder lays them
out. The rules are those of the Go package ``ipc/internal/wire`` and of the
project's wire-format reference (arrow-sparse-ipc.md); section numbers (§)
refer to it.

Frame (all integers little-endian)::

    offset  size   content
    0       4      FF FF FF FF continuation marker
    4       4      int32 M: flatbuffer size F plus padding
    8       F      flatbuffer, root table Message
    8+F     M-F    zero padding: 8+M is a multiple of 8 (SparseTensor) or 64 (Tensor)
    8+M     B      body, B = Message.bodyLength

On read the legacy pre-0.15 prefix (a positive int32 M and no marker) is
accepted too, and M need not be padded.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Optional, Union

import flatbuffers
from flatbuffers.table import Table

from . import _verify as V
from ._errors import ArrowSparseError
from ._flatbuf import Buffer as fbBuffer
from ._flatbuf import FloatingPoint as fbFloatingPoint
from ._flatbuf import Int as fbInt
from ._flatbuf import KeyValue as fbKeyValue
from ._flatbuf import Message as fbMessage
from ._flatbuf import SparseMatrixIndexCSX as fbCSX
from ._flatbuf import SparseTensor as fbSparseTensor
from ._flatbuf import SparseTensorIndexCOO as fbCOO
from ._flatbuf import SparseTensorIndexCSF as fbCSF
from ._flatbuf import Tensor as fbTensor
from ._flatbuf import TensorDim as fbTensorDim
from ._types import FLOAT_PRECISION, INT_PARAMS, check_index_fits, check_index_type, int_type_name, width

CONTINUATION = 0xFFFFFFFF
SPARSE_ALIGNMENT = 8
TENSOR_ALIGNMENT = 64
DEFAULT_MAX_METADATA_SIZE = 64 << 20
DEFAULT_MAX_BODY_SIZE = 64 << 30
INT64_MAX = 2**63 - 1

# Metadata versions: the wire value of V4 and V5.
V4, V5 = 3, 4

# Names of the Type union members, by tag.
TYPE_NAMES = (
    "NONE", "Null", "Int", "FloatingPoint", "Binary", "Utf8", "Bool", "Decimal",
    "Date", "Time", "Timestamp", "Interval", "List", "Struct_", "Union",
    "FixedSizeBinary", "FixedSizeList", "Map", "Duration", "LargeBinary",
    "LargeUtf8", "LargeList", "RunEndEncoded", "BinaryView", "Utf8View",
    "ListView", "LargeListView",
)

_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")


# -- model ---------------------------------------------------------------


@dataclass
class Buf:
    """A Buffer struct: a range of the body (length in bytes, or in elements
    for the CSF index buffers Arrow C++ writes)."""

    offset: int
    length: int


@dataclass
class Dim:
    size: int
    name: Optional[bytes]  # None: the name string is absent


@dataclass
class TensorMeta:
    value_type: str
    shape: list[Dim]
    strides: Optional[list[int]]  # None: absent (row-major)
    data: Buf


@dataclass
class COOIndex:
    indices_type: str
    indices_strides: Optional[list[int]]  # None: absent (row-major)
    indices_buffer: Buf
    is_canonical: bool


@dataclass
class CSXIndex:
    axis: int  # 0 Row (CSR), 1 Column (CSC)
    indptr_type: str
    indptr_buffer: Buf
    indices_type: str
    indices_buffer: Buf


@dataclass
class CSFIndex:
    indptr_type: str
    indptr_buffers: list[Buf]
    indices_type: str
    indices_buffers: list[Buf]
    axis_order: list[int]


SparseIndex = Union[COOIndex, CSXIndex, CSFIndex]


@dataclass
class SparseMeta:
    value_type: str
    shape: list[Dim]
    non_zero_length: int
    index: SparseIndex
    data: Buf


@dataclass
class WireMessage:
    version: int
    header: int
    body_length: int
    custom_metadata: list[tuple[bytes, bytes]] = field(default_factory=list)
    tensor: Optional[TensorMeta] = None
    sparse: Optional[SparseMeta] = None


@dataclass
class Frame:
    message: WireMessage
    metadata_length: int  # M
    body_start: int  # offset of the body in the input
    size: int  # bytes of the input the message took
    legacy: bool


# -- frame ---------------------------------------------------------------


def parse_frame(data: memoryview, max_metadata: int, max_body: int) -> Frame:
    """Parses the message at the start of data (a memoryview of bytes).

    Every length is checked against its limit and against the bytes actually
    available before anything is copied or allocated; the metadata (at most
    max_metadata bytes) is the only part copied.
    """
    n = len(data)
    if n == 0:
        raise ArrowSparseError("no message: the input is empty")
    if n < 4:
        raise ArrowSparseError(f"corrupted message: {n} bytes, too few for a message prefix")
    first = _I32.unpack_from(data, 0)[0]
    legacy = False
    if first == -1:
        if n < 8:
            raise ArrowSparseError(f"corrupted message: continuation marker without a metadata "
                                   f"length ({n} bytes)")
        mlen = _I32.unpack_from(data, 4)[0]
        pfx = 8
    elif first == 0:
        raise ArrowSparseError("no message: the input starts with an end-of-stream marker")
    elif first > 0:
        mlen, pfx, legacy = first, 4, True
    else:
        raise ArrowSparseError(f"invalid message prefix: negative continuation token {first} "
                               "(want FF FF FF FF, or a positive legacy length)")
    if mlen == 0:
        raise ArrowSparseError("no message: the input starts with an end-of-stream marker")
    if mlen < 0:
        raise ArrowSparseError(f"negative metadata length {mlen}")
    if mlen > max_metadata:
        raise ArrowSparseError(f"metadata length {mlen} exceeds the limit of {max_metadata} bytes "
                               "(see max_metadata_size)")
    if mlen > n - pfx:
        raise ArrowSparseError(f"truncated message: metadata length {mlen} but only "
                               f"{n - pfx} bytes left")
    msg = decode_metadata(bytes(data[pfx:pfx + mlen]))
    start = pfx + mlen
    if msg.body_length > max_body:
        raise ArrowSparseError(f"bodyLength {msg.body_length} exceeds the limit of {max_body} "
                               "bytes (see max_body_size)")
    if msg.body_length > n - start:
        raise ArrowSparseError(f"truncated message: bodyLength {msg.body_length} but only "
                               f"{n - start} bytes left")
    return Frame(msg, mlen, start, start + msg.body_length, legacy)


# -- decoding ------------------------------------------------------------


def decode_metadata(meta: bytes) -> WireMessage:
    """Verifies and decodes the flatbuffer Message in meta.

    Besides the verification (see _verify), it makes the checks Arrow C++
    makes when it opens a message and in GetTensorMetadata /
    GetSparseTensorMetadata: version V4 or V5, bodyLength >= 0, a value type
    that is Int (8, 16, 32 or 64 bits) or FloatingPoint, dimension sizes >=
    0, strides one per dimension, non_zero_length >= 0, a known sparse
    index kind and compressed axis, index types of a supported width.
    """
    V.verify_message(meta)
    try:
        return _decode_message(fbMessage.Message.GetRootAs(meta, 0))
    except ArrowSparseError:
        raise
    except (struct.error, IndexError, ValueError, TypeError, AttributeError) as err:
        # The verifier has checked everything read below; reaching this
        # would be a gap in the verifier, reported as bad input.
        raise ArrowSparseError(f"corrupt flatbuffer metadata ({err})") from None


def _decode_message(fm: fbMessage.Message) -> WireMessage:
    version = fm.Version()
    if version < V4:
        raise ArrowSparseError(f"metadata version V{version + 1} is too old "
                               "(Arrow C++ reads V4 and V5)")
    if version > V5:
        raise ArrowSparseError(f"metadata version {version} is newer than V5, the latest "
                               "this reader knows")
    m = WireMessage(version=version, header=fm.HeaderType(), body_length=fm.BodyLength())
    if m.body_length < 0:
        raise ArrowSparseError(f"negative bodyLength {m.body_length}")
    for i in range(fm.CustomMetadataLength()):
        kv: fbKeyValue.KeyValue = fm.CustomMetadata(i)
        m.custom_metadata.append((kv.Key() or b"", kv.Value() or b""))
    hdr = fm.Header()
    if m.header == 0 or hdr is None:
        raise ArrowSparseError(f"message has no header (header_type {V.HEADER_NAMES.get(m.header, m.header)})")
    if m.header == V.HEADER_TENSOR:
        t = fbTensor.Tensor()
        t.Init(hdr.Bytes, hdr.Pos)
        m.tensor = _decode_tensor(t)
    elif m.header == V.HEADER_SPARSE_TENSOR:
        st = fbSparseTensor.SparseTensor()
        st.Init(hdr.Bytes, hdr.Pos)
        m.sparse = _decode_sparse_tensor(st)
    elif m.header not in (V.HEADER_SCHEMA, V.HEADER_DICTIONARY_BATCH, V.HEADER_RECORD_BATCH):
        raise ArrowSparseError(f"unknown message header type {m.header}")
    return m


def _buf(b: Optional[fbBuffer.Buffer]) -> Buf:
    # Required structs are present after verification.
    assert b is not None
    return Buf(b.Offset(), b.Length())


def _decode_value_type(tag: int, t: Optional[Table], what: str) -> str:
    if tag == V.TYPE_NONE or t is None:
        raise ArrowSparseError(f"{what} value type is NONE")
    if tag == V.TYPE_INT:
        fi = fbInt.Int()
        fi.Init(t.Bytes, t.Pos)
        return int_type_name(fi.BitWidth(), bool(fi.IsSigned()), what + " value type")
    if tag == V.TYPE_FLOATING_POINT:
        ff = fbFloatingPoint.FloatingPoint()
        ff.Init(t.Bytes, t.Pos)
        # HALF, SINGLE, and anything else is DOUBLE, as in Arrow C++.
        return {0: "float16", 1: "float32"}.get(ff.Precision(), "float64")
    if tag < len(TYPE_NAMES):
        raise ArrowSparseError(f"{what} value type {TYPE_NAMES[tag]} (Type tag {tag}) is not a "
                               "tensor type (want Int or FloatingPoint)")
    raise ArrowSparseError(f"{what} value type has unknown Type tag {tag}")


def _decode_int(fi: Optional[fbInt.Int], what: str) -> str:
    assert fi is not None  # required, checked by the verifier
    return int_type_name(fi.BitWidth(), bool(fi.IsSigned()), what)


def _decode_shape(n: int, get, what: str) -> list[Dim]:
    shape = []
    for i in range(n):
        fd: fbTensorDim.TensorDim = get(i)
        d = Dim(fd.Size(), fd.Name())
        if d.size < 0:
            raise ArrowSparseError(f"{what} dimension {i} has negative size {d.size}")
        shape.append(d)
    return shape


def _decode_tensor(ft: fbTensor.Tensor) -> TensorMeta:
    vt = _decode_value_type(ft.TypeType(), ft.Type(), "Tensor")
    shape = _decode_shape(ft.ShapeLength(), ft.Shape, "Tensor")
    strides = None
    if not ft.StridesIsNone():
        strides = [int(x) for x in ft.StridesAsNumpy()] if ft.StridesLength() else []
        if strides and len(strides) != len(shape):
            raise ArrowSparseError(f"Tensor has {len(strides)} strides for {len(shape)} dimensions")
    return TensorMeta(vt, shape, strides, _buf(ft.Data()))


def _decode_sparse_tensor(fst: fbSparseTensor.SparseTensor) -> SparseMeta:
    vt = _decode_value_type(fst.TypeType(), fst.Type(), "SparseTensor")
    shape = _decode_shape(fst.ShapeLength(), fst.Shape, "SparseTensor")
    nnz = fst.NonZeroLength()
    if nnz < 0:
        raise ArrowSparseError(f"SparseTensor has negative non_zero_length {nnz}")
    data = _buf(fst.Data())
    kind = fst.SparseIndexType()
    it = fst.SparseIndex()
    if it is None or kind not in (V.INDEX_COO, V.INDEX_CSX, V.INDEX_CSF):
        raise ArrowSparseError(f"unrecognised sparse index type {kind} "
                               "(want COO = 1, CSX = 2 or CSF = 3)")
    index: SparseIndex
    if kind == V.INDEX_COO:
        fc = fbCOO.SparseTensorIndexCOO()
        fc.Init(it.Bytes, it.Pos)
        strides = None
        if not fc.IndicesStridesIsNone():
            strides = [int(x) for x in fc.IndicesStridesAsNumpy()] if fc.IndicesStridesLength() else []
        index = COOIndex(_decode_int(fc.IndicesType(), "COO indicesType"), strides,
                         _buf(fc.IndicesBuffer()), bool(fc.IsCanonical()))
    elif kind == V.INDEX_CSX:
        fx = fbCSX.SparseMatrixIndexCSX()
        fx.Init(it.Bytes, it.Pos)
        axis = fx.CompressedAxis()
        if axis not in (0, 1):
            raise ArrowSparseError(f"CSX compressedAxis {axis} is neither Row (0) nor Column (1)")
        index = CSXIndex(axis, _decode_int(fx.IndptrType(), "CSX indptrType"), _buf(fx.IndptrBuffer()),
                         _decode_int(fx.IndicesType(), "CSX indicesType"), _buf(fx.IndicesBuffer()))
    else:
        ff = fbCSF.SparseTensorIndexCSF()
        ff.Init(it.Bytes, it.Pos)
        index = CSFIndex(
            _decode_int(ff.IndptrType(), "CSF indptrType"),
            [_buf(ff.IndptrBuffers(i)) for i in range(ff.IndptrBuffersLength())],
            _decode_int(ff.IndicesType(), "CSF indicesType"),
            [_buf(ff.IndicesBuffers(i)) for i in range(ff.IndicesBuffersLength())],
            [int(x) for x in ff.AxisOrderAsNumpy()] if ff.AxisOrderLength() else [],
        )
    return SparseMeta(vt, shape, nnz, index, data)


# -- structural validation -------------------------------------------------


def validate(m: WireMessage) -> None:
    """The checks that need only the metadata and the body length (§3, §4).

    It reads no body bytes: index values, indptr contents and canonical
    order are checked by the tensor layer (_content).
    """
    if m.header == V.HEADER_TENSOR and m.tensor is not None:
        _validate_tensor(m.tensor, m.body_length)
    elif m.header == V.HEADER_SPARSE_TENSOR and m.sparse is not None:
        _validate_sparse(m.sparse, m.body_length)
    else:
        name = V.HEADER_NAMES.get(m.header, str(m.header))
        raise ArrowSparseError(f"a {name} message is not a tensor message")


def _mul(a: int, b: int, what: str) -> int:
    r = a * b
    if r > INT64_MAX:
        raise ArrowSparseError(f"{what}: {a} × {b} overflows int64")
    return r


def num_elements(sizes: list[int], what: str) -> int:
    if 0 in sizes:
        return 0
    n = 1
    for d in sizes:
        n *= d
        if n > INT64_MAX:
            raise ArrowSparseError(f"{what} of shape {sizes} has more than 2^63-1 elements")
    return n


def _validate_tensor(t: TensorMeta, body_len: int) -> None:
    sizes = [d.size for d in t.shape]
    w = width(t.value_type)
    n = num_elements(sizes, "Tensor")
    strides = t.strides or []
    if not strides:
        size = _mul(n, w, "Tensor data size")
        if size > body_len:
            raise ArrowSparseError(f"Tensor of {n} elements of {w} bytes needs {size} bytes "
                                   f"but bodyLength is {body_len}")
        return
    if len(strides) != len(sizes):
        raise ArrowSparseError(f"Tensor has {len(strides)} strides for {len(sizes)} dimensions")
    if n == 0:
        return  # a zero-size tensor addresses nothing
    last = 0
    for i, s in enumerate(strides):
        if sizes[i] <= 1:
            continue
        if s < 0:
            raise ArrowSparseError(f"Tensor stride {i} is negative ({s}); negative strides are "
                                   "not supported")
        last += (sizes[i] - 1) * s
        if last > INT64_MAX:
            raise ArrowSparseError(f"Tensor strides {strides} with shape {sizes} overflow int64")
    if last + w > body_len:
        raise ArrowSparseError(f"Tensor shape {sizes} with strides {strides} addresses bytes up "
                               f"to {last + w} but bodyLength is {body_len}")


def _in_body(b: Buf, extent: int, body_len: int, what: str) -> None:
    if b.offset < 0 or b.length < 0:
        raise ArrowSparseError(f"{what} {{offset {b.offset}, length {b.length}}} has a negative "
                               "offset or length")
    if b.offset + extent > body_len:
        raise ArrowSparseError(f"{what} {{offset {b.offset}, length {b.length}}} ends past the "
                               f"{body_len}-byte body")


def _need_bytes(b: Buf, count: int, w: int, what: str) -> None:
    need = _mul(count, w, what)
    if b.length < need:
        raise ArrowSparseError(f"{what} has {b.length} bytes, too few for {count} elements of "
                               f"{w} bytes")


def coo_strides(n: int, ndim: int, w: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Row- and column-major byte strides of an n × ndim coordinate matrix, as
    Arrow C++ computes them: both [w, w] when n or ndim is 0 (§3.1)."""
    if n == 0 or ndim == 0:
        return (w, w), (w, w)
    return (ndim * w, w), (w, n * w)


def _validate_sparse(st: SparseMeta, body_len: int) -> None:
    sizes = [d.size for d in st.shape]
    nnz = st.non_zero_length
    _in_body(st.data, st.data.length, body_len, "SparseTensor data buffer")
    if st.data.offset % 8:
        raise ArrowSparseError(f"SparseTensor data buffer offset {st.data.offset} is not a "
                               "multiple of 8")
    x = st.index
    ndim = len(sizes)
    if isinstance(x, COOIndex):
        check_index_fits(x.indices_type, max(nnz, ndim), "COO indicesType", "max(N, ndim)")
        w = width(x.indices_type)
        if x.indices_strides:
            if len(x.indices_strides) != 2:
                raise ArrowSparseError(f"COO indicesStrides has {len(x.indices_strides)} entries, "
                                       "want 2 (for the N × ndim coordinate matrix)")
            row, col = coo_strides(nnz, ndim, w)
            s = tuple(x.indices_strides)
            if s != row and s != col:
                raise ArrowSparseError(f"COO indicesStrides {list(s)} are neither row-major "
                                       f"{list(row)} nor column-major {list(col)} for a {nnz} × "
                                       f"{ndim} coordinate matrix of {w}-byte indices")
        _need_bytes(x.indices_buffer, _mul(nnz, ndim, "COO coordinate matrix"), w, "COO indicesBuffer")
        _in_body(x.indices_buffer, x.indices_buffer.length, body_len, "COO indicesBuffer")
    elif isinstance(x, CSXIndex):
        if ndim != 2:
            raise ArrowSparseError(f"a CSR/CSC index needs a 2-d shape, got {ndim} dimensions")
        nptr = sizes[x.axis] + 1
        check_index_fits(x.indptr_type, nptr, "CSX indptrType", "the indptr length")
        check_index_fits(x.indices_type, nnz, "CSX indicesType", "nnz")
        _need_bytes(x.indptr_buffer, nptr, width(x.indptr_type), "CSX indptrBuffer")
        _need_bytes(x.indices_buffer, nnz, width(x.indices_type), "CSX indicesBuffer")
        _in_body(x.indptr_buffer, x.indptr_buffer.length, body_len, "CSX indptrBuffer")
        _in_body(x.indices_buffer, x.indices_buffer.length, body_len, "CSX indicesBuffer")
    else:
        csf_counts(x, ndim, body_len)


def csf_counts(x: CSFIndex, ndim: int, body_len: int) -> tuple[list[int], list[int], str]:
    """Validates a CSF index against the body and returns the entry counts of
    its indptr and indices buffers and the length unit ("elements" or
    "bytes", §3.4)."""
    if ndim < 2:
        raise ArrowSparseError(f"a CSF index needs at least 2 dimensions, got {ndim}")
    if len(x.indptr_buffers) != ndim - 1 or len(x.indices_buffers) != ndim or len(x.axis_order) != ndim:
        raise ArrowSparseError(
            f"inconsistent CSF index: {len(x.indptr_buffers)} indptr buffers, "
            f"{len(x.indices_buffers)} indices buffers and {len(x.axis_order)} axisOrder entries "
            f"for {ndim} dimensions (want {ndim - 1}, {ndim}, {ndim})")
    check_permutation(x.axis_order, ndim, "CSF axisOrder")
    check_index_type(x.indptr_type, "CSF indptrType")
    check_index_type(x.indices_type, "CSF indicesType")
    wp, wi = width(x.indptr_type), width(x.indices_type)
    lp, li = x.indptr_buffers[0].length, x.indices_buffers[0].length
    if li >= 0 and lp == li + 1:
        unit = "elements"
    elif lp >= 0 and li >= 0 and lp % wp == 0 and li % wi == 0 and lp // wp == li // wi + 1:
        unit = "bytes"
    else:
        raise ArrowSparseError(
            f"CSF buffer lengths {lp} (indptr[0]) and {li} (indices[0]) are neither element "
            f"counts (want {lp} = {li}+1) nor byte sizes of {wp}- and {wi}-byte integers with one "
            "more indptr entry")

    def counts(bufs: list[Buf], w: int, what: str) -> list[int]:
        out = []
        for i, b in enumerate(bufs):
            if b.length < 0:
                raise ArrowSparseError(f"CSF {what}[{i}] has negative length {b.length}")
            if unit == "bytes":
                if b.length % w:
                    raise ArrowSparseError(f"CSF {what}[{i}] length {b.length} is not a multiple "
                                           f"of the {w}-byte width")
                out.append(b.length // w)
            else:
                out.append(b.length)
        return out

    ptr = counts(x.indptr_buffers, wp, "indptrBuffers")
    idx = counts(x.indices_buffers, wi, "indicesBuffers")
    for bufs, cs, w, dt, what in ((x.indptr_buffers, ptr, wp, x.indptr_type, "indptrBuffers"),
                                  (x.indices_buffers, idx, wi, x.indices_type, "indicesBuffers")):
        for i, (b, c) in enumerate(zip(bufs, cs)):
            _in_body(b, _mul(c, w, f"CSF {what}[{i}]"), body_len, f"CSF {what}[{i}]")
            # Arrow C++ checks each index tensor's length against the type.
            check_index_fits(dt, c, f"CSF {what}", "a level length")
    return ptr, idx, unit


def check_permutation(perm: list[int], n: int, what: str) -> None:
    if len(perm) != n:
        raise ArrowSparseError(f"{what} has {len(perm)} entries, want {n}")
    seen = [False] * n
    for i, p in enumerate(perm):
        if not 0 <= p < n:
            raise ArrowSparseError(f"{what} {list(perm)} is not a permutation of 0..{n - 1}: "
                                   f"entry {i} is {p}")
        if seen[p]:
            raise ArrowSparseError(f"{what} {list(perm)} is not a permutation of 0..{n - 1}: "
                                   f"{p} appears twice")
        seen[p] = True


# -- encoding --------------------------------------------------------------


class _Builder(flatbuffers.Builder):
    """A flatbuffers.Builder that lays objects out as the C++ FlatBufferBuilder.

    Two things differ from the stock Python builder, and both decide byte
    identity with Arrow C++ (§2.4):

    * a vtable is reused only if it is byte-for-byte equal to an earlier
      one, including the entry that holds the table's inline size (some
      releases of the Python runtime compare only the field entries);
    * an empty vector is not pre-aligned to its element alignment (C++
      PreAlign does nothing for zero bytes); only its length is aligned.

    The generated ``*Start``/``*Add*``/``*End`` functions drive it.
    """

    def __init__(self, initial_size: int = 1024) -> None:
        super().__init__(initial_size)
        self._cpp_vtables: dict[tuple[int, ...], int] = {}

    def StartVector(self, elemSize: int, numElems: int, alignment: int) -> int:  # noqa: N802, N803
        if elemSize * numElems != 0:
            return super().StartVector(elemSize, numElems, alignment)
        self.assertNotNested()
        self.nested = True
        self.vectorNumElems = numElems
        self.Prep(4, 0)  # room for the length, aligned as C++ PushElement aligns it
        return self.Offset()

    def WriteVtable(self) -> int:  # noqa: N802
        self.PrependSOffsetTRelative(0)
        object_offset = self.Offset()
        fields: list[int] = list(self.current_vtable)  # type: ignore[has-type]
        while fields and fields[-1] == 0:
            fields.pop()
        entries = [object_offset - f if f else 0 for f in fields]
        object_size = object_offset - self.objectEnd
        key = (2 * (len(entries) + 2), object_size, *entries)
        existing = self._cpp_vtables.get(key)
        if existing is None:
            for e in reversed(entries):
                self.PrependVOffsetT(e)
            self.PrependVOffsetT(object_size)
            self.PrependVOffsetT(key[0])
            vt_offset = self.Offset()
            self._cpp_vtables[key] = vt_offset
        else:
            vt_offset = existing
        pos = len(self.Bytes) - object_offset
        struct.pack_into("<i", self.Bytes, pos, vt_offset - object_offset)
        self.current_vtable = None
        return object_offset


def encode_metadata(m: WireMessage) -> bytes:
    """Returns the flatbuffer bytes of m, laid out as Arrow C++ writes them.

    Objects are created in the order of Arrow's writer (metadata_internal.cc)
    and fields are added in the order of the generated C++ CreateX helpers
    (§2.4): value type, then per dimension its name string and TensorDim,
    the TensorDim vector, then the strides (Tensor) or the index (COO: Int,
    strides, table; CSX: indptr Int, indices Int, table; CSF: indptr Int,
    indices Int, indicesBuffers, indptrBuffers, axisOrder, table), the
    header table, the custom_metadata entries if any (key, value, KeyValue,
    then their vector) and the Message table.
    """
    b = _Builder(512)
    if m.header == V.HEADER_TENSOR and m.tensor is not None:
        header = _encode_tensor(b, m.tensor)
    elif m.header == V.HEADER_SPARSE_TENSOR and m.sparse is not None:
        header = _encode_sparse(b, m.sparse)
    else:
        raise ArrowSparseError("only Tensor and SparseTensor messages can be written")
    custom = 0
    if m.custom_metadata:
        kvs = []
        for key, value in m.custom_metadata:
            k = b.CreateString(key)
            v = b.CreateString(value)
            fbKeyValue.Start(b)
            fbKeyValue.AddValue(b, v)
            fbKeyValue.AddKey(b, k)
            kvs.append(fbKeyValue.End(b))
        custom = _offset_vector(b, kvs)
    fbMessage.Start(b)
    fbMessage.AddBodyLength(b, m.body_length)
    if custom:
        fbMessage.AddCustomMetadata(b, custom)
    fbMessage.AddHeader(b, header)
    fbMessage.AddVersion(b, m.version)
    fbMessage.AddHeaderType(b, m.header)
    root = fbMessage.End(b)
    b.Finish(root)
    return bytes(b.Output())


def _offset_vector(b: _Builder, offs: list[int]) -> int:
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _int64_vector(b: _Builder, values: list[int]) -> int:
    b.StartVector(8, len(values), 8)
    for v in reversed(values):
        b.PrependInt64(v)
    return b.EndVector()


def _buffer_vector(b: _Builder, bufs: list[Buf]) -> int:
    b.StartVector(16, len(bufs), 8)
    for x in reversed(bufs):
        fbBuffer.CreateBuffer(b, x.offset, x.length)
    return b.EndVector()


def _value_type(b: _Builder, name: str) -> tuple[int, int]:
    if name in FLOAT_PRECISION:
        fbFloatingPoint.Start(b)
        fbFloatingPoint.AddPrecision(b, FLOAT_PRECISION[name])
        return V.TYPE_FLOATING_POINT, fbFloatingPoint.End(b)
    return V.TYPE_INT, _int_type(b, name)


def _int_type(b: _Builder, name: str) -> int:
    bits, signed = INT_PARAMS[name]
    fbInt.Start(b)
    fbInt.AddBitWidth(b, bits)
    fbInt.AddIsSigned(b, signed)
    return fbInt.End(b)


def _dims(b: _Builder, shape: list[Dim]) -> int:
    offs = []
    for d in shape:
        name = b.CreateString(d.name) if d.name is not None else 0
        fbTensorDim.Start(b)
        fbTensorDim.AddSize(b, d.size)
        if name:
            fbTensorDim.AddName(b, name)
        offs.append(fbTensorDim.End(b))
    return _offset_vector(b, offs)


def _encode_tensor(b: _Builder, t: TensorMeta) -> int:
    tag, typ = _value_type(b, t.value_type)
    shape = _dims(b, t.shape)
    strides = _int64_vector(b, t.strides) if t.strides is not None else 0
    fbTensor.Start(b)
    fbTensor.AddData(b, fbBuffer.CreateBuffer(b, t.data.offset, t.data.length))
    if strides:
        fbTensor.AddStrides(b, strides)
    fbTensor.AddShape(b, shape)
    fbTensor.AddType(b, typ)
    fbTensor.AddTypeType(b, tag)
    return fbTensor.End(b)


def _encode_sparse(b: _Builder, st: SparseMeta) -> int:
    tag, typ = _value_type(b, st.value_type)
    shape = _dims(b, st.shape)
    x = st.index
    if isinstance(x, COOIndex):
        kind = V.INDEX_COO
        it = _int_type(b, x.indices_type)
        strides = _int64_vector(b, x.indices_strides) if x.indices_strides is not None else 0
        fbCOO.Start(b)
        fbCOO.AddIndicesBuffer(b, fbBuffer.CreateBuffer(b, x.indices_buffer.offset, x.indices_buffer.length))
        if strides:
            fbCOO.AddIndicesStrides(b, strides)
        fbCOO.AddIndicesType(b, it)
        fbCOO.AddIsCanonical(b, x.is_canonical)
        index = fbCOO.End(b)
    elif isinstance(x, CSXIndex):
        kind = V.INDEX_CSX
        pt = _int_type(b, x.indptr_type)
        it = _int_type(b, x.indices_type)
        fbCSX.Start(b)
        fbCSX.AddIndicesBuffer(b, fbBuffer.CreateBuffer(b, x.indices_buffer.offset, x.indices_buffer.length))
        fbCSX.AddIndicesType(b, it)
        fbCSX.AddIndptrBuffer(b, fbBuffer.CreateBuffer(b, x.indptr_buffer.offset, x.indptr_buffer.length))
        fbCSX.AddIndptrType(b, pt)
        fbCSX.AddCompressedAxis(b, x.axis)
        index = fbCSX.End(b)
    else:
        kind = V.INDEX_CSF
        pt = _int_type(b, x.indptr_type)
        it = _int_type(b, x.indices_type)
        indices = _buffer_vector(b, x.indices_buffers)
        indptr = _buffer_vector(b, x.indptr_buffers)
        b.StartVector(4, len(x.axis_order), 4)
        for a in reversed(x.axis_order):
            b.PrependInt32(a)
        order = b.EndVector()
        fbCSF.Start(b)
        fbCSF.AddAxisOrder(b, order)
        fbCSF.AddIndicesBuffers(b, indices)
        fbCSF.AddIndicesType(b, it)
        fbCSF.AddIndptrBuffers(b, indptr)
        fbCSF.AddIndptrType(b, pt)
        index = fbCSF.End(b)
    fbSparseTensor.Start(b)
    fbSparseTensor.AddNonZeroLength(b, st.non_zero_length)
    fbSparseTensor.AddData(b, fbBuffer.CreateBuffer(b, st.data.offset, st.data.length))
    fbSparseTensor.AddSparseIndex(b, index)
    fbSparseTensor.AddShape(b, shape)
    fbSparseTensor.AddType(b, typ)
    fbSparseTensor.AddSparseIndexType(b, kind)
    fbSparseTensor.AddTypeType(b, tag)
    return fbSparseTensor.End(b)


def frame(meta: bytes, header: int) -> bytes:
    """The message prefix: marker, int32 M, metadata and its zero padding so
    that 8+M is a multiple of 8 (SparseTensor) or 64 (Tensor)."""
    align = TENSOR_ALIGNMENT if header == V.HEADER_TENSOR else SPARSE_ALIGNMENT
    total = (len(meta) + 8 + align - 1) // align * align
    if total - 8 > 2**31 - 1:
        raise ArrowSparseError(f"metadata of {len(meta)} bytes is too large for an IPC frame")
    return _U32.pack(CONTINUATION) + _I32.pack(total - 8) + meta + bytes(total - 8 - len(meta))
