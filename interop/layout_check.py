#!/usr/bin/env python3
"""The pyarrow side of the interop suite's layout check (interop/layoutcases
is the Go side): unions, run-end encoding, string and list views and
structs, nested and sliced, in Arrow IPC files and streams.

    layout_check.py rewrite DIR   # pyarrow reads Go's files, writes them back
    layout_check.py compare DIR   # pyarrow's own table, after a Go round trip

rewrite: every go_K.arrow (IPC file) and go_K.arrows (IPC stream) that
`layoutcases write` wrote is read with pyarrow and validated in full (every
offset, type id, run end and view checked by Arrow C++), then written back
as py_K.arrow or py_K.arrows for `layoutcases check`, which compares it
with what it wrote. It also writes pyarrow's own table of such columns,
sliced, as pyown.arrow.

compare: go_pyown.arrow, pyown.arrow as `layoutcases check` read and wrote
it back, must validate and equal pyown.arrow.

Both end with "N checked, M failed".
"""
import glob
import os
import sys

import pyarrow as pa
import pyarrow.ipc as ipc


def read(path):
    if path.endswith(".arrows"):
        with ipc.open_stream(path) as r:
            return r.read_all()
    with ipc.open_file(path) as r:
        return r.read_all()


def write(path, table):
    opener = ipc.new_stream if path.endswith(".arrows") else ipc.new_file
    with opener(path, table.schema) as w:
        w.write_table(table)


def own_table():
    """pyarrow's own columns of every layout, sliced from slot 1."""
    n = 7
    dense = pa.UnionArray.from_dense(
        pa.array([2, 5, 5, 2, 5, 2, 2, 5], pa.int8()),
        pa.array([0, 0, 1, 1, 2, 2, 3, 3], pa.int32()),
        [pa.array([1, None, 3, 4], pa.int64()), pa.array(["a" * 20, "b", None, "c" * 13])],
        ["i", "s"], [2, 5])
    sparse = pa.UnionArray.from_sparse(
        pa.array([0, 1, 1, 0, 0, 1, 0, 1], pa.int8()),
        [pa.array(range(8), pa.int32()), pa.array([f"v{i}" * 5 for i in range(8)])],
        ["n", "t"])
    views = pa.array(["x", None, "a string longer than twelve", "", "y" * 40, "z", None, "w"], pa.string_view())
    lists = pa.ListViewArray.from_arrays(
        pa.array([0, 1, 3, 0, 2, 5, 1, 4], pa.int32()), pa.array([1, 2, 0, 3, 2, 1, 4, 2], pa.int32()),
        pa.array(range(8), pa.int64()))
    large = pa.LargeListViewArray.from_arrays(
        pa.array([4, 0, 2, 6, 1, 0, 3, 5], pa.int64()), pa.array([2, 1, 0, 2, 3, 4, 1, 1], pa.int64()),
        pa.array(range(8), pa.float64()))
    ree = pa.RunEndEncodedArray.from_arrays(pa.array([2, 3, 6, 8], pa.int32()), pa.array(["p", None, "q", "r"]))
    nested = pa.array(
        [[{"u": 1, "v": [1, 2]}], None, [], [{"u": None, "v": None}, {"u": 7, "v": []}]] * 2,
        pa.list_(pa.struct([("u", pa.int64()), ("v", pa.list_view(pa.int32()))])))
    cols = {
        "dense": dense, "sparse": sparse, "views": views, "lists": lists, "large": large, "ree": ree,
        "nested": nested,
    }
    return pa.table({k: v.slice(1, n) for k, v in cols.items()})


def rewrite(d):
    checked = failed = 0
    for path in sorted(glob.glob(os.path.join(d, "go_*.arrow")) + glob.glob(os.path.join(d, "go_*.arrows"))):
        if os.path.basename(path) == "go_pyown.arrow":
            continue
        checked += 1
        try:
            t = read(path)
            t.validate(full=True)
            write(os.path.join(d, "py_" + os.path.basename(path)[3:]), t)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {os.path.basename(path)}: {type(e).__name__}: {e}")
    checked += 1
    try:
        t = own_table()
        t.validate(full=True)
        write(os.path.join(d, "pyown.arrow"), t)
    except Exception as e:  # noqa: BLE001
        failed += 1
        print(f"FAIL pyown.arrow: {type(e).__name__}: {e}")
    print(f"{checked} checked, {failed} failed")


def compare(d):
    checked, failed = 1, 0
    try:
        want = read(os.path.join(d, "pyown.arrow"))
        got = read(os.path.join(d, "go_pyown.arrow"))
        got.validate(full=True)
        if not got.equals(want):
            failed = 1
            for name in want.column_names:
                if not got.column(name).equals(want.column(name)):
                    print(f"FAIL go_pyown.arrow: column {name}: {got.column(name)} != {want.column(name)}")
    except Exception as e:  # noqa: BLE001
        failed = 1
        print(f"FAIL go_pyown.arrow: {type(e).__name__}: {e}")
    print(f"{checked} checked, {failed} failed")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("rewrite", "compare"):
        sys.exit(__doc__)
    {"rewrite": rewrite, "compare": compare}[sys.argv[1]](sys.argv[2])
