"""The extension types themselves: the spec's worked examples byte for
byte, strict metadata and storage checks (also as pyarrow read errors),
row checks, registration, equality, pickling, reprs."""

from __future__ import annotations

import json
import pickle
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sps

import arrowsparse as asp
from conftest import REPO
from ext_helpers import ipc_file_bytes, ipc_stream_bytes, parquet_bytes, unregistered

F64, I32 = pa.float64(), pa.int32()


def np_buf(buf: pa.Buffer, dtype: str) -> list[Any]:
    return np.frombuffer(buf, dtype=dtype).tolist()


# -- the worked examples (SPARSE.md 4.1, 4.2) ---------------------------------------


def example_41() -> asp.SparseTensorArray:
    m = sps.coo_array((np.array([1.5, -7.0]), (np.array([0, 2]), np.array([1, 3]))), shape=(3, 4))
    return asp.from_sparse([m, None, sps.coo_array((3, 4))], "coo", index_type="int32")


def test_example_41_bytes() -> None:
    col = example_41()
    t = col.type
    assert t.extension_name == "arrowsparse.coo"
    assert t.extension_metadata == (b'{"format":"COO","shape":[3,4],"canonical":true,'
                                    b'"data_types":{"indices":"int32","values":"float64"}}')
    assert t.storage_type == pa.struct([("indices", pa.list_(pa.list_(I32, 2))),
                                        ("values", pa.list_(F64))])
    st = col.storage
    assert st.buffers()[0] is not None
    assert [st.is_valid()[i].as_py() for i in range(3)] == [True, False, True]
    ind, val = st.field("indices"), st.field("values")
    assert np_buf(ind.buffers()[1], "<i4")[:4] == [0, 2, 2, 2]
    assert np_buf(val.buffers()[1], "<i4")[:4] == [0, 2, 2, 2]
    # one offsets buffer for both lists
    assert ind.buffers()[1].address == val.buffers()[1].address
    assert np_buf(ind.values.values.buffers()[1], "<i4")[:4] == [0, 1, 2, 3]
    assert np_buf(val.values.buffers()[1], "<f8")[:2] == [1.5, -7.0]
    assert col[0].to_numpy().tolist() == [[0, 1.5, 0, 0], [0, 0, 0, 0], [0, 0, 0, -7]]
    assert col[1].to_numpy() is None and col[2].nnz == 0


def test_example_42_bytes() -> None:
    dense = np.array([[0, 0, 1, 0, 2], [3, 0, 0, 4, 0], [5, 0, 6, 7, 0], [0, 0, 0, 8, 9]], dtype=np.float64)
    col = asp.from_sparse([sps.csr_array(dense)], "csr", index_type="int32")
    assert col.type.extension_metadata == (
        b'{"format":"CSR","shape":[4,5],"canonical":true,"data_types":'
        b'{"pointers_to_1":"int32","indices_1":"int32","values":"float64"}}')
    a = col[0].arrays()
    assert a["pointers_to_1"].tolist() == [0, 2, 4, 7, 9]
    assert a["indices_1"].tolist() == [2, 4, 0, 3, 0, 2, 3, 3, 4]
    assert a["values"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_example_44_gcs() -> None:
    """Peterson's (2, 3, 4) example with dimensions [2, 1, 0], partitioning 1."""
    # Build the tensor whose 4 x 6 reduction is the CSR of 4.4.
    ptr = [0, 2, 4, 6, 9]
    idx = [1, 5, 0, 4, 0, 5, 0, 1, 5]
    val = [5, 7, 1, 4, 2, 8, 3, 6, 9]
    dense = np.zeros((2, 3, 4))
    for r in range(4):
        for j in range(ptr[r], ptr[r + 1]):
            c = idx[j]  # column index linearises dims (1, 0) = (3, 2)
            d1, d0 = divmod(c, 2)
            dense[d0, d1, r] = val[j]
    col = asp.from_sparse([dense], "gcs", dimensions=[2, 1, 0], partitioning=1, index_type="int32")
    a = col[0].arrays()
    assert a["pointers_to_1"].tolist() == ptr
    assert a["indices_1"].tolist() == idx
    assert a["values"].tolist() == val
    np.testing.assert_array_equal(col[0].to_numpy(), dense)


def test_go_written_examples() -> None:
    files = sorted((REPO / "testdata" / "arrowext").glob("*.arrow"))
    if not files:
        pytest.skip("testdata/arrowext/*.arrow (written by the Go arrowext tests) not present yet")
    for f in files:
        table = pa.ipc.open_file(pa.memory_map(str(f))).read_all()
        for col in table.columns:
            if isinstance(col.type, asp.SparseTensorType):
                for c in col.chunks:
                    c.validate(full=True)
                    for i in range(len(c)):
                        c[i].to_numpy()


# -- strict metadata and storage ---------------------------------------------------------

COO_ST = pa.struct([("indices", pa.list_(pa.list_(I32, 2))), ("values", pa.list_(F64))])
COO_VAR = pa.struct([("shape", pa.list_(pa.int64(), 2)), ("indices", pa.list_(pa.list_(I32, 2))),
                     ("values", pa.list_(F64))])
CSR_ST = pa.struct([("pointers_to_1", pa.list_(I32)), ("indices_1", pa.list_(I32)),
                    ("values", pa.list_(F64))])
CSF_ST = pa.struct([("indices_0", pa.list_(I32)), ("pointers_to_1", pa.list_(I32)),
                    ("indices_1", pa.list_(I32)), ("values", pa.list_(F64))])
DT_COO = {"indices": "int32", "values": "float64"}
DT_CSR = {"pointers_to_1": "int32", "indices_1": "int32", "values": "float64"}
DT_CSF = {"indices_0": "int32", "pointers_to_1": "int32", "indices_1": "int32", "values": "float64"}


def md(**kw: Any) -> bytes:
    return json.dumps(kw).encode()


GOOD = [
    ("arrowsparse.coo", COO_ST, md(format="COO", shape=[3, 4], data_types=DT_COO)),
    ("arrowsparse.coo", COO_VAR, md(format="COO", ndim=2, data_types=DT_COO)),
    ("arrowsparse.coo", COO_VAR, md(format="COO", shape=[None, 4], data_types=DT_COO)),
    ("arrowsparse.coo", COO_VAR, md(format="COO", shape=[None, None], ndim=2, data_types=DT_COO)),
    ("arrowsparse.coo", COO_ST, md(data_types=DT_COO, format="COO", shape=[3, 4], canonical=False,
                                   dim_names=["i", "j"], binsparse={"version": "0.1"})),
    ("arrowsparse.csr", CSR_ST, md(format="CSR", shape=[3, 4], canonical=True, data_types=DT_CSR)),
    ("arrowsparse.csc", CSR_ST, md(format="CSC", shape=[3, 4], data_types=DT_CSR)),
    ("arrowsparse.csf", CSF_ST, md(format="CSF", shape=[3, 4], data_types=DT_CSF, axis_order=[1, 0])),
    ("arrowsparse.gcs", CSR_ST, md(format="GCS", shape=[3, 4], data_types=DT_CSR, dimensions=[1, 0],
                                   partitioning=2, compressed_axis="column")),
]


@pytest.mark.parametrize("name,storage,meta", GOOD)
def test_good_metadata(name: str, storage: pa.DataType, meta: bytes) -> None:
    t = asp.type_from_storage(name, storage, meta)
    assert t.extension_name == name
    again = asp.type_from_storage(name, storage, t.extension_metadata)
    assert again == t and hash(again) == hash(t)
    # the writer's key order
    keys = list(json.loads(t.extension_metadata))
    order = ["format", "shape", "ndim", "dim_names", "canonical", "data_types", "axis_order",
             "dimensions", "partitioning", "compressed_axis", "binsparse"]
    assert keys == sorted(keys, key=order.index)


BAD = [
    ("not JSON", COO_ST, b"{", "not JSON"),
    ("BOM", COO_ST, b"\xef\xbb\xbf" + md(format="COO", shape=[3, 4], data_types=DT_COO), "byte order mark"),
    ("not UTF-8", COO_ST, b'{"format":"\xff"}', "not UTF-8"),
    ("array", COO_ST, b"[]", "not a JSON object"),
    ("duplicate key", COO_ST, b'{"format":"COO","format":"COO","shape":[3,4],"data_types":'
     b'{"indices":"int32","values":"float64"}}', "duplicate key"),
    ("unknown key", COO_ST, md(format="COO", shape=[3, 4], data_types=DT_COO, extra=1), "unknown metadata key 'extra'"),
    ("other format's key", COO_ST, md(format="COO", shape=[3, 4], data_types=DT_COO, axis_order=[0, 1]), "belongs to another format"),
    ("no format", COO_ST, md(shape=[3, 4], data_types=DT_COO), "no \"format\""),
    ("wrong format", COO_ST, md(format="CSR", shape=[3, 4], data_types=DT_COO), "want \"COO\""),
    ("no data_types", COO_ST, md(format="COO", shape=[3, 4]), "no \"data_types\""),
    ("float shape", COO_ST, md(format="COO", shape=[3.0, 4], data_types=DT_COO), "not an integer"),
    ("string shape", COO_ST, md(format="COO", shape=["3", 4], data_types=DT_COO), "not an integer"),
    ("bool shape", COO_ST, md(format="COO", shape=[True, 4], data_types=DT_COO), "not an integer"),
    ("negative shape", COO_ST, md(format="COO", shape=[-3, 4], data_types=DT_COO), "not an integer in"),
    ("huge shape", COO_ST, md(format="COO", shape=[2**63, 4], data_types=DT_COO), "not an integer in"),
    ("shape not list", COO_ST, md(format="COO", shape=3, data_types=DT_COO), "not a list"),
    ("ndim disagrees", COO_ST, md(format="COO", shape=[3, 4], ndim=3, data_types=DT_COO), "disagrees"),
    ("no shape, no ndim", COO_VAR, md(format="COO", data_types=DT_COO), "neither"),
    ("dim_names length", COO_ST, md(format="COO", shape=[3, 4], dim_names=["a"], data_types=DT_COO), "1 dim_names"),
    ("dim_names type", COO_ST, md(format="COO", shape=[3, 4], dim_names=[1, 2], data_types=DT_COO), "list of strings"),
    ("canonical type", COO_ST, md(format="COO", shape=[3, 4], canonical=1, data_types=DT_COO), "not true or false"),
    ("data_types missing", COO_ST, md(format="COO", shape=[3, 4], data_types={"values": "float64"}), "missing"),
    ("data_types extra", COO_ST, md(format="COO", shape=[3, 4], data_types={**DT_COO, "shape": "int64"}), "unknown"),
    ("data_types bad name", COO_ST, md(format="COO", shape=[3, 4], data_types={"indices": "int", "values": "float64"}), "not a index type|not an index type"),
    ("data_types uint64 index", COO_ST, md(format="COO", shape=[3, 4], data_types={"indices": "uint64", "values": "float64"}), "uint64|index type"),
    ("data_types disagree", COO_ST, md(format="COO", shape=[3, 4], data_types={"indices": "int64", "values": "float64"}), "data_types says indices is int64"),
    ("NaN", COO_ST, b'{"format":"COO","shape":[NaN,4],"data_types":{}}', "NaN"),
    ("csf no axis_order", CSF_ST, md(format="CSF", shape=[3, 4], data_types=DT_CSF), "axis_order"),
    ("csf canonical", CSF_ST, md(format="CSF", shape=[3, 4], data_types=DT_CSF, axis_order=[0, 1], canonical=True), "canonical"),
    ("csf axis_order", CSF_ST, md(format="CSF", shape=[3, 4], data_types=DT_CSF, axis_order=[0, 0]), "not a permutation"),
    ("gcs no dimensions", CSR_ST, md(format="GCS", shape=[3, 4], data_types=DT_CSR, partitioning=1, compressed_axis="row"), "dimensions"),
    ("gcs partitioning", CSR_ST, md(format="GCS", shape=[3, 4], data_types=DT_CSR, dimensions=[0, 1], partitioning=3, compressed_axis="row"), "partitioning 3"),
    ("gcs compressed_axis", CSR_ST, md(format="GCS", shape=[3, 4], data_types=DT_CSR, dimensions=[0, 1], partitioning=1, compressed_axis="rows"), "compressed_axis"),
    ("gcs overflow", CSR_ST, md(format="GCS", shape=[2**40, 2**40], data_types=DT_CSR, dimensions=[0, 1], partitioning=0, compressed_axis="row"), "overflow"),
    ("binsparse", COO_ST, md(format="COO", shape=[3, 4], data_types=DT_COO, binsparse="0.1"), "binsparse"),
    ("csr ndim", CSR_ST, md(format="CSR", shape=[3, 4, 5], data_types=DT_CSR), "2 dimensions"),
    ("coo ndim 0", pa.struct([("indices", pa.list_(pa.list_(I32, 0))), ("values", pa.list_(F64))]),
     md(format="COO", shape=[], data_types=DT_COO), "ndim 0"),
    ("storage not struct", pa.list_(F64), md(format="COO", shape=[3, 4], data_types=DT_COO), "not a struct"),
    ("missing field", pa.struct([("values", pa.list_(F64))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "missing"),
    ("extra field", pa.struct([*COO_ST, ("more", pa.list_(F64))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "extra"),
    ("shape field when fixed", COO_VAR, md(format="COO", shape=[3, 4], data_types=DT_COO), "shape is fixed"),
    ("no shape field", COO_ST, md(format="COO", shape=[None, 4], data_types=DT_COO), "needs a shape field"),
    ("shape field type", pa.struct([("shape", pa.list_(I32, 2)), *COO_ST]), md(format="COO", ndim=2, data_types=DT_COO), "fixed_size_list<int64>"),
    ("fsl size", pa.struct([("indices", pa.list_(pa.list_(I32, 3))), ("values", pa.list_(F64))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "fixed_size_list<I>\\[2\\]"),
    ("not a list", pa.struct([("indices", pa.list_(pa.list_(I32, 2))), ("values", F64)]), md(format="COO", shape=[3, 4], data_types=DT_COO), "not a list"),
    ("bool values", pa.struct([("indices", pa.list_(pa.list_(I32, 2))), ("values", pa.list_(pa.bool_()))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "not a value type"),
    ("uint64 index storage", pa.struct([("indices", pa.list_(pa.list_(pa.uint64(), 2))), ("values", pa.list_(F64))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "not a index type|not an index type"),
    ("duplicate field", pa.struct([*COO_ST, ("values", pa.list_(F64))]), md(format="COO", shape=[3, 4], data_types=DT_COO), "two fields"),
]


@pytest.mark.parametrize("case,storage,meta,msg", BAD, ids=[b[0] for b in BAD])
def test_bad_metadata_or_storage(case: str, storage: pa.DataType, meta: bytes, msg: str) -> None:
    name = {"csf": "arrowsparse.csf", "gcs": "arrowsparse.gcs", "csr": "arrowsparse.csr"}.get(
        case.split()[0], "arrowsparse.coo")
    with pytest.raises(asp.ArrowSparseError, match=msg):
        asp.type_from_storage(name, storage, meta)


def _table_with(storage_type: pa.DataType, name: str, meta: bytes) -> pa.Table:
    arr = pa.array([None], type=storage_type)
    f = pa.field("t", storage_type, metadata={"ARROW:extension:name": name,
                                               "ARROW:extension:metadata": meta})
    return pa.Table.from_arrays([arr], schema=pa.schema([f]))


@pytest.mark.parametrize("how", ["file", "stream", "parquet"])
def test_bad_metadata_fails_the_read(how: str) -> None:
    """pyarrow passes the exception of __arrow_ext_deserialize__ through
    as the read's error, with its class."""
    table = _table_with(COO_ST, "arrowsparse.coo", md(format="COO", shape=[3, 4], data_types=DT_COO, x=1))
    with pytest.raises(asp.ArrowSparseError, match="unknown metadata key 'x'"):
        if how == "file":
            pa.ipc.open_file(ipc_file_bytes(table)).read_all()
        elif how == "stream":
            pa.ipc.open_stream(ipc_stream_bytes(table)).read_all()
        else:
            pq.read_table(pa.BufferReader(parquet_bytes(table)))
    # unregistered, the same bytes read as storage, and rewrap names the column
    with unregistered():
        if how == "parquet":
            got = pq.read_table(pa.BufferReader(parquet_bytes(table)))
        else:
            got = pa.ipc.open_stream(ipc_stream_bytes(table)).read_all()
    with pytest.raises(asp.ArrowSparseError, match="column 't'.*unknown metadata key"):
        asp.rewrap(got)


# -- row checks -----------------------------------------------------------------------------


def _coo_storage(rows: list[Any], shape_field: bool = False) -> pa.StructArray:
    t = COO_VAR if shape_field else COO_ST
    return pa.array(rows, type=t)


def _wrap(meta: bytes, storage: pa.Array, name: str = "arrowsparse.coo") -> Any:
    t = asp.type_from_storage(name, storage.type, meta)
    return pa.ExtensionArray.from_storage(t, storage)


def test_row_checks_coo() -> None:
    meta = md(format="COO", shape=[3, 4], canonical=True, data_types=DT_COO)
    good = {"indices": [[0, 1], [2, 3]], "values": [1.0, 2.0]}
    col = _wrap(meta, _coo_storage([good, {"indices": [[0, 4]], "values": [1.0]}]))
    with pytest.raises(asp.ArrowSparseError, match=r"arrowsparse.coo row 1: coordinate 1 of entry 0 is 4, outside \[0, 4\)"):
        col.validate(full=True)
    with pytest.raises(asp.ArrowSparseError, match="row 1: coordinate 1"):
        col[1].to_numpy()
    col[0].to_numpy()
    col.validate()  # not full: no index is read
    assert col[1].nnz == 1  # shape and nnz do not read the indices
    unsorted = _wrap(meta, _coo_storage([{"indices": [[2, 3], [0, 1]], "values": [1.0, 2.0]}]))
    with pytest.raises(asp.ArrowSparseError, match="row 0: the type claims canonical rows"):
        unsorted.validate(full=True)
    unsorted[0].to_numpy(trusted=True)  # the claim is not verified
    dup = _wrap(meta, _coo_storage([{"indices": [[0, 1], [0, 1]], "values": [1.0, 2.0]}]))
    with pytest.raises(asp.ArrowSparseError, match="canonical"):
        dup[0].to_scipy()
    # lengths that disagree are caught without reading the indices, even at wrap time
    with pytest.raises(asp.ArrowSparseError, match="row 0: indices has 2 entries but values has 1"):
        _wrap(meta, _coo_storage([{"indices": [[0, 1], [1, 1]], "values": [1.0]}]))
    # a null list in a non-null row
    with pytest.raises(asp.ArrowSparseError, match="row 0: list values is null"):
        _wrap(meta, _coo_storage([{"indices": [], "values": None}]))
    # nulls inside the values
    with pytest.raises(asp.ArrowSparseError, match="row 0: list values holds nulls"):
        _wrap(meta, _coo_storage([{"indices": [[0, 0]], "values": [None]}]))
    # null rows are ignored whatever they hold
    ok = _wrap(meta, pa.array([None, good], type=COO_ST))
    ok.validate(full=True)


def test_row_checks_varying_shape() -> None:
    meta = md(format="COO", shape=[None, 4], data_types=DT_COO)
    rows = [{"shape": [2, 4], "indices": [[1, 3]], "values": [1.0]},
            {"shape": [2, 5], "indices": [], "values": []}]
    with pytest.raises(asp.ArrowSparseError, match=r"row 1 shape \[2, 5\] disagrees"):
        _wrap(meta, _coo_storage(rows, True))
    rows[1]["shape"] = [-1, 4]
    with pytest.raises(asp.ArrowSparseError, match="negative"):
        _wrap(meta, _coo_storage(rows, True))
    rows[1]["shape"] = [0, 4]
    col = _wrap(meta, _coo_storage(rows, True))
    assert col[1].to_numpy().shape == (0, 4)
    rows[1]["indices"] = [[0, 0]]
    rows[1]["values"] = [1.0]
    col = _wrap(meta, _coo_storage(rows, True))
    with pytest.raises(asp.ArrowSparseError, match=r"row 1: coordinate 0 of entry 0 is 0, outside \[0, 0\)"):
        col.validate(full=True)


def test_row_checks_csr() -> None:
    meta = md(format="CSR", shape=[2, 3], canonical=True, data_types=DT_CSR)

    def col(ptr: list[int], idx: list[int]) -> Any:
        st = pa.array([{"pointers_to_1": ptr, "indices_1": idx, "values": [1.0] * len(idx)}], type=CSR_ST)
        return _wrap(meta, st, "arrowsparse.csr")

    col([0, 1, 2], [0, 2]).validate(full=True)
    with pytest.raises(asp.ArrowSparseError, match="pointers_to_1 has 2 entries, want 3"):
        col([0, 2], [0, 2])
    with pytest.raises(asp.ArrowSparseError, match="pointers_to_1 starts at 1"):
        col([1, 1, 2], [0, 2])
    with pytest.raises(asp.ArrowSparseError, match="pointers_to_1 ends at 1"):
        col([0, 1, 1], [0, 2])
    bad = col([0, 2, 2], [0, 3])
    with pytest.raises(asp.ArrowSparseError, match=r"indices_1 entry 1 is 3, outside \[0, 3\)"):
        bad.validate(full=True)
    uns = col([0, 2, 2], [2, 0])
    with pytest.raises(asp.ArrowSparseError, match="not strictly increasing in row 0"):
        uns[0].to_scipy()
    meta_dec = md(format="CSR", shape=[3, 3], data_types=DT_CSR)
    st = pa.array([{"pointers_to_1": [0, 2, 1, 2], "indices_1": [0, 1], "values": [1.0, 2.0]}], type=CSR_ST)
    dec = _wrap(meta_dec, st, "arrowsparse.csr")
    with pytest.raises(asp.ArrowSparseError, match="pointers_to_1 decreases from 2 to 1"):
        dec.validate(full=True)


def test_row_checks_csf() -> None:
    meta = md(format="CSF", shape=[2, 3], data_types=DT_CSF, axis_order=[0, 1])

    def col(i0: list[int], p1: list[int], i1: list[int]) -> Any:
        st = pa.array([{"indices_0": i0, "pointers_to_1": p1, "indices_1": i1,
                        "values": [1.0] * len(i1)}], type=CSF_ST)
        return _wrap(meta, st, "arrowsparse.csf")

    assert col([0, 1], [0, 1, 3], [2, 0, 1])[0].to_numpy().tolist() == [[0, 0, 1], [1, 1, 0]]
    with pytest.raises(asp.ArrowSparseError, match="pointers_to_1 has 2 entries, want 3"):
        col([0, 1], [0, 3], [2, 0, 1])
    with pytest.raises(asp.ArrowSparseError, match="indices_0 is not strictly increasing"):
        col([1, 0], [0, 1, 3], [2, 0, 1]).validate(full=True)
    with pytest.raises(asp.ArrowSparseError, match="indices_1 is not strictly increasing within a node"):
        col([0, 1], [0, 1, 3], [2, 1, 0]).validate(full=True)
    with pytest.raises(asp.ArrowSparseError, match=r"indices_0 entry 1 is 2, outside \[0, 2\)"):
        col([0, 2], [0, 1, 3], [2, 0, 1]).validate(full=True)


# -- registration, equality, pickling, reprs -----------------------------------------------


def test_registration_is_idempotent() -> None:
    assert asp.register() == []  # done on import
    assert asp.register() == []
    try:
        assert sorted(asp.unregister()) == sorted(asp.EXTENSION_NAMES.values())
        assert asp.unregister() == []
        with pytest.raises(pa.ArrowKeyError):
            pa.unregister_extension_type("arrowsparse.coo")
    finally:
        assert len(asp.register()) == 5
    assert len(asp.register(replace=True)) == 5


def test_reading_depends_on_registration() -> None:
    table = pa.table({"t": example_41()})
    data = ipc_file_bytes(table)
    assert isinstance(pa.ipc.open_file(data).read_all().column("t").type, asp.COOType)
    with unregistered():
        got = pa.ipc.open_file(data).read_all()
        f = got.schema.field("t")
        assert not isinstance(f.type, pa.BaseExtensionType)
        assert f.metadata[b"ARROW:extension:name"] == b"arrowsparse.coo"
        wrapped = asp.rewrap(got)  # works unregistered too
    assert wrapped.column("t").type == table.column("t").type
    assert wrapped.schema.field("t").metadata is None


def test_equality_hash_pickle() -> None:
    a = asp.COOType("float64", [3, 4], index_type="int32")
    assert a == asp.COOType(np.float64, (3, 4), index_type=np.int32)
    assert a != asp.COOType("float64", [3, 4], index_type="int32", canonical=True)
    assert a != asp.COOType("float64", [3, 4], index_type="int32", dim_names=["i", "j"])
    assert a != asp.COOType("float64", [3, None], index_type="int32")
    assert a != asp.COOType("float64", [3, 4], index_type="int32", large_lists=True)
    assert a != asp.CSRType("float64", [3, 4], index_type="int32")
    assert a != asp.CSRType("float64", [3, 4]) and asp.CSRType("float64", [3, 4]) != asp.CSCType("float64", [3, 4])
    assert len({a, asp.COOType("float64", [3, 4], index_type="int32")}) == 1
    g = asp.GCSType("int8", [2, 3, 4], dimensions=[2, 1, 0], partitioning=1)
    assert g != asp.GCSType("int8", [2, 3, 4], dimensions=[2, 1, 0], partitioning=2)
    assert g != asp.GCSType("int8", [2, 3, 4], dimensions=[2, 1, 0], partitioning=1, compressed_axis="column")
    c = asp.CSFType("int8", [2, 3, 4], axis_order=[2, 0, 1])
    assert c != asp.CSFType("int8", [2, 3, 4])
    for t in (a, g, c, asp.CSCType("uint16", None, index_type="uint8", indptr_type="int16")):
        assert pickle.loads(pickle.dumps(t)) == t
        assert t.with_params() == t
    assert pickle.loads(pickle.dumps(example_41())).equals(example_41())
    assert a.with_params(canonical=True).canonical
    # pyarrow's own type equality goes through __eq__
    assert pa.list_(a) == pa.list_(asp.COOType("float64", [3, 4], index_type="int32"))
    assert pa.list_(a) != pa.list_(a.with_params(canonical=True))


def test_reprs() -> None:
    col = example_41()
    assert repr(col.type) == "COOType(double, shape=[3, 4], index_type=int32, canonical=True)"
    assert repr(col[0]) == "<arrowsparse.coo shape=(3, 4) nnz=2 double>"
    assert repr(col[1]) == "<arrowsparse.coo null>"
    assert repr(col) == ("<arrowsparse.coo array of 3 rows, 1 null: COOType(double, shape=[3, 4], "
                         "index_type=int32, canonical=True)>")
    assert "axis_order=[1, 0]" in repr(asp.CSFType("float32", [None, 3], axis_order=[1, 0]))
    g = asp.GCSType("float32", ndim=3, dimensions=[2, 1, 0])
    assert repr(g) == ("GCSType(float, ndim=3, index_type=int64, dimensions=[2, 1, 0], "
                       "partitioning=1, compressed_axis='row')")


def test_bad_parameters() -> None:
    with pytest.raises(asp.ArrowSparseError, match="uint64 is excluded"):
        asp.COOType("float64", [3], index_type="uint64")
    with pytest.raises(asp.ArrowSparseError, match="not allowed"):
        asp.COOType("bool", [3])
    with pytest.raises(asp.ArrowSparseError, match="give shape or ndim"):
        asp.COOType("float64")
    with pytest.raises(asp.ArrowSparseError, match="ndim 2 disagrees"):
        asp.CSRType("float64", [1, 2, 3])
    with pytest.raises(asp.ArrowSparseError, match="not a permutation"):
        asp.CSFType("float64", [2, 2], axis_order=[1, 1])
    with pytest.raises(TypeError):
        asp.COOType(object(), [2])  # type: ignore[arg-type]


def test_scalar_row_numbers_and_arrays() -> None:
    col = example_41()
    assert col[-1]._row_index == 2  # type: ignore[attr-defined]
    a = col[0].arrays()
    assert a is not None and a["indices"].shape == (2, 2) and not a["values"].flags.writeable
    assert col[1].arrays() is None and col[1].shape is None and col[1].nnz is None
    assert col[0].as_py() == {"indices": [[0, 1], [2, 3]], "values": [1.5, -7.0]}
    sl = col.slice(2)
    assert isinstance(sl, asp.SparseTensorArray) and sl[0].nnz == 0
    assert col.to_numpy(fill_null=-1)[1].tolist() == [[-1] * 4] * 3
    with pytest.raises(asp.ArrowSparseError, match="row 1 is null; pass fill_null"):
        col.to_numpy()
    with pytest.raises(asp.ArrowSparseError, match="always copies"):
        col.to_numpy(zero_copy_only=True)
