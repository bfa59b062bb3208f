"""The public API: sources, limits, errors, writers of every input kind, GCS,
dense byte identity with pyarrow's own WriteTensor, the command line."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sps
import sparse as pydata

import arrowsparse as asp
from arrowsparse._describe import describe
from conftest import INTEROP, REPO, TESTDATA

GOLDEN = INTEROP / "golden"


def pyarrow_write_tensor(t: pa.Tensor) -> bytes:
    sink = pa.BufferOutputStream()
    pa.ipc.write_tensor(t, sink)
    return sink.getvalue().to_pybytes()


# -- reading ------------------------------------------------------------------


def test_message_fields() -> None:
    m = asp.read_message(GOLDEN / "coo.arrow", with_metadata=True)
    assert isinstance(m.tensor, pa.SparseCOOTensor)
    assert (m.format, m.value_type, m.index_type, m.indptr_type) == ("COO", "float32", "int64", None)
    assert (m.shape, m.dim_names, m.nnz, m.is_canonical) == ((2, 3), ("row", "col"), 3, True)
    assert (m.coords_order, m.indices_strides) == ("C", (16, 8))
    assert (m.version, m.legacy, m.metadata_length, m.body_length, m.size) == (5, False, 280, 64, 352)
    assert list(m.tensor.dim_names) == ["row", "col"]
    m = asp.read_message(GOLDEN / "csf.arrow", with_metadata=True)
    assert (m.axis_order, m.csf_lengths, m.indptr_type) == ((0, 2, 1), "elements", "int64")
    m = asp.read_message(GOLDEN / "tensor-colmajor.arrow", with_metadata=True)
    assert m.strides == (2, 4) and tuple(m.tensor.strides) == (2, 4)
    m = asp.read_message(INTEROP / "crafted" / "t_legacy.arrow", with_metadata=True)
    assert m.legacy
    m = asp.read_message(GOLDEN / "coo-colmajor.arrow", with_metadata=True)
    assert m.coords_order == "F" and m.indices_strides == (8, 24)


def test_default_returns_the_pyarrow_object() -> None:
    kinds = {"coo": pa.SparseCOOTensor, "csr": pa.SparseCSRMatrix, "csc": pa.SparseCSCMatrix,
             "csf": pa.SparseCSFTensor, "tensor": pa.Tensor}
    for name, cls in kinds.items():
        assert type(asp.read_message(GOLDEN / f"{name}.arrow")) is cls


def test_bad_sources() -> None:
    with pytest.raises(TypeError):
        asp.read_message(42)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        asp.read_message(REPO / "no-such-file.arrow")
    with pytest.raises(asp.ArrowSparseError, match="empty"):
        asp.read_message(b"")


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.arrow"
    p.write_bytes(b"")
    with pytest.raises(asp.ArrowSparseError, match="empty"):
        asp.read_message(p)


@pytest.mark.parametrize("name", ["coo", "csr", "csf", "tensor", "tensor-zero"])
def test_every_truncation_is_an_error(name: str) -> None:
    data = (GOLDEN / f"{name}.arrow").read_bytes()
    for n in range(len(data)):
        with pytest.raises(asp.ArrowSparseError):
            asp.read_message(data[:n])


def test_trailing_bytes_are_an_error() -> None:
    data = (GOLDEN / "csr.arrow").read_bytes()
    with pytest.raises(asp.ArrowSparseError, match="follow the message"):
        asp.read_message(data + data)
    with pytest.raises(asp.ArrowSparseError, match="follow the message"):
        asp.read_message(data + b"\xff\xff\xff\xff\x00\x00\x00\x00")


def test_limits() -> None:
    data = (GOLDEN / "coo.arrow").read_bytes()  # M = 280, body 64
    with pytest.raises(asp.ArrowSparseError, match="max_metadata_size"):
        asp.read_message(data, max_metadata_size=279)
    with pytest.raises(asp.ArrowSparseError, match="max_body_size"):
        asp.read_message(data, max_body_size=63)
    asp.read_message(data, max_metadata_size=280, max_body_size=64)


def test_huge_lengths_allocate_nothing() -> None:
    """A frame claiming 2 GiB of metadata, or a metadata claiming a huge
    body, fails against the bytes actually there before anything is
    allocated for it."""
    head = b"\xff\xff\xff\xff\xff\xff\xff\x7f" + bytes(64)
    data = bytearray((GOLDEN / "tensor.arrow").read_bytes())
    meta = bytes(data[8:8 + 184])
    i = meta.find((3).to_bytes(8, "little"))  # bodyLength 3
    assert i > 0
    data[8 + i:8 + i + 8] = (1 << 40).to_bytes(8, "little")
    tracemalloc.start()
    for bad in (head, bytes(data)):
        with pytest.raises(asp.ArrowSparseError):
            asp.read_message(bad, max_metadata_size=2**31)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20


def test_misaligned_buffer_is_copied() -> None:
    data = (GOLDEN / "coo.arrow").read_bytes()
    raw = bytearray(len(data) + 1)
    raw[1:] = data
    view = memoryview(raw)[1:]
    m = asp.read_message(view, with_metadata=True)
    assert asp.message_bytes(m) == data
    assert not np.shares_memory(m.tensor.to_numpy()[0], np.frombuffer(raw, np.uint8))


def test_invalid_utf8_dim_name() -> None:
    data = bytearray((GOLDEN / "coo.arrow").read_bytes())
    i = data.find(b"row")
    data[i:i + 3] = b"\xffow"
    with pytest.raises(asp.ArrowSparseError, match="UTF-8"):
        asp.read_message(bytes(data))


# -- writing ------------------------------------------------------------------

DENSE_CASES = {
    "c": np.arange(24, dtype=np.float64).reshape(2, 3, 4),
    "f": np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)),
    "strided": np.arange(40, dtype=np.int32).reshape(4, 10)[:, ::3],
    "transposed": np.arange(24, dtype=np.uint8).reshape(2, 3, 4).transpose(1, 2, 0),
    "0-d": np.array(7, dtype=np.int64),
    "1-d": np.arange(5, dtype=np.float32),
    "zero-size": np.zeros((2, 0, 3)),
    "unit dims": np.arange(6, dtype=np.uint32).reshape(3, 1, 2, 1),
    "unit dims sliced": np.arange(30, dtype=np.float64).reshape(3, 5, 2)[:, 1:2, :],
    "float16": np.arange(6, dtype=np.float16).reshape(2, 3),
    "uint64": np.array([[2**64 - 1, 0]], dtype=np.uint64),
    "big-endian": np.arange(6, dtype=">i4").reshape(2, 3),
    "row vector F": np.asfortranarray(np.arange(4.0).reshape(1, 4)),
}


@pytest.mark.parametrize("name", DENSE_CASES)
def test_dense_matches_pyarrow_write_tensor(name: str) -> None:
    arr = DENSE_CASES[name]
    native = arr.astype(arr.dtype.newbyteorder("=")) if arr.dtype.byteorder == ">" else arr
    want = pyarrow_write_tensor(pa.Tensor.from_numpy(native))
    assert asp.message_bytes(arr) == want
    assert asp.message_bytes(pa.Tensor.from_numpy(native)) == want
    back = asp.read_message(want)
    np.testing.assert_array_equal(back.to_numpy(), arr)


def test_dense_names() -> None:
    arr = np.arange(6, dtype=np.int8).reshape(2, 3)
    t = pa.Tensor.from_numpy(arr, dim_names=["a", "b"])
    assert asp.message_bytes(t) == pyarrow_write_tensor(t)
    assert asp.read_message(asp.message_bytes(t)).dim_names == ["a", "b"]
    # Non-contiguous: Arrow C++ drops the names (a bug); like the Go
    # writer, arrowsparse keeps them. The data and strides are the same.
    t = pa.Tensor.from_numpy(np.arange(12, dtype=np.int8).reshape(3, 4)[:, ::2], dim_names=["a", "b"])
    ours, theirs = asp.read_message(asp.message_bytes(t), with_metadata=True), asp.read_message(
        pyarrow_write_tensor(t), with_metadata=True)
    assert ours.dim_names == ("a", "b") and theirs.dim_names is None
    assert ours.strides == theirs.strides and ours.tensor.equals(theirs.tensor)


def test_write_destinations(tmp_path: Path) -> None:
    t = asp.read_message(GOLDEN / "csr.arrow")
    want = asp.message_bytes(t)  # int64 indices: the pyarrow object's (the file has int32)
    assert asp.write_message(t, tmp_path / "a.arrow") == len(want)
    assert asp.write_message(t, str(tmp_path / "b.arrow")) == len(want)
    with open(tmp_path / "c.arrow", "wb") as f:
        assert asp.write_message(t, f) == len(want)
    for n in "abc":
        assert (tmp_path / f"{n}.arrow").read_bytes() == want
        assert asp.read_message(tmp_path / f"{n}.arrow").equals(t)


def test_index_types() -> None:
    t = asp.read_message(GOLDEN / "coo.arrow")
    for it in ("int8", np.int16, np.dtype("uint32"), pa.int64(), "uint8"):
        m = asp.read_message(asp.message_bytes(t, index_type=it), with_metadata=True)
        assert m.index_type == np.dtype(it if not isinstance(it, pa.DataType) else "int64").name
        assert m.tensor.equals(t)
    with pytest.raises(asp.ArrowSparseError, match="uint64"):
        asp.message_bytes(t, index_type="uint64")
    with pytest.raises(asp.ArrowSparseError):
        asp.message_bytes(t, index_type="float32")
    big = pa.SparseCOOTensor.from_numpy(np.ones(2), np.array([[0, 0], [1, 299]]), shape=(2, 300))
    with pytest.raises(asp.ArrowSparseError, match="int8"):
        asp.message_bytes(big, index_type="int8")
    csr = asp.read_message(GOLDEN / "csr.arrow")
    m = asp.read_message(asp.message_bytes(csr, index_type="uint16", indptr_type="int8"), with_metadata=True)
    assert (m.index_type, m.indptr_type) == ("uint16", "int8") and m.tensor.equals(csr)


def test_invalid_structures_are_not_written() -> None:
    bad_ptr = pa.SparseCSRMatrix.from_numpy(np.ones(3), np.array([0, 3, 1]), np.array([0, 1, 2]), shape=(2, 3))
    with pytest.raises(asp.ArrowSparseError, match="indptr"):
        asp.message_bytes(bad_ptr)
    bad_idx = pa.SparseCSCMatrix.from_numpy(np.ones(3), np.array([0, 1, 2, 3]), np.array([0, 5, 1]), shape=(2, 3))
    with pytest.raises(asp.ArrowSparseError, match="outside"):
        asp.message_bytes(bad_idx)
    bad_coo = pa.SparseCOOTensor.from_numpy(np.ones(2), np.array([[0, 0], [2, 0]]), shape=(2, 3))
    with pytest.raises(asp.ArrowSparseError, match="outside"):
        asp.message_bytes(bad_coo)
    with pytest.raises(asp.ArrowSparseError):
        asp.message_bytes(np.zeros(3, dtype=bool))
    with pytest.raises(TypeError):
        asp.message_bytes([1, 2, 3])
    m = asp.read_message(GOLDEN / "coo-noncanon.arrow", with_metadata=True)
    with pytest.raises(asp.ArrowSparseError, match="canonical"):
        asp.message_bytes(dataclasses.replace(m, is_canonical=True))


def test_message_chooses_the_layout() -> None:
    """A Message built by hand writes column-major coordinates and a
    canonical flag of false, which pyarrow objects cannot express."""
    t = asp.read_message(GOLDEN / "coo.arrow")
    m = asp.Message(tensor=t, format="COO", value_type="float32", shape=t.shape, dim_names=None,
                    index_type="int64", coords_order="F", is_canonical=False)
    back = asp.read_message(asp.message_bytes(m), with_metadata=True)
    assert (back.coords_order, back.is_canonical, back.indices_strides) == ("F", False, (8, 24))
    assert back.tensor.equals(t)


def test_scipy_inputs() -> None:
    rng = np.random.default_rng(1)
    dense = rng.integers(-3, 3, size=(5, 7)) * (rng.random((5, 7)) < 0.4)
    for make in (sps.coo_array, sps.coo_matrix, sps.csr_array, sps.csr_matrix, sps.csc_array, sps.csc_matrix):
        obj = make(dense)
        m = asp.read_message(asp.message_bytes(obj), with_metadata=True)
        assert m.format == obj.format.upper()
        assert m.index_type == obj.indices.dtype.name if obj.format != "coo" else obj.row.dtype.name
        np.testing.assert_array_equal(m.tensor.to_tensor().to_numpy(), dense)
    with pytest.raises(TypeError, match="tocsr"):
        asp.message_bytes(sps.bsr_array(dense))


def test_pydata_input() -> None:
    rng = np.random.default_rng(2)
    dense = rng.integers(1, 9, size=(3, 4, 5)) * (rng.random((3, 4, 5)) < 0.3)
    s = pydata.COO.from_numpy(dense)
    ours = asp.message_bytes(s)
    assert ours == asp.message_bytes(pa.SparseCOOTensor.from_pydata_sparse(s))
    np.testing.assert_array_equal(asp.read_message(ours).to_tensor().to_numpy(), dense)


def test_csf_axis_order_is_recovered() -> None:
    """pyarrow does not expose a CSF tensor's axis order; the writer finds it."""
    dense = np.zeros((3, 2, 4), dtype=np.int32)
    dense[0, 1, 2], dense[2, 0, 3], dense[2, 1, 0] = 5, 7, 9
    t = pa.SparseCSFTensor.from_dense_numpy(dense)  # Arrow C++ picks ArgSort(shape): (1, 0, 2)
    m = asp.read_message(asp.message_bytes(t), with_metadata=True)
    assert m.axis_order == (1, 0, 2) and m.tensor.equals(t)
    for order in ([2, 1, 0], [0, 2, 1]):
        # The tree of dense.transpose(order), in its identity order, is the
        # tree of dense in axis order `order`.
        d = np.ascontiguousarray(dense.transpose(order))
        v = pa.SparseCSFTensor.from_numpy(*_csf_arrays(d), shape=d.shape, axis_order=[0, 1, 2])
        dv, pv, iv = v.to_numpy()
        w = pa.SparseCSFTensor.from_numpy(dv, pv, iv, shape=dense.shape, axis_order=order)
        got = asp.read_message(asp.message_bytes(w), with_metadata=True)
        assert list(got.axis_order) == order
        np.testing.assert_array_equal(got.tensor.to_tensor().to_numpy(), dense)


def _csf_arrays(d: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """The identity-order CSF tree of a 3-d array's non-zeros."""
    coords = np.argwhere(d)  # sorted row-major
    indices, indptr, starts = [], [], []
    for lv in range(3):
        new = np.ones(len(coords), dtype=bool)
        new[1:] = (coords[1:, :lv + 1] != coords[:-1, :lv + 1]).any(axis=1)
        starts.append(np.flatnonzero(new))
        indices.append(coords[starts[-1], lv])
    for lv in range(2):
        indptr.append(np.searchsorted(starts[lv + 1], np.append(starts[lv], len(coords))))
    return d[tuple(coords.T)], indptr, indices


# -- GCS ----------------------------------------------------------------------


def test_gcs_round_trip() -> None:
    storage = pa.SparseCSRMatrix.from_numpy(np.array([1.0, 2.0]), np.array([0, 1, 1, 2, 2]),
                                           np.array([3, 5]), shape=(4, 6))
    g = asp.GCSMetadata(shape=(2, 3, 4), dimensions=(2, 0, 1), partitioning=1, dim_names=("i", "j", "k"))
    m = asp.read_message(asp.message_bytes(storage, gcs=g), with_metadata=True)
    assert m.gcs == g and m.tensor.equals(storage)
    assert m.custom_metadata == ((b"arrowsparse.gcs", b'{"version":1,"shape":[2,3,4],"dimensions":[2,0,1],'
                                  b'"partitioning":[1],"dim_names":["i","j","k"]}'),)
    with pytest.raises(asp.ArrowSparseError, match="reduced shape"):
        asp.message_bytes(storage, gcs=asp.GCSMetadata((2, 3, 4), (0, 1, 2), 1))
    with pytest.raises(asp.ArrowSparseError, match="CSR or CSC"):
        asp.message_bytes(asp.read_message(GOLDEN / "coo.arrow"), gcs=g)
    with pytest.raises(asp.ArrowSparseError, match="permutation"):
        asp.message_bytes(storage, gcs=asp.GCSMetadata((2, 3, 4), (2, 2, 1), 1))


@pytest.mark.parametrize("value", [
    b"{bad", b"[]", b'{"version":2,"shape":[4,6],"dimensions":[0,1],"partitioning":[1]}',
    b'{"version":1,"shape":[4,6],"dimensions":[0,1],"partitioning":[1,1]}',
    b'{"version":1,"shape":[4,6],"dimensions":[1,0],"partitioning":[1]}',
    b'{"version":1,"shape":[4,6],"dimensions":[0,1],"partitioning":[1],"dim_names":["a"]}',
    b'{"version":1,"shape":[4,-6],"dimensions":[0,1],"partitioning":[1]}',
    b'{"version":1,"shape":[4,6],"dimensions":[0,1],"partitioning":[NaN]}',
    b'\xff',
])
def test_malformed_gcs_metadata(value: bytes) -> None:
    m = asp.read_message(TESTDATA / "go-gcs-csc.arrow", with_metadata=True)
    storage = pa.SparseCSRMatrix.from_numpy(np.array([1.0]), np.array([0, 1, 1, 1, 1]), np.array([2]),
                                            shape=(4, 6))
    bad = dataclasses.replace(m, tensor=storage, format="CSR", shape=(4, 6),
                              custom_metadata=((b"arrowsparse.gcs", value),))
    data = asp.message_bytes(bad)
    with pytest.raises(asp.ArrowSparseError):
        asp.read_message(data)
    ok = dataclasses.replace(bad, custom_metadata=((b"arrowsparse.gcs", b'{"version":1,"shape":[4,6],'
                                                    b'"dimensions":[0,1],"partitioning":[1]}'),))
    assert asp.read_message(asp.message_bytes(ok), with_metadata=True).gcs == asp.GCSMetadata((4, 6), (0, 1), 1)


# -- packaging and command line ------------------------------------------------


def test_import_without_scipy_or_sparse() -> None:
    code = (
        "import sys\n"
        "for name in ('scipy', 'sparse', 'torch'): sys.modules[name] = None\n"
        "import arrowsparse, numpy as np\n"
        f"t = arrowsparse.read_message({str(GOLDEN / 'csf.arrow')!r})\n"
        "assert arrowsparse.read_message(arrowsparse.message_bytes(t)).equals(t)\n"
        "assert arrowsparse.read_message(arrowsparse.message_bytes(np.eye(3))).shape == (3, 3)\n"
        "assert not any(m.split('.')[0] in ('scipy', 'sparse') for m in sys.modules if sys.modules[m])\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(REPO))


def test_installed_package_is_tested() -> None:
    assert "site-packages" in asp.__file__ or "dist-packages" in asp.__file__


def test_command_line(tmp_path: Path) -> None:
    path = GOLDEN / "csc.arrow"
    out = subprocess.run([sys.executable, "-m", "arrowsparse", "read-json", str(path)],
                         capture_output=True, check=True, cwd=str(tmp_path))
    assert json.loads(out.stdout) == describe(asp.read_message(path, with_metadata=True))
    bad = subprocess.run([sys.executable, "-m", "arrowsparse", "read-json",
                          str(INTEROP / "crafted" / "coo_neg_nnz.arrow")], capture_output=True, cwd=str(tmp_path))
    assert bad.returncode == 1 and "error" in json.loads(bad.stdout)


def test_bytes_io_source() -> None:
    data = (GOLDEN / "tensor.arrow").read_bytes()
    assert asp.read_message(io.BytesIO(data)).equals(asp.read_message(data))
