#!/usr/bin/env python3
"""Ratio table: this module's benchmarks next to the anchors of the same run.

Usage: ratios.py --anchors RESULTS_DIR --ours GO_BENCH_OUTPUT

RESULTS_DIR is the anchor harness's results/ (py.jsonl from scipy,
pydata-sparse and torch, py_wide.jsonl from bench/harness/py/wide.py;
gobench.txt from james-bowman/sparse and plain Go). GO_BENCH_OUTPUT is
`go test -bench` output of this module. Medians are taken over all samples.
Standard library only.

Besides the table of the shared anchor workloads it prints the scaling
workloads (workload a at 1M to 100M entries, the 10M-entry tensors), the
milliseconds per million entries across sizes, and the issue's targets.
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

# Scaling workloads: (name, entries in millions).
SIZES_2D = [("a_powerlaw2d_1m", 1), ("a_powerlaw2d", 10), ("a_powerlaw2d_40m", 40), ("a_powerlaw2d_100m", 100)]
TENSORS = [("b_tensor3d", "b: 10^4 × 10^4 × 10^4"), ("b_tensor3d_1e6", "b: 10^6 × 10^6 × 10^6"),
           ("d_delicious4d", "delicious-4d dims (2^75 elements)"), ("e_nell2", "nell-2 dims")]
# (label, our benchmark prefix, anchor op)
SCALED_OPS = [("COO canonicalise", "BenchmarkCanonicalize", "coo_sort"),
              ("COO→CSR", "BenchmarkCOOToCSR", "coo_to_csr"),
              ("CSR→CSC", "BenchmarkCSRToCSC", "csr_to_csc")]
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
    for fn in ("py.jsonl", "py_wide.jsonl"):
        py = os.path.join(results, fn)
        if not os.path.exists(py):
            continue
        with open(py) as f:
            for line in f:
                r = json.loads(line)
                if "median_s" in r and r.get("impl") in ANCHOR_IMPLS + ["numpy"]:
                    med[(r["impl"], r["op"], r["workload"])] = r["median_s"] * 1e3
                elif "error" in r:
                    med[(r["impl"], r["op"], r["workload"])] = "cannot"
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
    if ms == "cannot":
        return "cannot¹"
    return "–" if ms is None else ("%.0f" % ms if ms >= 100 else "%.1f" % ms)


def med(ours, name):
    xs = ours.get(name)
    return statistics.median(xs) if xs else None


def num(x):
    return x if isinstance(x, (int, float)) else None


def ratio(a, b):
    a, b = num(a), num(b)
    return "–" if not a or not b else "%.1f×" % (a / b)


def scaling(ours, anc):
    """The scaling workloads, ms per million entries, and the targets."""
    print("\n## Scaling workloads (median ms, same run)\n")
    print("| operation | workload | arrowsparse 1 core | arrowsparse 2 cores | scipy | pydata-sparse | numpy lexsort | scipy / ours (1, 2 cores) | pydata / ours (1, 2 cores) |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for label, bench, op in SCALED_OPS:
        for wl, _ in SIZES_2D:
            rows.append((label, bench, op, wl))
    for wl, _ in TENSORS:
        rows.append(("COO canonicalise", "BenchmarkCanonicalize", "coo_sort", wl))
    for wl, _ in TENSORS:
        rows.append(("CSF from unsorted COO", "BenchmarkFromCOO", None, wl))
    for label, bench, op, wl in rows:
        m1, m2 = med(ours, "%s/%s/workers=1" % (bench, wl)), med(ours, "%s/%s/workers=2" % (bench, wl))
        if m1 is None and m2 is None:
            continue
        sc = anc.get(("scipy", op, wl)) if op else None
        pd = anc.get(("pydata", op, wl)) if op else None
        npy = anc.get(("numpy", op, wl)) if op else None
        print("| %s | %s | %s | %s | %s | %s | %s | %s, %s | %s, %s |" % (
            label, wl, fmt(m1), fmt(m2), fmt(sc), fmt(pd), fmt(npy),
            ratio(sc, m1), ratio(sc, m2), ratio(pd if num(pd) else npy, m1), ratio(pd if num(pd) else npy, m2)))
    print("\n¹ pydata/sparse refuses shapes of more than 2^63 elements (np.ravel_multi_index); "
          "the ratio column then compares with numpy's lexsort.")

    print("\n## Milliseconds per million entries, workload a (median, same run)\n")
    print("| operation | implementation | " + " | ".join("%dM" % m for _, m in SIZES_2D) + " | worst / 10M |")
    print("|---|---|" + "---|" * len(SIZES_2D) + "---|")
    for label, bench, op in SCALED_OPS:
        impls = [("arrowsparse 1 core", lambda wl: med(ours, "%s/%s/workers=1" % (bench, wl))),
                 ("arrowsparse 2 cores", lambda wl: med(ours, "%s/%s/workers=2" % (bench, wl))),
                 ("scipy", lambda wl: num(anc.get(("scipy", op, wl)))),
                 ("pydata-sparse", lambda wl: num(anc.get(("pydata", op, wl))))]
        for name, get in impls:
            per = [(get(wl) / m if get(wl) else None) for wl, m in SIZES_2D]
            if all(p is None for p in per):
                continue
            base = per[1]
            worst = max((p for p in per if p is not None), default=None)
            growth = "%.2f" % (worst / base) if base and worst else "–"
            print("| %s | %s | %s | %s |" % (label, name, " | ".join("–" if p is None else "%.1f" % p for p in per), growth))

    print("\n## Targets (1 core unless stated; ratios from this run)\n")
    print("| target | workload | value | met |")
    print("|---|---|---|---|")

    def row(target, wl, value, ok):
        if value is not None:
            print("| %s | %s | %s | %s |" % (target, wl, value, "yes" if ok else "**no**"))
    for wl, _ in SIZES_2D + [(t, 0) for t, _ in TENSORS]:
        m1 = med(ours, "BenchmarkCanonicalize/%s/workers=1" % wl)
        if m1 is None:
            continue
        pd, sc, npy = num(anc.get(("pydata", "coo_sort", wl))), num(anc.get(("scipy", "coo_sort", wl))), num(anc.get(("numpy", "coo_sort", wl)))
        if pd:
            row("canonicalise ≥ 6× pydata-sparse", wl, "%.1f×" % (pd / m1), pd / m1 >= 6)
        elif npy:
            row("canonicalise ≥ 6× numpy lexsort (pydata cannot)", wl, "%.1f×" % (npy / m1), npy / m1 >= 6)
        if sc:
            row("canonicalise ≥ 8× scipy", wl, "%.1f×" % (sc / m1), sc / m1 >= 8)
    for wl, _ in SIZES_2D:
        m1 = med(ours, "BenchmarkCOOToCSR/%s/workers=1" % wl)
        sc = num(anc.get(("scipy", "coo_to_csr", wl)))
        if m1 and sc:
            row("COO→CSR ≤ ½ scipy", wl, "%.2f×" % (m1 / sc), m1 / sc <= 0.5)
    for wl, _ in SIZES_2D:
        sc = num(anc.get(("scipy", "csr_to_csc", wl)))
        for w in (1, 2):
            m = med(ours, "BenchmarkCSRToCSC/%s/workers=%d" % (wl, w))
            if m and sc:
                row("CSR→CSC ≤ 0.6× scipy (%d core%s)" % (w, "s" if w > 1 else ""), wl, "%.2f×" % (m / sc), m / sc <= 0.6)
    for label, bench, _ in SCALED_OPS:
        for w in (1, 2):
            per = {wl: med(ours, "%s/%s/workers=%d" % (bench, wl, w)) for wl, _ in SIZES_2D}
            base = per.get("a_powerlaw2d")
            if not base:
                continue
            for wl, m in SIZES_2D:
                if per[wl] and wl != "a_powerlaw2d":
                    g = (per[wl] / m) / (base / 10)
                    row("%s per entry within 1.5× of 10M (%d core%s)" % (label, w, "s" if w > 1 else ""), wl, "%.2f" % g, g <= 1.5)


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
        present = [c for c in cells if num(c) is not None]
        best = min(present) if present else None
        ratio = "–"
        if best and m1:
            ratio = "%.1f× / %s" % (best / m1, ("%.1f×" % (best / m2)) if m2 else "–")
        print("| %s | %s | %s | %s | %s |" % (label, fmt(m1), fmt(m2),
              " | ".join(fmt(c) for c in cells), ratio))

    scaling(ours, anc)

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
