"""Checks of index contents: what the Go constructors (coo.New, gcs.New,
csf.New) verify beyond the metadata.

Every check reads the index arrays once, in chunks of ``CHUNK`` entries, so
that its temporaries stay small whatever nnz is. The arrays are numpy views
in their wire dtypes; nothing is converted.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._errors import ArrowSparseError
from ._types import INDEX_MAX, check_index_fits, width

CHUNK = 1 << 20


def check_values(values: np.ndarray, nnz: int, what: str) -> None:
    if values.shape[0] < nnz:
        raise ArrowSparseError(f"{what} values buffer holds {values.shape[0]} values, need {nnz}")


def _first_outside(a: np.ndarray, lo: int, hi: int) -> int:
    """Position of the first element of a outside [lo, hi), or -1."""
    for start in range(0, a.shape[0], CHUNK):
        c = a[start:start + CHUNK]
        bad = np.flatnonzero((c < lo) | (c >= hi))
        if bad.size:
            return start + int(bad[0])
    return -1


def _outside(a: np.ndarray, hi: int) -> bool:
    """Whether some element of a lies outside [0, hi)."""
    if a.size == 0:
        return False
    return bool(a.min() < 0) or bool(a.max() >= hi)


def coo_is_canonical(coords: np.ndarray) -> bool:
    """Whether the rows of an n × ndim coordinate matrix are strictly
    increasing in row-major order (first coordinate most significant)."""
    n, ndim = coords.shape
    if n <= 1:
        return True
    if ndim == 0:
        return False  # several entries at the one coordinate of a scalar
    for lo in range(0, n - 1, CHUNK):
        hi = min(lo + CHUNK, n - 1)
        undecided = np.ones(hi - lo, dtype=bool)
        for k in range(ndim):
            a = coords[lo:hi, k]
            b = coords[lo + 1:hi + 1, k]
            if (undecided & (b < a)).any():
                return False
            undecided &= ~(b > a)
        if undecided.any():
            return False  # a duplicate coordinate
    return True


def check_coo(shape: Sequence[int], coords: np.ndarray, index_type: str, claim: bool) -> None:
    """coords: the n × ndim coordinate matrix (any layout) in its wire dtype."""
    n = coords.shape[0]
    if n > 0:
        for k, d in enumerate(shape):
            if d - 1 > INDEX_MAX[index_type]:
                raise ArrowSparseError(f"COO index type {index_type} cannot hold coordinates of "
                                       f"dimension {k} (size {d})")
    for k, d in enumerate(shape):
        col = coords[:, k]
        if _outside(col, d):
            i = _first_outside(col, 0, d)
            raise ArrowSparseError(f"COO coordinate {k} of entry {i} is {int(col[i])}, "
                                   f"outside [0, {d})")
    if claim and not coo_is_canonical(coords):
        raise ArrowSparseError("COO message claims canonical order (isCanonical) but its "
                               "coordinates are not sorted without duplicates")


def _first_decrease(p: np.ndarray) -> int:
    """Position i of the first p[i] < p[i-1], or -1."""
    for lo in range(0, p.shape[0] - 1, CHUNK):
        hi = min(lo + CHUNK, p.shape[0] - 1)
        bad = np.flatnonzero(p[lo + 1:hi + 1] < p[lo:hi])
        if bad.size:
            return lo + int(bad[0]) + 1
    return -1


def check_csx(axis: int, shape: Sequence[int], indptr: np.ndarray, indices: np.ndarray,
              indptr_type: str, indices_type: str, nnz: int) -> None:
    """indptr: exactly lanes+1 entries; indices: exactly nnz entries."""
    name = "CSC" if axis else "CSR"
    lane = "column" if axis else "row"
    major, minor = (shape[1], shape[0]) if axis else (shape[0], shape[1])
    check_index_fits(indptr_type, nnz, f"{name} indptr type", "nnz")
    if nnz > 0 and minor - 1 > INDEX_MAX[indices_type]:
        raise ArrowSparseError(f"{name} index type {indices_type} cannot hold the {minor} "
                               f"{'rows' if axis else 'columns'} of the matrix")
    if int(indptr[0]) != 0:
        raise ArrowSparseError(f"{name} indptr starts at {int(indptr[0])}, not 0")
    i = _first_decrease(indptr)
    if i >= 0:
        raise ArrowSparseError(f"{name} indptr decreases from {int(indptr[i - 1])} to "
                               f"{int(indptr[i])} at {lane} {i - 1}")
    if int(indptr[-1]) != nnz:
        raise ArrowSparseError(f"{name} indptr ends at {int(indptr[-1])}, but nnz is {nnz}")
    if _outside(indices, minor):
        j = _first_outside(indices, 0, minor)
        k = int(np.searchsorted(indptr, j, side="right")) - 1
        raise ArrowSparseError(f"{name} index {int(indices[j])} in {lane} {k} is outside "
                               f"[0, {minor})")


def check_csf(shape: Sequence[int], axis_order: Sequence[int], indptrs: Sequence[np.ndarray],
              indices: Sequence[np.ndarray]) -> None:
    """indptrs[l] has len(indices[l]) + 1 entries; checks what csf.New checks:
    every indptr starts at 0, never decreases and ends at the next level's
    length; every index lies inside its dimension; the indices of each
    node's children (and the whole first level) are strictly increasing."""
    nd = len(shape)
    for lv in range(nd - 1):
        p, n_next = indptrs[lv], indices[lv + 1].shape[0]
        if int(p[0]) != 0:
            raise ArrowSparseError(f"CSF indptr of level {lv} starts at {int(p[0])}, want 0")
        if int(p[-1]) != n_next:
            raise ArrowSparseError(f"CSF indptr of level {lv} ends at {int(p[-1])}, but level "
                                   f"{lv + 1} has {n_next} nodes")
    for lv in range(nd - 1):
        i = _first_decrease(indptrs[lv])
        if i >= 0:
            raise ArrowSparseError(f"CSF indptr of level {lv} decreases at entry {i}")
    for lv in range(nd):
        idx = indices[lv]
        dim = shape[axis_order[lv]]
        if _outside(idx, dim):
            j = _first_outside(idx, 0, dim)
            raise ArrowSparseError(f"CSF index {j} of level {lv} (dimension {axis_order[lv]}) is "
                                   f"{int(idx[j])}, outside [0, {dim})")
        n = idx.shape[0]
        if n <= 1:
            continue
        # Entry j > 0 must exceed entry j-1 unless it starts a parent's run.
        starts = None
        if lv > 0:
            p = indptrs[lv - 1][:-1]
            starts = np.zeros(n, dtype=bool)
            starts[p[p < n]] = True
        for lo in range(0, n - 1, CHUNK):
            hi = min(lo + CHUNK, n - 1)
            bad = idx[lo + 1:hi + 1] <= idx[lo:hi]
            if starts is not None:
                bad &= ~starts[lo + 1:hi + 1]
            where = np.flatnonzero(bad)
            if where.size:
                raise ArrowSparseError(f"CSF indices of level {lv} are not strictly increasing "
                                       f"within a node at entry {lo + int(where[0]) + 1}")


def check_alignment(offset: int, type_name: str, what: str) -> None:
    w = width(type_name)
    if offset % w:
        raise ArrowSparseError(f"{what} at body offset {offset} is not aligned to its "
                               f"{w}-byte {type_name} elements")
