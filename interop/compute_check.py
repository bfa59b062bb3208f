#!/usr/bin/env python3
"""Compute checks of the live interop suite (interop/run.sh, check 5).

Usage (with the interop venv's python):

  compute_check.py reduce DIR   every reduction gocompute wrote, recomputed
                                with NumPy on the operand's elements
  compute_check.py spgemm DIR   every product, recomputed with scipy's A @ B

DIR is what `gocompute write SEED DIR` wrote (cases.jsonl and raw arrays).

Reductions follow NumPy's defaults: np.sum / np.prod (integers in int64 or
uint64), np.min / np.max (a ValueError where Go returned an error, which
must then be the case), np.mean, and Count as np.count_nonzero of the mask
of stored elements; the result's dtype and shape must be NumPy's, integers
exactly, floats within a tolerance of the type (NumPy sums pairwise, Go in
storage order; float16 NumPy rounds at every step, Go once at the end).
Products: the operands' triplets are summed into scipy CSR matrices,
C = A @ B with its duplicates summed and zeros eliminated, and Go's result
(canonical, no explicit zeros) must hold the same entries.

Prints each failure as "FAIL name: why" and "N checked, M failed" last;
exits 1 on any failure.
"""

import json
import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp

TOL = {"float16": 2e-2, "float32": 2e-5, "float64": 1e-10}


def load(d, a):
    shape = tuple(a["shape"] or ())
    return np.fromfile(os.path.join(d, a["file"]), dtype=np.dtype(a["dtype"]).newbyteorder("<")).reshape(shape)


def reduce_ref(kind, x, stored, axes):
    ax = None if axes is None else tuple(axes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "sum":
            return np.sum(x, axis=ax)
        if kind == "prod":
            return np.prod(x, axis=ax)
        if kind == "min":
            return np.min(x, axis=ax)
        if kind == "max":
            return np.max(x, axis=ax)
        if kind == "mean":
            return np.mean(x, axis=ax)
        if kind == "count":
            return np.asarray(np.count_nonzero(stored, axis=ax), dtype=np.int64)
    raise ValueError(kind)


def check_reduce(d, c):
    x = load(d, c["x"])
    stored = load(d, c["stored"])
    try:
        want = np.asarray(reduce_ref(c["kind"], x, stored, c["axes"]))
    except ValueError as e:
        if c.get("result") is None:
            return None
        return "NumPy raises %s, Go returned a result" % e
    if c.get("result") is None:
        return "Go returned an error (%s), NumPy %s" % (c.get("error"), want.tolist())
    got = load(d, c["result"])
    if got.dtype != want.dtype:
        return "dtype %s, NumPy %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, NumPy %s" % (got.shape, want.shape)
    if got.dtype.kind in "iu":
        if not np.array_equal(got, want):
            return "values %s, NumPy %s" % (got.ravel()[:8].tolist(), want.ravel()[:8].tolist())
        return None
    tol = TOL[got.dtype.name]
    if not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol, equal_nan=True):
        return "values %s, NumPy %s" % (got.ravel()[:8].tolist(), want.ravel()[:8].tolist())
    return None


def matrix(d, t):
    rows, cols, vals = load(d, t["rows"]), load(d, t["cols"]), load(d, t["vals"])
    m = sp.coo_matrix((vals, (rows, cols)), shape=tuple(t["shape"])).tocsr()
    m.sum_duplicates()
    return m


def check_spgemm(d, c):
    a, b = matrix(d, c["a"]), matrix(d, c["b"])
    want = (a @ b).tocsr()
    want.sum_duplicates()
    want.eliminate_zeros()
    t = c["c"]
    rows, cols, vals = load(d, t["rows"]), load(d, t["cols"]), load(d, t["vals"])
    if tuple(t["shape"]) != want.shape:
        return "shape %s, scipy %s" % (t["shape"], want.shape)
    if vals.dtype != want.dtype:
        return "dtype %s, scipy %s" % (vals.dtype, want.dtype)
    if len(rows) != want.nnz:
        return "%d entries, scipy %d" % (len(rows), want.nnz)
    # Go's result is canonical: compare with scipy's sorted entries.
    want.sort_indices()
    wr = np.repeat(np.arange(want.shape[0]), np.diff(want.indptr))
    order = np.lexsort((cols, rows))
    if not (np.array_equal(rows[order], wr) and np.array_equal(cols[order], want.indices)):
        return "the pattern differs from scipy's"
    g, w = vals[order], want.data
    if g.dtype.kind in "iu":
        ok = np.array_equal(g, w)
    else:
        ok = np.allclose(g, w, rtol=TOL[g.dtype.name], atol=TOL[g.dtype.name])
    return None if ok else "values differ from scipy's"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("reduce", "spgemm"):
        print(__doc__, file=sys.stderr)
        return 2
    what, d = sys.argv[1], sys.argv[2]
    check = check_reduce if what == "reduce" else check_spgemm
    n = failed = 0
    with open(os.path.join(d, "cases.jsonl")) as f:
        for line in f:
            c = json.loads(line)
            if c["check"] != what:
                continue
            n += 1
            try:
                why = check(d, c)
            except Exception as e:  # a broken case is a failure, not a crash
                why = "%s: %s" % (type(e).__name__, e)
            if why:
                failed += 1
                if failed <= 40:
                    print("FAIL %s: %s" % (c["name"], why))
    print("%d checked, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
