#!/usr/bin/env python3
"""Ratio table: this module's benchmarks next to the anchors of the same run.

Usage: ratios.py --anchors RESULTS_DIR --ours GO_BENCH_OUTPUT [--mtx MTX_JSONL [--mtx-peak PEAK_TXT]]

RESULTS_DIR is the anchor harness's results/ (py.jsonl from scipy,
pydata-sparse and torch; gobench.txt from james-bowman/sparse and plain Go).
GO_BENCH_OUTPUT is `go test -bench` output of this module. MTX_JSONL holds
the fast_matrix_market and scipy timings of bench/mtx_anchors.py, and
PEAK_TXT the peak-memory lines of bench/mtxpeak and mtx_anchors.py peak
(MTX=1 bench/run.sh). Medians are taken over all samples. Standard library
only.
"""
import argparse
import json
import os
import re
import statistics
import sys

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")
MBS = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) MB/s")

# (label, our benchmark, anchor op, anchor workload)
ROWS = [
    ("COO canonicalise (sort + sum duplicates), 2-d", "BenchmarkCanonicalize/a_powerlaw2d", "coo_sort", "a_powerlaw2d"),
    ("COO canonicalise (sort + sum duplicates), 3-d", "BenchmarkCanonicalize/b_tensor3d", "coo_sort", "b_tensor3d"),
    ("COO→CSR, canonical", "BenchmarkCOOToCSR/a_powerlaw2d", "coo_to_csr", "a_powerlaw2d"),
    ("CSR→CSC", "BenchmarkCSRToCSC/a_powerlaw2d", "csr_to_csc", "a_powerlaw2d"),
    ("SpMV, int32 indices", "BenchmarkSpMV/a_powerlaw2d/int32", "spmv", "a_powerlaw2d"),
    ("SpMV, int64 indices", "BenchmarkSpMV/a_powerlaw2d/int64", "spmv_i64", "a_powerlaw2d"),
    ("GCS from unsorted 3-d COO, compressed axes [0]", "BenchmarkGCSFromCOO/b_tensor3d/c0", "coo_to_gcxs_c0_nocanon", "b_tensor3d"),
    ("GCS from unsorted 3-d COO, compressed axes [0,1]", "BenchmarkGCSFromCOO/b_tensor3d/c01", "coo_to_gcxs_c01_nocanon", "b_tensor3d"),
    ("CSF from unsorted 3-d COO", "BenchmarkFromCOO/b_tensor3d", "coo_to_gcxs_c01_nocanon", "b_tensor3d"),
]
ANCHOR_IMPLS = ["scipy", "pydata", "torch", "jb", "plain"]
ANCHOR_NAMES = {"scipy": "scipy", "pydata": "pydata-sparse", "torch": "torch",
                "jb": "james-bowman", "plain": "plain Go"}


def go_samples(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                out.setdefault(m.group(1), []).append(float(m.group(2)) / 1e6)
    return out


def anchors(results):
    med = {}
    py = os.path.join(results, "py.jsonl")
    if os.path.exists(py):
        with open(py) as f:
            for line in f:
                r = json.loads(line)
                if "median_s" in r and r.get("impl") in ANCHOR_IMPLS:
                    med[(r["impl"], r["op"], r["workload"])] = r["median_s"] * 1e3
    gb = os.path.join(results, "gobench.txt")
    if os.path.exists(gb):
        for name, xs in go_samples(gb).items():
            parts = name.split("/")
            if len(parts) >= 3:
                impl = {"BenchmarkJB": "jb", "BenchmarkPlain": "plain"}.get(parts[0])
                if impl:
                    med[(impl, parts[1], parts[2])] = statistics.median(xs)
    return med


def go_mbs(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = MBS.match(line.strip())
            if m:
                out.setdefault(m.group(1), []).append(float(m.group(2)))
    return out


def mtx_table(ours_path, jsonl, peak):
    """Matrix Market read and write: MB/s of the file, median (best)."""
    ours = go_mbs(ours_path)
    anc = {}
    with open(jsonl) as f:
        for line in f:
            r = json.loads(line)
            mbs = [r["bytes"] / s / 1e6 for s in r["secs"]]
            anc[(r["impl"], r["op"], str(r["threads"]))] = mbs

    def cell(xs):
        return "–" if not xs else "%.0f (%.0f)" % (statistics.median(xs), max(xs))

    def med(xs):
        return statistics.median(xs) if xs else None

    print("\n## Matrix Market, a_powerlaw2d as .mtx (10M entries; MB/s of the file, median (best), same run)\n")
    print("| operation | arrowsparse 1 core | arrowsparse 2 cores | fast_matrix_market 1 thread | fast_matrix_market 2 threads | scipy.io (all cores) | arrowsparse / fast_matrix_market (1, 2) |")
    print("|---|---|---|---|---|---|---|")
    for op, bench, label in [("mtx_read", "BenchmarkMTXRead", "read (to COO)"), ("mtx_write", "BenchmarkMTXWrite", "write (from COO)")]:
        o1 = ours.get(bench + "/a_powerlaw2d/workers=1")
        o2 = ours.get(bench + "/a_powerlaw2d/workers=2")
        f1, f2 = anc.get(("fmm", op, "1")), anc.get(("fmm", op, "2"))
        sc = anc.get(("scipy", op, "all"))
        ratio = "–"
        if o1 and f1 and o2 and f2:
            ratio = "%.2f× / %.2f×" % (med(o1) / med(f1), med(o2) / med(f2))
        print("| %s | %s | %s | %s | %s | %s | %s |" % (label, cell(o1), cell(o2), cell(f1), cell(f2), cell(sc), ratio))
    if peak and os.path.exists(peak):
        print("\nPeak resident memory of one read (whole process):\n")
        with open(peak) as f:
            for line in f:
                if line.strip():
                    print("    " + line.rstrip())


def fmt(ms):
    return "–" if ms is None else ("%.0f" % ms if ms >= 100 else "%.1f" % ms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--mtx")
    ap.add_argument("--mtx-peak")
    a = ap.parse_args()
    ours = go_samples(a.ours)
    anc = anchors(a.anchors)

    print("## arrowsparse next to the anchors (median ms, same run)\n")
    print("| operation | arrowsparse 1 core | arrowsparse 2 cores | " +
          " | ".join(ANCHOR_NAMES[i] for i in ANCHOR_IMPLS) + " | best anchor / arrowsparse (1 core, 2 cores) |")
    print("|---" * (4 + len(ANCHOR_IMPLS)) + "|")
    for label, bench, op, wl in ROWS:
        one = ours.get(bench + "/workers=1")
        two = ours.get(bench + "/workers=2")
        m1 = statistics.median(one) if one else None
        m2 = statistics.median(two) if two else None
        cells = [anc.get((i, op, wl)) for i in ANCHOR_IMPLS]
        # plain Go's 2-goroutine SpMV is its own op.
        present = [c for c in cells if c is not None]
        best = min(present) if present else None
        ratio = "–"
        if best and m1:
            ratio = "%.1f× / %s" % (best / m1, ("%.1f×" % (best / m2)) if m2 else "–")
        print("| %s | %s | %s | %s | %s |" % (label, fmt(m1), fmt(m2),
              " | ".join(fmt(c) for c in cells), ratio))

    mt = sorted(k for k in ours if k.startswith("BenchmarkMTTKRP/"))
    if mt:
        print("\n## MTTKRP, CSF against the plain COO reference (median ms, same run)\n")
        print("| case | CSF | COO reference | speed-up |")
        print("|---|---|---|---|")
        for k in mt:
            if "/csf/" not in k:
                continue
            ref = k.replace("/csf/", "/coo-reference/")
            if ref in ours:
                c, r = statistics.median(ours[k]), statistics.median(ours[ref])
                print("| %s | %s | %s | %.1f× |" % (k[len("BenchmarkMTTKRP/"):].replace("/csf", ""), fmt(c), fmt(r), r / c))
    if a.mtx and os.path.exists(a.mtx):
        mtx_table(a.ours, a.mtx, a.mtx_peak)
    return 0


if __name__ == "__main__":
    sys.exit(main())
