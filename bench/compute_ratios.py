#!/usr/bin/env python3
"""Ratio table of the compute benchmarks (bench/compute.sh): this module's
medians next to scipy's and pydata/sparse's, all samples of the same
interleaved run.

Usage: compute_ratios.py --anchors compute_anchors.jsonl --ours compute_go.txt
Standard library only.
"""
import argparse
import json
import re
import statistics
import sys

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$")
METRIC = re.compile(r"([\d.]+) ([\w/-]+)")

# (label, our benchmark without /workers=N, anchor impl, anchor op)
ROWS = [
    ("A + B, B = 2·A (same pattern)", "BenchmarkElementwise/add/a_powerlaw2d/scaled", "scipy", "add_scaled"),
    ("A + B, B = A permuted", "BenchmarkElementwise/add/a_powerlaw2d/permuted", "scipy", "add_permuted"),
    ("A.multiply(B), B = 2·A", "BenchmarkElementwise/multiply/a_powerlaw2d/scaled", "scipy", "multiply_scaled"),
    ("A.multiply(B), B = A permuted", "BenchmarkElementwise/multiply/a_powerlaw2d/permuted", "scipy", "multiply_permuted"),
    ("b.sum(axis=0)", "BenchmarkSumAxis/b_tensor3d/axis=0", "pydata", "sum_axis0"),
    ("b.sum(axis=1)", "BenchmarkSumAxis/b_tensor3d/axis=1", "pydata", "sum_axis1"),
    ("b.sum(axis=2)", "BenchmarkSumAxis/b_tensor3d/axis=2", "pydata", "sum_axis2"),
    ("SpGEMM A·A (a, 5M entries)", "BenchmarkMulMatrix/a_powerlaw2d_spgemm", "scipy", "spgemm"),
]
SPMV = [
    ("SpMV A·x, int32 indices, 1 core", "BenchmarkMulVecOneCore/a_powerlaw2d/int32/csr", "scipy", "spmv_i32"),
    ("SpMV A·x, int64 indices, 1 core", "BenchmarkMulVecOneCore/a_powerlaw2d/int64/csr", "scipy", "spmv_i64"),
    ("SpMV A·x, int32 indices, 1 core, huge pages (as NumPy's)", "BenchmarkMulVecOneCore/a_powerlaw2d/int32/csr-hugepages", "scipy", "spmv_i32"),
    ("SpMV A·x, int64 indices, 1 core, huge pages (as NumPy's)", "BenchmarkMulVecOneCore/a_powerlaw2d/int64/csr-hugepages", "scipy", "spmv_i64"),
]


def ours(path):
    out, metrics = {}, {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                out.setdefault(m.group(1), []).append(float(m.group(2)) / 1e6)
                for v, unit in METRIC.findall(m.group(3)):
                    metrics.setdefault((m.group(1), unit), []).append(float(v))
    return out, metrics


def anchors(path):
    out, extra = {}, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = (r["impl"], r["op"])
            out.setdefault(key, []).extend(s * 1e3 for s in r["secs"])
            if r.get("peak_mb") is not None:
                extra.setdefault(key, []).append(r["peak_mb"])
    return out, extra


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x):
    return "–" if x is None else ("%.0f" % x if x >= 100 else "%.1f" % x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--ours", required=True)
    a = ap.parse_args()
    go, gm = ours(a.ours)
    anc, aextra = anchors(a.anchors)
    n = max([len(v) for v in go.values()] + [0])
    print("## compute: arrowsparse next to scipy / pydata-sparse (median ms over %d interleaved rounds)\n" % n)
    print("| operation | arrowsparse 1 core | arrowsparse 2 cores | anchor | anchor / arrowsparse (1, 2 cores) |")
    print("|---|---|---|---|---|")
    for label, bench, impl, op in ROWS:
        one, two = med(go.get(bench + "/workers=1", [])), med(go.get(bench + "/workers=2", []))
        ref = med(anc.get((impl, op), []))
        ratio = "–"
        if ref and one:
            ratio = "%.2f× / %s" % (ref / one, ("%.2f×" % (ref / two)) if two else "–")
        print("| %s | %s | %s | %s %s | %s |" % (label, fmt(one), fmt(two), impl, fmt(ref), ratio))
    print("\n| SpMV (one core) | arrowsparse | scipy | scipy / arrowsparse |")
    print("|---|---|---|---|")
    for label, bench, impl, op in SPMV:
        one, ref = med(go.get(bench, [])), med(anc.get((impl, op), []))
        print("| %s | %s | %s | %s |" % (label, fmt(one), fmt(ref), ("%.2f×" % (ref / one)) if ref and one else "–"))
    peaks = [(w, med(gm.get(("BenchmarkMulMatrix/a_powerlaw2d_spgemm/workers=%d" % w, "peak-MB"), []))) for w in (1, 2)]
    sp = med(aextra.get(("scipy", "spgemm"), []))
    print("\nSpGEMM peak resident memory added by one product: arrowsparse %s MiB (1 core), %s MiB (2 cores); scipy %s MiB." %
          (fmt(peaks[0][1]), fmt(peaks[1][1]), fmt(sp)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
