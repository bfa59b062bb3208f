#!/usr/bin/env python3
"""Milliseconds per million entries: this module next to scipy and
pydata/sparse on the scaling workloads, from one run or from interleaved
rounds.

Usage: permillion.py --anchors ANCHORS_JSONL --ours GO_BENCH_OUTPUT [--stat min]

ANCHORS_JSONL holds the rows of bench/harness/py/wide.py (scipy,
pydata-sparse and numpy on workload a at 1M to 100M entries and on the
10M-entry tensors), from one run or from several rounds (bench/scale.sh:
the rounds' medians are reduced to their median); GO_BENCH_OUTPUT is
`go test -bench` output of BenchmarkCanonicalize (coo), BenchmarkCOOToCSR
and BenchmarkCSRToCSC (gcs) and BenchmarkFromCOO (csf). Every cell is the median over the samples,
divided by the workload's entries in millions: wall time, with the CPU
time (Go: cpu-ms/op, the process's; Python: time.process_time) in
brackets. With --stat min every cell is the fastest sample instead: the
fastest round of each Go benchmark (itself a mean over its iterations), and
the fastest single call of each anchor; on a machine whose other load only
ever adds time, that is the steadier figure. Standard library only; the
table is Markdown on stdout.
"""
import argparse
import json
import re
import statistics

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op")
CPU = re.compile(r"\s([\d.]+) cpu-ms/op")

# (workload, millions of entries, label)
WORKLOADS = [
    ("a_powerlaw2d_100k", 0.1, "a 1M×1M, 100K"),
    ("a_powerlaw2d_1m", 1, "a 1M×1M, 1M"),
    ("a_powerlaw2d", 10, "a 1M×1M, 10M"),
    ("a_powerlaw2d_40m", 40, "a 1M×1M, 40M"),
    ("a_powerlaw2d_100m", 100, "a 1M×1M, 100M (int32)"),
    ("b_tensor3d_1e6", 10, "b 10^6 per mode, 10M"),
    ("d_delicious4d", 10, "delicious-4d dims, 10M"),
    ("e_nell2", 10, "nell-2 dims, 10M"),
]
# (label, Go benchmark, anchor op or None)
OPS = [
    ("COO canonicalise", "BenchmarkCanonicalize", "coo_sort"),
    ("COO→CSR", "BenchmarkCOOToCSR", "coo_to_csr"),
    ("CSR→CSC", "BenchmarkCSRToCSC", "csr_to_csc"),
    ("COO→CSF", "BenchmarkFromCOO", None),
]


def go_samples(path):
    wall, cpu = {}, {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            wall.setdefault(m.group(1), []).append(float(m.group(2)) / 1e6)
            c = CPU.search(line)
            if c:
                cpu.setdefault(m.group(1), []).append(float(c.group(1)))
    return wall, cpu


def anchors(path, stat):
    wall, cpu, cannot = {}, {}, set()
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = (r["impl"], r["op"], r["workload"])
            if "error" in r:
                cannot.add(key)
            if stat == "min":
                if "min_s" in r:
                    wall.setdefault(key, []).append(r["min_s"] * 1e3)
                if r.get("cpu_s"):
                    cpu.setdefault(key, []).append(min(r["cpu_s"]) * 1e3)
                continue
            if "median_s" in r:
                wall.setdefault(key, []).append(r["median_s"] * 1e3)
            if "cpu_median_s" in r:
                cpu.setdefault(key, []).append(r["cpu_median_s"] * 1e3)
    # Several rounds (bench/scale.sh): the median of the rounds' medians,
    # or the fastest call of all.
    red = min if stat == "min" else statistics.median
    return ({k: red(v) for k, v in wall.items()},
            {k: red(v) for k, v in cpu.items()}, cannot)


STAT = "median"


def med(d, k):
    xs = d.get(k)
    if not xs:
        return None
    return min(xs) if STAT == "min" else statistics.median(xs)


def cell(w, c, m):
    if w is None:
        return "–"
    s = "%.0f" % (w / m) if w / m >= 100 else "%.1f" % (w / m)
    if c is not None:
        s += " [%s]" % ("%.0f" % (c / m) if c / m >= 100 else "%.1f" % (c / m))
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True, help="py_wide.jsonl")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--stat", choices=["median", "min"], default="median")
    a = ap.parse_args()
    global STAT
    STAT = a.stat
    ow, oc = go_samples(a.ours)
    aw, ac, cannot = anchors(a.anchors, a.stat)

    print("| operation | workload | index | arrowsparse 1 core | arrowsparse 2 cores | scipy | pydata/sparse | numpy lexsort | anchor / arrowsparse (1 core, 2 cores) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, bench, op in OPS:
        for wl, m, wlabel in WORKLOADS:
            forms = [("", "int64"), ("int32/", "int32")] if wl.startswith("a_") and wl != "a_powerlaw2d_100m" else [("", "int32" if wl == "a_powerlaw2d_100m" else "int64")]
            for infix, ilabel in forms:
                k1 = "%s/%s/%sworkers=1" % (bench, wl, infix)
                k2 = "%s/%s/%sworkers=2" % (bench, wl, infix)
                w1, w2 = med(ow, k1), med(ow, k2)
                if w1 is None and w2 is None:
                    continue
                c1, c2 = med(oc, k1), med(oc, k2)
                anc = {}
                for impl in ("scipy", "pydata", "numpy"):
                    key = (impl, op, wl) if op else None
                    if key in cannot:
                        anc[impl] = "cannot¹"
                    elif key in aw:
                        anc[impl] = cell(aw[key], ac.get(key), m)
                    else:
                        anc[impl] = "–"
                # The ratio is against the fastest anchor of the row.
                best = min((aw[(i, op, wl)] for i in ("scipy", "pydata", "numpy") if op and (i, op, wl) in aw), default=None)
                rat = "–"
                if best and w1:
                    rat = "%.1f× (%s), %s" % (best / w1, min((i for i in ("scipy", "pydata", "numpy") if (i, op, wl) in aw), key=lambda i: aw[(i, op, wl)]),
                                             ("%.1f×" % (best / w2)) if w2 else "–")
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    label, wlabel, ilabel, cell(w1, c1, m), cell(w2, c2, m), anc["scipy"], anc["pydata"], anc["numpy"], rat))
    print("\nMilliseconds per million entries (wall; CPU in brackets), %s. " % (
          "fastest samples" if STAT == "min" else "medians") +
          "The anchors are single-threaded. ¹ pydata/sparse refuses shapes of more than "
          "2^63 elements (np.ravel_multi_index); numpy's lexsort over the coordinate rows "
          "plus np.add.reduceat stands in. COO→CSF has no anchor (neither scipy nor "
          "pydata/sparse builds CSF).")


if __name__ == "__main__":
    main()
