#!/usr/bin/env python3
"""Check 8 of interop/run.sh: one big COO tensor as a table, with DuckDB
and pyarrow.

    cootable_check.py check DIR   # the tables `cootable write` wrote
    cootable_check.py write DIR   # tables for `cootable read`

check: for every line of DIR/cases.jsonl, DuckDB runs
``SELECT d, sum(value) FROM read_parquet(F) GROUP BY d`` for each dimension
column d and the result must equal the library's own reduction (package
compute's Sum over every other axis), and ``SELECT sum(value)`` its total;
pyarrow reads the Parquet file and the IPC file (row count, number of
record batches, the shape and dim names in the schema metadata
``arrowsparse.coo_table``). The files hold several record batches or row
groups each.

write: pyarrow writes random COO tables (every integer column type, int32,
int64 and float64 values, duplicates, several row groups, an empty table)
as Parquet, with DIR/py_cases.jsonl giving each file's shape, entry count
and a checksum (sum of value * (1 + linear index mod 1009)) that `cootable
read` recomputes after coo.FromTable.

Both end with "N checked, M failed".
"""
import json
import os
import sys

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

META_KEY = b"arrowsparse.coo_table"


def check(d):
    checked = failed = 0
    con = duckdb.connect()
    with open(os.path.join(d, "cases.jsonl")) as f:
        cases = [json.loads(line) for line in f]

    def fail(case, msg):
        nonlocal failed
        failed += 1
        print(f"FAIL {case['parquet']}: {msg}")

    for c in cases:
        pqf = os.path.join(d, c["parquet"])
        # DuckDB: the sums by each dimension, and the total.
        for k, col in enumerate(c["dim_columns"]):
            checked += 1
            rows = con.execute(
                f'SELECT "{col}" AS d, sum(value) AS s FROM read_parquet(?) GROUP BY d ORDER BY d', [pqf]
            ).fetchall()
            got = [[int(i), s] for i, s in rows if s != 0]
            want = [[int(i), s] for i, s in c["sums_by_axis"][k]]
            if c["value_type"] == "float64":
                ok = len(got) == len(want) and all(
                    g[0] == w[0] and abs(g[1] - w[1]) <= 1e-9 * max(1.0, abs(w[1])) for g, w in zip(got, want)
                )
            else:
                ok = got == want
            if not ok:
                fail(c, f"GROUP BY {col}: DuckDB {got[:5]}..., library {want[:5]}...")
        checked += 1
        (total,) = con.execute("SELECT coalesce(sum(value), 0) FROM read_parquet(?)", [pqf]).fetchone()
        if abs(float(total) - float(c["total"])) > 1e-9 * max(1.0, abs(float(c["total"]))):
            fail(c, f"total: DuckDB {total}, library {c['total']}")

        # pyarrow: both files, their schema metadata and batch structure.
        checked += 1
        try:
            # use_threads=False: see python/examples/read_go_tensors.py.
            t = pq.read_table(pqf, use_threads=False)
            with pa.memory_map(os.path.join(d, c["ipc"])) as src:
                r = ipc.open_file(src)
                nb = r.num_record_batches
                it = r.read_all()
            for name, tbl in (("parquet", t), ("ipc", it)):
                if tbl.num_rows != c["nnz"]:
                    raise AssertionError(f"{name}: {tbl.num_rows} rows, want {c['nnz']}")
                meta = json.loads(tbl.schema.metadata[META_KEY])
                if meta["shape"] != c["shape"] or meta["dim_names"] != c["dim_names"]:
                    raise AssertionError(f"{name}: metadata {meta}")
                if tbl.column_names != c["dim_columns"] + ["value"]:
                    raise AssertionError(f"{name}: columns {tbl.column_names}")
            if c["nnz"] > 0 and nb != c["batches"]:
                raise AssertionError(f"ipc: {nb} record batches, want {c['batches']}")
            if not t.equals(it):
                raise AssertionError("the Parquet and IPC tables differ")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            fail(c, f"pyarrow: {e}")
    print(f"{checked} checked, {failed} failed")
    return failed


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(20261123)
    itypes = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
    vtypes = [np.int32, np.int64, np.float64]
    n = 0
    with open(os.path.join(d, "py_cases.jsonl"), "w") as out:
        for i in range(24):
            it = itypes[i % len(itypes)]
            vt = vtypes[i % len(vtypes)]
            nd = 1 + i % 4
            hi = 100 if np.dtype(it).itemsize == 1 else 3000
            shape = [int(x) for x in rng.integers(1, hi, nd)]
            nnz = 0 if i == 5 else int(rng.integers(1, 30000))
            cols = {f"d{k}": rng.integers(0, shape[k], nnz).astype(it) for k in range(nd)}
            vals = rng.integers(-1000, 1001, nnz).astype(vt)
            table = pa.table({**cols, "value": vals})
            name = f"py{i:02d}.parquet"
            pq.write_table(table, os.path.join(d, name), row_group_size=max(1, nnz // 3))
            lin = np.zeros(nnz, dtype=np.int64)
            for k in range(nd):
                lin = lin * shape[k] + cols[f"d{k}"].astype(np.int64)
            checksum = float(np.sum(vals.astype(np.float64) * (1 + lin % 1009).astype(np.float64)))
            out.write(json.dumps({"parquet": name, "shape": shape, "nnz": nnz, "checksum": checksum}) + "\n")
            n += 1
    print(f"{n} tables written")
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    return (check if sys.argv[1] == "check" else write)(sys.argv[2])


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
