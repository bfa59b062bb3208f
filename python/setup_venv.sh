#!/usr/bin/env bash
# Prepares .venv/ for the Python package, idempotently (python/run_tests.sh
# and make python-bench call it):
#   1. interop/setup.sh: .venv/ with the pinned pyarrow, numpy, scipy, and
#      build/arrowpeer (the C++ peer the tests read and write through);
#   2. the pinned test dependencies of python/requirements-test.txt;
#   3. a plain (non-editable) install of ./python into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=$ROOT/.venv
REQ=$ROOT/python/requirements-test.txt

interop/setup.sh
if ! cmp -s "$REQ" "$VENV/.requirements-python-test"; then
  echo "python-test: installing $(grep -v '^#' "$REQ" | tr '\n' ' ')"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.requirements-python-test"
fi
echo "python-test: installing ./python into $VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  --force-reinstall ./python
rm -rf python/build python/arrowsparse.egg-info
