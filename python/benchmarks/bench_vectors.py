#!/usr/bin/env python3
"""A column of 1M sparse vectors <-> one scipy CSR matrix, without copying
the index and value arrays.

    .venv/bin/python python/benchmarks/bench_vectors.py [--rows N] [--per-row K] [--repeat R]

(or ``make python-bench``). Builds a random N × 2^20 float32 CSR matrix
with about K entries per row (int32 indices), then times, best of R runs:

* ``csr_to_vectors(m)``: the column (``arrowsparse.coo``, ndim 1) whose list
  offsets are ``m.indptr`` and whose children are ``m.indices`` and
  ``m.data``, with the O(nnz) check for the canonical claim;
* ``vectors_to_csr(col)``, checked (indices in range, canonical claim:
  O(nnz)) and trusted (O(rows) offset checks only);
* writing the column to an IPC file and ``vectors_to_csr`` of the column
  read back memory-mapped: the matrix is a view of the mapped file.

For every result it prints ``np.shares_memory`` with the source arrays
(or whether the arrays lie inside the mapped file) and tracemalloc's peak
of numpy allocations during the call.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import scipy.sparse as sps

import arrowsparse as asp


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, int, Any]:
    times, peak, out = [], 0, None
    for _ in range(repeat):
        tracemalloc.start()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return min(times), peak, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--per-row", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    n, ncols = a.rows, 1 << 20
    lengths = rng.integers(0, 2 * a.per_row + 1, size=n)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = rng.integers(0, ncols, size=nnz, dtype=np.int32)
    order = np.lexsort((indices, np.repeat(np.arange(n), lengths)))
    indices = indices[order]
    keep = np.ones(nnz, dtype=bool)
    keep[1:] = (indices[1:] != indices[:-1]) | (np.diff(np.repeat(np.arange(n), lengths)) != 0)
    if not keep.all():  # drop duplicates so that rows are canonical
        rows = np.repeat(np.arange(n), lengths)[keep]
        indices = indices[keep]
        indptr = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        nnz = int(indptr[-1])
    data = rng.random(nnz, dtype=np.float32)
    m = sps.csr_array((data, indices, indptr), shape=(n, ncols), copy=False)
    mib = (indices.nbytes + data.nbytes) / 2**20
    print(f"{n} sparse vectors of size {ncols}, nnz {nnz} (indices + values {mib:.1f} MiB)")

    t, peak, col = best(lambda: asp.csr_to_vectors(m), a.repeat)
    st = col.storage
    idx = np.frombuffer(st.field("indices").values.values.buffers()[1], dtype=np.int32)
    val = np.frombuffer(st.field("values").values.buffers()[1], dtype=np.float32)
    off = np.frombuffer(st.field("values").buffers()[1], dtype=np.int32)
    print(f"csr_to_vectors          {t * 1e3:8.1f} ms  peak numpy {peak / 2**20:6.1f} MiB  "
          f"shares indices {np.shares_memory(idx, indices)}, values {np.shares_memory(val, data)}, "
          f"indptr {np.shares_memory(off, indptr)}")
    for trusted in (False, True):
        t, peak, back = best(lambda: asp.vectors_to_csr(col, trusted=trusted), a.repeat)
        print(f"vectors_to_csr {'trusted' if trusted else 'checked'}  {t * 1e3:8.1f} ms  "
              f"peak numpy {peak / 2**20:6.1f} MiB  shares indices "
              f"{np.shares_memory(back.indices, indices)}, values {np.shares_memory(back.data, data)}, "
              f"indptr {np.shares_memory(back.indptr, indptr)}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "vectors.arrow")
        t0 = time.perf_counter()
        with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, pa.schema([("v", col.type)])) as w:
            w.write_table(pa.table({"v": col}))
        print(f"IPC file write          {(time.perf_counter() - t0) * 1e3:8.1f} ms  "
              f"{os.path.getsize(path) / 2**20:.1f} MiB")

        def read() -> Any:
            mm = pa.memory_map(path)
            return mm, asp.vectors_to_csr(pa.ipc.open_file(mm).read_all().column("v"))

        t, peak, (mm, back) = best(read, a.repeat)
        mm.seek(0)
        lo = mm.read_buffer(1).address
        hi = lo + mm.size()
        inside = all(lo <= x.ctypes.data < hi for x in (back.indices, back.data, back.indptr))
        print(f"mmap read + to CSR      {t * 1e3:8.1f} ms  peak numpy {peak / 2**20:6.1f} MiB  "
              f"indices, values and indptr inside the mapped file: {inside}")
        assert (back != m).nnz == 0


if __name__ == "__main__":
    main()
