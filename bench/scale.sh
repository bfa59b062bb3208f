#!/usr/bin/env bash
# The scaling table of issue 11 (sorts and conversions at 100K to 100M
# entries and on wide tensors), with this module and the anchors
# interleaved round by round so that both see the same load:
#
#   bench/scale.sh                        # ROUNDS=3, ~40 min on 2 cores
#   BENCH_ALLOC=hugepages bench/scale.sh  # operands and results in huge pages
#   BENCH_BIG=1 bench/scale.sh            # also workload a at 100M entries
#   WORKLOADS=a_powerlaw2d_1m,e_nell2     # a subset
#
# Each round runs bench/harness/py/wide.py (scipy, pydata/sparse and numpy,
# single-threaded; PY, default /usr/bin/python3) with REPS timed calls after
# a warm-up, then BenchmarkCanonicalize, BenchmarkCOOToCSR,
# BenchmarkCSRToCSC and csf's BenchmarkFromCOO on the same workloads
# (BENCHTIME, default 3x). bench/permillion.py then prints milliseconds per
# million entries, the medians over the rounds (scale.md) and the fastest
# samples (scale_min.md). The workloads must exist under $BENCH_DATA
# (bench/run.sh generates them). Results: $BENCH_WORK/scale_anchors.jsonl,
# scale_go.txt, scale.md and scale_min.md.
set -euo pipefail
source "$(dirname "$0")/env.sh"
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-3}
BT=${BENCHTIME:-3x}
PY=${PY:-/usr/bin/python3}

WL=${WORKLOADS:-a_powerlaw2d_100k,a_powerlaw2d_1m,a_powerlaw2d,a_powerlaw2d_40m,b_tensor3d_1e6,d_delicious4d,e_nell2}
if [ "${BENCH_BIG:-0}" = 1 ]; then WL="$WL,a_powerlaw2d_100m"; fi
# The benchmarks skip the 100M workload without BENCH_BIG=1; naming it is
# asking for it.
case ",$WL," in *,a_powerlaw2d_100m,*) export BENCH_BIG=1 ;; esac
RE=${WL//,/|}
for w in ${WL//,/ }; do
  if [ ! -f "$BENCH_DATA/$w/header.json" ]; then
    echo "bench/scale.sh: no workload $w under $BENCH_DATA (bench/run.sh generates it)" >&2
    exit 1
  fi
done

# wide.py needs the shared harness's common.py next to it.
H=$WORK/scale-harness
rm -rf "$H"
mkdir -p "$H"
cp "$ANCHORS/py/common.py" "$H/"
cp "$ROOT/bench/harness/py/wide.py" "$H/"

for p in coo gcs csf; do go test -c -o "$WORK/$p.test" "./$p"; done
rm -f "$WORK/scale_anchors.jsonl" "$WORK/scale_go.txt"
for r in $(seq "$ROUNDS"); do
  echo "bench/scale.sh: round $r of $ROUNDS: anchors"
  "$PY" "$H/wide.py" -o "$WORK/scale_round.jsonl" --reps "$REPS" --workloads "$WL"
  cat "$WORK/scale_round.jsonl" >>"$WORK/scale_anchors.jsonl"
  echo "bench/scale.sh: round $r of $ROUNDS: arrowsparse"
  for t in "coo BenchmarkCanonicalize" "gcs BenchmarkCOOToCSR" "gcs BenchmarkCSRToCSC" "csf BenchmarkFromCOO"; do
    set -- $t
    if ! (cd "$1" && "$WORK/$1.test" -test.run '^$' -test.bench "^$2\$/^($RE)\$/" -test.benchtime "$BT" \
       -test.count 1 -test.timeout 120m) >"$WORK/scale_bench.txt" 2>&1 ||
       ! grep '^Benchmark' "$WORK/scale_bench.txt" | tee -a "$WORK/scale_go.txt"; then
      echo "bench/scale.sh: $2 failed or ran no benchmark on $WL; its output:" >&2
      cat "$WORK/scale_bench.txt" >&2
      exit 1
    fi
  done
done
python3 bench/permillion.py --anchors "$WORK/scale_anchors.jsonl" --ours "$WORK/scale_go.txt" | tee "$WORK/scale.md"
python3 bench/permillion.py --anchors "$WORK/scale_anchors.jsonl" --ours "$WORK/scale_go.txt" --stat min >"$WORK/scale_min.md"
