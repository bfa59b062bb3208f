#!/usr/bin/env python3
"""Read a 10M-non-zero COO message and show that the body is not copied.

    .venv/bin/python python/benchmarks/bench_read.py [--nnz N] [--repeat R]

(or ``make python-bench``). It builds a canonical 2-d COO tensor with int64
coordinates and float64 values (nnz × 24 bytes of body), writes it as one
message, and then times, best of R runs:

* ``np.frombuffer`` of the values and coordinates of the same bytes: the
  floor, two views and nothing checked; then pyarrow's
  ``SparseCOOTensor.from_numpy`` on those views, which every reader
  returning a pyarrow object pays (it detects canonical order itself);
* ``read_message`` on the bytes in memory and on the file (memory-mapped).

Memory: tracemalloc's peak during a read (numpy allocations, which is where
a copy of the body would show up), the growth of pyarrow's memory pool, and
the process's resident set before and after. The same is then shown for
int32 coordinates, where pyarrow's int64-only constructors force a copy of
the coordinates, and the write is timed for completeness.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

import arrowsparse as asp

MB = 1 << 20


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        out = None
        gc.collect()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def traced(fn: Callable[[], Any]) -> tuple[int, int, int, Any]:
    """Peak traced (numpy/Python) bytes, pyarrow pool growth and RSS growth
    of one call; the result is kept alive until measured."""
    gc.collect()
    pool0, rss0 = pa.total_allocated_bytes(), rss()
    tracemalloc.start()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, pa.total_allocated_bytes() - pool0, rss() - rss0, out


def make_coo(nnz: int, index_dtype: str, seed: int = 1) -> pa.SparseCOOTensor:
    rng = np.random.default_rng(seed)
    rows = cols = 1 << 22
    keys = np.unique(rng.integers(0, rows * cols, int(nnz * 1.01)))[:nnz]
    coords = np.empty((len(keys), 2), dtype=np.int64)
    np.divmod(keys, cols, out=(coords[:, 0], coords[:, 1]))
    values = rng.standard_normal(len(keys))
    t = pa.SparseCOOTensor.from_numpy(values, coords, shape=(rows, cols))
    assert t.has_canonical_format
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nnz", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    print(f"pyarrow {pa.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    t = make_coo(args.nnz, "int64")
    nnz = t.non_zero_length
    w_time, data = best(lambda: asp.message_bytes(t), args.repeat)
    meta_len = len(data) - nnz * 24
    print(f"message: COO 2-d, nnz {nnz:,}, int64 coordinates, float64 values, "
          f"{len(data) / MB:.1f} MiB ({meta_len} bytes before the body)")
    print(f"message_bytes: {w_time * 1e3:.1f} ms (best of {args.repeat})")
    del t
    gc.collect()

    def frombuffer() -> tuple[np.ndarray, np.ndarray]:
        coords = np.frombuffer(data, dtype=np.int64, count=2 * nnz, offset=meta_len).reshape(nnz, 2)
        values = np.frombuffer(data, dtype=np.float64, count=nnz, offset=meta_len + 16 * nnz)
        return coords, values

    f_time, views = best(frombuffer, args.repeat)
    shape = (1 << 22, 1 << 22)
    p_time, _ = best(lambda: pa.SparseCOOTensor.from_numpy(views[1], views[0], shape=shape), args.repeat)
    r_time, _ = best(lambda: asp.read_message(data), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "coo.arrow")
        with open(path, "wb") as f:
            f.write(data)
        m_time, _ = best(lambda: asp.read_message(path), args.repeat)
        print(f"np.frombuffer (two views, no checks): {f_time * 1e6:9.1f} µs")
        print(f"  + pa.SparseCOOTensor.from_numpy:    {p_time * 1e3:9.1f} ms (pyarrow's own pass "
              "over the coordinates)")
        print(f"read_message(bytes):                  {r_time * 1e3:9.1f} ms")
        print(f"read_message(path), memory-mapped:    {m_time * 1e3:9.1f} ms")
        print("  (read_message checks every coordinate against the shape and the claimed canonical\n"
              "   order; pyarrow's SparseCOOTensor.from_numpy then detects canonical order itself)")

        peak, pool, grown, tensor = traced(lambda: asp.read_message(data))
        whole = np.frombuffer(data, dtype=np.uint8)
        values, coords = tensor.to_numpy()
        shared = np.shares_memory(values, whole) and np.shares_memory(coords, whole)
        print(f"\nread_message(bytes) of the {len(data) / MB:.1f} MiB message:")
        print(f"  tracemalloc peak {peak / MB:.1f} MiB, pyarrow pool +{pool / MB:.1f} MiB, "
              f"RSS +{grown / MB:.1f} MiB; values and coordinates share the input: {shared}")
        del tensor, values, coords

        peak, pool, grown, tensor = traced(lambda: asp.read_message(path))
        print(f"read_message(path): tracemalloc peak {peak / MB:.1f} MiB, pyarrow pool "
              f"+{pool / MB:.1f} MiB, RSS +{grown / MB:.1f} MiB (the mapped file's pages, "
              "touched by the checks)")
        del tensor

    narrow = asp.message_bytes(asp.read_message(data), index_type="int32")
    del data
    gc.collect()
    n_time, _ = best(lambda: asp.read_message(narrow), args.repeat)
    peak, pool, grown, tensor = traced(lambda: asp.read_message(narrow))
    print(f"\nsame tensor with int32 coordinates ({len(narrow) / MB:.1f} MiB): read_message "
          f"{n_time * 1e3:.1f} ms, tracemalloc peak {peak / MB:.1f} MiB "
          f"(pyarrow takes only int64 coordinates: {nnz * 16 / MB:.1f} MiB converted), "
          f"values still shared: {np.shares_memory(tensor.to_numpy()[0], np.frombuffer(narrow, np.uint8))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
