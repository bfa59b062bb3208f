#!/usr/bin/env bash
# The compute benchmarks next to their anchors, interleaved: COUNT rounds,
# each running bench/compute_anchors.py (scipy, pydata/sparse; one sample
# per operation after a warm-up) and then this module's benchmarks (one
# go test -count of each), so that both see the same load on a shared
# machine; bench/compute_ratios.py takes the medians over all rounds.
#
#   bench/compute.sh                 # COUNT=5 rounds, ~20 min on 2 cores
#   COUNT=7 PY=.venv/bin/python bench/compute.sh
#   BENCH_ALLOC=hugepages bench/compute.sh
#
# BENCH_ALLOC=hugepages takes the Go operands and results from an
# arrowsparse.HugePageAllocator (transparent huge pages, as NumPy allocates
# scipy's arrays) instead of the Go heap; SpMV runs both ways regardless.
#
# Workloads (BENCH_DATA, written by the anchor harness's generator):
#   a_powerlaw2d         1M×1M, 10M entries (elementwise, SpMV)
#   b_tensor3d           10k³, 10M entries (sums over each axis)
#   a_powerlaw2d_spgemm  gen -only a -a-nnz 5000000: 1M×1M, 5M entries
#                        (SpGEMM A·A), generated here if absent
# Results: $BENCH_WORK/compute_go.txt, compute_anchors.jsonl, compute_ratios.md.
set -euo pipefail
source "$(dirname "$0")/env.sh"
COUNT=${COUNT:-5}
PY=${PY:-/usr/bin/python3}

gen() { # args...
  rm -rf "$WORK/gen.copy"
  cp -r "$ANCHORS" "$WORK/gen.copy" && chmod -R u+w "$WORK/gen.copy"
  (cd "$WORK/gen.copy" && go run ./gen "$@")
}
if [ ! -f "$BENCH_DATA/a_powerlaw2d/header.json" ] || [ ! -f "$BENCH_DATA/b_tensor3d/header.json" ]; then
  gen -out "$BENCH_DATA" -only a,b
fi
if [ ! -f "$BENCH_DATA/a_powerlaw2d_spgemm/header.json" ]; then
  gen -out "$WORK/spgemm" -only a -a-nnz 5000000
  ln -sfn "$WORK/spgemm/a_powerlaw2d" "$BENCH_DATA/a_powerlaw2d_spgemm"
fi

go test -c -o "$WORK/compute.test" ./compute
go test -c -o "$WORK/gcs.test" ./gcs
: >"$WORK/compute_go.txt"
: >"$WORK/compute_anchors.jsonl"
for r in $(seq "$COUNT"); do
  echo "bench: round $r of $COUNT" >&2
  "$PY" bench/compute_anchors.py --data "$BENCH_DATA" --reps 3 >>"$WORK/compute_anchors.jsonl"
  "$WORK/compute.test" -test.run '^$' -test.bench 'Elementwise|SumAxis' -test.benchtime 3x -test.count 1 >>"$WORK/compute_go.txt"
  "$WORK/gcs.test" -test.run '^$' -test.bench 'MulVecOneCore|MulMatrix' -test.benchtime 3x -test.count 1 >>"$WORK/compute_go.txt"
done
python3 bench/compute_ratios.py --anchors "$WORK/compute_anchors.jsonl" --ours "$WORK/compute_go.txt" | tee "$WORK/compute_ratios.md"
