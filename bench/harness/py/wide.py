#!/usr/bin/python3
"""Anchors for arrowsparse's scaling workloads (bench/harness/gen): scipy and
pydata/sparse on workload a at 1M to 100M entries, and pydata/sparse and a
plain numpy lexsort on the 10M-entry tensors (b with 10^6 per mode, the
dimensions of FROSTT's delicious-4d and nell-2).

    /usr/bin/python3 py/wide.py -o results/py_wide.jsonl [--reps 5]
        --workloads a_powerlaw2d_1m,a_powerlaw2d_40m,...

It is the shared harness's anchors.py for these shapes: the same timer and
result format (common.py), the same operation ids (coo_sort, coo_to_csr,
csr_to_csc), the workload id being the data directory's name. Everything is
single-threaded. pydata/sparse cannot build a COO tensor whose number of
elements exceeds int64 (np.ravel_multi_index refuses the shape); that is
recorded as an error row, and numpy's lexsort over the coordinate rows plus
np.add.reduceat (what scipy's sum_duplicates does for two dimensions) stands
in as the anchor for such shapes.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Recorder, bench as wall_bench, load_workload, nbytes  # noqa: E402


def bench(fn, setup=None, reps=5):
    """common.bench, also recording the process CPU time of every call
    (time.process_time: on a machine shared with other work, the figure
    that load does not inflate). Returns (secs, inner, last, cpu), cpu being
    {"cpu_median_s": ...} for Recorder.add: the median over the calls after
    the untimed warm-up."""
    cpu = []

    def timed(*a):
        c0 = time.process_time()
        r = fn(*a)
        cpu.append(time.process_time() - c0)
        return r
    secs, inner, last = wall_bench(timed, setup=setup, reps=reps)
    calls = cpu[1:] if len(cpu) > 1 else cpu
    return secs, inner, last, {"cpu_median_s": statistics.median(calls), "cpu_s": calls}


def scipy_2d(rec, reps, name, h, coords, vals):
    import scipy
    import scipy.sparse as sp
    rec.env["scipy"] = scipy.__version__
    shape = tuple(h["shape"])
    nnz, uniq = h["nnz"], h["unique_nnz"]
    rows, cols = coords[0], coords[1]

    def fresh():
        return sp.coo_matrix((vals, (rows, cols)), shape=shape)

    def canon(m):
        m.sum_duplicates()
        return m
    secs, inner, m, cpu = bench(canon, setup=fresh, reps=reps)
    assert m.nnz == uniq, "sum_duplicates nnz"
    rec.add("scipy", "coo_sort", name, secs, nnz=nnz, bytes_=nbytes(m) * 2, inner=inner,
            note="coo.sum_duplicates(): np.lexsort((row, col)) = column-major order, then reduceat", **cpu)
    del m

    A = fresh()
    secs, inner, Acsr, cpu = bench(lambda: A.tocsr(), reps=reps)
    assert Acsr.nnz == uniq and Acsr.has_sorted_indices, "tocsr"
    rec.add("scipy", "coo_to_csr", name, secs, nnz=nnz, bytes_=nbytes(A) + nbytes(Acsr), inner=inner,
            note=f"coo.tocsr(); {A.row.dtype} indices", **cpu)
    del A

    secs, inner, Acsc, cpu = bench(lambda: Acsr.tocsc(), reps=reps)
    assert Acsc.nnz == Acsr.nnz and Acsc.has_sorted_indices, "tocsc"
    rec.add("scipy", "csr_to_csc", name, secs, nnz=Acsr.nnz, bytes_=nbytes(Acsr) + nbytes(Acsc), inner=inner,
            note=f"csr.tocsc(); {Acsr.indices.dtype} indices", **cpu)


def pydata(rec, reps, name, h, coords, vals):
    import sparse
    rec.env["sparse"] = sparse.__version__
    shape = tuple(h["shape"])
    nnz, uniq = h["nnz"], h["unique_nnz"]
    try:
        secs, inner, X, cpu = bench(lambda: sparse.COO(coords, vals, shape=shape), reps=reps)
    except ValueError as e:
        rec.rows.append({"impl": "pydata", "op": "coo_sort", "workload": name, "error": str(e)})
        print(f"pydata   coo_sort                 {name:14s} cannot: {e}", flush=True)
        return
    assert X.nnz == uniq, "pydata COO nnz"
    rec.add("pydata", "coo_sort", name, secs, nnz=nnz, bytes_=coords.nbytes + vals.nbytes + nbytes(X), inner=inner,
            note="COO(coords, data, shape): linear_loc + argsort(mergesort) + sum duplicates", **cpu)


def numpy_lexsort(rec, reps, name, h, coords, vals):
    nnz, uniq = h["nnz"], h["unique_nnz"]

    def canon():
        perm = np.lexsort(coords[::-1])  # the first row is the primary key
        c = coords[:, perm]
        new = np.empty(c.shape[1], dtype=bool)
        new[0] = True
        np.any(c[:, 1:] != c[:, :-1], axis=0, out=new[1:])
        starts = np.flatnonzero(new)
        return c[:, starts], np.add.reduceat(vals[perm], starts)
    secs, inner, out, cpu = bench(canon, reps=reps)
    assert out[0].shape[1] == uniq, "lexsort nnz"
    rec.add("numpy", "coo_sort", name, secs, nnz=nnz, bytes_=coords.nbytes + vals.nbytes + nbytes(out), inner=inner,
            note="np.lexsort over the coordinate rows + np.add.reduceat (no linear index: any shape)", **cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workloads", required=True, help="comma-separated data directory names")
    args = ap.parse_args()
    rec = Recorder(args.out)
    for name in args.workloads.split(","):
        try:
            h, coords, vals = load_workload(name)
        except FileNotFoundError:
            print(f"{name}: not generated, skipped", file=sys.stderr)
            continue
        if len(h["shape"]) == 2:
            scipy_2d(rec, args.reps, name, h, coords, vals)
            pydata(rec, args.reps, name, h, coords, vals)
        else:
            pydata(rec, args.reps, name, h, coords, vals)
            numpy_lexsort(rec, args.reps, name, h, coords, vals)
        del coords, vals
    rec.write()
    print(f"wrote {len(rec.rows)} results to {args.out}")


if __name__ == "__main__":
    main()
