#!/usr/bin/env bash
# Live interop with Arrow C++ and pyarrow (real libarrow and pyarrow, no
# mocks); see interop/README.md. Usage: [SEED=N] [KEEP=1] interop/run.sh
#
#   1. C++ -> Go       the peer writes a fresh random corpus (seed SEED);
#                      `sptensor dump --json` of every file equals its sidecar
#   2. Go -> C++       gocases writes one message per format x index type x
#                      value type x shape class; the peer's read-json of each
#                      equals the description of the chosen content (and so
#                      does this library's own dump)
#   3. byte identity   every peer message read and written again by this
#                      library (`sptensor convert IN OUT`) is byte-identical,
#                      and so is every one rebuilt from its sidecar alone
#                      when the sidecar fixes the storage order
#   4. pyarrow         pyarrow.ipc.read_tensor reads the Go-written dense
#                      messages and to_numpy() matches; messages written by
#                      pyarrow.ipc.write_tensor read back in Go (and in the
#                      peer) as described
#   5. text formats    scipy.io.mmwrite writes Matrix Market files (every
#                      field, symmetry and layout, empty and 1x1, gzip) and
#                      a reference writer FROSTT files; packages mtx and tns
#                      read them as scipy.io.mmread does; files they write
#                      are read by mmread (and the reference reader) with
#                      the content they were written from
#   6. tensor columns  pyarrow writes fixed- and variable-shape tensor
#                      columns to IPC files, IPC streams and Parquet;
#                      `sptensor dump --json` reads the exact values. Go
#                      (tablecases) writes the same kinds of tables; pyarrow
#                      reads them as its extension types with the same values.
#                      pyarrow 25.0.1's documented misbehaviours are pinned.
#                      `sptensor pack` packs the pyarrow messages of check 4;
#                      pyarrow reads the table and `unpack` gives them back.
#                      Columns of unions, run ends, views and structs,
#                      nested and sliced (layoutcases), go to pyarrow, which
#                      validates them in full and writes them back, and
#                      pyarrow's own go through Go: both sides compare.
#                      Sparse columns (arrowsparse.coo/.csr/.csc/.csf/.gcs):
#                      sparsecases writes every format x index type x value
#                      type x shape mode (IPC files; a subset also as IPC
#                      streams and Parquet) and pyarrow with the Python
#                      package (python/tests/interop_ext.py check) reads
#                      them; interop_ext.py write writes its cases and
#                      sparsecases check reads them with package arrowext
#   7. compute         gocompute reduces random tensors of ranks 0-4 (every
#                      value type and format, every set of axes) and
#                      multiplies random matrices (every pair of compressed
#                      axes), plus small versions of the bench workloads
#                      when the bench generator is at $ANCHORS; NumPy
#                      recomputes the reductions and scipy's A @ B the
#                      products (interop/compute_check.py)
#   8. tables          COO tensors written as tables in bounded batches
#                      (coo.ToRecords) to Parquet and IPC files; DuckDB's
#                      GROUP BY over each dimension equals compute.Sum over
#                      the others, pyarrow reads both files; pyarrow's
#                      Parquet tables read back with coo.FromTable
#
# Prints the seed, per-check and total counts; exits 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

interop/setup.sh
go build -o build/sptensor ./cmd/sptensor
go build -o build/gocases ./interop/gocases
go build -o build/textfmtcheck ./interop/textfmtcheck
go build -o build/tablecases ./interop/tablecases
go build -o build/sparsecases ./interop/sparsecases
go build -o build/gocompute ./interop/gocompute
go build -o build/cootable ./interop/cootable
go build -o build/layoutcases ./interop/layoutcases

SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "interop: SEED=$SEED (reproduce with: SEED=$SEED interop/run.sh)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/arrowsparse-interop.XXXXXX")
keep=${KEEP:-}
finish() {
  if [ -n "$keep" ]; then echo "interop: files kept in $WORK"; else rm -rf "$WORK"; fi
}
trap finish EXIT

PY=$ROOT/.venv/bin/python
PEER=$ROOT/build/arrowpeer
SPT=$ROOT/build/sptensor
CHECK=(python3 "$ROOT/testdata/interop/check_corpus.py" --strict --exact --quiet)

labels=() runs=() fails=()
record() { # label run failed
  labels+=("$1") runs+=("$2") fails+=("$3")
  printf 'interop: %-58s %5d run, %5d passed\n' "$1" "$2" "$(($2 - $3))"
}
# Runs a command whose last output line is "N checked, M failed"; shows
# the first failures.
counted() { # label command...
  local label=$1 log=$WORK/log.$((${#labels[@]})) n f
  shift
  "$@" >"$log" 2>&1 || true
  grep -E '^(FAIL|     )' "$log" | head -n 40 || true
  if ! read -r n f < <(tail -n 1 "$log" | sed -n 's/^\([0-9]*\) checked, \([0-9]*\) failed$/\1 \2/p') || [ -z "$n" ]; then
    tail -n 5 "$log"
    n=0 f=1
  fi
  record "$label" "$n" "$f"
}

echo "== 1. C++ -> Go"
"$PEER" gen "$SEED" "$WORK/cpp" >"$WORK/gen.log"
tail -n 1 "$WORK/gen.log"
counted "1. C++ -> Go: sptensor dump of the peer's corpus" "${CHECK[@]}" --reader "$SPT dump --json" "$WORK/cpp"

echo "== 2. Go -> C++"
"$ROOT/build/gocases" write "$SEED" "$WORK/go" | tee "$WORK/gocases.log"
skipped=$(sed -n 's/^gocases: SKIPPED \([0-9]*\) .*/\1/p' "$WORK/gocases.log" | awk '{s += $1} END {print s + 0}')
counted "2. Go -> C++: peer read-json of Go-written messages" "${CHECK[@]}" --reader "$PEER read-json" "$WORK/go/peer"
counted "   Go -> Go: sptensor dump of the same messages" "${CHECK[@]}" --reader "$SPT dump --json" "$WORK/go/go"
if [ "$skipped" -gt 0 ]; then
  record "   cases this library could not write" "$skipped" "$skipped"
fi

echo "== 3. byte identity"
mkdir -p "$WORK/rewritten"
n=0 f=0
for in in "$WORK"/cpp/*.arrow; do
  out=$WORK/rewritten/$(basename "$in")
  n=$((n + 1))
  if ! "$SPT" convert "$in" "$out" 2>"$WORK/convert.err" || ! cmp -s "$in" "$out"; then
    f=$((f + 1))
    if [ "$f" -le 20 ]; then echo "FAIL $(basename "$in"): $(cat "$WORK/convert.err")$(cmp "$in" "$out" 2>/dev/null | head -n 1)"; fi
  fi
done
record "3. bytes: peer messages read and written back" "$n" "$f"
counted "   bytes: peer messages rebuilt from their sidecars" "$ROOT/build/gocases" rebuild "$WORK/cpp" "$WORK/rebuilt"
grep '^rebuild:' "$WORK/log.$((${#labels[@]} - 1))" || true

echo "== 4. dense tensors with pyarrow"
counted "4. pyarrow read_tensor of Go-written Tensor messages" "$PY" interop/pyarrow_dense.py read "$WORK/go/peer"
"$PY" interop/pyarrow_dense.py write "$SEED" "$WORK/py" | tee "$WORK/pywrite.log" | tail -n 1
counted "   sptensor dump of pyarrow write_tensor messages" "${CHECK[@]}" --reader "$SPT dump --json" "$WORK/py"
counted "   peer read-json of the same (checks their sidecars)" "${CHECK[@]}" --reader "$PEER read-json" "$WORK/py"

echo "== 5. Matrix Market and FROSTT with scipy"
"$PY" interop/textfmt_ref.py write "$SEED" "$WORK/textpy" | tail -n 1
counted "5. mtx/tns read what scipy.io.mmwrite wrote" "$ROOT/build/textfmtcheck" read "$WORK/textpy"
"$ROOT/build/textfmtcheck" write "$SEED" "$WORK/textgo" | tail -n 1
counted "   scipy.io.mmread reads what mtx/tns wrote" "$PY" interop/textfmt_ref.py read "$WORK/textgo"

echo "== 6. tensor columns with pyarrow"
TABLES=(interop/pyarrow_tables.py)
"$PY" "${TABLES[@]}" write "$SEED" "$WORK/pytables" | tail -n 1
counted "6. pyarrow -> Go: sptensor dump of pyarrow's tables" "$PY" "${TABLES[@]}" check-dump "$SPT dump --json" "$WORK/pytables"
grep -E '^  [0-9]+ ' "$WORK/log.$((${#labels[@]} - 1))" || true
"$ROOT/build/tablecases" write "$SEED" "$WORK/gotables"
counted "   Go -> pyarrow: pyarrow reads Go's tables" "$PY" "${TABLES[@]}" read "$WORK/gotables"
grep -E '^  [0-9]+ ' "$WORK/log.$((${#labels[@]} - 1))" || true
counted "   Go -> Go: sptensor dump of the same tables" "$PY" "${TABLES[@]}" check-dump "$SPT dump --json" "$WORK/gotables"
counted "   pinned pyarrow 25.0.1 behaviours still hold" "$PY" "${TABLES[@]}" pins
counted "   sptensor pack of pyarrow's messages, pyarrow reads, unpack" "$PY" "${TABLES[@]}" packed "$SPT" "$WORK/py" "$WORK/packed"
grep -E '^  [0-9]+ ' "$WORK/log.$((${#labels[@]} - 1))" || true
"$ROOT/build/layoutcases" write "$WORK/layouts"
counted "   Go -> pyarrow: sliced unions, run ends, views and structs, validated in full" "$PY" interop/layout_check.py rewrite "$WORK/layouts"
counted "   pyarrow -> Go: pyarrow's rewrites equal what Go wrote" "$ROOT/build/layoutcases" check "$WORK/layouts"
counted "   pyarrow's own such table through Go, equal" "$PY" interop/layout_check.py compare "$WORK/layouts"
example() { # examples/fixedshape writes a column; its read.py reads it with pyarrow
  if go run ./examples/fixedshape "$WORK/example" >"$WORK/example.log" 2>&1 &&
     "$PY" examples/fixedshape/read.py "$WORK/example" >>"$WORK/example.log" 2>&1; then
    echo "1 checked, 0 failed"
  else
    echo "FAIL examples/fixedshape: $(tail -n 3 "$WORK/example.log")"; echo "1 checked, 1 failed"
  fi
}
counted "   examples/fixedshape, read by its read.py with pyarrow" example
termweights() { # examples/termweights writes a Parquet file; its read.py scores it with pyarrow and scipy
  mkdir -p "$WORK/termweights"
  if go run ./examples/termweights "$WORK/termweights" >"$WORK/termweights.log" 2>&1 &&
     PYTHONPATH="$ROOT/python" "$PY" examples/termweights/read.py "$WORK/termweights" >>"$WORK/termweights.log" 2>&1; then
    echo "1 checked, 0 failed"
  else
    echo "FAIL examples/termweights: $(tail -n 3 "$WORK/termweights.log")"; echo "1 checked, 1 failed"
  fi
}
counted "   examples/termweights, read by its read.py with pyarrow" termweights
quickstart() { # the README's main command; the two Python lines it prints must open its files
  local out=$WORK/quickstart
  if go run ./examples/quickstart "$out" >"$out.log" 2>&1 &&
     "$PY" -c "import sys; sys.path.insert(0, '$ROOT/python'); import arrowsparse, pyarrow as pa, numpy as np
t = pa.ipc.open_file('$out/ratings.arrow').read_all()
m = t.column('ratings').chunk(0).to_csr_matrix()
assert m.shape == (5, 6) and m.nnz == 11 and m.sum() == 38, (m.shape, m.nnz, m.sum())
assert t.column('user').to_pylist() == ['ada', 'bob', 'cyd', 'dee', 'eve']
import duckdb
rows = duckdb.sql(\"SELECT user, unnest(ratings.indices)[1] AS film, unnest(ratings.values) AS stars FROM '$out/ratings.parquet'\").fetchall()
assert len(rows) == 11 and sum(r[2] for r in rows) == 38 and ('cyd', 4, 5.0) in rows, rows" >>"$out.log" 2>&1; then
    echo "1 checked, 0 failed"
  else
    echo "FAIL examples/quickstart: $(tail -n 3 "$out.log")"; echo "1 checked, 1 failed"
  fi
}
counted "   examples/quickstart's files, read by pyarrow and DuckDB" quickstart
EXT=(env PYTHONPATH="$ROOT/python" "$PY" python/tests/interop_ext.py)
"$ROOT/build/sparsecases" write "$SEED" "$WORK/gosparse"
counted "   Go -> pyarrow: interop_ext.py check of Go's sparse columns" "${EXT[@]}" check "$WORK/gosparse"
"${EXT[@]}" write "$WORK/pysparse" | tail -n 1
counted "   pyarrow -> Go: sparsecases check of Python's sparse columns" "$ROOT/build/sparsecases" check "$WORK/pysparse"

echo "== 7. compute against NumPy and scipy"
ANCHORS=${ANCHORS:-$ROOT/../shared/bench}
workloads=()
if [ -d "$ANCHORS/gen" ]; then
  # The shared harness is read-only: run a copy of its generator.
  cp -r "$ANCHORS" "$WORK/anchors" && chmod -R u+w "$WORK/anchors"
  (cd "$WORK/anchors" && go run ./gen -out "$WORK/workloads" -only a,b -a-n 20000 -a-nnz 100000 -b-n 60 -b-nnz 30000 >/dev/null)
  workloads=("$WORK/workloads")
else
  echo "interop: no bench generator at $ANCHORS (set ANCHORS): check 7 leaves out the bench workloads"
fi
"$ROOT/build/gocompute" write "$SEED" "$WORK/compute" "${workloads[@]}" | tail -n 1
counted "7. compute: reductions against NumPy" "$PY" interop/compute_check.py reduce "$WORK/compute"
counted "   compute: SpGEMM against scipy A @ B" "$PY" interop/compute_check.py spgemm "$WORK/compute"

echo "== 8. one big tensor as a table, with DuckDB and pyarrow"
"$ROOT/build/cootable" write "$SEED" "$WORK/cootable" | tail -n 1
counted "8. DuckDB GROUP BY on Go's Parquet tables = compute.Sum; pyarrow reads them" "$PY" interop/cootable_check.py check "$WORK/cootable"
"$PY" interop/cootable_check.py write "$WORK/cootable_py" | tail -n 1
counted "   coo.FromTable reads pyarrow's Parquet tables" "$ROOT/build/cootable" read "$WORK/cootable_py"

total=0 failed=0
for i in "${!labels[@]}"; do
  total=$((total + runs[i])) failed=$((failed + fails[i]))
done
echo "interop: SEED=$SEED: $total cases run, $((total - failed)) passed, $failed failed (${SECONDS}s)"
if [ "$failed" -ne 0 ]; then
  keep=1
  exit 1
fi
