#!/usr/bin/env bash
# Workload a_powerlaw2d (10M entries) as tables, in Go (arrowext's
# BenchmarkCOOTable10M and BenchmarkVectorsTable10M) and in pyarrow
# (bench/table_anchors.py), interleaved round by round so that both see the
# same load, then the medians side by side:
#
#   bench/tables.sh                  # ROUNDS=3
#   ROUNDS=5 PY=.venv/bin/python bench/tables.sh
#
# Tables: a COO table (dim0, dim1, value; batches and row groups of 1Mi
# rows) and a column of 1M sparse vectors (arrowsparse.coo, int64 indices).
# Operations: IPC file write and zero-copy read, Parquet write and read
# (uncompressed, no dictionaries), all in memory; Go also reports copy() of
# the same bytes and the conversion back to a tensor. PY must have pyarrow
# and, for the vectors table, the arrowsparse Python package (the venv of
# make python-test has both). Results: $BENCH_WORK/tables_go.txt,
# tables_anchors.jsonl, tables.md.
set -euo pipefail
source "$(dirname "$0")/env.sh"
ROUNDS=${ROUNDS:-3}
PY=${PY:-$ROOT/.venv/bin/python}
if [ ! -f "$BENCH_DATA/a_powerlaw2d/header.json" ]; then
  echo "bench/tables.sh: no workload a_powerlaw2d under $BENCH_DATA (bench/run.sh generates it)" >&2
  exit 1
fi
go test -c -o "$WORK/arrowext.test" ./arrowext
rm -f "$WORK/tables_go.txt" "$WORK/tables_anchors.jsonl"
for r in $(seq "$ROUNDS"); do
  echo "bench/tables.sh: round $r of $ROUNDS"
  (cd arrowext && "$WORK/arrowext.test" -test.run '^$' -test.bench 'BenchmarkCOOTable10M|BenchmarkVectorsTable10M' \
     -test.benchtime 20x -test.count 1) >>"$WORK/tables_go.txt"
  "$PY" bench/table_anchors.py "$BENCH_DATA" 5 "$WORK/tables_anchors.jsonl"
done
python3 - "$WORK/tables_go.txt" "$WORK/tables_anchors.jsonl" <<'EOF' | tee "$WORK/tables.md"
import collections, json, re, statistics, sys
go = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"Benchmark(COO|Vectors)Table10M/(\S+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        go[(m.group(1).lower(), m.group(2))].append(float(m.group(3)) / 1e6)
py = collections.defaultdict(list)
for line in open(sys.argv[2]):
    r = json.loads(line)
    py[(r["table"], r["op"])].append(r["seconds"] * 1e3)
print("| table | operation | arrowsparse (ms) | pyarrow (ms) | arrowsparse / pyarrow |")
print("|---|---|---|---|---|")
for table in ("coo", "vectors"):
    for op in ("copy", "ipc/write", "ipc/read", "parquet/write", "parquet/read", "to-tensor"):
        g = statistics.median(go[(table, op)]) if go[(table, op)] else None
        p = statistics.median(py[(table, op)]) if py[(table, op)] else None
        ratio = f"{g / p:.2f}" if g is not None and p else "–"
        fmt = lambda x: "–" if x is None else (f"{x:.3f}" if x < 1 else f"{x:.1f}")
        print(f"| {table} | {op} | {fmt(g)} | {fmt(p)} | {ratio} |")
EOF
