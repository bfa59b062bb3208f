"""Property tests: random tensors of every value and index type are written,
read back and also read by Arrow C++ (build/arrowpeer read-json), and both
readings must equal a description computed here, independently of the
package, from the data the test made. Also: corpora that the C++ peer
generates with other seeds read with the content of their sidecars."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sps
from hypothesis import given, settings
from hypothesis import strategies as st

import arrowsparse as asp
from arrowsparse._describe import describe
from conftest import PEER, compare_with, peer_read_json

VALUE_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64"]
INDEX_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
IMAX = {t: int(np.iinfo(t).max) for t in INDEX_TYPES}

# Counts of what the property tests ran, for the report at the end.
STATS: dict[str, int] = {"cases": 0, "peer": 0}


# -- an independent description of the data ----------------------------------


def random_values(rng: np.random.Generator, value_type: str, n: int) -> np.ndarray:
    dt = np.dtype(value_type)
    if dt.kind == "f":
        # Halves: sums of duplicates stay exact whatever the order.
        return (rng.integers(-64, 64, n) / 2).astype(dt)
    info = np.iinfo(dt)
    v = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dt)
    if n:
        v[rng.random(n) < 0.1] = info.max  # wrap-around sums, big int64/uint64
    return v


def json_number(v: Any) -> Any:
    return int(v) if isinstance(v, (int, np.integer)) else float(v)


def expected_doc(fmt: str, value_type: str, shape: tuple[int, ...], coords: list[tuple[int, ...]],
                 values: np.ndarray, index_type: str, indptr_type: Optional[str] = None,
                 is_canonical: Optional[bool] = None, axis_order: Optional[list[int]] = None,
                 dim_names: Optional[list[str]] = None) -> dict[str, Any]:
    """The sidecar-schema description of stored (coordinate, value) pairs:
    duplicates summed in the value type, in storage order."""
    sums: dict[tuple[int, ...], Any] = {}
    one = np.zeros(1, dtype=values.dtype)
    with np.errstate(over="ignore"):
        for c, v in zip(coords, values):
            if c in sums:
                acc = one.copy()
                acc[0] = sums[c]
                acc += v  # in the value type: integers wrap
                sums[c] = acc[0]
            else:
                sums[c] = v
    doc: dict[str, Any] = {"kind": "sparse", "format": fmt, "value_type": value_type,
                           "index_type": index_type, "shape": list(shape),
                           "dim_names": dim_names, "nnz": len(coords),
                           "entries": [list(c) + [json_number(sums[c])] for c in sorted(sums)]}
    if indptr_type is not None:
        doc["indptr_type"] = indptr_type
    if is_canonical is not None:
        doc["is_canonical"] = is_canonical
    if axis_order is not None:
        doc["axis_order"] = axis_order
    return doc


def check_everywhere(data: bytes, expected: dict[str, Any]) -> asp.Message:
    """data reads in Python and in Arrow C++ to the expected content, and a
    read-write round trip gives the same bytes."""
    m = asp.read_message(data, with_metadata=True)
    assert compare_with(expected, describe(m), strict=False) == []
    assert asp.message_bytes(m) == data
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.arrow"
        path.write_bytes(data)
        assert compare_with(expected, peer_read_json(path), strict=False) == []
    STATS["cases"] += 1
    STATS["peer"] += 1
    return m


def int64_coords(coords: np.ndarray) -> np.ndarray:
    """C-contiguous int64 coordinates as pyarrow accepts them (strides [8, 8]
    for a matrix without elements)."""
    n, nd = coords.shape
    if n == 0 or nd == 0:
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int64), (n, nd), (8, 8))
    return np.ascontiguousarray(coords, dtype=np.int64)


# -- 2-d matrices through scipy ----------------------------------------------


@settings(max_examples=200)
@given(fmt=st.sampled_from(["coo", "csr", "csc"]), value_type=st.sampled_from(VALUE_TYPES),
       index_type=st.sampled_from(INDEX_TYPES), indptr_type=st.sampled_from(INDEX_TYPES),
       rows=st.integers(0, 40), cols=st.integers(0, 40), nnz=st.integers(0, 120),
       duplicates=st.booleans(), via_scipy=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_matrices(fmt: str, value_type: str, index_type: str, indptr_type: str, rows: int,
                  cols: int, nnz: int, duplicates: bool, via_scipy: bool, seed: int) -> None:
    """2-d COO, CSR and CSC matrices, given as scipy arrays (which keep their
    int32 index arrays) or pyarrow objects (int64), written with every index
    type; CSR/CSC lanes hold unsorted and duplicate indices."""
    if value_type == "float16":
        via_scipy = False  # scipy.sparse has no float16
    rng = np.random.default_rng(seed)
    if rows * cols == 0:
        nnz = 0
    elif not duplicates:
        nnz = min(nnz, rows * cols)
    # Keep within what the index types hold (Arrow C++ rejects the rest).
    lanes = rows if fmt == "csr" else cols
    if fmt == "coo":
        nnz = min(nnz, IMAX[index_type])
        if nnz and max(rows, cols) - 1 > IMAX[index_type]:
            nnz = 0
    else:
        nnz = min(nnz, IMAX[index_type], IMAX[indptr_type])
        minor = cols if fmt == "csr" else rows
        if lanes + 1 > IMAX[indptr_type]:
            indptr_type = "int32"
        if nnz and minor - 1 > IMAX[index_type]:
            index_type = "int16"
    if duplicates:
        flat = rng.integers(0, max(rows * cols, 1), nnz)
    else:
        flat = rng.choice(rows * cols, nnz, replace=False) if nnz else np.empty(0, np.int64)
    r, c = (flat // cols if cols else flat), (flat % cols if cols else flat)
    values = random_values(rng, value_type, nnz)
    if fmt == "coo":
        coords = list(zip(r.tolist(), c.tolist()))
        if via_scipy:
            obj: Any = sps.coo_array((values, (r.astype(np.int32), c.astype(np.int32))), shape=(rows, cols))
        else:
            obj = pa.SparseCOOTensor.from_numpy(values, int64_coords(np.stack([r, c], axis=1)),
                                                shape=(rows, cols))
        canonical = all(a < b for a, b in zip(coords, coords[1:]))
        data = asp.message_bytes(obj, index_type=index_type)
        expected = expected_doc("COO", value_type, (rows, cols), coords, values, index_type,
                                is_canonical=canonical)
    else:
        major, minor_idx = (r, c) if fmt == "csr" else (c, r)
        order = np.argsort(major, kind="stable")  # storage by lane, unsorted within a lane
        indptr = np.zeros(lanes + 1, dtype=np.int64)
        np.add.at(indptr, major + 1, 1)
        indptr = np.cumsum(indptr)
        vals, idx = values[order], minor_idx[order]
        if via_scipy:
            make = sps.csr_array if fmt == "csr" else sps.csc_array
            obj = make((vals, idx.astype(np.int32), indptr.astype(np.int32)), shape=(rows, cols))
        else:
            cls = pa.SparseCSRMatrix if fmt == "csr" else pa.SparseCSCMatrix
            obj = cls.from_numpy(vals, indptr, idx, shape=(rows, cols))
        lane_of = np.repeat(np.arange(lanes), np.diff(indptr))
        pairs = zip(lane_of.tolist(), idx.tolist())
        coords = [(a, b) if fmt == "csr" else (b, a) for a, b in pairs]
        data = asp.message_bytes(obj, index_type=index_type, indptr_type=indptr_type)
        expected = expected_doc(fmt.upper(), value_type, (rows, cols), coords, vals,
                                index_type, indptr_type=indptr_type)
    m = check_everywhere(data, expected)
    assert m.index_type == index_type


# -- N-d COO -----------------------------------------------------------------


@settings(max_examples=200)
@given(value_type=st.sampled_from(VALUE_TYPES), index_type=st.sampled_from(INDEX_TYPES),
       shape=st.lists(st.integers(0, 5), min_size=0, max_size=5), nnz=st.integers(0, 30),
       duplicates=st.booleans(), sort=st.booleans(), order=st.sampled_from(["C", "F"]),
       claim=st.booleans(), named=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_nd_coo(value_type: str, index_type: str, shape: list[int], nnz: int, duplicates: bool,
                sort: bool, order: str, claim: bool, named: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape)) if shape else 1
    if size == 0:
        nnz = 0
    elif not duplicates:
        nnz = min(nnz, size)
    flat = rng.integers(0, size, nnz) if duplicates else rng.choice(size, nnz, replace=False)
    if sort:
        flat = np.sort(flat)
    if shape:
        coords = np.array(np.unravel_index(flat, shape), dtype=np.int64).T.reshape(nnz, len(shape))
    else:
        coords = np.zeros((nnz, 0), dtype=np.int64)  # every entry at the scalar's one position
    values = random_values(rng, value_type, nnz)
    tuples = [tuple(int(x) for x in row) for row in coords]
    canonical = all(a < b for a, b in zip(tuples, tuples[1:])) and not (len(shape) == 0 and nnz > 1)
    names = ["d%dé" % k if k % 2 == 0 else "" for k in range(len(shape))] if named and shape else None
    t = pa.SparseCOOTensor.from_numpy(values, int64_coords(coords), shape=tuple(shape), dim_names=names)
    m = asp.Message(tensor=t, format="COO", value_type=value_type, shape=tuple(shape), dim_names=None,
                    index_type=index_type, coords_order=order, is_canonical=canonical and claim)
    data = asp.message_bytes(m)
    expected = expected_doc("COO", value_type, tuple(shape), tuples, values, index_type,
                            is_canonical=canonical and claim,
                            dim_names=names if names and any(names) else None)
    back = check_everywhere(data, expected)
    assert back.coords_order == (order if nnz > 1 and len(shape) > 1 else back.coords_order)
    # The plain pyarrow object writes row-major int64 coordinates and its own
    # canonical flag.
    plain = asp.read_message(asp.message_bytes(t), with_metadata=True)
    assert plain.index_type == "int64" and plain.is_canonical == canonical


# -- N-d CSF -----------------------------------------------------------------


def build_csf(coords: np.ndarray, axis_order: list[int]) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The CSF tree of unique coordinates: (indptr per level but the last,
    indices per level, the permutation of the entries into leaf order)."""
    n, nd = coords.shape
    perm_coords = coords[:, axis_order]
    order = np.lexsort(perm_coords.T[::-1]) if n else np.arange(0)
    pc = perm_coords[order]
    indices, indptr = [], []
    # Node starts on each level: where the prefix of length l+1 changes.
    starts = []
    for lv in range(nd):
        if n == 0:
            s = np.empty(0, dtype=np.int64)
        else:
            new = np.ones(n, dtype=bool)
            new[1:] = (pc[1:, :lv + 1] != pc[:-1, :lv + 1]).any(axis=1)
            s = np.flatnonzero(new)
        starts.append(s)
        indices.append(pc[s, lv] if n else np.empty(0, dtype=np.int64))
    for lv in range(nd - 1):
        # Children of node i on level lv: the level lv+1 nodes starting in
        # [starts[lv][i], starts[lv][i+1]).
        bounds = np.append(starts[lv], n)
        indptr.append(np.searchsorted(starts[lv + 1], bounds).astype(np.int64))
    return indptr, indices, order


@settings(max_examples=150)
@given(value_type=st.sampled_from(VALUE_TYPES), index_type=st.sampled_from(INDEX_TYPES),
       indptr_type=st.sampled_from(INDEX_TYPES),
       shape=st.lists(st.integers(1, 5), min_size=2, max_size=4), nnz=st.integers(0, 40),
       data=st.data(), as_message=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_nd_csf(value_type: str, index_type: str, indptr_type: str, shape: list[int], nnz: int,
                data: st.DataObject, as_message: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    nd = len(shape)
    axis_order = data.draw(st.permutations(list(range(nd))))
    size = int(np.prod(shape))
    nnz = min(nnz, size)
    flat = np.sort(rng.choice(size, nnz, replace=False))
    coords = np.array(np.unravel_index(flat, shape), dtype=np.int64).T.reshape(nnz, nd)
    values = random_values(rng, value_type, nnz)
    indptr, indices, order = build_csf(coords, axis_order)
    t = pa.SparseCSFTensor.from_numpy(values[order], indptr, indices, shape=tuple(shape),
                                      axis_order=axis_order)
    if as_message:
        obj: Any = asp.Message(tensor=t, format="CSF", value_type=value_type, shape=tuple(shape),
                               dim_names=None, index_type=index_type, indptr_type=indptr_type,
                               axis_order=tuple(axis_order))
        blob = asp.message_bytes(obj)
    else:
        blob = asp.message_bytes(t, index_type=index_type, indptr_type=indptr_type)
    tuples = [tuple(int(x) for x in row) for row in coords[order]]
    expected = expected_doc("CSF", value_type, tuple(shape), tuples, values[order], index_type,
                            indptr_type=indptr_type, axis_order=list(axis_order))
    m = check_everywhere(blob, expected)
    assert m.axis_order == tuple(axis_order) and m.csf_lengths == "elements"


# -- dense -------------------------------------------------------------------


@settings(max_examples=150)
@given(value_type=st.sampled_from(VALUE_TYPES), shape=st.lists(st.integers(0, 5), min_size=0, max_size=4),
       data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_dense_like_pyarrow(value_type: str, shape: list[int], data: st.DataObject, seed: int) -> None:
    """Dense tensors of any layout (sliced, transposed, Fortran order) give
    the bytes of pyarrow's own WriteTensor, and read back equal."""
    rng = np.random.default_rng(seed)
    big = random_values(rng, value_type, int(np.prod([s * 2 + 1 for s in shape])) if shape else 1)
    arr = big.reshape([s * 2 + 1 for s in shape]) if shape else big.reshape(())
    index = tuple(slice(0, s * data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
                  for s in shape)
    arr = arr[index][tuple(slice(0, s) for s in shape)] if shape else arr
    if shape:
        arr = arr.transpose(data.draw(st.permutations(list(range(len(shape))))))
    if data.draw(st.booleans()):
        arr = np.asfortranarray(arr)
    sink = pa.BufferOutputStream()
    pa.ipc.write_tensor(pa.Tensor.from_numpy(arr), sink)
    want = sink.getvalue().to_pybytes()
    assert asp.message_bytes(arr) == want
    back = asp.read_message(want)
    np.testing.assert_array_equal(back.to_numpy(), arr)
    STATS["cases"] += 1


# -- corpora the C++ peer generates ------------------------------------------


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_peer_generated_corpus(seed: int, tmp_path: Path) -> None:
    if not PEER.exists():
        pytest.fail(f"{PEER} is missing: run interop/setup.sh (python/run_tests.sh does)")
    subprocess.run([str(PEER), "gen", str(seed), str(tmp_path)], check=True, capture_output=True)
    files = sorted(tmp_path.glob("*.arrow"))
    assert len(files) == 200
    import json

    for path in files:
        data = path.read_bytes()
        m = asp.read_message(data, with_metadata=True)
        expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        assert compare_with(expected, describe(m)) == [], path.name
        assert asp.message_bytes(m) == data, path.name
