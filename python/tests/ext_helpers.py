"""Helpers of the extension-type tests: random sparse tensors with dense
references, sources in every input kind, and the checks of a column
against its references."""

from __future__ import annotations

import io
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sps
import sparse as pydata

import arrowsparse as asp

FORMATS = ["coo", "csr", "csc", "csf", "gcs"]
INDEX_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
VALUE_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64"]
NDIM = {"coo": 3, "csr": 2, "csc": 2, "csf": 3, "gcs": 3}


def random_dense(rng: np.random.Generator, shape: tuple[int, ...], dtype: str,
                 density: float = 0.3) -> np.ndarray:
    """A dense tensor with about density non-zeros, values exact in every
    value type (small integers; halves for floats)."""
    dt = np.dtype(dtype)
    mask = rng.random(shape) < density
    if dt.kind == "u":
        vals = rng.integers(1, 10, size=shape)
    elif dt.kind == "i":
        vals = rng.integers(-9, 10, size=shape)
        vals[vals == 0] = 3
    else:
        vals = rng.integers(-40, 41, size=shape) / 2
        vals[vals == 0] = 0.5
    out = np.where(mask, vals, 0).astype(dt)
    return out


def source(dense: np.ndarray, fmt: str, kind: str) -> Any:
    """The dense tensor as an input object: kind is "scipy", "pydata",
    "pyarrow" or "numpy"."""
    if kind == "numpy":
        return dense
    if kind == "scipy" and dense.dtype == np.float16:
        kind = "pyarrow"  # scipy.sparse has no float16
    if kind == "scipy":
        assert dense.ndim == 2
        if fmt == "csc":
            return sps.csc_array(dense)
        if fmt == "csr":
            return sps.csr_array(dense)
        return sps.coo_array(dense)
    if kind == "pydata":
        coo = pydata.COO.from_numpy(dense)
        if fmt in ("csr", "csc", "gcs") and dense.ndim >= 2 and dense.dtype != np.float16:
            axes = (1,) if fmt == "csc" else (0,)
            return pydata.GCXS.from_coo(coo, compressed_axes=axes)
        return coo
    if kind == "pyarrow":
        if fmt == "csr" and dense.ndim == 2:
            return pa.SparseCSRMatrix.from_dense_numpy(dense)
        if fmt == "csc" and dense.ndim == 2:
            return pa.SparseCSCMatrix.from_dense_numpy(dense)
        if fmt == "csf" and dense.ndim >= 2:
            return pa.SparseCSFTensor.from_dense_numpy(dense)
        return pa.SparseCOOTensor.from_dense_numpy(dense)
    raise ValueError(kind)


def densify(obj: Any) -> np.ndarray:
    """Any conversion result as a dense numpy array."""
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, (pa.SparseCOOTensor, pa.SparseCSRMatrix, pa.SparseCSCMatrix,
                        pa.SparseCSFTensor)):
        return obj.to_tensor().to_numpy()
    if hasattr(obj, "todense") and type(obj).__module__.startswith("sparse"):
        return np.asarray(obj.todense())
    return np.asarray(obj.toarray())


def check_column(col: Any, refs: list[Optional[np.ndarray]], *, scipy_ok: bool = True,
                 pydata_ok: bool = True, pyarrow_ok: bool = True) -> None:
    """Every row of col equals its dense reference (None: null), through
    every conversion, value by value."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    assert isinstance(col, asp.SparseTensorArray), type(col)
    assert len(col) == len(refs)
    col.validate(full=True)
    for i, ref in enumerate(refs):
        s = col[i]
        if ref is None:
            assert not s.is_valid
            assert s.to_numpy() is None and s.to_scipy() is None and s.to_pydata() is None
            continue
        d = s.to_numpy()
        assert d.shape == ref.shape, (i, d.shape, ref.shape)
        assert d.dtype == ref.dtype, (d.dtype, ref.dtype)
        np.testing.assert_array_equal(d, ref, err_msg=f"row {i} to_numpy")
        assert s.shape == ref.shape
        if scipy_ok and ref.ndim in (1, 2):
            m = s.to_scipy()
            got = densify(m)
            np.testing.assert_array_equal(got.astype(ref.dtype), ref, err_msg=f"row {i} to_scipy")
        if pydata_ok:
            p = s.to_pydata()
            got = densify(p)
            np.testing.assert_array_equal(got.astype(ref.dtype), ref, err_msg=f"row {i} to_pydata")
        if pyarrow_ok and ref.dtype != np.float16:
            t = s.to_pyarrow()
            np.testing.assert_array_equal(densify(t), ref, err_msg=f"row {i} to_pyarrow")
            if ref.size:
                assert list(t.shape) == list(ref.shape)


def ipc_file_bytes(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


def ipc_stream_bytes(table: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


def parquet_bytes(table: pa.Table) -> bytes:
    b = io.BytesIO()
    pq.write_table(table, b)
    return b.getvalue()


def roundtrip(table: pa.Table, how: str) -> pa.Table:
    """Writes and reads a table through "file", "stream" or "parquet"."""
    if how == "file":
        return pa.ipc.open_file(ipc_file_bytes(table)).read_all()
    if how == "stream":
        return pa.ipc.open_stream(ipc_stream_bytes(table)).read_all()
    if how == "parquet":
        return pq.read_table(pa.BufferReader(parquet_bytes(table)))
    raise ValueError(how)


class unregistered:
    """A context in which the arrowsparse types are not registered."""

    def __enter__(self) -> "unregistered":
        asp.unregister()
        return self

    def __exit__(self, *exc: Any) -> None:
        asp.register()
