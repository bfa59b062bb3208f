#!/usr/bin/env python3
"""Times Parquet write and read of a 10M-element fixed-shape tensor column in
Go (arrowext's BenchmarkParquet10M) and in pyarrow, on the same data in the
same run, and prints the ratios.

  .venv/bin/python interop/bench_tables.py [ROUNDS]

The column: 1000 rows of float32[100, 100], element i = (i mod 1000003) *
0.001, no permutation; Parquet without compression and without dictionary
encoding, one row group, written to and read from memory. Go's figure is
the median ns/op of ROUNDS (default 5) benchmark runs; pyarrow's the median
of as many timed runs after one warm-up, so both are timed warm. Ratios above
1 mean Go is slower.
"""

import io
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def pyarrow_times(rounds):
    values = ((np.arange(10_000_000, dtype=np.int64) % 1000003).astype(np.float32) * np.float32(0.001))
    ty = pa.fixed_shape_tensor(pa.float32(), [100, 100])
    col = pa.ExtensionArray.from_storage(ty, pa.FixedSizeListArray.from_arrays(pa.array(values), 10_000))
    table = pa.table({"tensor": col})

    def write():
        buf = io.BytesIO()
        pq.write_table(table, buf, compression="none", use_dictionary=False)
        return buf.getvalue()

    data = write()
    w, r = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        write()
        w.append(time.perf_counter() - t0)
    pq.read_table(pa.BufferReader(data))
    for _ in range(rounds):
        t0 = time.perf_counter()
        got = pq.read_table(pa.BufferReader(data))
        r.append(time.perf_counter() - t0)
    assert isinstance(got.column(0).type, pa.FixedShapeTensorType)
    return statistics.median(w), statistics.median(r), len(data)


def go_times(rounds):
    out = subprocess.run(["go", "test", "-run", "^$", "-bench", "BenchmarkParquet10M", "-benchtime", "5x",
                          "-count", str(rounds), "./arrowext"], capture_output=True, text=True, check=True).stdout
    times = {"write": [], "read": []}
    for m in re.finditer(r"BenchmarkParquet10M/(write|read)-\d+\s+\d+\s+([\d.]+) ns/op", out):
        times[m.group(1)].append(float(m.group(2)) / 1e9)
    return statistics.median(times["write"]), statistics.median(times["read"])


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    gw, gr = go_times(rounds)
    pw, pr, size = pyarrow_times(rounds)
    mb = 40.0
    print(f"Parquet, 10M float32 ({mb:.0f} MB of values, file {size / 1e6:.1f} MB), medians of {rounds}:")
    print(f"  write: Go {gw * 1e3:7.1f} ms ({mb / gw:6.0f} MB/s)   pyarrow {pw * 1e3:7.1f} ms ({mb / pw:6.0f} MB/s)   Go/pyarrow {gw / pw:.2f}")
    print(f"  read:  Go {gr * 1e3:7.1f} ms ({mb / gr:6.0f} MB/s)   pyarrow {pr * 1e3:7.1f} ms ({mb / pr:6.0f} MB/s)   Go/pyarrow {gr / pr:.2f}")


if __name__ == "__main__":
    main()
