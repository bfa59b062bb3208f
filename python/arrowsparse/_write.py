"""Writing one Tensor or SparseTensor message, byte-identical to Arrow C++."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal, Optional, Union

import numpy as np
import pyarrow as pa

from . import _content as C
from . import _verify as V
from . import _wire as W
from ._errors import ArrowSparseError
from ._gcs import GCS_METADATA_KEY, GCSMetadata, encode_gcs
from ._read import Message, normalise_unit_strides
from ._types import VALUE_DTYPES, index_type_from_arg, index_type_of, value_type_of

IndexTypeArg = Union[str, np.dtype, type, pa.DataType, None]


@dataclass
class _Parts:
    """A tensor taken apart into the arrays of its message, in wire dtypes."""

    format: str
    value_type: str
    shape: tuple[int, ...]
    dim_names: Optional[tuple[str, ...]]
    values: np.ndarray  # dense: the N-d array; sparse: nnz values
    coords: Optional[np.ndarray] = None  # COO: n × ndim
    coords_order: Literal["C", "F"] = "C"
    is_canonical: bool = False
    axis: int = 0  # CSX: 0 CSR, 1 CSC
    indptr: list[np.ndarray] = field(default_factory=list)  # CSX: one; CSF: ndim-1
    indices: list[np.ndarray] = field(default_factory=list)  # CSX: one; CSF: ndim
    axis_order: tuple[int, ...] = ()
    csf_bytes: bool = False  # CSF index lengths in bytes instead of element counts
    custom_metadata: list[tuple[bytes, bytes]] = field(default_factory=list)


# -- taking objects apart ---------------------------------------------------


def _clean_names(names: Any, ndim: int) -> Optional[tuple[str, ...]]:
    if names is None:
        return None
    names = tuple(str(x) for x in names)
    if len(names) not in (0, ndim):
        raise ArrowSparseError(f"{len(names)} dim names for {ndim} dimensions")
    return names if any(names) else None


def _le(a: np.ndarray) -> np.ndarray:
    """a with little-endian elements (a copy only for big-endian data)."""
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and np.little_endian is False):
        return a.astype(a.dtype.newbyteorder("<"))
    return a


def _cast_index(a: np.ndarray, name: str, what: str) -> np.ndarray:
    """a converted to the index type name, refusing values it cannot hold."""
    dt = VALUE_DTYPES[name]
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise ArrowSparseError(f"{what}: {a.dtype} is not an integer type")
    if a.dtype == dt or a.dtype == dt.newbyteorder("="):
        return _le(a)
    src = np.iinfo(a.dtype)
    if a.size and (src.min < np.iinfo(dt).min or src.max > np.iinfo(dt).max):
        lo, hi = int(a.min()), int(a.max())
        if lo < np.iinfo(dt).min or hi > np.iinfo(dt).max:
            bad = lo if lo < np.iinfo(dt).min else hi
            raise ArrowSparseError(f"{what}: index {bad} does not fit index type {name}")
    return a.astype(dt)


def _index_name(a: np.ndarray, override: Optional[str], what: str) -> str:
    return override if override is not None else index_type_of(a.dtype, what)


def _dense_parts(arr: np.ndarray, names: Any) -> _Parts:
    vt = value_type_of(arr.dtype, "dense tensor")
    return _Parts("TENSOR", vt, tuple(int(d) for d in arr.shape), _clean_names(names, arr.ndim), _le(arr))


def _coo_parts(values: np.ndarray, coords: np.ndarray, shape: Sequence[int], names: Any,
               it: Optional[str], claim: Optional[bool], order: Literal["C", "F"] = "C") -> _Parts:
    values = np.asarray(values).reshape(-1)
    coords = np.asarray(coords)
    if coords.ndim != 2 or coords.shape[1] != len(shape):
        raise ArrowSparseError(f"COO coordinates of shape {coords.shape} for a {len(shape)}-d tensor")
    if coords.shape[0] != values.shape[0]:
        raise ArrowSparseError(f"COO: {coords.shape[0]} coordinates for {values.shape[0]} values")
    name = _index_name(coords, it, "COO coordinates")
    coords = _cast_index(coords, name, "COO coordinates")
    if claim is None:
        claim = C.coo_is_canonical(coords)
    return _Parts("COO", value_type_of(values.dtype), tuple(int(d) for d in shape),
                  _clean_names(names, len(shape)), _le(values), coords=coords, coords_order=order,
                  is_canonical=bool(claim))


def _csx_parts(axis: int, values: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
               shape: Sequence[int], names: Any, it: Optional[str], pt: Optional[str]) -> _Parts:
    fmt = "CSC" if axis else "CSR"
    values, indptr, indices = (np.asarray(values).reshape(-1), np.asarray(indptr).reshape(-1),
                               np.asarray(indices).reshape(-1))
    pname = _index_name(indptr, pt, f"{fmt} indptr")
    iname = _index_name(indices, it, f"{fmt} indices")
    return _Parts(fmt, value_type_of(values.dtype), tuple(int(d) for d in shape),
                  _clean_names(names, len(shape)), _le(values), axis=axis,
                  indptr=[_cast_index(indptr, pname, f"{fmt} indptr")],
                  indices=[_cast_index(indices, iname, f"{fmt} indices")])


def _csf_parts(values: np.ndarray, indptr: Sequence[np.ndarray], indices: Sequence[np.ndarray],
               shape: Sequence[int], axis_order: Sequence[int], names: Any, it: Optional[str],
               pt: Optional[str]) -> _Parts:
    values = np.asarray(values).reshape(-1)
    indptr = [np.asarray(p).reshape(-1) for p in indptr]
    indices = [np.asarray(i).reshape(-1) for i in indices]
    if not indptr or not indices:
        raise ArrowSparseError("a CSF tensor needs at least 2 dimensions")
    # One type per kind on the wire (the first level's, as Arrow C++ writes).
    pname = _index_name(indptr[0], pt, "CSF indptr")
    iname = _index_name(indices[0], it, "CSF indices")
    return _Parts("CSF", value_type_of(values.dtype), tuple(int(d) for d in shape),
                  _clean_names(names, len(shape)), _le(values),
                  indptr=[_cast_index(p, pname, f"CSF indptr {k}") for k, p in enumerate(indptr)],
                  indices=[_cast_index(i, iname, f"CSF indices {k}") for k, i in enumerate(indices)],
                  axis_order=tuple(int(a) for a in axis_order))


def _csf_axis_order(t: pa.SparseCSFTensor, data: np.ndarray, indptr: list[np.ndarray],
                    indices: list[np.ndarray]) -> tuple[int, ...]:
    """pyarrow does not expose a CSF tensor's axis order; find it by
    comparing t with the same buffers under each candidate order
    (SparseCSFIndex equality compares axis orders before any buffer). Arrow
    C++ calls any two tensors without elements equal, so for a shape with a
    zero-size dimension the first candidate, the stable argsort of the
    shape, is taken."""
    shape = tuple(t.shape)
    nd = len(shape)
    first = [tuple(int(a) for a in np.argsort(shape, kind="stable")),
             tuple(int(a) for a in np.argsort(shape)), tuple(range(nd))]
    rest = itertools.permutations(range(nd)) if nd <= 8 else iter(())
    seen = set()
    for order in itertools.chain(first, rest):
        if order in seen:
            continue
        seen.add(order)
        cand = pa.SparseCSFTensor.from_numpy(data, indptr, indices, shape=shape, axis_order=list(order))
        if t.equals(cand):
            return order
    raise ArrowSparseError("cannot determine the axis order of this pyarrow.SparseCSFTensor; "
                           "write a Message read with with_metadata=True instead")


def _type_module(obj: Any) -> str:
    return type(obj).__module__ or ""


def _parts_of(obj: Any, it: Optional[str], pt: Optional[str]) -> _Parts:
    if isinstance(obj, Message):
        return _parts_of_message(obj, it, pt)
    if isinstance(obj, np.ndarray):
        return _dense_parts(obj, None)
    if isinstance(obj, pa.Tensor):
        return _dense_parts(obj.to_numpy(), obj.dim_names)
    if isinstance(obj, pa.SparseCOOTensor):
        data, coords = obj.to_numpy()
        return _coo_parts(data, coords, obj.shape, obj.dim_names, it, obj.has_canonical_format)
    if isinstance(obj, (pa.SparseCSRMatrix, pa.SparseCSCMatrix)):
        data, indptr, indices = obj.to_numpy()
        return _csx_parts(int(isinstance(obj, pa.SparseCSCMatrix)), data, indptr, indices,
                          obj.shape, obj.dim_names, it, pt)
    if isinstance(obj, pa.SparseCSFTensor):
        data, indptr, indices = obj.to_numpy()
        order = _csf_axis_order(obj, data, indptr, indices)
        return _csf_parts(data, indptr, indices, obj.shape, order, obj.dim_names, it, pt)
    mod = _type_module(obj)
    if mod.startswith("scipy.sparse"):
        return _scipy_parts(obj, it, pt)
    if mod.startswith("sparse"):
        return _pydata_parts(obj, it)
    raise TypeError(f"cannot write a {type(obj).__module__}.{type(obj).__name__}: want a "
                    "pyarrow.Tensor, numpy.ndarray, pyarrow sparse tensor, scipy.sparse "
                    "COO/CSR/CSC matrix or array, pydata sparse.COO, or an arrowsparse.Message")


def _parts_of_message(m: Message, it: Optional[str], pt: Optional[str]) -> _Parts:
    t = m.tensor
    it = it or m.index_type
    pt = pt or m.indptr_type
    if m.format == "TENSOR":
        p = _dense_parts(t.to_numpy(), t.dim_names)
    elif m.format == "COO":
        data, coords = t.to_numpy()
        order: Literal["C", "F"] = "F" if m.coords_order == "F" else "C"
        p = _coo_parts(data, coords, t.shape, t.dim_names, it,
                       m.is_canonical if m.is_canonical is not None else t.has_canonical_format, order)
    elif m.format in ("CSR", "CSC"):
        data, indptr, indices = t.to_numpy()
        p = _csx_parts(int(m.format == "CSC"), data, indptr, indices, t.shape, t.dim_names, it, pt)
    elif m.format == "CSF":
        data, indptr, indices = t.to_numpy()
        axes = m.axis_order if m.axis_order is not None else _csf_axis_order(t, data, indptr, indices)
        p = _csf_parts(data, indptr, indices, t.shape, axes, t.dim_names, it, pt)
        p.csf_bytes = m.csf_lengths == "bytes"
    else:
        raise ArrowSparseError(f"unknown message format {m.format!r}")
    p.custom_metadata = [(bytes(k), bytes(v)) for k, v in m.custom_metadata]
    return p


def _scipy_parts(obj: Any, it: Optional[str], pt: Optional[str]) -> _Parts:
    fmt = getattr(obj, "format", None)
    if fmt == "coo":
        coords = getattr(obj, "coords", None)
        if coords is None:
            coords = (obj.row, obj.col)
        mat = np.stack([np.asarray(c) for c in coords], axis=1) if len(coords) else \
            np.empty((obj.nnz, 0), dtype=np.int64)
        return _coo_parts(obj.data, mat, obj.shape, None, it, None)
    if fmt in ("csr", "csc"):
        return _csx_parts(int(fmt == "csc"), obj.data, obj.indptr, obj.indices, obj.shape, None,
                          it, pt)
    raise TypeError(f"cannot write a scipy.sparse {fmt} matrix: convert it to COO, CSR or CSC "
                    "first (.tocoo(), .tocsr(), .tocsc())")


def _pydata_parts(obj: Any, it: Optional[str]) -> _Parts:
    import sparse  # pydata sparse; present since obj is one of its objects

    if not isinstance(obj, sparse.COO):
        raise TypeError(f"cannot write a {type(obj).__name__} from pydata sparse: convert it "
                        "to sparse.COO first")
    # coords is ndim × nnz; the message holds nnz × ndim, row-major as
    # pyarrow's from_pydata_sparse would make it.
    return _coo_parts(obj.data, np.ascontiguousarray(np.asarray(obj.coords).T), obj.shape, None, it, None)


# -- encoding --------------------------------------------------------------


def _dims(shape: tuple[int, ...], names: Optional[tuple[str, ...]]) -> list[W.Dim]:
    # Arrow C++ writes a name string for every dimension, "" when unnamed.
    return [W.Dim(int(d), (names[k] if names else "").encode("utf-8")) for k, d in enumerate(shape)]


def _flat(a: np.ndarray, order: Literal["C", "F"] = "C") -> np.ndarray:
    """The bytes of a in the given order, as a 1-d uint8 array (a view when
    a is already contiguous in that order)."""
    return np.ascontiguousarray(a.ravel(order=order)).view(np.uint8)


def _sparse_body(pieces: list[np.ndarray]) -> tuple[list[W.Buf], int]:
    bufs, off = [], 0
    for p in pieces:
        padded = (p.size + 7) // 8 * 8
        bufs.append(W.Buf(off, padded))
        off += padded
    return bufs, off


def _encode(p: _Parts) -> tuple[W.WireMessage, list[np.ndarray]]:
    """The metadata and body pieces of p's message; checks p as the reader
    would, so that everything written reads back."""
    shape = p.shape
    for k, d in enumerate(shape):
        if d < 0:
            raise ArrowSparseError(f"dimension {k} has negative size {d}")
    if p.format == "TENSOR":
        return _encode_dense(p)
    nnz = int(p.values.shape[0])
    dims = _dims(shape, p.dim_names)
    index: W.SparseIndex
    if p.format == "COO":
        assert p.coords is not None
        it = index_type_of(p.coords.dtype, "COO coordinates")
        n, ndim = p.coords.shape
        w = p.coords.dtype.itemsize
        row, col = W.coo_strides(n, ndim, w)
        strides = col if p.coords_order == "F" else row
        pieces = [_flat(p.coords, p.coords_order), _flat(p.values)]
        bufs, total = _sparse_body(pieces)
        index = W.COOIndex(it, list(strides), bufs[0], p.is_canonical)
        C.check_coo(shape, p.coords, it, p.is_canonical)
    elif p.format in ("CSR", "CSC"):
        if len(shape) != 2:
            raise ArrowSparseError(f"a {p.format} matrix has 2 dimensions, not {len(shape)}")
        indptr, indices = p.indptr[0], p.indices[0]
        pt = index_type_of(indptr.dtype, f"{p.format} indptr")
        it = index_type_of(indices.dtype, f"{p.format} indices")
        lanes = shape[p.axis]
        if indptr.shape[0] != lanes + 1:
            raise ArrowSparseError(f"{p.format} indptr has {indptr.shape[0]} entries for {lanes} "
                                   f"{'columns' if p.axis else 'rows'}, want {lanes + 1}")
        if indices.shape[0] != nnz:
            raise ArrowSparseError(f"{p.format}: {indices.shape[0]} indices for {nnz} values")
        pieces = [_flat(indptr), _flat(indices), _flat(p.values)]
        bufs, total = _sparse_body(pieces)
        index = W.CSXIndex(p.axis, pt, bufs[0], it, bufs[1])
        C.check_csx(p.axis, shape, indptr, indices, pt, it, nnz)
    else:
        nd = len(shape)
        if nd < 2:
            raise ArrowSparseError(f"a CSF tensor needs at least 2 dimensions, got {nd}")
        if len(p.indptr) != nd - 1 or len(p.indices) != nd:
            raise ArrowSparseError(f"CSF tensor with {len(p.indptr)} indptr and {len(p.indices)} "
                                   f"indices arrays for {nd} dimensions")
        W.check_permutation(list(p.axis_order), nd, "CSF axis order")
        pt = index_type_of(p.indptr[0].dtype, "CSF indptr")
        it = index_type_of(p.indices[0].dtype, "CSF indices")
        for lv in range(nd - 1):
            if p.indptr[lv].shape[0] != p.indices[lv].shape[0] + 1:
                raise ArrowSparseError(f"CSF indptr {lv} has {p.indptr[lv].shape[0]} entries for "
                                       f"{p.indices[lv].shape[0]} nodes")
        if p.indices[-1].shape[0] != nnz:
            raise ArrowSparseError(f"CSF: the last level has {p.indices[-1].shape[0]} nodes for "
                                   f"{nnz} values")
        pieces = [_flat(a) for a in p.indptr] + [_flat(a) for a in p.indices] + [_flat(p.values)]
        bufs, total = _sparse_body(pieces)
        # Arrow C++ records element counts as the lengths of the index
        # buffers; the offsets stay those of the padded byte layout. Byte
        # lengths are exact, not padded, so that the unit is recognisable
        # (as the Go writer's ByteLengths option writes them).
        def length(a: np.ndarray) -> int:
            return a.nbytes if p.csf_bytes else a.shape[0]

        ptr_bufs = [W.Buf(b.offset, length(a)) for b, a in zip(bufs[:nd - 1], p.indptr)]
        idx_bufs = [W.Buf(b.offset, length(a)) for b, a in zip(bufs[nd - 1:2 * nd - 1], p.indices)]
        index = W.CSFIndex(pt, ptr_bufs, it, idx_bufs, list(p.axis_order))
        C.check_csf(shape, p.axis_order, p.indptr, p.indices)
    st = W.SparseMeta(p.value_type, dims, nnz, index, bufs[-1])
    m = W.WireMessage(W.V5, V.HEADER_SPARSE_TENSOR, total, list(p.custom_metadata), sparse=st)
    W.validate(m)
    return m, pieces


def _encode_dense(p: _Parts) -> tuple[W.WireMessage, list[np.ndarray]]:
    arr = p.values
    shape = list(p.shape)
    w = arr.dtype.itemsize
    size = W.num_elements(shape, "Tensor")
    c_order, f_order, acc = [0] * len(shape), [0] * len(shape), 1
    for k in range(len(shape) - 1, -1, -1):
        c_order[k] = acc
        acc *= shape[k]
    acc = 1
    for k in range(len(shape)):
        f_order[k] = acc
        acc *= shape[k]
    # Element strides; None when a byte stride is not a multiple of the width.
    es: Optional[list[int]] = None
    if all(s % w == 0 for s in arr.strides):
        es = normalise_unit_strides(shape, [s // w for s in arr.strides])
    order: Literal["C", "F"] = "C"
    if size == 0:
        # Arrow C++'s rule for shapes without elements: every stride is one
        # element.
        strides, body = [1] * len(shape), np.empty(0, np.uint8)
    else:
        if es == c_order:
            strides, order = c_order, "C"
        elif es == f_order:
            strides, order = f_order, "F"
        elif arr.flags.c_contiguous:
            strides, order = c_order, "C"
        elif arr.flags.f_contiguous:
            strides, order = f_order, "F"
        else:
            # Not contiguous: a row-major copy, as Arrow C++ writes it (it
            # also drops the dim names there; like the Go writer, this one
            # keeps them).
            strides, order = c_order, "C"
        body = _flat(arr, order)
    t = W.TensorMeta(p.value_type, _dims(p.shape, p.dim_names), [s * w for s in strides],
                     W.Buf(0, body.size))
    m = W.WireMessage(W.V5, V.HEADER_TENSOR, body.size, list(p.custom_metadata), tensor=t)
    W.validate(m)
    return m, [body]


def _prepare(obj: Any, index_type: IndexTypeArg, indptr_type: IndexTypeArg,
             gcs: Optional[GCSMetadata]) -> tuple[bytes, list[np.ndarray], int, bool]:
    it = index_type_from_arg(index_type, "index_type") if index_type is not None else None
    pt = index_type_from_arg(indptr_type, "indptr_type") if indptr_type is not None else None
    p = _parts_of(obj, it, pt)
    if gcs is not None:
        if p.format not in ("CSR", "CSC"):
            raise ArrowSparseError(f"a GCS mapping travels in a CSR or CSC message, not {p.format}")
        rows, cols = gcs.reduced_shape()
        if (rows, cols) != p.shape:
            raise ArrowSparseError(f"GCS storage is {p.shape[0]}×{p.shape[1]}, but the reduced shape "
                                   f"of {list(gcs.shape)} under dimensions {list(gcs.dimensions)} and "
                                   f"partitioning {gcs.partitioning} is {rows}×{cols}")
        key = GCS_METADATA_KEY.encode()
        p.custom_metadata = [kv for kv in p.custom_metadata if kv[0] != key]
        p.custom_metadata.append((key, encode_gcs(gcs)))
    m, pieces = _encode(p)
    head = W.frame(W.encode_metadata(m), m.header)
    return head, pieces, m.body_length, m.header == V.HEADER_SPARSE_TENSOR


def _padding(n: int) -> bytes:
    return bytes(-n % 8)


def message_bytes(obj: Any, *, index_type: IndexTypeArg = None, indptr_type: IndexTypeArg = None,
                  gcs: Optional[GCSMetadata] = None) -> bytes:
    """Return the message ``write_message`` would write for obj.

    Parameters and exceptions are those of :func:`write_message`.
    """
    head, pieces, _, padded = _prepare(obj, index_type, indptr_type, gcs)
    parts: list[Any] = [head]
    for piece in pieces:
        parts.append(piece.data)
        if padded:  # sparse bodies pad every buffer to 8 bytes
            parts.append(_padding(piece.size))
    return b"".join(parts)  # the one copy of the body


def write_message(obj: Any, dest: Union[str, "os.PathLike[str]", BinaryIO], *,
                  index_type: IndexTypeArg = None, indptr_type: IndexTypeArg = None,
                  gcs: Optional[GCSMetadata] = None) -> int:
    """Write obj as one encapsulated Tensor or SparseTensor IPC message.

    For the same content the bytes are those Arrow C++'s ``WriteTensor`` /
    ``WriteSparseTensor`` write (and the Go library's writer): metadata
    version V5, metadata padded to 8 bytes (sparse) or 64 bytes (dense),
    every sparse body buffer padded to 8 bytes with its padded length in the
    metadata, CSF index buffer lengths given as element counts, COO
    coordinate strides always written, a name string for every dimension.

    Parameters
    ----------
    obj : pyarrow.Tensor, numpy.ndarray, pyarrow sparse tensor, scipy.sparse matrix/array, sparse.COO or Message
        A dense tensor (``pyarrow.Tensor`` or any numeric ``numpy.ndarray``),
        a ``pyarrow.SparseCOOTensor``, ``SparseCSRMatrix``,
        ``SparseCSCMatrix`` or ``SparseCSFTensor``, a scipy.sparse COO, CSR
        or CSC matrix or array, a pydata ``sparse.COO``, or a
        :class:`Message` from ``read_message(..., with_metadata=True)``,
        which is written with the layout it was read with (index types,
        coordinate order, canonical flag, CSF axis order, custom metadata).
        Dense tensors are written as they are when row- or column-major,
        as a row-major copy otherwise.
    dest : str, os.PathLike or binary file object
        Where to write; a path is created or truncated.
    index_type, indptr_type : str, numpy dtype or pyarrow.DataType, optional
        Integer types for the indices and the indptr arrays (e.g.
        ``"int32"``). By default the types of obj's own arrays (int64 for
        pyarrow's sparse tensors). uint64 is refused, as by Arrow C++.
    gcs : GCSMetadata, optional
        For a CSR/CSC matrix: write it as the storage of this GCS mapping
        (custom metadata key ``"arrowsparse.gcs"``).

    Returns
    -------
    int
        The number of bytes written.

    Raises
    ------
    ArrowSparseError
        If obj cannot be written as Arrow C++ would write it: an unsupported
        value or index type, an index type too narrow for the counts or the
        indices, an invalid index structure (indices out of range, indptr
        not monotone, a false canonical flag, ...), names that do not match
        the dimensions.
    TypeError
        If obj is of an unsupported type.
    OSError
        If dest cannot be written.
    """
    head, pieces, body_len, padded = _prepare(obj, index_type, indptr_type, gcs)
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "wb") as f:
            return _write_to(f, head, pieces, body_len, padded)
    return _write_to(dest, head, pieces, body_len, padded)


def _write_to(f: BinaryIO, head: bytes, pieces: list[np.ndarray], body_len: int, padded: bool) -> int:
    f.write(head)
    n = len(head)
    for piece in pieces:
        f.write(piece.data)
        n += piece.size
        if padded:
            pad = _padding(piece.size)
            f.write(pad)
            n += len(pad)
    assert n == len(head) + body_len
    return n


__all__ = ["message_bytes", "write_message"]
