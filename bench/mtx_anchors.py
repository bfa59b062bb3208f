#!/usr/bin/env python3
"""Matrix Market anchors: fast_matrix_market and scipy.io on one .mtx file.

    mtx_anchors.py time FILE.mtx OUT.jsonl [REPS]   time read and write
    mtx_anchors.py peak FILE.mtx THREADS            peak RSS of one read

`time` appends JSON lines {"impl", "op", "threads", "secs", "median_s",
"min_s", "bytes"} to OUT.jsonl: fast_matrix_market.read_coo and mmwrite with
parallelism 1 and 2, and scipy.io.mmread and mmwrite (which use
fast_matrix_market's core since SciPy 1.12, on all cores). Reads take the
file from the page cache, as the Go benchmarks do (one untimed warm-up
read first); writes go to a file beside OUT.jsonl. `bytes` is the size of
the file read or written. `peak` prints the process's peak resident memory
after one fast_matrix_market.read_coo, next to the size of the arrays it
returns.
"""
import json
import os
import resource
import statistics
import sys
import time


def timed(f, reps):
    secs = []
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        secs.append(time.perf_counter() - t0)
    return secs, out


def record(out, impl, op, threads, secs, nbytes):
    r = {"impl": impl, "op": op, "threads": threads, "secs": secs,
         "median_s": statistics.median(secs), "min_s": min(secs), "bytes": nbytes}
    with open(out, "a") as f:
        f.write(json.dumps(r) + "\n")
    print("%-6s %-9s threads=%s  best %.3f s  median %.3f s  %.0f MB/s (best)" % (
        impl, op, threads, min(secs), statistics.median(secs), nbytes / min(secs) / 1e6), flush=True)


def time_all(path, out, reps):
    import fast_matrix_market as fmm
    import scipy.io
    import scipy.sparse as sp
    size = os.path.getsize(path)
    wpath = os.path.join(os.path.dirname(os.path.abspath(out)), "anchor_write.mtx")
    fmm.read_coo(path, parallelism=1)  # warm the page cache
    a = None
    for p in (1, 2):
        secs, r = timed(lambda: fmm.read_coo(path, parallelism=p), reps)
        record(out, "fmm", "mtx_read", p, secs, size)
        (data, (rows, cols)), shape = r
        a = sp.coo_array((data, (rows, cols)), shape=shape)
        del r, data, rows, cols
    for p in (1, 2):
        secs, _ = timed(lambda: fmm.mmwrite(wpath, a, parallelism=p), reps)
        record(out, "fmm", "mtx_write", p, secs, os.path.getsize(wpath))
    secs, r = timed(lambda: scipy.io.mmread(path), reps)
    record(out, "scipy", "mtx_read", "all", secs, size)
    del r
    secs, _ = timed(lambda: scipy.io.mmwrite(wpath, a), reps)
    record(out, "scipy", "mtx_write", "all", secs, os.path.getsize(wpath))
    os.remove(wpath)


def peak(path, threads):
    import fast_matrix_market as fmm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    (data, (rows, cols)), shape = fmm.read_coo(path, parallelism=threads)
    secs = time.perf_counter() - t0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = data.nbytes + rows.nbytes + cols.nbytes
    print("fmm peak: threads=%d file=%.0fMB output=%.0fMB peakRSS=%.0fMB (before reading %.0fMB) %.2fs" % (
        threads, os.path.getsize(path) / 1e6, out / 1e6, peak_kb / 1e3, before / 1e3, secs))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "time":
        time_all(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 5)
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "peak":
        peak(sys.argv[2], int(sys.argv[3]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
