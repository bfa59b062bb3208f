#!/usr/bin/env python3
"""Matrix Market anchors: fast_matrix_market and scipy.io on one .mtx file.

    mtx_anchors.py time FILE.mtx OUT.jsonl [REPS]   time read and write
    mtx_anchors.py peak FILE.mtx THREADS            peak RSS of one read
    mtx_anchors.py pairs FILE.mtx ROUNDS MTXPEAK DIR
                                                    alternate this library
                                                    (the mtxpeak binary) and
                                                    fast_matrix_market

`time` appends JSON lines {"impl", "op", "threads", "secs", "median_s",
"min_s", "bytes"} to OUT.jsonl: fast_matrix_market.read_coo and mmwrite with
parallelism 1 and 2, and scipy.io.mmread and mmwrite (which use
fast_matrix_market's core since SciPy 1.12, on all cores). Reads take the
file from the page cache, as the Go benchmarks do (one untimed warm-up
read first); writes go to a file beside OUT.jsonl. `bytes` is the size of
the file read or written. `peak` prints the process's peak resident memory
after one fast_matrix_market.read_coo, next to the size of the arrays it
returns. `pairs` runs ROUNDS rounds of: read with 1 and 2 workers/threads,
write with 1 and 2, each op with this library then with fast_matrix_market
right after it, so that both see the same load on a shared machine; it
prints each pair and then, per op, the median MB/s of both and the median
of the paired speed ratios.
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
    print("fast_matrix_market read: threads=%d file=%.0fMB output=%.0fMB peakRSS=%.0fMB (before reading %.0fMB) %.2fs" % (
        threads, os.path.getsize(path) / 1e6, out / 1e6, peak_kb / 1e3, before / 1e3, secs))


def pairs(path, rounds, mtxpeak, d):
    import subprocess
    import fast_matrix_market as fmm
    import scipy.sparse as sp
    size = os.path.getsize(path)
    (data, (rows, cols)), shape = fmm.read_coo(path)  # warms the page cache
    a = sp.coo_array((data, (rows, cols)), shape=shape)
    ours_out, fmm_out = os.path.join(d, "pairs_ours.mtx"), os.path.join(d, "pairs_fmm.mtx")
    res = {}
    for r in range(rounds):
        for op in ("read", "write"):
            for w in (1, 2):
                args = [mtxpeak, op, path, str(w)] + ([ours_out] if op == "write" else [])
                line = subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()
                ours = float(line.split()[-1])
                ob = size if op == "read" else os.path.getsize(ours_out)
                t0 = time.perf_counter()
                if op == "read":
                    fmm.read_coo(path, parallelism=w)
                else:
                    fmm.mmwrite(fmm_out, a, parallelism=w)
                theirs = time.perf_counter() - t0
                fb = size if op == "read" else os.path.getsize(fmm_out)
                res.setdefault((op, w), []).append((ob / ours / 1e6, fb / theirs / 1e6))
                print("round %d %-5s %d: arrowsparse %4.0f MB/s, fast_matrix_market %4.0f MB/s" % (
                    r + 1, op, w, ob / ours / 1e6, fb / theirs / 1e6), flush=True)
    for f in (ours_out, fmm_out):
        if os.path.exists(f):
            os.remove(f)
    print("\n| op | workers/threads | arrowsparse MB/s (median) | fast_matrix_market MB/s (median) | median of paired ratios |")
    print("|---|---|---|---|---|")
    for (op, w), xs in sorted(res.items()):
        o = statistics.median(x[0] for x in xs)
        f = statistics.median(x[1] for x in xs)
        q = statistics.median(x[0] / x[1] for x in xs)
        print("| %s | %d | %.0f | %.0f | %.2f× |" % (op, w, o, f, q))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "pairs":
        pairs(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return 0
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
