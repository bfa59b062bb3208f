#!/usr/bin/env python3
"""Ratio table: this module's benchmarks next to the anchors of the same run.

Usage: ratios.py --anchors RESULTS_DIR --ours GO_BENCH_OUTPUT [--mtx MTX_JSONL [--mtx-peak PEAK_TXT]]

RESULTS_DIR is the anchor harness's results/ (py.jsonl from scipy,
pydata-sparse and torch, py_wide.jsonl from bench/harness/py/wide.py;
gobench.txt from james-bowman/sparse and plain Go). GO_BENCH_OUTPUT is
`go test -bench` output of this module. MTX_JSONL holds the
fast_matrix_market and scipy timings of bench/mtx_anchors.py, and PEAK_TXT
the peak-memory lines of bench/mtxpeak and mtx_anchors.py peak (MTX=1
bench/run.sh). Medians are taken over all samples. Standard library only.

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
CPU = re.compile(r"\s([\d.]+) cpu-ms/op")
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


def go_samples(path, cpu=False):
    """Samples in ms per benchmark: wall time, or with cpu the cpu-ms/op
    metric where reported."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            if cpu:
                c = CPU.search(line)
                if c:
                    out.setdefault(m.group(1), []).append(float(c.group(1)))
            else:
                out.setdefault(m.group(1), []).append(float(m.group(2)) / 1e6)
    return out


def anchors_cpu(results):
    """CPU-time medians of the anchors that record them (py_wide.jsonl)."""
    med_ = {}
    py = os.path.join(results, "py_wide.jsonl")
    if os.path.exists(py):
        with open(py) as f:
            for line in f:
                r = json.loads(line)
                if "cpu_median_s" in r:
                    med_[(r["impl"], r["op"], r["workload"])] = r["cpu_median_s"] * 1e3
    return med_


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


FORMS = [("", "int64"), ("int32/", "int32")]  # benchmark name infix, label


def ours_ms(ours, bench, wl, form, workers):
    """Median of our benchmark; the 100M workload is stored as int32, so its
    as-stored form is the int32 one."""
    if wl == "a_powerlaw2d_100m":
        form = ""
    return med(ours, "%s/%s/%sworkers=%d" % (bench, wl, form, workers))


def cpu_of(ours_cpu, bench, wl, form, workers):
    if wl == "a_powerlaw2d_100m":
        form = ""
    return med(ours_cpu, "%s/%s/%sworkers=%d" % (bench, wl, form, workers))


def scaling(ours, anc, ours_cpu, anc_cpu):
    """The scaling workloads, ms per million entries, and the targets."""
    print("\n## Scaling workloads (median wall ms; CPU ms in brackets where recorded; same run)\n")
    print("Workload a runs with int64 coordinates (as generated; the 100M version is int32) "
          "and converted to int32, which is how scipy stores it.\n")
    print("| operation | workload | index | arrowsparse 1 core | arrowsparse 2 cores | scipy | pydata-sparse | numpy lexsort | scipy / ours (1, 2 cores) | pydata / ours (1, 2 cores) |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def both(w, c):
        if w is None:
            return "–"
        return fmt(w) + (" [%s]" % fmt(c) if c is not None else "")
    rows = []
    for label, bench, op in SCALED_OPS:
        for wl, _ in SIZES_2D:
            for infix, ilabel in FORMS:
                if wl == "a_powerlaw2d_100m" and infix:
                    continue
                rows.append((label, bench, op, wl, infix, "int32" if wl == "a_powerlaw2d_100m" else ilabel))
    for wl, _ in TENSORS:
        rows.append(("COO canonicalise", "BenchmarkCanonicalize", "coo_sort", wl, "", "int64"))
    for wl, _ in TENSORS:
        rows.append(("CSF from unsorted COO", "BenchmarkFromCOO", None, wl, "", "int64"))
    for label, bench, op, wl, infix, ilabel in rows:
        m1, m2 = ours_ms(ours, bench, wl, infix, 1), ours_ms(ours, bench, wl, infix, 2)
        if m1 is None and m2 is None:
            continue
        c1, c2 = cpu_of(ours_cpu, bench, wl, infix, 1), cpu_of(ours_cpu, bench, wl, infix, 2)
        get = (lambda impl: anc.get((impl, op, wl))) if op else (lambda impl: None)
        getc = (lambda impl: anc_cpu.get((impl, op, wl))) if op else (lambda impl: None)
        sc, pd, npy = get("scipy"), get("pydata"), get("numpy")
        other = pd if num(pd) else npy
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s, %s | %s, %s |" % (
            label, wl, ilabel, both(m1, c1), both(m2, c2),
            "cannot¹" if sc == "cannot" else both(num(sc), getc("scipy")),
            "cannot¹" if pd == "cannot" else both(num(pd), getc("pydata")),
            both(num(npy), getc("numpy")),
            ratio(sc, m1), ratio(sc, m2), ratio(other, m1), ratio(other, m2)))
    print("\n¹ pydata/sparse refuses shapes of more than 2^63 elements (np.ravel_multi_index); "
          "the ratio column then compares with numpy's lexsort.")

    print("\n## Milliseconds per million entries, workload a (median wall time, same run)\n")
    print("| operation | implementation | " + " | ".join("%dM" % m for _, m in SIZES_2D) + " | worst / 10M |")
    print("|---|---|" + "---|" * len(SIZES_2D) + "---|")
    for label, bench, op in SCALED_OPS:
        impls = []
        for infix, ilabel in FORMS:
            for w in (1, 2):
                impls.append(("arrowsparse %s, %d core%s" % (ilabel, w, "s" if w > 1 else ""),
                              lambda wl, infix=infix, w=w: ours_ms(ours, bench, wl, infix, w)))
        impls += [("scipy", lambda wl: num(anc.get(("scipy", op, wl)))),
                  ("pydata-sparse", lambda wl: num(anc.get(("pydata", op, wl))))]
        for name, get in impls:
            per = [(get(wl) / m if get(wl) else None) for wl, m in SIZES_2D]
            if all(p is None for p in per):
                continue
            base = per[1]
            worst = max((p for p in per if p is not None), default=None)
            growth = "%.2f" % (worst / base) if base and worst else "–"
            print("| %s | %s | %s | %s |" % (label, name, " | ".join("–" if p is None else "%.1f" % p for p in per), growth))

    print("\n## Targets (ratios from this run; wall time, CPU time in brackets)\n")
    print("| target | workload | index | value | met |")
    print("|---|---|---|---|---|")

    def row(target, wl, ilabel, value, cpu_value, ok):
        if value is not None:
            extra = " [%s]" % cpu_value if cpu_value else ""
            print("| %s | %s | %s | %s%s | %s |" % (target, wl, ilabel, value, extra, "yes" if ok else "**no**"))

    def rat(a, b, fmt_="%.1f×"):
        a, b = num(a), num(b)
        return (fmt_ % (a / b)) if a and b else None
    for wl, _ in SIZES_2D + [(t, 0) for t, _ in TENSORS]:
        for infix, ilabel in FORMS:
            if infix and (wl == "a_powerlaw2d_100m" or not wl.startswith("a_")):
                continue
            lab = "int32" if wl == "a_powerlaw2d_100m" else ilabel
            m1 = ours_ms(ours, "BenchmarkCanonicalize", wl, infix, 1)
            c1 = cpu_of(ours_cpu, "BenchmarkCanonicalize", wl, infix, 1)
            if m1 is None:
                continue
            pd, sc, npy = anc.get(("pydata", "coo_sort", wl)), anc.get(("scipy", "coo_sort", wl)), anc.get(("numpy", "coo_sort", wl))
            pdc, scc, npc = anc_cpu.get(("pydata", "coo_sort", wl)), anc_cpu.get(("scipy", "coo_sort", wl)), anc_cpu.get(("numpy", "coo_sort", wl))
            if num(pd):
                row("canonicalise ≥ 6× pydata-sparse (1 core)", wl, lab, rat(pd, m1), rat(pdc, c1), pd / m1 >= 6)
            elif num(npy):
                row("canonicalise ≥ 6× numpy lexsort (pydata cannot; 1 core)", wl, lab, rat(npy, m1), rat(npc, c1), npy / m1 >= 6)
            if num(sc):
                row("canonicalise ≥ 8× scipy (1 core)", wl, lab, rat(sc, m1), rat(scc, c1), sc / m1 >= 8)
    for op, bench, label, limit, cores in (("coo_to_csr", "BenchmarkCOOToCSR", "COO→CSR ≤ ½ scipy", 0.5, (1,)),
                                           ("csr_to_csc", "BenchmarkCSRToCSC", "CSR→CSC ≤ 0.6× scipy", 0.6, (1, 2))):
        for wl, _ in SIZES_2D:
            sc, scc = num(anc.get(("scipy", op, wl))), anc_cpu.get(("scipy", op, wl))
            for infix, ilabel in FORMS:
                if infix and wl == "a_powerlaw2d_100m":
                    continue
                for w in cores:
                    m = ours_ms(ours, bench, wl, infix, w)
                    c = cpu_of(ours_cpu, bench, wl, infix, w)
                    if m and sc:
                        row("%s (%d core%s)" % (label, w, "s" if w > 1 else ""), wl,
                            "int32" if wl == "a_powerlaw2d_100m" else ilabel,
                            "%.2f×" % (m / sc), ("%.2f×" % (c / scc)) if c and scc and w == 1 else None, m / sc <= limit)
    for label, bench, _ in SCALED_OPS:
        for infix, ilabel in FORMS:
            for w in (1, 2):
                base = ours_ms(ours, bench, "a_powerlaw2d", infix, w)
                if not base:
                    continue
                for wl, m in SIZES_2D:
                    x = ours_ms(ours, bench, wl, infix, w)
                    if x and wl != "a_powerlaw2d":
                        g = (x / m) / (base / 10)
                        row("%s per entry within 1.5× of 10M (%d core%s)" % (label, w, "s" if w > 1 else ""), wl,
                            "int32" if wl == "a_powerlaw2d_100m" and infix == "" else ilabel, "%.2f" % g, None, g <= 1.5)


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
        present = [c for c in cells if num(c) is not None]
        best = min(present) if present else None
        ratio = "–"
        if best and m1:
            ratio = "%.1f× / %s" % (best / m1, ("%.1f×" % (best / m2)) if m2 else "–")
        print("| %s | %s | %s | %s | %s |" % (label, fmt(m1), fmt(m2),
              " | ".join(fmt(c) for c in cells), ratio))

    scaling(ours, anc, go_samples(a.ours, cpu=True), anchors_cpu(a.anchors))

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
