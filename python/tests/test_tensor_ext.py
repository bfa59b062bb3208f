"""NumPy conversions of arrow.fixed_shape_tensor and
arrow.variable_shape_tensor, following the Arrow spec for permutations
(logical dimension i is physical dimension permutation[i])."""

from __future__ import annotations

import itertools
import json
from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pytest

import arrowsparse as asp
from ext_helpers import ipc_stream_bytes


def fixed_column(shape: list[int], perm: Optional[list[int]], n: int = 3,
                 dtype: Any = np.float64) -> tuple[Any, np.ndarray]:
    size = int(np.prod(shape))
    phys = np.arange(n * size).astype(dtype).reshape([n] + shape)
    t = pa.fixed_shape_tensor(pa.from_numpy_dtype(dtype), shape, permutation=perm)
    storage = pa.FixedSizeListArray.from_arrays(pa.array(phys.reshape(-1)), size)
    return pa.ExtensionArray.from_storage(t, storage), phys


def spec_logical(phys_row: np.ndarray, perm: Optional[list[int]]) -> np.ndarray:
    """The spec's rule, element by element: logical[i0, i1, ...] is the
    physical element whose index in dimension perm[k] is i_k."""
    nd = phys_row.ndim
    perm = list(range(nd)) if perm is None else perm
    lshape = [phys_row.shape[p] for p in perm]
    out = np.empty(lshape, dtype=phys_row.dtype)
    for idx in itertools.product(*[range(d) for d in lshape]):
        pidx = [0] * nd
        for k, p in enumerate(perm):
            pidx[p] = idx[k]
        out[idx] = phys_row[tuple(pidx)]
    return out


@pytest.mark.parametrize("perm", [None, [0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]])
def test_fixed_shape_tensor_permutations(perm: Optional[list[int]]) -> None:
    col, phys = fixed_column([2, 3, 5], perm)
    got = asp.fixed_shape_tensor_to_numpy(col)
    for r in range(len(col)):
        want = spec_logical(phys[r], perm)
        np.testing.assert_array_equal(got[r], want)
        np.testing.assert_array_equal(asp.fixed_shape_tensor_row(col, r), want)
    assert np.shares_memory(got, np.frombuffer(col.storage.values.buffers()[1], dtype=np.float64))
    assert not got.flags.writeable


def test_pyarrow_fixed_shape_tensor_3_cycle_is_wrong() -> None:
    """Pins pyarrow 25.0.1's behaviour: for shape [2, 3, 5] and the 3-cycle
    [1, 2, 0] its to_numpy_ndarray() has the right shape but the strides of
    the inverse permutation. When this test fails, pyarrow has been fixed."""
    col, phys = fixed_column([2, 3, 5], [1, 2, 0])
    theirs = col.to_numpy_ndarray()
    ours = asp.fixed_shape_tensor_to_numpy(col)
    assert theirs.shape == ours.shape == (3, 3, 5, 2)
    assert not np.array_equal(theirs, ours)
    # pyarrow's strides (in elements 3, 1, 6) are the row-major strides of
    # another shape, not the physical strides permuted (40, 8, 120 bytes):
    # some elements repeat, others are lost.
    assert theirs.strides == (240, 24, 8, 48)
    assert ours.strides == (240, 40, 8, 120)
    assert len(np.unique(theirs[0])) < theirs[0].size
    # involutive permutations agree
    col2, _ = fixed_column([2, 3, 5], [0, 2, 1])
    np.testing.assert_array_equal(col2.to_numpy_ndarray(), asp.fixed_shape_tensor_to_numpy(col2))


def test_fixed_shape_tensor_slices_nulls_and_errors() -> None:
    col, phys = fixed_column([2, 3], [1, 0], n=4, dtype=np.int16)
    sl = col.slice(1, 2)
    np.testing.assert_array_equal(asp.fixed_shape_tensor_to_numpy(sl), phys[1:3].transpose(0, 2, 1))
    ch = pa.chunked_array([col.slice(0, 2), col.slice(2)])
    np.testing.assert_array_equal(asp.fixed_shape_tensor_to_numpy(ch), phys.transpose(0, 2, 1))
    np.testing.assert_array_equal(asp.fixed_shape_tensor_row(ch, 3), phys[3].T)
    t = col.type
    st = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.int16)), 6,
                                           mask=pa.array([False, True]))
    nulls = pa.ExtensionArray.from_storage(t, st)
    assert asp.fixed_shape_tensor_row(nulls, 1) is None
    with pytest.raises(asp.ArrowSparseError, match="fixed_shape_tensor"):
        asp.fixed_shape_tensor_to_numpy(pa.array([1, 2]))


def variable_column(rows: list[Optional[np.ndarray]], meta: dict[str, Any], dtype: Any = np.float32
                    ) -> pa.ChunkedArray:
    """An arrow.variable_shape_tensor column as Arrow C++ reads it: the rows
    are the physical tensors."""
    nd = next(r.ndim for r in rows if r is not None)
    storage_t = pa.struct([("data", pa.list_(pa.from_numpy_dtype(dtype))),
                           ("shape", pa.list_(pa.int32(), nd))])
    storage = pa.array([None if r is None else {"data": r.reshape(-1).tolist(), "shape": list(r.shape)}
                        for r in rows], type=storage_t)
    f = pa.field("t", storage_t, metadata={"ARROW:extension:name": "arrow.variable_shape_tensor",
                                           "ARROW:extension:metadata": json.dumps(meta)})
    table = pa.Table.from_arrays([storage], schema=pa.schema([f]))
    back = pa.ipc.open_stream(ipc_stream_bytes(table)).read_all().column("t")
    assert back.type.extension_name == "arrow.variable_shape_tensor"
    assert type(back.type) is pa.BaseExtensionType  # no Python class in pyarrow 25
    return back


@pytest.mark.parametrize("perm", [None, [1, 2, 0], [2, 0, 1], [0, 2, 1]])
def test_variable_shape_tensor(perm: Optional[list[int]]) -> None:
    rng = np.random.default_rng(3)
    rows: list[Optional[np.ndarray]] = [rng.random((2, 3, 4)).astype(np.float32), None,
                                        rng.random((1, 5, 2)).astype(np.float32),
                                        np.zeros((0, 2, 3), dtype=np.float32)]
    meta: dict[str, Any] = {"dim_names": ["a", "b", "c"], "uniform_shape": [None, None, None]}
    if perm is not None:
        meta["permutation"] = perm
    col = variable_column(rows, meta)
    got = asp.variable_shape_tensor_to_numpy(col)
    for r, (g, ref) in enumerate(zip(got, rows)):
        if ref is None:
            assert g is None and asp.variable_shape_tensor_row(col, r) is None
            continue
        want = spec_logical(ref, perm)
        assert g is not None and g.shape == want.shape
        np.testing.assert_array_equal(g, want)
        np.testing.assert_array_equal(asp.variable_shape_tensor_row(col, r), want)
        assert not g.flags.writeable


def test_variable_shape_tensor_checks() -> None:
    col = variable_column([np.ones((2, 3))], {"uniform_shape": [2, None]}, dtype=np.float64)
    assert asp.variable_shape_tensor_row(col, 0).shape == (2, 3)
    bad = variable_column([np.ones((2, 3))], {"uniform_shape": [3, None]}, dtype=np.float64)
    with pytest.raises(asp.ArrowSparseError, match="uniform_shape"):
        asp.variable_shape_tensor_to_numpy(bad)
    with pytest.raises(asp.ArrowSparseError, match="variable_shape_tensor"):
        asp.variable_shape_tensor_to_numpy(pa.array([1]))


def test_no_python_class_for_variable_shape_tensor() -> None:
    """Arrow C++ owns the name: pyarrow 25 refuses a Python registration."""

    class V(pa.ExtensionType):
        def __init__(self) -> None:
            super().__init__(pa.struct([("data", pa.list_(pa.float32())),
                                        ("shape", pa.list_(pa.int32(), 1))]),
                             "arrow.variable_shape_tensor")

        def __arrow_ext_serialize__(self) -> bytes:
            return b"{}"

        @classmethod
        def __arrow_ext_deserialize__(cls, storage: Any, serialized: bytes) -> "V":
            return V()

    with pytest.raises(pa.ArrowKeyError, match="already defined"):
        pa.register_extension_type(V())
