#!/usr/bin/env python3
"""Interop files of the extension types, for the Go package arrowext.

    python interop_ext.py write DIR   # IPC files, IPC streams and Parquet files + sidecars
    python interop_ext.py check DIR   # read another implementation's files, compare with sidecars

``write`` writes, for every case, ``CASE.arrow`` (IPC file), ``CASE.arrows``
(IPC stream) and ``CASE.parquet``, each with a sidecar ``FILE.json``:

    {"container": "ipc-file" | "ipc-stream" | "parquet",
     "writer": "...",
     "columns": [{"name": "tensor",
                  "extension_name": "arrowsparse.coo",
                  "extension_metadata": {... the metadata, parsed ...},
                  "rows": [ROW or null, ...]}]}

Each ROW describes one tensor in the JSON schema of
testdata/interop/README.md (``kind``, ``format``, ``value_type``,
``index_type``, ``indptr_type``, ``shape``, ``dim_names``, ``nnz``,
``entries``, and ``is_canonical`` for COO (the column's claim),
``axis_order`` for CSF; ``dense_values`` for ``arrow.fixed_shape_tensor``
and ``arrow.variable_shape_tensor`` columns, in the logical layout).
Formats are ``COO``, ``CSR``, ``CSC``, ``CSF``, ``GCS`` and ``TENSOR``;
``index_type`` is the type of the COO ``indices``, of ``indices_1``
(CSR/CSC/GCS) or of ``indices_0`` (CSF), ``indptr_type`` that of
``pointers_to_1``. Null rows are ``null``.

``check`` reads every ``*.json`` sidecar's file with pyarrow and this
package (types registered), compares the columns' extension names and
metadata (as JSON values) and every row (through
testdata/interop/check_corpus.py), and prints ``N checked, M failed`` as
its last line; it exits 1 when a file failed or none was found.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import arrowsparse as asp
from arrowsparse import _ext_rows as R

REPO = Path(__file__).resolve().parents[2]
CONTAINERS = {".arrow": "ipc-file", ".arrows": "ipc-stream", ".parquet": "parquet"}


def _checker() -> Any:
    spec = importlib.util.spec_from_file_location(
        "check_corpus", REPO / "testdata" / "interop" / "check_corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# -- describing rows ----------------------------------------------------------------


def json_value(v: Any) -> Any:
    """A value as the interop schema writes it."""
    if isinstance(v, (np.integer, int)):
        i = int(v)
        return i if abs(i) <= 2**53 else str(i)
    x = float(v)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def describe_sparse(row: R.Row) -> dict[str, Any]:
    m = row.meta
    coords, values, _ = R.to_coo(row)
    sums: dict[tuple[int, ...], Any] = {}
    with np.errstate(over="ignore"):
        for c, v in zip(map(tuple, coords.tolist()), values):
            sums[c] = (sums[c] + v) if c in sums else v
            sums[c] = values.dtype.type(sums[c])
    index_name = {"COO": "indices", "CSF": "indices_0"}.get(m.format, "indices_1")
    doc: dict[str, Any] = {"kind": "sparse", "format": m.format, "value_type": m.data_types["values"],
                           "index_type": m.data_types[index_name], "shape": list(row.shape),
                           "dim_names": list(m.dim_names) if m.dim_names else None, "nnz": row.nnz,
                           "entries": [list(c) + [json_value(sums[c])] for c in sorted(sums)]}
    if m.format != "COO":
        doc["indptr_type"] = m.data_types["pointers_to_1"]
    if m.format == "COO":
        doc["is_canonical"] = m.canonical
    if m.format == "CSF":
        doc["axis_order"] = list(m.axis_order or ())
    return doc


def describe_dense(a: np.ndarray, names: Optional[list[str]]) -> dict[str, Any]:
    vt = {"f": "float", "i": "int", "u": "uint"}[a.dtype.kind] + str(8 * a.dtype.itemsize)
    return {"kind": "dense", "format": "TENSOR", "value_type": vt, "shape": list(a.shape),
            "dim_names": names, "dense_values": [json_value(v) for v in a.reshape(-1)]}


def _dense_names(t: pa.DataType) -> Optional[list[str]]:
    from arrowsparse._tensor_ext import _ext_metadata

    names = _ext_metadata(t).get("dim_names")
    perm = _ext_metadata(t).get("permutation")
    if names and perm:  # dim_names are physical; the rows are logical
        names = [names[p] for p in perm]
    return names or None


def describe_column(col: Any) -> tuple[str, Any, list[Optional[dict[str, Any]]]]:
    """(extension name, parsed metadata, row descriptions) of a column."""
    if isinstance(col, pa.ChunkedArray):
        chunks = col.chunks
    else:
        chunks = [col]
    t = col.type
    if isinstance(t, asp.SparseTensorType):
        rows: list[Optional[dict[str, Any]]] = []
        for c in chunks:
            rows += [None if r is None else describe_sparse(r) for r in c.rows()]
        return t.extension_name, json.loads(t.extension_metadata), rows
    if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.fixed_shape_tensor":
        from arrowsparse._tensor_ext import _ext_metadata

        names = _dense_names(t)
        rows = []
        for c in chunks:
            dense = asp.fixed_shape_tensor_to_numpy(c)
            rows += [describe_dense(dense[i], names) if c[i].is_valid else None for i in range(len(c))]
        return t.extension_name, _ext_metadata(t), rows
    if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.variable_shape_tensor":
        from arrowsparse._tensor_ext import _ext_metadata

        names = _dense_names(t)
        rows = []
        for c in chunks:
            rows += [None if a is None else describe_dense(a, names)
                     for a in asp.variable_shape_tensor_to_numpy(c)]
        return t.extension_name, _ext_metadata(t), rows
    raise ValueError(f"column of type {t} is not an extension type this script knows")


# -- the cases ------------------------------------------------------------------------


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, density: float = 0.4) -> np.ndarray:
    dt = np.dtype(dtype)
    vals = rng.integers(1, 100, size=shape) if dt.kind in "iu" else rng.integers(-64, 64, size=shape) / 4
    out = np.where(rng.random(shape) < density, vals, 0).astype(dt)
    if dt.kind == "f":
        out[(out == 0) & (rng.random(shape) < 0.05)] = 0  # explicit zeros are not stored by from_sparse
    return out


def _variable_shape_column(rows: list[Optional[np.ndarray]], perm: Optional[list[int]],
                           names: Optional[list[str]]) -> pa.Array:
    nd = next(r.ndim for r in rows if r is not None)
    dt = next(r.dtype for r in rows if r is not None)
    storage_t = pa.struct([("data", pa.list_(pa.from_numpy_dtype(dt))), ("shape", pa.list_(pa.int32(), nd))])
    storage = pa.array([None if r is None else {"data": r.reshape(-1).tolist(), "shape": list(r.shape)}
                        for r in rows], type=storage_t)
    meta: dict[str, Any] = {}
    if perm is not None:
        meta["permutation"] = perm
    if names is not None:
        meta["dim_names"] = names
    f = pa.field("t", storage_t, metadata={"ARROW:extension:name": "arrow.variable_shape_tensor",
                                           "ARROW:extension:metadata": json.dumps(meta)})
    sink = pa.BufferOutputStream()
    table = pa.Table.from_arrays([storage], schema=pa.schema([f]))
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return pa.ipc.open_stream(sink.getvalue()).read_all().column(0).chunk(0)


def cases() -> dict[str, dict[str, Any]]:
    """name → {column name: array}; every case has a column "tensor"."""
    rng = np.random.default_rng(20261123)
    out: dict[str, dict[str, Any]] = {}
    combos = [("float64", "int32"), ("float32", "int64"), ("int8", "uint8"), ("uint64", "uint32"),
              ("float16", "int16"), ("int32", "int8")]
    for fmt in ("coo", "csr", "csc", "csf", "gcs"):
        nd = 2 if fmt in ("csr", "csc") else 3
        base = (4, 5, 3)[:nd]
        for vt, it in combos:
            fixed: list[Optional[np.ndarray]] = [_random(rng, base, vt) for _ in range(4)]
            fixed[1] = None
            fixed[2] = np.zeros(base, dtype=vt)
            kw: dict[str, Any] = {"index_type": it}
            if fmt == "csf":
                kw["axis_order"] = [2, 0, 1]
            if fmt == "gcs":
                kw.update(dimensions=[2, 0, 1], partitioning=1)
            out[f"{fmt}-{vt}-{it}-fixed"] = {"tensor": asp.from_sparse(fixed, fmt, **kw)}
            shapes = [base, tuple(d + 1 for d in base), (0,) + base[1:], base[:-1] + (1,)]
            varying: list[Optional[np.ndarray]] = [_random(rng, s, vt) for s in shapes]
            out[f"{fmt}-{vt}-{it}-varying"] = {"tensor": asp.from_sparse(
                varying, fmt, dim_names=["i", "j", "k"][:nd], **kw)}
            out[f"{fmt}-{vt}-{it}-varying-nulls"] = {"tensor": asp.from_sparse(
                varying[:2] + [None] + varying[2:], fmt, **kw)}
    # COO with duplicates (not canonical), GCS stored as CSC, sparse vectors
    import scipy.sparse as sps

    dup = sps.coo_array((np.array([1.0, 2.0, 4.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    out["coo-duplicates"] = {"tensor": asp.from_sparse([dup, None], "coo", index_type="int16")}
    out["gcs-csc-1d"] = {"tensor": asp.from_sparse([_random(rng, (7,), "float64") for _ in range(3)],
                                                   "gcs", partitioning=1, compressed_axis="column")}
    m = sps.random_array((50, 30), density=0.1, format="csr", random_state=rng)
    m.sort_indices()
    out["vectors"] = {"tensor": asp.csr_to_vectors(m)}
    # the canonical dense tensor types
    phys = np.arange(3 * 2 * 3 * 4, dtype=np.float32).reshape(3, 2, 3, 4)
    t = pa.fixed_shape_tensor(pa.float32(), [2, 3, 4], dim_names=["a", "b", "c"], permutation=[1, 2, 0])
    fst = pa.ExtensionArray.from_storage(t, pa.FixedSizeListArray.from_arrays(pa.array(phys.reshape(-1)), 24))
    out["fixed-shape-tensor"] = {"tensor": fst}
    var_rows: list[Optional[np.ndarray]] = [np.arange(6, dtype=np.int32).reshape(2, 3, 1), None,
                                            np.arange(8, dtype=np.int32).reshape(1, 4, 2)]
    out["variable-shape-tensor"] = {"tensor": _variable_shape_column(var_rows, [2, 0, 1], ["x", "y", "z"])}
    return out


def _parquet_ok(table: pa.Table) -> bool:
    """pyarrow 25 cannot read back a FixedSizeList under a null struct row
    (apache/arrow#35692): such tables are written to IPC only."""
    for col in table.columns:
        t = col.type
        if isinstance(t, asp.SparseTensorType) and t.fixed_shape is None and col.null_count:
            return False
        if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.variable_shape_tensor" \
                and col.null_count:
            return False
    return True


def write(directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    writer = f"arrowsparse-python {asp.__version__} (pyarrow {pa.__version__})"
    n = 0
    for name, cols in cases().items():
        table = pa.table(cols)
        docs = []
        for cname in table.column_names:
            ext, meta, rows = describe_column(table.column(cname))
            docs.append({"name": cname, "extension_name": ext, "extension_metadata": meta, "rows": rows})
        writers: dict[str, Callable[[Path], None]] = {
            ".arrow": lambda p: _write_ipc(table, p, pa.ipc.new_file),
            ".arrows": lambda p: _write_ipc(table, p, pa.ipc.new_stream),
        }
        if _parquet_ok(table):
            writers[".parquet"] = lambda p: pq.write_table(table, p)
        for ext, fn in writers.items():
            path = directory / (name + ext)
            fn(path)
            sidecar = {"container": CONTAINERS[ext], "writer": writer, "columns": docs}
            (directory / (path.name + ".json")).write_text(json.dumps(sidecar, indent=1) + "\n")
            n += 1
    print(f"wrote {n} files with sidecars to {directory}")
    return 0


def _write_ipc(table: pa.Table, path: Path, opener: Any) -> None:
    with pa.OSFile(str(path), "wb") as f, opener(f, table.schema) as w:
        w.write_table(table)


# -- checking -----------------------------------------------------------------------------


def read(path: Path, container: str) -> pa.Table:
    if container == "ipc-file":
        return pa.ipc.open_file(pa.memory_map(str(path))).read_all()
    if container == "ipc-stream":
        return pa.ipc.open_stream(pa.memory_map(str(path))).read_all()
    if container == "parquet":
        # use_threads=False: pyarrow 25.0.1 can abort at exit after threaded
        # Parquet reads in a process that memory-maps IPC files
        # (python/examples/read_go_tensors.py says more).
        return pq.read_table(path, use_threads=False)
    raise ValueError(f"unknown container {container!r}")


def check_file(sidecar: Path, checker: Any) -> list[str]:
    doc = json.loads(sidecar.read_text())
    path = sidecar.with_name(sidecar.name[: -len(".json")])
    try:
        table = asp.rewrap(read(path, doc["container"]))
    except Exception as err:  # noqa: BLE001 - every failure is reported
        return [f"read: {type(err).__name__}: {err}"]
    problems = []
    for want in doc["columns"]:
        name = want["name"]
        if name not in table.column_names:
            problems.append(f"column {name!r} is missing")
            continue
        try:
            ext, meta, rows = describe_column(table.column(name))
        except Exception as err:  # noqa: BLE001
            problems.append(f"column {name!r}: {type(err).__name__}: {err}")
            continue
        if ext != want["extension_name"]:
            problems.append(f"column {name!r}: extension {ext!r}, expected {want['extension_name']!r}")
        if meta != want["extension_metadata"]:
            problems.append(f"column {name!r}: metadata {json.dumps(meta)} differs from "
                            f"{json.dumps(want['extension_metadata'])}")
        if len(rows) != len(want["rows"]):
            problems.append(f"column {name!r}: {len(rows)} rows, expected {len(want['rows'])}")
            continue
        for i, (got, exp) in enumerate(zip(rows, want["rows"])):
            if (got is None) != (exp is None):
                problems.append(f"column {name!r} row {i}: null {got is None}, expected {exp is None}")
            elif got is not None:
                for d in checker.compare(exp, got):
                    problems.append(f"column {name!r} row {i}: {d}")
    return problems


def check(directory: Path) -> int:
    checker = _checker()
    sidecars = sorted(directory.glob("*.json"))
    failed = 0
    for s in sidecars:
        problems = check_file(s, checker)
        if problems:
            failed += 1
            print(f"FAIL {s.name[:-5]}")
            for p in problems[:10]:
                print(f"  {p}")
    print(f"{len(sidecars)} checked, {failed} failed")
    return 1 if failed or not sidecars else 0


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("write", "check"):
        print(__doc__.strip().splitlines()[2] + "\n" + __doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    d = Path(argv[1])
    return write(d) if argv[0] == "write" else check(d)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
