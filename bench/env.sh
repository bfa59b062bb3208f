# Sourced by the bench scripts after `set -euo pipefail`: moves to the
# module's root and sets ROOT, ANCHORS (the shared anchor harness), WORK
# (results: BENCH_WORK, default build/bench, created) and exports
# BENCH_DATA (the workloads, default $WORK/data).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
ANCHORS=${ANCHORS:-$ROOT/../shared/bench}
WORK=${BENCH_WORK:-$ROOT/build/bench}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
export BENCH_DATA=${BENCH_DATA:-$WORK/data}
