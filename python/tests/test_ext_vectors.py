"""A column of sparse vectors from one scipy CSR matrix and back, without
copying the index and value arrays (SPARSE.md 3.1)."""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sps

import arrowsparse as asp
from arrowsparse._ext_rows import prim_view
from ext_helpers import roundtrip


def _matrix(n: int = 50, m: int = 40, dtype: str = "float64", seed: int = 0) -> sps.csr_array:
    rng = np.random.default_rng(seed)
    a = sps.random_array((n, m), density=0.2, format="csr", random_state=rng, dtype=np.float64)
    a.data[:] = rng.integers(1, 9, size=a.nnz)
    out = a.astype(dtype)
    out.sort_indices()
    return out


def _children(col: asp.SparseTensorArray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    st = col.storage
    il, vl = st.field("indices"), st.field("values")
    it = np.dtype(col.type.data_types["indices"]).newbyteorder("<")
    vt = np.dtype(col.type.data_types["values"]).newbyteorder("<")
    return (prim_view(il.values.values, it), prim_view(vl.values, vt),
            np.frombuffer(il.buffers()[1], dtype=np.int32), np.frombuffer(vl.buffers()[1], dtype=np.int32))


def test_zero_copy_both_ways() -> None:
    m = _matrix()
    col = asp.csr_to_vectors(m, dim_names=["feature"])
    t = col.type
    assert isinstance(t, asp.COOType) and t.shape == (40,) and t.canonical
    assert t.data_types == {"indices": "int32", "values": "float64"}
    idx, val, off_i, off_v = _children(col)
    assert np.shares_memory(idx, m.indices) and np.shares_memory(val, m.data)
    assert np.shares_memory(off_i, m.indptr)
    # both lists share one offsets buffer: the matrix's indptr
    assert col.storage.field("indices").buffers()[1].address == col.storage.field("values").buffers()[1].address
    for i in range(m.shape[0]):
        np.testing.assert_array_equal(col[i].to_numpy(), m[[i], :].toarray()[0])
    back = asp.vectors_to_csr(col)
    assert isinstance(back, sps.csr_array) and back.shape == m.shape
    assert np.shares_memory(back.indices, m.indices) and np.shares_memory(back.data, m.data)
    assert np.shares_memory(back.indptr, m.indptr)
    assert (back != m).nnz == 0 and back.has_canonical_format
    assert isinstance(col.to_csr_matrix(matrix=True), sps.csr_matrix)


def test_through_ipc_views_the_file() -> None:
    m = _matrix(30, 20, "float32", seed=3)
    col = asp.csr_to_vectors(m)
    for how in ("file", "stream", "parquet"):
        got = roundtrip(pa.table({"v": col}), how).column("v")
        back = asp.vectors_to_csr(got)
        assert (back != m).nnz == 0 and back.dtype == np.float32
    data = pa.BufferOutputStream()
    with pa.ipc.new_file(data, pa.schema([("v", col.type)])) as w:
        w.write_table(pa.table({"v": col}))
    buf = data.getvalue()
    back = asp.vectors_to_csr(pa.ipc.open_file(buf).read_all().column("v"))
    lo, hi = buf.address, buf.address + buf.size
    for a in (back.indices, back.data, back.indptr):
        assert lo <= a.ctypes.data < hi, "a view of the IPC buffer"


@pytest.mark.parametrize("it", ["int32", "int64", "uint32", "uint64", "int16"])
@pytest.mark.parametrize("pt", ["int32", "int64"])
def test_index_types(it: str, pt: str) -> None:
    m = _matrix(20, 30)
    m2 = sps.csr_array((m.data, m.indices.astype(it), m.indptr.astype(pt)), shape=m.shape)
    m2.indices = m.indices.astype(it)  # scipy may have cast: force the type
    m2.indptr = m.indptr.astype(pt)
    col = asp.csr_to_vectors(m2)
    want = "int64" if it == "uint64" else it  # uint64 is no Arrow index type: cast
    assert col.type.data_types["indices"] == want
    idx = _children(col)[0]
    assert np.shares_memory(idx, m2.indices) == (it != "uint64")
    assert col.type.large_lists == frozenset()  # List unless nnz needs LargeList
    back = asp.vectors_to_csr(col)
    assert (back != m).nnz == 0
    if it in ("int32", "int64"):
        assert np.shares_memory(back.indices, m2.indices)
    large = asp.csr_to_vectors(m2, large_lists=True)
    assert large.type.large_lists == frozenset({"indices", "values"})
    off = np.frombuffer(large.storage.field("values").buffers()[1], dtype=np.int64)
    assert np.shares_memory(off, m2.indptr) == (pt == "int64")
    assert (asp.vectors_to_csr(large) != m).nnz == 0


def test_nulls_slices_varying_sizes_and_checks() -> None:
    vecs = [sps.coo_array((np.array([1.0, 2.0]), (np.array([0, 3]),)), shape=(5,)), None,
            sps.coo_array((np.array([4.0]), (np.array([6]),)), shape=(7,)),
            sps.coo_array((0,))]
    col = asp.from_sparse(vecs, "coo", index_type="int32")
    assert col.type.shape == (None,)
    m = asp.vectors_to_csr(col)
    assert m.shape == (4, 7)
    np.testing.assert_array_equal(m.toarray(), [[1, 0, 0, 2, 0, 0, 0], [0] * 7, [0, 0, 0, 0, 0, 0, 4], [0] * 7])
    assert asp.vectors_to_csr(col, ncols=10).shape == (4, 10)
    with pytest.raises(asp.ArrowSparseError, match="smaller than"):
        asp.vectors_to_csr(col, ncols=3)
    sl = col.slice(2)
    ms = asp.vectors_to_csr(sl)
    np.testing.assert_array_equal(ms.toarray(), [[0, 0, 0, 0, 0, 0, 4], [0] * 7])
    # a null row holding entries is dropped (a copy)
    st = pa.array([{"indices": [[1]], "values": [5.0]}, {"indices": [[0]], "values": [1.0]}],
                  type=asp.COOType("float64", [3], index_type="int32").storage_type)
    st = pa.StructArray.from_arrays([st.field(0), st.field(1)], fields=list(st.type),
                                    mask=pa.array([True, False]))
    c = pa.ExtensionArray.from_storage(asp.COOType("float64", [3], index_type="int32"), st)
    np.testing.assert_array_equal(asp.vectors_to_csr(c).toarray(), [[0, 0, 0], [1, 0, 0]])
    # checks
    bad = pa.ExtensionArray.from_storage(asp.COOType("float64", [3], index_type="int32"),
                                         pa.array([{"indices": [[3]], "values": [1.0]}],
                                                  type=st.type))
    with pytest.raises(asp.ArrowSparseError, match=r"row 0: coordinate 0 is 3, outside \[0, 3\)"):
        asp.vectors_to_csr(bad)
    asp.vectors_to_csr(bad, trusted=True)  # O(nnz) checks skipped
    with pytest.raises(asp.ArrowSparseError, match="sparse vectors"):
        asp.vectors_to_csr(asp.from_sparse([np.eye(2)], "coo"))
    with pytest.raises(TypeError, match="tocsr"):
        asp.csr_to_vectors(sps.coo_array(np.eye(2)))  # type: ignore[arg-type]


def test_unsorted_rows_are_not_claimed_canonical() -> None:
    m = sps.csr_array((np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2])), shape=(1, 3))
    col = asp.csr_to_vectors(m)
    assert not col.type.canonical
    np.testing.assert_array_equal(col[0].to_numpy(), [2, 0, 1])
    with pytest.raises(asp.ArrowSparseError, match="strictly increasing"):
        asp.csr_to_vectors(m, canonical=True)
    assert (asp.vectors_to_csr(col) != m).nnz == 0


def test_million_vectors_zero_copy() -> None:
    """1M sparse vectors -> one CSR matrix: no copy of indices or values
    (the timings are printed by python/benchmarks/bench_vectors.py)."""
    n, ncols = 1_000_000, 1 << 20
    rng = np.random.default_rng(1)
    nnz_per = rng.integers(0, 8, size=n)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(nnz_per, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.sort(rng.integers(0, ncols, size=nnz).astype(np.int32))  # not per row sorted
    data = rng.random(nnz).astype(np.float32)
    m = sps.csr_array((data, indices, indptr), shape=(n, ncols), copy=False)
    t0 = time.perf_counter()
    col = asp.csr_to_vectors(m, canonical=False)
    t1 = time.perf_counter()
    back = asp.vectors_to_csr(col)
    t2 = time.perf_counter()
    assert np.shares_memory(back.indices, indices) and np.shares_memory(back.data, data)
    assert np.shares_memory(back.indptr, indptr)
    assert t1 - t0 < 5 and t2 - t1 < 5, (t1 - t0, t2 - t1)
