#!/usr/bin/env python3
"""Ratio table: this module's benchmarks next to the anchors of the same run.

Usage: ratios.py --anchors RESULTS_DIR --ours GO_BENCH_OUTPUT

RESULTS_DIR is the anchor harness's results/ (py.jsonl from scipy,
pydata-sparse and torch; gobench.txt from james-bowman/sparse and plain Go).
GO_BENCH_OUTPUT is `go test -bench` output of this module. Medians are taken
over all samples. Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import sys

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")

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


def fmt(ms):
    return "–" if ms is None else ("%.0f" % ms if ms >= 100 else "%.1f" % ms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--ours", required=True)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
