#!/usr/bin/env bash
# Runs the Python package's tests (make python-test): python/setup_venv.sh
# (the venv, the C++ peer, the pinned test dependencies and a plain install
# of ./python), then pytest on python/tests against the installed package.
# Extra arguments go to pytest. pytest's exit status 5 (no tests collected)
# is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=$ROOT/.venv
python/setup_venv.sh

# Run from python/tests' parent with the pytest script (not python -m pytest,
# which would put the source tree first on sys.path): the installed package
# is what gets tested.
set +e
(cd "$ROOT/python" && "$VENV/bin/pytest" -p no:cacheprovider "$@")
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "python-test: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
