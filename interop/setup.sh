#!/usr/bin/env bash
# Prepares the live interop environment, idempotently:
#   .venv/            Python venv with the pinned pyarrow, numpy, scipy, DuckDB
#                     and flatbuffers (the Python package's dependency)
#   build/arrowpeer   the C++ peer (testdata/interop/peer/arrowpeer.cc) built
#                     against the headers and libarrow shipped in the wheel
# Prints nothing but progress; exits non-zero if anything is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
VENV=$ROOT/.venv
REQ=$ROOT/interop/requirements.txt

if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/.requirements"; then
  echo "interop: creating $VENV with $(grep -v '^#' "$REQ" | tr '\n' ' ')"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.requirements"
fi
VPY=$VENV/bin/python

mkdir -p build
PEER_SRC=$ROOT/testdata/interop/peer/arrowpeer.cc
PEER=$ROOT/build/arrowpeer
if [ ! -x "$PEER" ] || [ "$PEER_SRC" -nt "$PEER" ] || [ "$REQ" -nt "$PEER" ]; then
  echo "interop: building $PEER against the pyarrow wheel's libarrow"
  "$VPY" -c 'import pyarrow; pyarrow.create_library_symlinks()'
  INC=$("$VPY" -c 'import pyarrow; print(pyarrow.get_include())')
  LIB=$("$VPY" -c 'import pyarrow; print(pyarrow.get_library_dirs()[0])')
  g++ -std=c++20 -O1 -Wno-deprecated-declarations -I"$INC" "$PEER_SRC" \
      -L"$LIB" -larrow -Wl,-rpath,"$LIB" -o "$PEER.tmp"
  mv "$PEER.tmp" "$PEER"
fi
"$PEER" read-json "$ROOT/testdata/interop/golden/coo.arrow" >/dev/null
echo "interop: ready ($("$VPY" -c 'import pyarrow; print("pyarrow", pyarrow.__version__)'), build/arrowpeer)"
