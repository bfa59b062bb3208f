"""from_sparse: inputs of every kind, explicit types, index and value type
choices and their errors, large lists."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sps
import sparse as pydata

import arrowsparse as asp
from ext_helpers import check_column, roundtrip

EYE = np.eye(3, 4)


def test_every_input_kind_in_one_column() -> None:
    objs = [sps.coo_array(EYE), sps.csr_matrix(EYE), sps.csc_array(EYE), sps.dok_array(EYE),
            sps.lil_matrix(EYE), pydata.COO.from_numpy(EYE), pydata.GCXS.from_numpy(EYE),
            pa.SparseCOOTensor.from_dense_numpy(EYE), pa.SparseCSRMatrix.from_dense_numpy(EYE),
            pa.SparseCSCMatrix.from_dense_numpy(EYE), pa.SparseCSFTensor.from_dense_numpy(EYE),
            pa.Tensor.from_numpy(EYE), EYE, None]
    for fmt in ("coo", "csr", "csc", "csf", "gcs"):
        col = asp.from_sparse(objs, fmt)
        assert col.type.fixed_shape == (3, 4) and col.null_count == 1
        check_column(col, [EYE] * 13 + [None], pydata_ok=fmt != "gcs")
    with pytest.raises(TypeError, match="cannot take a builtins.list"):
        asp.from_sparse([[1, 2]])


def test_explicit_type() -> None:
    t = asp.CSRType("float32", [3, None], index_type="uint8", indptr_type="int16", canonical=True,
                    dim_names=["r", "c"])
    col = asp.from_sparse([EYE, np.ones((3, 2))], type=t)
    assert col.type == t
    check_column(col, [EYE.astype(np.float32), np.ones((3, 2), np.float32)])
    with pytest.raises(asp.ArrowSparseError, match="shape \\[4, 4\\].*type's shape is \\[3, None\\]"):
        asp.from_sparse([np.eye(4)], type=t)
    with pytest.raises(TypeError, match="either type= or"):
        asp.from_sparse([EYE], type=t, value_type="float64")
    narrow = asp.COOType("float64", [3, 300], index_type="int8")
    with pytest.raises(asp.ArrowSparseError, match="index 299 does not fit int8"):
        asp.from_sparse([sps.coo_array(([1.0], ([0], [299])), shape=(3, 300))], type=narrow)
    claim = asp.COOType("float64", [2, 2], canonical=True)
    unsorted = sps.coo_array(([1.0, 2.0], ([1, 0], [0, 0])), shape=(2, 2))
    with pytest.raises(asp.ArrowSparseError, match="object 0 is not canonical"):
        asp.from_sparse([unsorted], type=claim)


def test_type_choices() -> None:
    col = asp.from_sparse([sps.csr_array(EYE), sps.csr_array(np.eye(5))], "csr")
    assert col.type.shape == (None, None) and col.type.data_types == {
        "pointers_to_1": "int32", "indices_1": "int32", "values": "float64"}
    col = asp.from_sparse([pydata.COO.from_numpy(EYE)], "coo")
    assert col.type.data_types["indices"] == "int64"
    col = asp.from_sparse([EYE.astype(np.int8), EYE.astype(np.uint8)], "coo", index_type="uint8")
    assert col.type.data_types == {"indices": "uint8", "values": "int16"}
    col = asp.from_sparse([EYE], "coo", value_type="float16")
    assert col.type.value_type == pa.float16()
    with pytest.raises(asp.ArrowSparseError, match="do not fit uint8"):
        asp.from_sparse([-EYE], "coo", value_type="uint8")
    with pytest.raises(asp.ArrowSparseError, match="non-integral"):
        asp.from_sparse([EYE / 2], "coo", value_type="int32")
    with pytest.raises(asp.ArrowSparseError, match="not allowed"):
        asp.from_sparse([EYE.astype(bool)], "coo")
    with pytest.raises(asp.ArrowSparseError, match="has 3 dimensions, want 2"):
        asp.from_sparse([EYE, np.ones((1, 1, 1))], "coo")
    with pytest.raises(asp.ArrowSparseError, match="unknown format"):
        asp.from_sparse([EYE], "bsr")
    # names from pyarrow objects when they agree
    t = pa.SparseCOOTensor.from_dense_numpy(EYE, dim_names=["r", "c"])
    assert asp.from_sparse([t, t], "csr").type.dim_names == ("r", "c")
    assert asp.from_sparse([t, EYE], "csr").type.dim_names is None
    # GCS takes the reduction of pydata GCXS rows
    g = pydata.GCXS.from_numpy(np.ones((2, 3, 4)), compressed_axes=(1,))
    col = asp.from_sparse([g, g], "gcs")
    assert (col.type.dimensions, col.type.partitioning) == ((1, 0, 2), 1)
    assert np.shares_memory(col[0].to_pydata().data, col[0].arrays()["values"])


def test_null_and_empty_columns() -> None:
    col = asp.from_sparse([None, None], "coo", ndim=2, value_type="int32")
    assert col.type.shape == (None, None) and col.null_count == 2
    check_column(col, [None, None])
    col = asp.from_sparse([], "csr", shape=[3, 3], value_type="float64")
    assert len(col) == 0 and col.type.fixed_shape == (3, 3)
    col.validate(full=True)
    assert roundtrip(pa.table({"t": col}), "parquet").column("t").type == col.type
    with pytest.raises(asp.ArrowSparseError, match="give value_type"):
        asp.from_sparse([None], "coo", ndim=1)
    with pytest.raises(asp.ArrowSparseError, match="no non-null object"):
        asp.from_sparse([None], "coo")


def test_large_lists() -> None:
    col = asp.from_sparse([EYE, None, EYE], "csf", large_lists=True)
    assert all(pa.types.is_large_list(f.type) for f in col.type.storage_type)
    check_column(roundtrip(pa.table({"t": col}), "file").column("t"), [EYE, None, EYE])
    col = asp.from_sparse([EYE], "coo", large_lists=["values"])
    assert col.type.large_lists == frozenset({"values"})
    assert not pa.types.is_large_list(col.type.storage_type.field("indices").type)
    check_column(col, [EYE])
    with pytest.raises(asp.ArrowSparseError, match="unknown arrays"):
        asp.COOType("float64", [2], large_lists=["pointers_to_1"])
