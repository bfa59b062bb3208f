#!/usr/bin/env python3
"""Reads columns of sparse tensors from an Arrow IPC file and a Parquet file
(the Go examples write build/examples/tensors.arrow and .parquet) and turns
rows into scipy.sparse matrices.

    python python/examples/read_go_tensors.py [FILE.arrow] [FILE.parquet]
"""

import sys

import pyarrow as pa
import pyarrow.parquet as pq

import arrowsparse as asp  # registers arrowsparse.coo/csr/csc/csf/gcs with pyarrow


def show(table: pa.Table, source: str) -> None:
    table = asp.rewrap(table)  # no-op unless the columns were read without the types
    for name, col in zip(table.column_names, table.columns):
        if not isinstance(col.type, asp.SparseTensorType):
            continue
        print(f"{source} {name}: {col.type!r}, {len(col)} rows")
        for i, row in enumerate(col.chunk(0)[:3]):  # rows are asp.SparseTensorScalar
            if row.is_valid and len(row.shape) == 2:
                m = row.to_scipy()  # CSR/CSC rows share the file's buffers
                print(f"  row {i}: {type(m).__name__} {m.shape}, nnz {m.nnz}, sum {m.sum()}")
            else:
                print(f"  row {i}: {row!r}")


if __name__ == "__main__":
    arrow_path = sys.argv[1] if len(sys.argv) > 1 else "build/examples/tensors.arrow"
    parquet_path = sys.argv[2] if len(sys.argv) > 2 else "build/examples/tensors.parquet"
    show(pa.ipc.open_file(pa.memory_map(arrow_path)).read_all(), arrow_path)
    # use_threads=False: with pyarrow 25.0.1, a process that holds a
    # memory-mapped IPC table and has read Parquet with threads aborts at
    # exit in about one run in five ("terminate called without an active
    # exception"), after all its work is done.
    show(pq.read_table(parquet_path, use_threads=False), parquet_path)
