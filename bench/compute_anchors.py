#!/usr/bin/env python3
"""Anchors for the compute benchmarks (compute/bench_test.go, gcs SpGEMM and
SpMV): scipy and pydata/sparse on the same operands, built from the same
workload bytes.

Usage: compute_anchors.py --data DIR [--reps N] [--ops a,b,...] [--out FILE]

Operands (as compute/bench_test.go builds them):
  a            a_powerlaw2d as canonical CSR, int32 indices, float64 values
  a2           a with every value doubled
  ap           a with row i moved to (i*7919+13) % n and column j to
               (j*104729+7) % n
  b            b_tensor3d as a canonical pydata COO
  g            the SpGEMM workload (a_powerlaw2d generated with -scale S)
               as canonical CSR, int32 indices

Every sample is the time of one call (time.perf_counter) after one untimed
warm-up; bench/compute.sh interleaves runs of this script with the Go
benchmarks and takes medians over all of them. Prints JSON lines
{"impl", "op", "workload", "secs": [...]}; the SpGEMM line adds peak_mb,
the growth of the resident high-water mark during one product (reset
through /proc/self/clear_refs), as the Go benchmark measures it.
"""
import argparse
import gc
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp


def load(data, name):
    d = os.path.join(data, name)
    with open(os.path.join(d, "header.json")) as f:
        h = json.load(f)
    shape = tuple(int(s) for s in h["shape"])
    nnz = int(h["nnz"])
    coords = np.fromfile(os.path.join(d, h["coords_file"]), dtype=h["index_dtype"]).reshape(len(shape), nnz)
    values = np.fromfile(os.path.join(d, h["values_file"]), dtype=h["value_dtype"])
    return shape, coords, values


def csr(shape, rows, cols, vals):
    m = sp.coo_matrix((vals, (rows, cols)), shape=shape).tocsr()
    m.sum_duplicates()
    m.indices = m.indices.astype(np.int32)
    m.indptr = m.indptr.astype(np.int32)
    assert m.has_canonical_format
    return m


def timeit(fn, reps):
    fn()  # warm-up
    out = []
    for _ in range(reps):
        gc.collect()
        t = time.perf_counter()
        r = fn()
        out.append(time.perf_counter() - t)
        del r
    return out


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def peak_mb(fn):
    """The growth of the resident high-water mark over the memory resident
    before fn, in MiB (the Linux mark is reset first), as the Go benchmark
    measures it."""
    gc.collect()
    before = status_kb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    r = fn()
    peak = (status_kb("VmHWM") - before) / 1024
    del r
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--ops", default="add,multiply,sum,spmv,spgemm")
    ap.add_argument("--spgemm", default="a_powerlaw2d_spgemm", help="workload dir of the SpGEMM operand")
    a = ap.parse_args()
    ops = set(a.ops.split(","))
    res = []

    def emit(impl, op, wl, secs, **kw):
        r = {"impl": impl, "op": op, "workload": wl, "secs": secs}
        r.update(kw)
        print(json.dumps(r), flush=True)

    if ops & {"add", "multiply", "spmv"}:
        shape, c, v = load(a.data, "a_powerlaw2d")
        A = csr(shape, c[0], c[1], v)
        n = shape[0]
        if "spmv" in ops:
            x = (np.arange(shape[1]) % 7 - 3).astype(np.float64)
            emit("scipy", "spmv_i32", "a_powerlaw2d", timeit(lambda: A @ x, a.reps))
            A64 = A.copy()
            A64.indices = A64.indices.astype(np.int64)
            A64.indptr = A64.indptr.astype(np.int64)
            emit("scipy", "spmv_i64", "a_powerlaw2d", timeit(lambda: A64 @ x, a.reps))
            del A64
        if ops & {"add", "multiply"}:
            A2 = A.copy()
            A2.data *= 2
            AP = csr(shape, (c[0] * 7919 + 13) % n, (c[1] * 104729 + 7) % n, v)
            for name, B in (("scaled", A2), ("permuted", AP)):
                if "add" in ops:
                    emit("scipy", "add_" + name, "a_powerlaw2d", timeit(lambda: A + B, a.reps))
                if "multiply" in ops:
                    emit("scipy", "multiply_" + name, "a_powerlaw2d", timeit(lambda: A.multiply(B), a.reps))
            del A2, AP
        del A, c, v
        gc.collect()

    if "sum" in ops:
        import sparse
        shape, c, v = load(a.data, "b_tensor3d")
        B = sparse.COO(c, v, shape=shape)  # sorts and sums duplicates: canonical
        for axis in range(3):
            emit("pydata", "sum_axis%d" % axis, "b_tensor3d", timeit(lambda: B.sum(axis=axis), a.reps))
        del B, c, v
        gc.collect()

    if "spgemm" in ops and os.path.isdir(os.path.join(a.data, a.spgemm)):
        shape, c, v = load(a.data, a.spgemm)
        G = csr(shape, c[0], c[1], v)
        del c, v
        peak = peak_mb(lambda: G @ G)
        secs = timeit(lambda: G @ G, a.reps)
        C = G @ G
        emit("scipy", "spgemm", a.spgemm, secs, nnz_out=int(C.nnz), peak_mb=peak,
             out_mb=(C.data.nbytes + C.indices.nbytes + C.indptr.nbytes) / 2**20)


if __name__ == "__main__":
    sys.exit(main())
