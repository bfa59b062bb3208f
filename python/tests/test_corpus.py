"""Every message Arrow C++ wrote (testdata/interop/golden and cpp-corpus)
reads with the content of its sidecar and writes back byte for byte."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import arrowsparse as asp
from arrowsparse._describe import describe
from conftest import TESTDATA, compare_with, corpus_files, peer_read_json

FILES = corpus_files()
IDS = [f"{p.parent.name}/{p.stem}" for p in FILES]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_content_matches_sidecar(path: Path) -> None:
    m = asp.read_message(path, with_metadata=True)
    expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert compare_with(expected, describe(m)) == []


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_writes_back_byte_identical(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    m = asp.read_message(data, with_metadata=True)
    assert asp.message_bytes(m) == data
    out = tmp_path / "out.arrow"
    assert asp.write_message(m, out) == len(data)
    assert out.read_bytes() == data
    f = io.BytesIO()
    assert asp.write_message(m, f) == len(data)
    assert f.getvalue() == data


def _pyarrow_can_hold(m: asp.Message) -> bool:
    """Whether the plain pyarrow object carries everything the message says:
    pyarrow's sparse tensors have int64 indices, row-major coordinates and
    their own canonical flag."""
    if m.format == "TENSOR":
        return True
    if m.index_type != "int64" or m.indptr_type not in (None, "int64"):
        return False
    if m.format == "COO":
        return m.coords_order == "C" and m.is_canonical == m.tensor.has_canonical_format
    return True


def test_plain_pyarrow_objects_write_back() -> None:
    """Where the pyarrow object holds the message's whole layout, writing the
    object itself (no Message) gives the same bytes; elsewhere the index
    types or flags are pyarrow's own."""
    same = 0
    for path in FILES:
        data = path.read_bytes()
        m = asp.read_message(data, with_metadata=True)
        if _pyarrow_can_hold(m):
            assert asp.message_bytes(m.tensor) == data, path.name
            same += 1
        else:
            # Still the same content, now in pyarrow's layout.
            again = asp.read_message(asp.message_bytes(m.tensor), with_metadata=True)
            assert again.tensor.equals(m.tensor) or m.tensor.size == 0
    assert same == 72  # with the seed-1 corpus


SOURCES = {
    "bytes": lambda p: p.read_bytes(),
    "bytearray": lambda p: bytearray(p.read_bytes()),
    "memoryview": lambda p: memoryview(p.read_bytes()),
    "pa.Buffer": lambda p: pa.py_buffer(p.read_bytes()),
    "path": lambda p: p,
    "str path": lambda p: str(p),
    "binary file": lambda p: p.open("rb"),
    "numpy": lambda p: np.frombuffer(p.read_bytes(), dtype=np.uint8),
    "pa.memory_map": lambda p: pa.memory_map(str(p)),
    "pa.BufferReader": lambda p: pa.BufferReader(p.read_bytes()),
}


@pytest.mark.parametrize("kind", SOURCES)
def test_every_source_kind(kind: str) -> None:
    for path in FILES[::7]:
        src = SOURCES[kind](path)
        try:
            m = asp.read_message(src, with_metadata=True)
        finally:
            if hasattr(src, "close"):
                src.close()
        assert asp.message_bytes(m) == path.read_bytes()


def _values_array(t: asp.TensorLike) -> np.ndarray:
    if isinstance(t, pa.Tensor):
        return t.to_numpy()
    return t.to_numpy()[0]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_zero_copy(path: Path) -> None:
    """Values are views of the input; so are int64 row-major indices."""
    buf = pa.py_buffer(path.read_bytes())
    whole = np.frombuffer(buf, dtype=np.uint8)
    m = asp.read_message(buf, with_metadata=True)
    values = _values_array(m.tensor)
    if values.size:
        assert np.shares_memory(values, whole)
    if m.format in ("CSR", "CSC", "CSF") and m.index_type == "int64" and m.nnz:
        _, indptr, indices = m.tensor.to_numpy()
        last = indices[-1] if m.format == "CSF" else indices
        assert np.shares_memory(last, whole)
    if m.format == "COO" and m.index_type == "int64" and m.coords_order == "C" and m.nnz and len(m.shape):
        assert np.shares_memory(m.tensor.to_numpy()[1], whole)


GO_FILES = sorted(TESTDATA.glob("go-*.arrow"))


@pytest.mark.parametrize("path", GO_FILES, ids=[p.stem for p in GO_FILES])
def test_go_written_messages(path: Path) -> None:
    """Messages the Go library wrote (gen_go_messages.go) read as Arrow C++
    reads them and write back byte for byte, GCS metadata included."""
    data = path.read_bytes()
    m = asp.read_message(data, with_metadata=True)
    if m.csf_lengths != "bytes":  # Arrow C++ 25 misreads CSF byte lengths (spec §3.4)
        assert compare_with(peer_read_json(path), describe(m)) == []
    assert asp.message_bytes(m) == data
    if m.gcs is not None:
        again = asp.message_bytes(m.tensor, gcs=m.gcs, index_type=m.index_type,
                                  indptr_type=m.indptr_type)
        assert again == data


def test_go_gcs_metadata() -> None:
    m = asp.read_message(TESTDATA / "go-gcs-3d.arrow", with_metadata=True)
    assert m.gcs == asp.GCSMetadata((2, 3, 4), (2, 0, 1), 1, ("a<b", "x&y", 'tab\there "q" é\u2028'))
    assert isinstance(m.tensor, pa.SparseCSRMatrix) and m.tensor.shape == (4, 6)
    m = asp.read_message(TESTDATA / "go-gcs-csc.arrow", with_metadata=True)
    assert m.gcs == asp.GCSMetadata((3, 2, 2), (0, 1, 2), 2, None)
    assert isinstance(m.tensor, pa.SparseCSCMatrix) and m.tensor.shape == (6, 2)
    assert len(GO_FILES) == 5
    m = asp.read_message(TESTDATA / "go-csf-bytes.arrow", with_metadata=True)
    assert m.csf_lengths == "bytes"
    assert m.tensor.equals(asp.read_message(TESTDATA / "go-csf-uint8.arrow"))
