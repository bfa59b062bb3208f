#!/usr/bin/env python3
"""pyarrow's times for the table benchmarks of arrowext/table_bench_test.go,
on the same data, to be run in the same session (bench/tables.sh runs both, interleaved).

    table_anchors.py BENCH_DATA ROUNDS OUT.jsonl

Tables (workload a_powerlaw2d of the anchor harness: 1M x 1M, 10M entries):

- coo: one row per entry, columns dim0, dim1 (int64) and value (float64),
  record batches and Parquet row groups of 1Mi rows;
- vectors (when the arrowsparse Python package is installed): one row per
  matrix row, a column of arrowsparse.coo sparse vectors made from the
  canonical CSR matrix with arrowsparse.csr_to_vectors (int64 indices,
  float64 values).

For each: IPC file write (to memory) and read (zero-copy, from memory),
Parquet write and read (uncompressed, no dictionaries), each timed ROUNDS
times after one warm-up. One JSON line per sample: {"table", "op",
"seconds", "bytes"}.
"""
import io
import json
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

ROWS = 1 << 20


def load_a(data):
    d = os.path.join(data, "a_powerlaw2d")
    with open(os.path.join(d, "header.json")) as f:
        h = json.load(f)
    nnz = h["nnz"]
    coords = np.fromfile(os.path.join(d, h.get("coords_file", "coords.bin")), "<i8").reshape(2, nnz)
    values = np.fromfile(os.path.join(d, h.get("values_file", "values.bin")), "<f8")
    return h["shape"], coords, values


def timed(rounds, fn):
    fn()
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def bench(name, table, nbytes, rounds, rec):
    def ipc_write():
        sink = pa.BufferOutputStream()
        with ipc.new_file(sink, table.schema) as w:
            for b in table.to_batches(max_chunksize=ROWS):
                w.write_batch(b)
        return sink.getvalue()

    ipc_bytes = ipc_write()

    def ipc_read():
        return ipc.open_file(pa.BufferReader(ipc_bytes)).read_all()

    def pq_write():
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="none", use_dictionary=False, row_group_size=ROWS)
        return buf.getvalue()

    pq_bytes = pq_write()

    def pq_read():
        return pq.read_table(pa.BufferReader(pq_bytes))

    for op, fn in (("ipc/write", ipc_write), ("ipc/read", ipc_read), ("parquet/write", pq_write), ("parquet/read", pq_read)):
        for s in timed(rounds, fn):
            rec.write(json.dumps({"table": name, "op": op, "seconds": s, "bytes": nbytes}) + "\n")
            rec.flush()


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    data, rounds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    shape, coords, values = load_a(data)
    with open(out, "a") as rec:
        coo = pa.table({"dim0": coords[0], "dim1": coords[1], "value": values})
        bench("coo", coo, values.size * 24, rounds, rec)
        try:
            import arrowsparse as asp
            import scipy.sparse as sp
        except ImportError:
            print("table_anchors: arrowsparse (python/) not installed: no vectors table", file=sys.stderr)
            return 0
        m = sp.coo_array((values, (coords[0], coords[1])), shape=tuple(shape)).tocsr()
        m.sum_duplicates()
        m = sp.csr_array((m.data, m.indices.astype(np.int64), m.indptr.astype(np.int64)), shape=m.shape)
        col = asp.csr_to_vectors(m)
        vec = pa.table({"vector": col})
        bench("vectors", vec, m.nnz * 16, rounds, rec)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # pyarrow 25.0.1 sometimes aborts while the interpreter shuts down after
    # threaded Parquet reads ("terminate called without an active
    # exception"), after the results are written: leave without the
    # teardown.
    os._exit(code)
