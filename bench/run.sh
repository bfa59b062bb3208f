#!/usr/bin/env bash
# Runs the shared anchor harness (scipy, pydata-sparse, torch,
# james-bowman/sparse, plain Go; ../shared/bench) and this module's
# benchmarks on the same workloads, in the same run, and prints the ratio
# table (bench/ratios.py). Results go to $BENCH_WORK (default build/bench).
#
# The copy of the shared harness gets bench/harness overlaid: a generator
# with the scaling workloads (workload a at 1M and 40M entries, b with 10^6
# per mode, the dimensions of FROSTT's delicious-4d and nell-2) and
# py/wide.py, the scipy / pydata-sparse / numpy anchors on them.
#
#   bench/run.sh                  # everything, ~40 min on 2 cores
#   BENCH_BIG=1 bench/run.sh      # also workload a at 100M entries (int32
#                                 # coordinates; ~12 GiB peak, +40 min)
#   SKIP_ANCHORS=1 bench/run.sh   # only this module (reuses earlier anchor results)
#   SKIP_WIDE=1 bench/run.sh      # only the shared workloads, as before
#   INSTALL=1 bench/run.sh        # apt-get the Python anchors first (root)
#   COUNT=5                       # samples per benchmark (go -count, python reps)
#   MTX=1 bench/run.sh            # also Matrix Market read/write (package mtx) against
#                                 # fast_matrix_market and scipy.io (a venv in
#                                 # $BENCH_WORK/mtxvenv from bench/requirements-mtx.txt);
#                                 # MTX_ROUNDS=5 rounds of paired runs
#   SKIP_COMPUTE=1                # leave out bench/compute.sh (~20 min)
set -euo pipefail
source "$(dirname "$0")/env.sh"
COUNT=${COUNT:-5}
export BENCH_BIG=${BENCH_BIG:-0}

if [ ! -d "$ANCHORS" ]; then
  echo "bench: anchor harness not found at $ANCHORS (set ANCHORS)" >&2
  exit 1
fi
# The shared harness is read-only: run a copy, with bench/harness overlaid.
rm -rf "$WORK/anchors.new"
cp -r "$ANCHORS" "$WORK/anchors.new"
chmod -R u+w "$WORK/anchors.new"
cp -r "$ROOT/bench/harness/." "$WORK/anchors.new/"
if [ -d "$WORK/anchors/results" ]; then cp -r "$WORK/anchors/results/." "$WORK/anchors.new/results/"; fi
rm -rf "$WORK/anchors"
mv "$WORK/anchors.new" "$WORK/anchors"

WIDE="a_powerlaw2d_100k,a_powerlaw2d_1m,a_powerlaw2d_40m,b_tensor3d_1e6,d_delicious4d,e_nell2"
(
  cd "$WORK/anchors"
  go run ./gen -out "$BENCH_DATA"
  if [ "${SKIP_WIDE:-0}" != 1 ]; then
    go run ./gen -out "$BENCH_DATA" -only a -a-nnz 100000 -name a_powerlaw2d_100k
    go run ./gen -out "$BENCH_DATA" -only a -a-nnz 1000000 -name a_powerlaw2d_1m
    go run ./gen -out "$BENCH_DATA" -only a -a-nnz 40000000 -name a_powerlaw2d_40m
    go run ./gen -out "$BENCH_DATA" -only b -b-n 1000000 -name b_tensor3d_1e6
    go run ./gen -out "$BENCH_DATA" -only d,e
    if [ "$BENCH_BIG" = 1 ]; then
      go run ./gen -out "$BENCH_DATA" -only a -a-nnz 100000000 -int32 -name a_powerlaw2d_100m
    fi
  fi
)
if [ "$BENCH_BIG" = 1 ]; then WIDE="$WIDE,a_powerlaw2d_100m"; fi
if [ "${SKIP_ANCHORS:-0}" != 1 ]; then
  (cd "$WORK/anchors" && REPS=$COUNT COUNT=$COUNT ./run-anchors.sh)
  if [ "${SKIP_WIDE:-0}" != 1 ]; then
    # Workload a at 10M entries too: the per-entry growth is read against it.
    (cd "$WORK/anchors" && ${PY:-/usr/bin/python3} py/wide.py -o results/py_wide.jsonl --reps "$COUNT" \
      --workloads "a_powerlaw2d,b_tensor3d,$WIDE")
  fi
fi

echo "bench: this module (go test -bench, -count $COUNT)"
BT=${BENCHTIME:-500ms}
go test -run '^$' -bench 'BenchmarkCanonicalize' -benchtime "$BT" -count "$COUNT" -timeout 180m ./coo | tee "$WORK/arrowsparse.txt"
go test -run '^$' -bench 'BenchmarkCOOToCSR|BenchmarkCSRToCSC|BenchmarkSpMV|BenchmarkGCSFromCOO' -benchtime "$BT" -count "$COUNT" -timeout 180m ./gcs | tee -a "$WORK/arrowsparse.txt"
go test -run '^$' -bench 'BenchmarkFromCOO|BenchmarkMTTKRP' -benchtime "$BT" -count "$COUNT" -timeout 180m ./csf | tee -a "$WORK/arrowsparse.txt"

MTXARGS=()
if [ "${MTX:-0}" = 1 ]; then
  echo "bench: Matrix Market read and write (a_powerlaw2d as .mtx), with fast_matrix_market and scipy"
  MTXVENV=$WORK/mtxvenv
  if [ ! -x "$MTXVENV/bin/python" ] || ! cmp -s bench/requirements-mtx.txt "$MTXVENV/.requirements"; then
    rm -rf "$MTXVENV"
    python3 -m venv "$MTXVENV"
    "$MTXVENV/bin/python" -m pip install -q --disable-pip-version-check -r bench/requirements-mtx.txt
    cp bench/requirements-mtx.txt "$MTXVENV/.requirements"
  fi
  # The Go benchmark writes $BENCH_DATA/a_powerlaw2d/a_powerlaw2d.mtx first.
  go test -run '^$' -bench 'BenchmarkMTXRead|BenchmarkMTXWrite' -benchtime "${BENCHTIME:-500ms}" -count "$COUNT" -timeout 60m ./mtx | tee -a "$WORK/arrowsparse.txt"
  MTXFILE=$BENCH_DATA/a_powerlaw2d/a_powerlaw2d.mtx
  rm -f "$WORK/mtx_anchors.jsonl"
  "$MTXVENV/bin/python" bench/mtx_anchors.py time "$MTXFILE" "$WORK/mtx_anchors.jsonl" "$COUNT"
  go build -o "$WORK/mtxpeak" ./bench/mtxpeak
  for w in 1 2; do
    "$WORK/mtxpeak" read "$MTXFILE" "$w"
    "$MTXVENV/bin/python" bench/mtx_anchors.py peak "$MTXFILE" "$w"
  done | tee "$WORK/mtx_peak.txt"
  # On a shared machine, the paired runs are the fairest comparison.
  "$MTXVENV/bin/python" bench/mtx_anchors.py pairs "$MTXFILE" "${MTX_ROUNDS:-5}" "$WORK/mtxpeak" "$WORK" | tee "$WORK/mtx_pairs.md"
  MTXARGS=(--mtx "$WORK/mtx_anchors.jsonl" --mtx-peak "$WORK/mtx_peak.txt")
fi

python3 bench/ratios.py --anchors "$WORK/anchors/results" --ours "$WORK/arrowsparse.txt" "${MTXARGS[@]}" | tee "$WORK/ratios.md"

# The compute operations (elementwise, reductions, SpGEMM, one-core SpMV)
# against scipy and pydata/sparse, interleaved round by round.
if [ "${SKIP_COMPUTE:-0}" != 1 ]; then
  ANCHORS="$ANCHORS" BENCH_WORK="$WORK" COUNT="$COUNT" bench/compute.sh
fi
