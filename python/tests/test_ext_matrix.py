"""Every format × index type × value type × shape class, value by value
against dense numpy references, before and after an IPC round trip."""

from __future__ import annotations

import zlib
from typing import Optional

import numpy as np
import pyarrow as pa
import pytest

import arrowsparse as asp
from ext_helpers import (FORMATS, INDEX_TYPES, NDIM, VALUE_TYPES, check_column, random_dense,
                         roundtrip, source)

SHAPE_CLASSES = ["fixed", "varying"]
KINDS = {"coo": ["pydata", "pyarrow", "numpy"], "csr": ["scipy", "pyarrow", "pydata"],
         "csc": ["scipy", "pyarrow", "pydata"], "csf": ["pydata", "pyarrow", "numpy"],
         "gcs": ["pydata", "numpy", "pyarrow"]}


def _rows(rng: np.random.Generator, fmt: str, vt: str, shape_class: str
          ) -> list[Optional[np.ndarray]]:
    nd = NDIM[fmt]
    base = (4, 5, 3)[:nd]
    if shape_class == "fixed":
        shapes = [base] * 4
        refs: list[Optional[np.ndarray]] = [random_dense(rng, s, vt) for s in shapes]
        refs[2] = np.zeros(base, dtype=vt)  # zero nnz
        refs.insert(1, None)  # a null row
        return refs
    # varying: different sizes, a zero-size dimension, zero nnz, nulls
    shapes = [base, tuple(d + 2 for d in base), (0,) + base[1:], base[:-1] + (1,),
              tuple(1 for _ in base)]
    refs = [random_dense(rng, s, vt, density=0.5) for s in shapes]
    refs[3] = np.zeros(shapes[3], dtype=vt)
    refs.insert(2, None)
    refs.append(None)
    return refs


@pytest.mark.parametrize("shape_class", SHAPE_CLASSES)
@pytest.mark.parametrize("vt", VALUE_TYPES)
@pytest.mark.parametrize("it", INDEX_TYPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_format_index_value_shape(fmt: str, it: str, vt: str, shape_class: str) -> None:
    seed = zlib.crc32(f"{fmt}/{it}/{vt}/{shape_class}".encode())
    rng = np.random.default_rng(seed)
    refs = _rows(rng, fmt, vt, shape_class)
    kinds = KINDS[fmt]
    objs = [None if r is None else source(r, fmt, kinds[i % len(kinds)]) for i, r in enumerate(refs)]
    extra = {}
    if fmt == "csf":
        extra["axis_order"] = [2, 0, 1]
    if fmt == "gcs":
        extra.update(dimensions=[2, 0, 1], partitioning=2, compressed_axis="column")
    col = asp.from_sparse(objs, fmt, index_type=it, value_type=vt, **extra)
    t = col.type
    assert {k: v for k, v in t.data_types.items() if k != "values"} == \
        {k: it for k in t.data_types if k != "values"}
    assert t.data_types["values"] == vt
    if shape_class == "fixed":
        assert t.fixed_shape == refs[0].shape  # type: ignore[union-attr]
    else:
        assert t.fixed_shape is None and "shape" in [f.name for f in t.storage_type]
    # pydata's GCXS compiles numba kernels per dtype combination (seconds
    # each): checked here for a few value types, everywhere in test_ext_property.
    pyd = vt in ("float64", "int64", "uint8", "float16")
    check_column(col, refs, pydata_ok=pyd)
    # through an IPC stream with the types registered
    back = roundtrip(pa.table({"t": col}), "stream").column("t")
    assert back.type == col.type
    check_column(back, refs, pydata_ok=False)


@pytest.mark.parametrize("nd", [1, 2, 4])
def test_coo_ranks(nd: int) -> None:
    rng = np.random.default_rng(nd)
    shape = (3, 4, 2, 3)[:nd]
    refs = [random_dense(rng, shape, "float32") for _ in range(3)] + [None]
    kinds = ["numpy", "pyarrow", "pydata"] + (["scipy"] if nd == 2 else [])
    col = asp.from_sparse([None if r is None else source(r, "coo", kinds[i % len(kinds)])
                           for i, r in enumerate(refs)], "coo")
    check_column(col, refs)


@pytest.mark.parametrize("nd", [1, 2, 4])
@pytest.mark.parametrize("ca", ["row", "column"])
def test_gcs_reductions(nd: int, ca: str) -> None:
    rng = np.random.default_rng(7 * nd)
    shape = (3, 4, 2, 3)[:nd]
    refs = [random_dense(rng, shape, "float64") for _ in range(3)]
    for p in range(nd + 1):
        dims = list(reversed(range(nd)))
        col = asp.from_sparse(refs, "gcs", dimensions=dims, partitioning=p, compressed_axis=ca)
        assert (col.type.dimensions, col.type.partitioning) == (tuple(dims), p)
        check_column(col, refs)


@pytest.mark.parametrize("order", [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1]])
def test_csf_axis_orders(order: list[int]) -> None:
    rng = np.random.default_rng(sum(order) + order[0])
    refs = [random_dense(rng, (3, 4, 5), "int32") for _ in range(3)]
    col = asp.from_sparse(refs, "csf", axis_order=order)
    assert col.type.axis_order == tuple(order)
    check_column(col, refs)
    # converting between formats row by row gives the same tensors
    for fmt in ("coo", "gcs"):
        check_column(asp.from_sparse(col.to_pyarrow(), fmt), refs)


def test_duplicates_are_summed() -> None:
    import scipy.sparse as sps

    m = sps.coo_array((np.array([1, 2, 3], dtype=np.int8), (np.array([0, 0, 1]), np.array([1, 1, 0]))),
                      shape=(2, 2))
    col = asp.from_sparse([m], "coo")
    assert not col.type.canonical
    ref = np.array([[0, 3], [3, 0]], dtype=np.int8)
    check_column(col, [ref])
    for fmt in ("csr", "csc", "csf", "gcs"):
        c = asp.from_sparse([m], fmt)
        check_column(c, [ref])
        assert c.type.canonical


def test_wrapping_integer_sums() -> None:
    import scipy.sparse as sps

    m = sps.coo_array((np.array([100, 100], dtype=np.int8), (np.array([0, 0]), np.array([0, 0]))),
                      shape=(1, 1))
    col = asp.from_sparse([m], "coo")
    assert col[0].to_numpy()[0, 0] == np.int8(-56)
