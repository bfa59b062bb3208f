"""Reading one Tensor or SparseTensor message into a pyarrow object."""

from __future__ import annotations

import mmap
import os
import sys
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union, overload

import numpy as np
import pyarrow as pa

from . import _content as C
from . import _wire as W
from ._errors import ArrowSparseError
from ._gcs import GCS_METADATA_KEY, GCSMetadata, decode_gcs
from ._types import VALUE_DTYPES, width

TensorLike = Union[pa.Tensor, pa.SparseCOOTensor, pa.SparseCSRMatrix, pa.SparseCSCMatrix,
                   pa.SparseCSFTensor]
Source = Union[bytes, bytearray, memoryview, pa.Buffer, str, "os.PathLike[str]", Any]

_LITTLE = sys.byteorder == "little"


@dataclass(frozen=True)
class Message:
    """A tensor message read with ``read_message(..., with_metadata=True)``.

    It holds the pyarrow tensor and what the message says about its layout,
    which the pyarrow object cannot carry (pyarrow's sparse tensors always
    have int64 indices and row-major coordinates, compute their own
    canonical flag and do not expose a CSF axis order). ``write_message``
    accepts a Message and writes it back with that layout, so a message
    Arrow C++ wrote round-trips byte for byte. A Message can also be built
    by hand to write a layout of one's choice: ``write_message`` uses
    ``tensor``, ``format``, ``index_type``, ``indptr_type``,
    ``is_canonical``, ``coords_order``, ``axis_order``, ``csf_lengths``
    and ``custom_metadata``; the other fields describe what was read (it
    always writes metadata version V5 with the 8-byte prefix, as Arrow C++
    does).

    Attributes
    ----------
    tensor : pyarrow.Tensor or pyarrow.SparseCOOTensor or pyarrow.SparseCSRMatrix or pyarrow.SparseCSCMatrix or pyarrow.SparseCSFTensor
        The tensor, as ``read_message`` returns it. For a GCS message, the
        CSR or CSC storage matrix.
    format : str
        ``"TENSOR"`` (dense), ``"COO"``, ``"CSR"``, ``"CSC"`` or ``"CSF"``.
    value_type : str
        ``"int8"`` … ``"uint64"``, ``"float16"``, ``"float32"`` or ``"float64"``.
    shape : tuple of int
        The shape (of the storage matrix, for GCS).
    dim_names : tuple of str or None
        Dimension names; None when the message has none (Arrow C++ writes an
        empty name for every dimension of an unnamed tensor).
    index_type, indptr_type : str or None
        Integer types of the indices (COO coordinates, CSR/CSC indices, CSF
        indices) and of the indptr arrays (CSR/CSC/CSF) as written.
    nnz : int or None
        Number of stored values (sparse), duplicates included.
    is_canonical : bool or None
        The COO ``isCanonical`` flag as written (when true, the reader has
        checked that it holds).
    coords_order : {"C", "F"} or None
        Layout of the COO coordinate matrix: row-major ("C") or column-major
        ("F").
    indices_strides : tuple of int or None
        COO coordinate strides as written; None when the message has none.
    strides : tuple of int or None
        Dense byte strides as written; None when the message has none.
    axis_order : tuple of int or None
        The CSF axis order.
    csf_lengths : {"elements", "bytes"} or None
        How the CSF index buffer lengths were given: element counts (what
        Arrow C++ writes) or bytes (what the format documents and the Go
        writer's WithCSFLengths(ByteLengths) writes); write_message keeps
        the unit.
    gcs : GCSMetadata or None
        The N-d mapping of a GCS tensor (a CSR/CSC message carrying the
        ``"arrowsparse.gcs"`` custom metadata key).
    custom_metadata : tuple of (bytes, bytes)
        The message's custom_metadata entries, in order.
    version : int
        Metadata version, 4 or 5 (Arrow C++ writes 5).
    legacy : bool
        Whether the message used the pre-0.15 4-byte prefix.
    metadata_length, body_length, size : int
        Bytes of metadata (with padding), of body, and of the whole message.
    """

    tensor: TensorLike
    format: str
    value_type: str
    shape: tuple[int, ...]
    dim_names: Optional[tuple[str, ...]]
    index_type: Optional[str] = None
    indptr_type: Optional[str] = None
    nnz: Optional[int] = None
    is_canonical: Optional[bool] = None
    coords_order: Optional[str] = None
    indices_strides: Optional[tuple[int, ...]] = None
    strides: Optional[tuple[int, ...]] = None
    axis_order: Optional[tuple[int, ...]] = None
    csf_lengths: Optional[str] = None
    gcs: Optional[GCSMetadata] = None
    custom_metadata: tuple[tuple[bytes, bytes], ...] = ()
    version: int = 5
    legacy: bool = False
    metadata_length: int = 0
    body_length: int = 0
    size: int = 0


# -- input ---------------------------------------------------------------


def _source_bytes(source: Source) -> np.ndarray:
    """The input as a 1-d uint8 array, without copying where possible."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return np.empty(0, dtype=np.uint8)
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return np.frombuffer(mm, dtype=np.uint8)
    if isinstance(source, pa.Buffer):
        return np.frombuffer(source, dtype=np.uint8)
    if isinstance(source, pa.NativeFile):
        # A pyarrow file: zero-copy for memory maps and buffer readers.
        return np.frombuffer(source.read_buffer(), dtype=np.uint8)
    if hasattr(source, "read") and not isinstance(source, (bytes, bytearray, memoryview)):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("read_message: the file object must be opened in binary mode")
        return np.frombuffer(data, dtype=np.uint8)
    try:
        mv = memoryview(source)
    except TypeError:
        raise TypeError(f"read_message: cannot read a message from {type(source).__name__} "
                        "(want bytes, a buffer, pyarrow.Buffer, a path or a binary file)") from None
    if not mv.c_contiguous:
        raise TypeError("read_message: the buffer must be C-contiguous")
    return np.frombuffer(mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv, dtype=np.uint8)


def _aligned_body(data: np.ndarray, start: int, end: int) -> np.ndarray:
    """The body as a slice of data, or an aligned copy if its address is not
    a multiple of 8 (possible only with the legacy 4-byte prefix or an
    unaligned input buffer)."""
    body = data[start:end]
    if body.size and body.ctypes.data % 8:
        body = body.copy()  # numpy allocations are at least 16-byte aligned
    return body


def _view(body: np.ndarray, offset: int, count: int, type_name: str, what: str) -> np.ndarray:
    """count elements of a type at a body offset (bounds already checked)."""
    if count:
        C.check_alignment(offset, type_name, what)
    dt = VALUE_DTYPES[type_name]
    a = body[offset:offset + count * dt.itemsize].view(dt)
    return a if _LITTLE else a.astype(dt.newbyteorder("="))


def _names(shape: list[W.Dim]) -> Optional[tuple[str, ...]]:
    names = []
    for i, d in enumerate(shape):
        try:
            names.append((d.name or b"").decode("utf-8"))
        except UnicodeDecodeError:
            raise ArrowSparseError(f"dim name {i} is not valid UTF-8 ({d.name!r}); pyarrow holds "
                                   "names as str") from None
    return tuple(names) if any(names) else None


# -- reading ---------------------------------------------------------------


@overload
def read_message(source: Source, *, with_metadata: Literal[False] = ...,
                 max_metadata_size: int = ..., max_body_size: int = ...) -> TensorLike: ...


@overload
def read_message(source: Source, *, with_metadata: Literal[True],
                 max_metadata_size: int = ..., max_body_size: int = ...) -> Message: ...


def read_message(source: Source, *, with_metadata: bool = False,
                 max_metadata_size: int = W.DEFAULT_MAX_METADATA_SIZE,
                 max_body_size: int = W.DEFAULT_MAX_BODY_SIZE) -> Union[TensorLike, Message]:
    """Read one encapsulated Tensor or SparseTensor IPC message.

    The message is what Arrow C++'s ``WriteTensor`` / ``WriteSparseTensor``
    or the Go library write: continuation marker, metadata length,
    flatbuffer ``Message``, padding, body. Messages with metadata version V4
    or V5 and with the legacy 4-byte prefix are read too.

    Parameters
    ----------
    source : bytes, bytearray, memoryview, pyarrow.Buffer, pyarrow.NativeFile, str, os.PathLike or binary file
        The message. A path is memory-mapped; a buffer (anything with the
        buffer protocol) is used in place; a pyarrow file is read with
        ``read_buffer`` (in place for ``pa.memory_map`` and
        ``pa.BufferReader``); another file object is read to its end. The input must hold exactly one
        message: trailing bytes are an error.
    with_metadata : bool, default False
        Return a :class:`Message` (the tensor plus its wire layout and the
        GCS mapping, if any) instead of the tensor alone.
    max_metadata_size : int, default 64 MiB
        Largest metadata length accepted, checked before anything is read.
    max_body_size : int, default 64 GiB
        Largest body length accepted, checked before anything is read.

    Returns
    -------
    pyarrow.Tensor, pyarrow.SparseCOOTensor, pyarrow.SparseCSRMatrix, pyarrow.SparseCSCMatrix, pyarrow.SparseCSFTensor or Message
        The tensor. For a GCS message (CSR/CSC with the ``"arrowsparse.gcs"``
        custom metadata key) the storage matrix; its mapping is
        ``Message.gcs``.

    Raises
    ------
    ArrowSparseError
        For any defect of the message (see :class:`ArrowSparseError`):
        nothing is returned that the reader has not validated.
    TypeError
        If source is of an unsupported type.
    OSError
        If a path cannot be opened or mapped.
    MemoryError
        Only for a valid message whose index arrays pyarrow needs converted
        to int64 and that do not fit in memory (bad input cannot cause it:
        every size is checked against the bytes actually there).

    Notes
    -----
    The tensor's values are never copied: they are numpy views of the input,
    which stays alive (and must not be modified) as long as the tensor does.
    pyarrow does copy in three places, since its sparse constructors accept
    only C-contiguous int64 indices: index arrays of another integer type
    are converted to int64; column-major COO coordinates are made row-major;
    and the input's body is copied whole if its address is not 8-byte
    aligned (only with the legacy prefix or a misaligned buffer).
    """
    data = _source_bytes(source)
    f = W.parse_frame(data.data, max_metadata_size, max_body_size)
    m = f.message
    W.validate(m)
    body = _aligned_body(data, f.body_start, f.size)
    try:
        tensor, info = _decode(m, body)
    except ArrowSparseError:
        raise
    except (pa.ArrowException, ValueError, OverflowError) as err:
        raise ArrowSparseError(f"cannot build the tensor: {err}") from None
    if f.size != data.size:
        raise ArrowSparseError(f"{data.size - f.size} bytes follow the message; the input must "
                               "hold exactly one message")
    if not with_metadata:
        return tensor
    return Message(tensor=tensor, custom_metadata=tuple(m.custom_metadata), version=m.version + 1,
                   legacy=f.legacy, metadata_length=f.metadata_length, body_length=m.body_length,
                   size=f.size, **info)


def _decode(m: W.WireMessage, body: np.ndarray) -> tuple[TensorLike, dict[str, Any]]:
    if m.tensor is not None:
        return _decode_dense(m.tensor, body)
    assert m.sparse is not None
    st = m.sparse
    x = st.index
    if isinstance(x, W.COOIndex):
        return _decode_coo(st, x, body)
    if isinstance(x, W.CSXIndex):
        return _decode_csx(st, x, body, m.custom_metadata)
    return _decode_csf(st, x, body)


def normalise_unit_strides(shape: list[int], strides: list[int]) -> list[int]:
    """Element strides with unit (and, for empty tensors, all) axes given
    row-major-consistent values, unless they are exactly column-major: the
    rule of the Go views package, which decides how the tensor is written
    back."""
    out = list(strides)
    empty = 0 in shape
    if not empty:
        s = 1
        exact_f = True
        for k, n in enumerate(shape):
            if out[k] != s:
                exact_f = False
                break
            s *= n
        if exact_f:
            return out
    s = 1
    for k in range(len(shape) - 1, -1, -1):
        if empty:
            out[k] = s
            s *= max(shape[k], 1)
        elif shape[k] == 1:
            out[k] = s
        else:
            s = abs(out[k]) * shape[k]
    return out


def _decode_dense(t: W.TensorMeta, body: np.ndarray) -> tuple[pa.Tensor, dict[str, Any]]:
    sizes = [d.size for d in t.shape]
    w = width(t.value_type)
    n = W.num_elements(sizes, "Tensor")
    if n == 0:
        es = [0] * len(sizes)
    elif t.strides:
        for k, s in enumerate(t.strides):
            if s % w:
                raise ArrowSparseError(f"Tensor stride {s} of dimension {k} is not a multiple of "
                                       f"the {t.value_type} width {w}")
        es = [s // w for s in t.strides]
    else:
        es, acc = [0] * len(sizes), 1
        for k in range(len(sizes) - 1, -1, -1):
            es[k] = acc
            acc *= sizes[k]
    es = normalise_unit_strides(sizes, es)
    dt = VALUE_DTYPES[t.value_type]
    arr = np.ndarray(tuple(sizes), dtype=dt, buffer=body if n else np.empty(0, np.uint8),
                     offset=0, strides=tuple(e * w for e in es))
    if not _LITTLE:
        arr = arr.astype(dt.newbyteorder("="))
    names = _names(t.shape)
    tensor = pa.Tensor.from_numpy(arr, dim_names=list(names) if names else None)
    return tensor, dict(format="TENSOR", value_type=t.value_type, shape=tuple(sizes),
                        dim_names=names,
                        strides=tuple(t.strides) if t.strides is not None else None)


def _int64_rows(coords: np.ndarray) -> np.ndarray:
    """coords as the C-contiguous int64 matrix pyarrow wants. A matrix
    without elements gets the strides Arrow C++ expects for it ([8, 8]):
    pyarrow rejects numpy's own strides there."""
    n, ndim = coords.shape
    if n == 0 or ndim == 0:
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int64), shape=(n, ndim),
                                               strides=(8, 8), writeable=False)
    return np.ascontiguousarray(coords, dtype=np.int64)


def _decode_coo(st: W.SparseMeta, x: W.COOIndex, body: np.ndarray
                ) -> tuple[pa.SparseCOOTensor, dict[str, Any]]:
    shape = [d.size for d in st.shape]
    n, ndim = st.non_zero_length, len(shape)
    w = width(x.indices_type)
    order = "C"
    if x.indices_strides:
        row, col = W.coo_strides(n, ndim, w)
        if tuple(x.indices_strides) == col and col != row:
            order = "F"
    flat = _view(body, x.indices_buffer.offset, n * ndim, x.indices_type, "COO indicesBuffer")
    coords = flat.reshape(n, ndim) if order == "C" else flat.reshape(ndim, n).T
    values = _values(body, st, n, "COO")
    C.check_coo(shape, coords, x.indices_type, x.is_canonical)
    names = _names(st.shape)
    tensor = pa.SparseCOOTensor.from_numpy(values, _int64_rows(coords), shape=tuple(shape),
                                           dim_names=list(names) if names else None)
    return tensor, dict(format="COO", value_type=st.value_type, shape=tuple(shape),
                        dim_names=names, index_type=x.indices_type, nnz=n,
                        is_canonical=x.is_canonical, coords_order=order,
                        indices_strides=tuple(x.indices_strides) if x.indices_strides is not None else None)


def _values(body: np.ndarray, st: W.SparseMeta, nnz: int, fmt: str) -> np.ndarray:
    w = width(st.value_type)
    if st.data.length < nnz * w:
        raise ArrowSparseError(f"{fmt} data buffer has {st.data.length} bytes, too few for {nnz} "
                               f"{st.value_type} values")
    return _view(body, st.data.offset, nnz, st.value_type, f"{fmt} data buffer")


def _decode_csx(st: W.SparseMeta, x: W.CSXIndex, body: np.ndarray,
                custom: list[tuple[bytes, bytes]]) -> tuple[TensorLike, dict[str, Any]]:
    shape = [d.size for d in st.shape]
    fmt = "CSC" if x.axis else "CSR"
    nnz = st.non_zero_length
    major = shape[x.axis]
    indptr = _view(body, x.indptr_buffer.offset, major + 1, x.indptr_type, f"{fmt} indptrBuffer")
    indices = _view(body, x.indices_buffer.offset, nnz, x.indices_type, f"{fmt} indicesBuffer")
    values = _values(body, st, nnz, fmt)
    C.check_csx(x.axis, shape, indptr, indices, x.indptr_type, x.indices_type, nnz)
    gcs = None
    for key, value in custom:
        if key == GCS_METADATA_KEY.encode():
            gcs = decode_gcs(value, shape)
            break
    names = _names(st.shape)
    cls = pa.SparseCSCMatrix if x.axis else pa.SparseCSRMatrix
    tensor = cls.from_numpy(values, np.asarray(indptr, dtype=np.int64),
                            np.asarray(indices, dtype=np.int64), shape=tuple(shape),
                            dim_names=list(names) if names else None)
    return tensor, dict(format=fmt, value_type=st.value_type, shape=tuple(shape), dim_names=names,
                        index_type=x.indices_type, indptr_type=x.indptr_type, nnz=nnz, gcs=gcs)


def _decode_csf(st: W.SparseMeta, x: W.CSFIndex, body: np.ndarray
                ) -> tuple[pa.SparseCSFTensor, dict[str, Any]]:
    shape = [d.size for d in st.shape]
    nd = len(shape)
    ptr_counts, idx_counts, unit = W.csf_counts(x, nd, len(body))
    indptrs, indices = [], []
    for lv in range(nd):
        indices.append(_view(body, x.indices_buffers[lv].offset, idx_counts[lv], x.indices_type,
                             f"CSF indicesBuffers[{lv}]"))
        if lv < nd - 1:
            if ptr_counts[lv] != idx_counts[lv] + 1:
                raise ArrowSparseError(f"CSF indptr {lv} has {ptr_counts[lv]} entries for "
                                       f"{idx_counts[lv]} nodes, want {idx_counts[lv] + 1}")
            indptrs.append(_view(body, x.indptr_buffers[lv].offset, ptr_counts[lv], x.indptr_type,
                                 f"CSF indptrBuffers[{lv}]"))
    nnz = idx_counts[-1]
    if st.non_zero_length not in (0, nnz):
        raise ArrowSparseError(f"CSF non_zero_length is {st.non_zero_length} but the last level "
                               f"holds {nnz} values")
    values = _values(body, st, nnz, "CSF")
    C.check_csf(shape, x.axis_order, indptrs, indices)
    names = _names(st.shape)
    tensor = pa.SparseCSFTensor.from_numpy(
        values, [np.asarray(p, dtype=np.int64) for p in indptrs],
        [np.asarray(i, dtype=np.int64) for i in indices], shape=tuple(shape),
        axis_order=list(x.axis_order), dim_names=list(names) if names else None)
    return tensor, dict(format="CSF", value_type=st.value_type, shape=tuple(shape), dim_names=names,
                        index_type=x.indices_type, indptr_type=x.indptr_type, nnz=nnz,
                        axis_order=tuple(x.axis_order), csf_lengths=unit)


__all__ = ["Message", "TensorLike", "read_message"]
