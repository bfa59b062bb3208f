#!/usr/bin/env python3
"""Tensor columns between this library and pyarrow (interop check 5).

Usage (with the interop venv's python, see interop/run.sh):

  pyarrow_tables.py write SEED DIR
      pyarrow writes tables of tensor columns, every case in three
      containers: DIR/NAME.arrow (IPC file), NAME.arrows (IPC stream),
      NAME.parquet. Fixed-shape columns come from
      FixedShapeTensorArray.from_numpy_ndarray (transposed arrays, so
      permutations including 3-cycles, with dim names) and from
      pa.fixed_shape_tensor types over FixedSizeList storage with null
      rows; variable-shape columns from their storage with the extension
      keys in the field metadata (pyarrow has no class for the type). Every
      value type, ranks 1 to 5. Each table comes with NAME.json, what
      `sptensor dump --json` must print, computed by the specification
      from the storage and the type's parameters (logical dimension i is
      physical dimension permutation[i]: numpy.transpose(physical, perm)),
      never through pyarrow's to_numpy_ndarray. Columns with a zero-size
      dimension, which arrow-go cannot hold, expect an error.

  pyarrow_tables.py golden DIR
      Writes the few tables of arrowext/testdata/pyarrow (a fixed seed):
      3-cycles from from_numpy_ndarray and from a type, a swap, a
      variable-shape column with null rows, a zero-size dimension.

  pyarrow_tables.py read DIR
      Reads every table this library wrote (NAME.arrow/.arrows/.parquet with
      NAME.json and NAME.meta.json, as interop/tablecases writes them) with
      pyarrow: the columns must be pyarrow's extension types with the
      parameters of NAME.meta.json, and their rows the tensors of NAME.json,
      read through to_numpy_ndarray() when the permutation is its own
      inverse and there is no null row, and through the storage and the
      type's parameters otherwise. Parquet tables with null rows must fail
      as pyarrow 25.0.1 fails on them (pinned below).

  pyarrow_tables.py check-dump 'CMD' DIR
      Runs CMD FILE (sptensor dump --json) on every table of DIR and
      compares its output with NAME.json, value by value in the value type.

  pyarrow_tables.py packed SPTENSOR SRCDIR WORKDIR
      Packs the dense Tensor messages of SRCDIR (with sidecars, as
      pyarrow_dense.py writes them), grouped by value type and rank, with
      `SPTENSOR pack` into each container; pyarrow reads every table (a
      fixed-shape column when the shapes agree, else variable-shape) and
      `SPTENSOR unpack` must give the messages back.

  pyarrow_tables.py pins
      Checks the pyarrow 25.0.1 behaviours that this library documents and
      works around, so that a fix upstream shows up: each must still hold.

Every command prints "N checked, M failed" last and exits 1 on failure.
"""

import glob
import json
import math
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

VALUE_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "float32", "float64"]
UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
CONTAINERS = {".arrow": "ipc-file", ".arrows": "ipc-stream", ".parquet": "parquet"}
FIXED = "arrow.fixed_shape_tensor"
VARIABLE = "arrow.variable_shape_tensor"
PARQUET_NULLS = "Expected all lists to be of size"  # pyarrow 25.0.1's error


# ---------------------------------------------------------------- values

def json_value(x, vt):
    """A value as the interop schema writes it."""
    if vt.startswith("float"):
        d = float(x)
        if math.isnan(d):
            return "NaN"
        if math.isinf(d):
            return "Infinity" if d > 0 else "-Infinity"
        return d
    v = int(x)
    return str(v) if abs(v) > 2**53 else v


def parse_value(v, vt):
    if vt.startswith("float"):
        return float(v)
    return int(v)


def bits(values, vt):
    """The values as unsigned integers of their bit patterns."""
    if vt.startswith("float"):
        a = np.array([parse_value(v, vt) for v in values], dtype=np.float64).astype(vt)
    else:
        a = np.array([parse_value(v, vt) for v in values], dtype=object).astype(vt)
    return a.view(UINT_OF_WIDTH[a.dtype.itemsize]), np.isnan(a) if vt.startswith("float") else None


def same_values(want, got, vt):
    if len(want) != len(got):
        return False
    if not want:
        return True
    wb, wn = bits(want, vt)
    gb, gn = bits(got, vt)
    same = wb == gb
    if wn is not None:
        same |= wn & gn
    return bool(same.all())


def norm_names(names):
    if not names or all(n == "" for n in names):
        return None
    return list(names)


def compare_rows(want, got, where):
    """Differences between two dump documents' rows, as messages."""
    if (want is None) != (got is None):
        return [f"{where}: expected {'null' if want is None else 'a tensor'}, got {'null' if got is None else 'a tensor'}"]
    if want is None:
        return []
    errs = []
    for key in ("kind", "format", "value_type", "shape"):
        if want.get(key) != got.get(key):
            errs.append(f"{where}: {key}: expected {want.get(key)!r}, got {got.get(key)!r}")
    if norm_names(want.get("dim_names")) != norm_names(got.get("dim_names")):
        errs.append(f"{where}: dim_names: expected {want.get('dim_names')!r}, got {got.get('dim_names')!r}")
    if not errs and not same_values(want["dense_values"], got["dense_values"], want["value_type"]):
        errs.append(f"{where}: dense_values differ: expected {want['dense_values'][:8]}..., got {got['dense_values'][:8]}...")
    extra = set(got) - {"kind", "format", "value_type", "shape", "dim_names", "dense_values"}
    if extra:
        errs.append(f"{where}: unexpected keys {sorted(extra)}")
    return errs


def compare_docs(want, got):
    if "error" in want or "error" in got:
        if "error" in want and "error" in got:
            return []
        return [f"expected {'an error' if 'error' in want else 'a table'}, got {json.dumps(got)[:200]}"]
    wc, gc = want["columns"], got.get("columns")
    if not isinstance(gc, list) or len(wc) != len(gc):
        return [f"expected {len(wc)} tensor columns, got {json.dumps(gc)[:200]}"]
    errs = []
    for w, g in zip(wc, gc):
        if (w["name"], w["type"]) != (g.get("name"), g.get("type")):
            errs.append(f"column {w['name']}: expected {w['type']}, got {g.get('name')!r} {g.get('type')!r}")
            continue
        if len(w["rows"]) != len(g.get("rows", [])):
            errs.append(f"column {w['name']}: expected {len(w['rows'])} rows, got {len(g.get('rows', []))}")
            continue
        for i, (wr, gr) in enumerate(zip(w["rows"], g["rows"])):
            errs += compare_rows(wr, gr, f"column {w['name']} row {i}")
    return errs


def row_doc(logical, names):
    """The dump document of one logical tensor (a NumPy array), or None."""
    if logical is None:
        return None
    vt = str(logical.dtype)
    return {"kind": "dense", "format": "TENSOR", "value_type": vt,
            "shape": list(logical.shape), "dim_names": norm_names(names),
            "dense_values": [json_value(x, vt) for x in np.ravel(logical, order="C")]}


# --------------------------------------------- reading by the specification

def fixed_params(ty):
    perm = list(ty.permutation) if ty.permutation is not None else None
    names = list(ty.dim_names) if ty.dim_names is not None else None
    return list(ty.shape), perm, names


def logical_names(names, perm):
    if names is None:
        return None
    return [names[p] for p in perm] if perm is not None else list(names)


def spec_fixed_rows(arr):
    """Logical tensors of a FixedShapeTensorArray, from its storage and its
    type's parameters, by the specification."""
    shape, perm, _ = fixed_params(arr.type)
    size = int(np.prod(shape)) if shape else 1
    storage = arr.storage
    values = storage.values.to_numpy(zero_copy_only=False)
    out = []
    for i in range(len(arr)):
        if not storage[i].is_valid:
            out.append(None)
            continue
        start = (storage.offset + i) * size
        phys = values[start:start + size].reshape(shape)
        out.append(np.transpose(phys, perm) if perm is not None else phys)
    return out


def spec_variable_rows(arr, md):
    """Logical tensors of a variable-shape column (an extension array or its
    storage), from the storage and the metadata, by the specification."""
    storage = arr.storage if isinstance(arr, pa.ExtensionArray) else arr
    perm = md.get("permutation")
    out = []
    for i in range(len(storage)):
        row = storage[i]
        if not row.is_valid:
            out.append(None)
            continue
        data = row["data"].values.to_numpy(zero_copy_only=False)
        shape = row["shape"].as_py()
        phys = data.reshape(shape)
        out.append(np.transpose(phys, perm) if perm is not None else phys)
    return out


# ----------------------------------------------------------------- write

class Writer:
    def __init__(self, seed, outdir):
        self.rng = np.random.default_rng(seed)
        self.dir = outdir
        self.count = 0

    def values(self, vt, n, special=False):
        if vt.startswith("float"):
            x = self.rng.standard_normal(n) * 100
            x = x.astype(vt)
            if special and n >= 4:
                x[:4] = [np.nan, np.inf, -np.inf, -0.0]
            return x
        info = np.iinfo(vt)
        x = self.rng.integers(info.min, info.max, size=n, endpoint=True, dtype=vt)
        if n >= 2:
            x[0], x[1] = info.min, info.max
        return x

    def names(self, n, prefix):
        return [f"{prefix}{i}" for i in range(n)]

    def fixed_numpy(self, vt, rank, axes, named):
        """A column made by from_numpy_ndarray from a transposed array:
        x[i] is logical tensor i, laid out in memory in the order given by
        axes (a permutation of the inner axes)."""
        n = int(self.rng.integers(1, 4))
        dims = [int(self.rng.integers(2, 5)) for _ in range(rank)]
        # Memory holds the inner axes in the order axes: x = base.transpose.
        base_shape = [n] + [dims[a] for a in axes]
        base = self.values(vt, int(np.prod(base_shape)), special=True).reshape(base_shape)
        inv = list(np.argsort(axes))
        x = base.transpose([0] + [1 + i for i in inv])
        names = self.names(rank, "a") if named else None
        return pa.FixedShapeTensorArray.from_numpy_ndarray(x, dim_names=names)

    def fixed_storage(self, vt, rank, perm, nulls, zero=False):
        shape = [int(self.rng.integers(1, 4)) for _ in range(rank)]
        if zero:
            shape[int(self.rng.integers(0, rank))] = 0
        size = int(np.prod(shape))
        n = int(self.rng.integers(2, 6))
        ty = pa.fixed_shape_tensor(pa.from_numpy_dtype(np.dtype(vt)), shape,
                                   dim_names=self.names(rank, "p"), permutation=perm)
        mask = np.array([nulls and i % 2 == 1 for i in range(n)])
        if size == 0:  # from_arrays refuses a list size of 0
            storage = pa.array([[]] * n, ty.storage_type)
        else:
            storage = pa.FixedSizeListArray.from_arrays(pa.array(self.values(vt, n * size)), size,
                                                        mask=pa.array(mask) if nulls else None)
        return pa.ExtensionArray.from_storage(ty, storage)

    def variable(self, vt, ndim, perm, nulls):
        """A variable-shape column as storage and the field's metadata."""
        uniform = None
        if ndim > 1 and self.rng.integers(0, 2):
            uniform = [None] * ndim
            uniform[int(self.rng.integers(0, ndim))] = int(self.rng.integers(1, 4))
        md = {}
        if perm is not None:
            md["permutation"] = perm
        md["dim_names"] = self.names(ndim, "v")
        if uniform is not None:
            md["uniform_shape"] = uniform
        data, shapes, mask = [], [], []
        for i in range(int(self.rng.integers(2, 6))):
            shape = [int(self.rng.integers(0, 4)) if uniform is None or uniform[k] is None else uniform[k]
                     for k in range(ndim)]
            null = nulls and i % 3 == 1
            mask.append(null)
            shapes.append([0] * ndim if null else shape)
            data.append(self.values(vt, 0 if null else int(np.prod(shape))))
        vtype = pa.from_numpy_dtype(np.dtype(vt))
        storage_type = pa.struct([pa.field("data", pa.list_(vtype)), pa.field("shape", pa.list_(pa.int32(), ndim))])
        storage = pa.StructArray.from_arrays(
            [pa.array(data, pa.list_(vtype)), pa.array(shapes, pa.list_(pa.int32(), ndim))],
            fields=list(storage_type), mask=pa.array(mask) if nulls else None)
        return storage, json.dumps(md, separators=(",", ":"))

    def write_case(self, name, columns):
        """columns: list of (name, array, field metadata or None, expected
        rows or None for an expected error)."""
        fields, arrays = [], []
        doc = {"columns": []}
        expect_error = False
        for cname, arr, md, rows in columns:
            if md is not None:
                fields.append(pa.field(cname, arr.type, metadata={
                    b"ARROW:extension:name": VARIABLE.encode(), b"ARROW:extension:metadata": md.encode()}))
            else:
                fields.append(pa.field(cname, arr.type))
            arrays.append(arr)
            if rows is None:
                expect_error = True
            elif isinstance(rows, list):
                ext = VARIABLE if md is not None else FIXED
                doc["columns"].append({"name": cname, "type": ext, "rows": rows})
        if expect_error:
            doc = {"error": "arrow-go cannot represent a FixedSizeList of size 0"}
        table = pa.table(arrays, schema=pa.schema(fields))
        for ext, container in CONTAINERS.items():
            stem = os.path.join(self.dir, f"{container}-{name}")
            if container == "ipc-file":
                with pa.ipc.new_file(stem + ext, table.schema) as w:
                    w.write_table(table)
            elif container == "ipc-stream":
                with pa.ipc.new_stream(stem + ext, table.schema) as w:
                    w.write_table(table)
            else:
                pq.write_table(table, stem + ext)
            with open(stem + ".json", "w") as f:
                json.dump(doc, f, indent=1)
            self.count += 1

    def fixed_rows(self, arr):
        shape, perm, names = fixed_params(arr.type)
        return [row_doc(t, logical_names(names, perm)) for t in spec_fixed_rows(arr)]

    def variable_rows(self, storage, md):
        m = json.loads(md)
        names = logical_names(m.get("dim_names"), m.get("permutation"))
        return [row_doc(t, names) for t in spec_variable_rows(storage, m)]

    def run(self):
        cycles = [[1, 2, 0], [2, 0, 1]]
        for ti, vt in enumerate(VALUE_TYPES):
            rank = 1 + ti % 5
            # from_numpy_ndarray: identity, a reversal, a 3-cycle, random.
            layouts = [list(range(rank)), list(reversed(range(rank)))]
            if rank >= 3:
                layouts.append(cycles[ti % 2] + list(range(3, rank)))
                layouts.append(list(self.rng.permutation(rank)))
            for li, axes in enumerate(layouts):
                arr = self.fixed_numpy(vt, rank, axes, named=li % 2 == 0)
                self.write_case(f"numpy-{vt}-r{rank}-{li}", [("tensor", arr, None, self.fixed_rows(arr))])
            # A type with the specification's permutation, and null rows.
            r2 = 1 + (ti + 2) % 5
            perm = (cycles[ti % 2] + list(range(3, r2))) if r2 >= 3 else list(reversed(range(r2)))
            arr = self.fixed_storage(vt, r2, perm, nulls=True)
            self.write_case(f"storage-{vt}-r{r2}-nulls", [("tensor", arr, None, self.fixed_rows(arr))])
            # Variable shape, built from storage and field metadata.
            nd = 1 + ti % 4
            vperm = [1, 2, 0][:nd] if nd == 3 else (list(reversed(range(nd))) if ti % 2 else None)
            storage, md = self.variable(vt, nd, vperm, nulls=ti % 3 != 0)
            self.write_case(f"variable-{vt}-n{nd}", [("tensor", storage, md, self.variable_rows(storage, md))])
        # Zero-size dimensions: arrow-go cannot hold a FixedSizeList of size 0.
        for vt in ("float32", "int64"):
            arr = self.fixed_storage(vt, 2, None, nulls=False, zero=True)
            self.write_case(f"zero-{vt}", [("tensor", arr, None, None)])
        # Several columns, one of another type.
        arr = self.fixed_numpy("float64", 3, [2, 0, 1], named=True)
        storage, md = self.variable("int16", 2, [1, 0], nulls=False)
        n = min(len(arr), len(storage))
        arr, storage = arr[:n], storage[:n]
        self.write_case("multi", [("fixed", arr, None, self.fixed_rows(arr)),
                                  ("variable", storage, md, self.variable_rows(storage, md)),
                                  ("id", pa.array(range(n), pa.int64()), None, "other")])


    def golden(self):
        """A few small cases for the Go unit tests (arrowext/testdata)."""
        arr = self.fixed_numpy("float32", 3, [2, 0, 1], named=True)  # stores a 3-cycle
        self.write_case("numpy-3cycle", [("tensor", arr, None, self.fixed_rows(arr))])
        arr = self.fixed_numpy("int16", 2, [1, 0], named=True)
        self.write_case("numpy-swap", [("tensor", arr, None, self.fixed_rows(arr))])
        arr = self.fixed_storage("uint8", 3, [1, 2, 0], nulls=True)
        self.write_case("storage-3cycle-nulls", [("tensor", arr, None, self.fixed_rows(arr))])
        storage, md = self.variable("float64", 3, [2, 0, 1], nulls=True)
        self.write_case("variable-3cycle-nulls", [("tensor", storage, md, self.variable_rows(storage, md))])
        arr = self.fixed_storage("float32", 2, None, nulls=False, zero=True)
        self.write_case("zero", [("tensor", arr, None, None)])


def cmd_write(seed, outdir):
    os.makedirs(outdir, exist_ok=True)
    w = Writer(seed, outdir)
    w.run()
    print(f"pyarrow_tables: {w.count} tables written")
    return 0


# ------------------------------------------------------------------ read

def read_table(path):
    """Reads a table file, telling the container by content."""
    with open(path, "rb") as f:
        head = f.read(8)
    if head.startswith(b"ARROW1"):
        return pa.ipc.open_file(path).read_all()
    if head.startswith(b"PAR1"):
        return pq.read_table(path)
    return pa.ipc.open_stream(path).read_all()


def involutive(perm):
    return perm is None or all(perm[p] == i for i, p in enumerate(perm))


class Counts:
    def __init__(self):
        self.checked = self.failed = 0
        self.notes = {}

    def note(self, key):
        self.notes[key] = self.notes.get(key, 0) + 1

    def fail(self, name, msg):
        self.failed += 1
        if self.failed <= 40:
            print(f"FAIL {name}: {msg}")


def check_go_table(path, counts):
    stem = os.path.splitext(path)[0]
    name = os.path.basename(path)
    want = json.load(open(stem + ".json"))
    meta = json.load(open(stem + ".meta.json"))
    has_nulls = any(r is None for c in want["columns"] for r in c["rows"])
    try:
        table = read_table(path)
    except Exception as e:  # noqa: BLE001
        if path.endswith(".parquet") and has_nulls and PARQUET_NULLS in str(e):
            counts.note("Parquet tables with null rows that pyarrow 25.0.1 cannot read (pinned)")
            return []
        return [f"pyarrow cannot read it: {e}"]
    if path.endswith(".parquet") and has_nulls:
        return ["pyarrow 25.0.1 read a Parquet FixedSizeList with null rows: the pin is stale, update "
                "interop/pyarrow_tables.py and the arrowext package doc"]
    errs = []
    for wc, mc in zip(want["columns"], meta["columns"]):
        col = table.column(wc["name"]).combine_chunks()
        ty = col.type
        md = json.loads(mc["metadata"])
        if mc["extension"] == FIXED:
            if not isinstance(ty, pa.FixedShapeTensorType):
                errs.append(f"column {wc['name']}: pyarrow type {ty}, not a FixedShapeTensorType")
                continue
            shape, perm, names = fixed_params(ty)
            if (shape, perm, names) != (md["shape"], md.get("permutation"), md.get("dim_names")):
                errs.append(f"column {wc['name']}: pyarrow's parameters {shape, perm, names} differ from {md}")
                continue
            rows = spec_fixed_rows(col)
            if involutive(perm) and col.null_count == 0:
                # pyarrow's own conversion agrees with the specification here.
                nd = col.to_numpy_ndarray()
                rows = [nd[i] for i in range(len(col))]
                counts.note("fixed-shape columns read through to_numpy_ndarray()")
            else:
                counts.note("fixed-shape columns read through storage + metadata")
            lnames = logical_names(names, perm)
        else:
            if not isinstance(ty, pa.BaseExtensionType) or ty.extension_name != VARIABLE:
                errs.append(f"column {wc['name']}: pyarrow type {ty}, not {VARIABLE}")
                continue
            rows = spec_variable_rows(col, md)
            lnames = logical_names(md.get("dim_names"), md.get("permutation"))
            counts.note("variable-shape columns read through storage + metadata")
        got = [row_doc(t, lnames) if t is not None else None for t in rows]
        for i, (w, g) in enumerate(zip(wc["rows"], got)):
            if g is not None and col.is_null().to_pylist()[i]:
                g = None
            errs += compare_rows(w, g, f"column {wc['name']} row {i}")
        if len(got) != len(wc["rows"]):
            errs.append(f"column {wc['name']}: {len(got)} rows, expected {len(wc['rows'])}")
    return errs


def cmd_read(indir):
    counts = Counts()
    for path in sorted(glob.glob(os.path.join(indir, "*"))):
        if os.path.splitext(path)[1] not in CONTAINERS:
            continue
        counts.checked += 1
        counts.note(f"{CONTAINERS[os.path.splitext(path)[1]]} tables")
        errs = check_go_table(path, counts)
        if errs:
            counts.fail(os.path.basename(path), "; ".join(errs[:3]))
    for k, v in sorted(counts.notes.items()):
        print(f"  {v} {k}")
    print(f"{counts.checked} checked, {counts.failed} failed")
    return 1 if counts.failed else 0


def cmd_check_dump(cmd, indir):
    counts = Counts()
    for path in sorted(glob.glob(os.path.join(indir, "*"))):
        if os.path.splitext(path)[1] not in CONTAINERS:
            continue
        counts.checked += 1
        counts.note(f"{CONTAINERS[os.path.splitext(path)[1]]} tables")
        want = json.load(open(os.path.splitext(path)[0] + ".json"))
        proc = subprocess.run(shlex.split(cmd) + [path], capture_output=True, text=True)
        try:
            got = json.loads(proc.stdout)
        except json.JSONDecodeError:
            counts.fail(os.path.basename(path), f"not JSON (status {proc.returncode}): {proc.stdout[:200]} {proc.stderr[:200]}")
            continue
        if "error" in want:
            counts.note("tables that must be refused (zero-size FixedSizeList, arrow-go)")
        errs = compare_docs(want, got)
        if errs:
            counts.fail(os.path.basename(path), "; ".join(errs[:3]))
    for k, v in sorted(counts.notes.items()):
        print(f"  {v} {k}")
    print(f"{counts.checked} checked, {counts.failed} failed")
    return 1 if counts.failed else 0


# ------------------------------------------------------------------ pins

def pins():
    """(description, check) pairs; each check returns None when pyarrow still
    behaves as pinned, or a message saying what changed."""
    out = []

    def pin(desc):
        def deco(f):
            out.append((desc, f))
            return f
        return deco

    @pin("to_numpy_ndarray() of shape [2,3,5], permutation [1,2,0]: logical shape right, "
         "strides (12,4,24) bytes per row instead of numpy.transpose's (20,4,60), values misplaced")
    def _():
        phys = np.arange(2 * 30, dtype=np.float32).reshape(2, 30)
        ty = pa.fixed_shape_tensor(pa.float32(), [2, 3, 5], permutation=[1, 2, 0])
        arr = pa.ExtensionArray.from_storage(ty, pa.FixedSizeListArray.from_arrays(pa.array(phys.ravel()), 30))
        got = arr.to_numpy_ndarray()
        want = np.stack([np.transpose(r.reshape(2, 3, 5), [1, 2, 0]) for r in phys])
        if got.shape != (2, 3, 5, 2) or got.strides[1:] != (12, 4, 24) or np.array_equal(got, want):
            return f"now shape {got.shape}, strides {got.strides}, equal to the transpose: {np.array_equal(got, want)}"

    @pin("from_numpy_ndarray stores the inverse permutation: x = base(2,2,3,5).transpose(0,2,3,1) "
         "gets permutation [2,0,1] (the specification's is [1,2,0]); to_numpy_ndarray then gives (2,5,2,3)")
    def _():
        x = np.arange(60, dtype=np.float32).reshape(2, 2, 3, 5).transpose(0, 2, 3, 1)
        a = pa.FixedShapeTensorArray.from_numpy_ndarray(x)
        back = a.to_numpy_ndarray()
        if list(a.type.shape) != [2, 3, 5] or list(a.type.permutation) != [2, 0, 1] or back.shape != (2, 5, 2, 3):
            return f"now shape {a.type.shape}, permutation {a.type.permutation}, round trip {back.shape}"
        # By the specification, the stored column holds other tensors than x.
        rows = spec_fixed_rows(a)
        if all(np.array_equal(r, x[i]) for i, r in enumerate(rows)):
            return "the stored column now holds x by the specification"

    @pin("from_numpy_ndarray of x = base(2,5,2,3).transpose(0,3,1,2) stores permutation [1,2,0] "
         "(the specification's is [2,0,1]) and to_numpy_ndarray fails: strides must not involve buffer over run")
    def _():
        x = np.arange(60, dtype=np.float32).reshape(2, 5, 2, 3).transpose(0, 3, 1, 2)
        a = pa.FixedShapeTensorArray.from_numpy_ndarray(x)
        if list(a.type.permutation) != [1, 2, 0]:
            return f"now permutation {a.type.permutation}"
        try:
            a.to_numpy_ndarray()
        except pa.ArrowInvalid as e:
            if "buffer over run" in str(e):
                return None
            return f"now fails with {e}"
        return "to_numpy_ndarray now succeeds"

    @pin("from_numpy_ndarray stores dim_names as given, in x's (logical) order, as the physical names")
    def _():
        x = np.zeros((1, 2, 3, 4), dtype=np.float32).transpose(0, 3, 1, 2)
        a = pa.FixedShapeTensorArray.from_numpy_ndarray(x, dim_names=["a", "b", "c"])
        if list(a.type.dim_names) != ["a", "b", "c"] or list(a.type.permutation) == [0, 1, 2]:
            return f"now dim_names {a.type.dim_names}, permutation {a.type.permutation}"

    @pin("involutions agree: from_numpy_ndarray(x).to_numpy_ndarray() == x for a reversal")
    def _():
        x = np.arange(24, dtype=np.int16).reshape(1, 4, 3, 2).transpose(0, 3, 2, 1)
        a = pa.FixedShapeTensorArray.from_numpy_ndarray(x)
        if not np.array_equal(a.to_numpy_ndarray(), x) or not np.array_equal(spec_fixed_rows(a)[0], x[0]):
            return "a reversal no longer round-trips"

    @pin("Parquet: a FixedSizeList column with null rows cannot be read back "
         "(Expected all lists to be of size=N but index k had size=0), pyarrow's own files included")
    def _():
        import io
        storage = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(24, dtype=np.float32)), 6,
                                                    mask=pa.array([False, True, False, False]))
        buf = io.BytesIO()
        pq.write_table(pa.table({"f": storage}), buf)
        try:
            pq.read_table(pa.BufferReader(buf.getvalue()))
        except pa.ArrowInvalid as e:
            return None if PARQUET_NULLS in str(e) else f"now fails with {e}"
        return "pyarrow now reads it"

    @pin("arrow.variable_shape_tensor has no Python class (a BaseExtensionType), and C++ refuses "
         "empty metadata (the specification allows it); C++ writes {}")
    def _():
        st = pa.struct([pa.field("data", pa.list_(pa.float32())), pa.field("shape", pa.list_(pa.int32(), 2))])

        def read(md):
            f = pa.field("v", st, metadata={b"ARROW:extension:name": VARIABLE.encode(), b"ARROW:extension:metadata": md})
            return pa.ipc.read_schema(pa.schema([f]).serialize()).field("v").type
        ty = read(b"{}")
        if type(ty) is not pa.BaseExtensionType:
            return f"now a {type(ty)}"
        try:
            read(b"")
        except pa.ArrowInvalid:
            return None
        return "C++ now accepts empty metadata"

    @pin("C++ key order: fixed shape, permutation, dim_names; variable permutation, dim_names, uniform_shape; compact")
    def _():
        st = pa.struct([pa.field("data", pa.list_(pa.float32())), pa.field("shape", pa.list_(pa.int32(), 2))])
        f = pa.field("v", st, metadata={b"ARROW:extension:name": VARIABLE.encode(),
                                        b"ARROW:extension:metadata": b'{"uniform_shape":[null,3],"dim_names":["x","y"],"permutation":[1,0]}'})
        vtype = pa.ipc.read_schema(pa.schema([f]).serialize()).field("v").type
        ftype = pa.fixed_shape_tensor(pa.float32(), [2, 3], dim_names=["a", "b"], permutation=[1, 0])
        bufs = [pa.schema([pa.field("t", t)]).serialize() for t in (ftype, vtype)]
        pa.unregister_extension_type(FIXED)
        pa.unregister_extension_type(VARIABLE)
        got = [pa.ipc.read_schema(b).field("t").metadata[b"ARROW:extension:metadata"] for b in bufs]
        want = [b'{"shape":[2,3],"permutation":[1,0],"dim_names":["a","b"]}',
                b'{"permutation":[1,0],"dim_names":["x","y"],"uniform_shape":[null,3]}']
        if got != want:
            return f"now {got}"

    return out


def cmd_pins():
    checked = failed = 0
    for desc, check in pins():
        checked += 1
        msg = check()
        if msg:
            failed += 1
            print(f"FAIL pin no longer holds: {desc}: {msg}")
        else:
            print(f"  pinned: {desc}")
    print(f"{checked} checked, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------- packed

def expected_row(doc, names):
    """A dense sidecar as a row of a packed column: the column's names."""
    want = dict(doc, dim_names=names)
    return {k: want[k] for k in ("kind", "format", "value_type", "shape", "dim_names", "dense_values")}


def cmd_packed(spt, srcdir, workdir):
    """Packs the dense messages of srcdir (NAME.arrow with a NAME.json
    sidecar) with `sptensor pack`, grouped by value type and rank, into each
    container; pyarrow reads each table, and `sptensor unpack` must give the
    messages back."""
    counts = Counts()
    groups = {}
    for side in sorted(glob.glob(os.path.join(srcdir, "*.json"))):
        doc = json.load(open(side))
        if doc.get("kind") != "dense" or not doc["shape"] or 0 in doc["shape"]:
            continue  # 0-d and zero-size tensors have no column type in arrow-go
        key = (doc["value_type"], len(doc["shape"]))
        groups.setdefault(key, []).append((side[:-5] + ".arrow", doc))
    for (vt, nd), members in sorted(groups.items()):
        members = members[:6]
        names = [norm_names(d["dim_names"]) for _, d in members]
        shared = names[0] if all(n == names[0] for n in names) else None
        fixed = all(d["shape"] == members[0][1]["shape"] for _, d in members)
        for container in ("ipc-file", "ipc-stream", "parquet"):
            counts.checked += 1
            where = f"{vt} rank {nd} {container}"
            table = os.path.join(workdir, f"{vt}-{nd}-{container}")
            outdir = table + ".out"
            os.makedirs(workdir, exist_ok=True)
            proc = subprocess.run([spt, "pack", "--container", container, table] + [m for m, _ in members],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                counts.fail(where, f"pack: {proc.stderr.strip()}")
                continue
            errs = []
            try:
                col = read_table(table).column("tensor").combine_chunks()
            except Exception as e:  # noqa: BLE001
                counts.fail(where, f"pyarrow cannot read the table: {e}")
                continue
            rows = []
            if fixed and not isinstance(col.type, pa.FixedShapeTensorType):
                errs.append(f"expected a fixed_shape_tensor column, got {col.type}")
            elif not fixed and getattr(col.type, "extension_name", None) != VARIABLE:
                errs.append(f"expected a variable_shape_tensor column, got {col.type}")
            elif fixed:
                rows = spec_fixed_rows(col)  # pack writes no permutation
            else:
                rows = spec_variable_rows(col, {})
            if len(rows) != len(members) and not errs:
                errs.append(f"pyarrow reads {len(rows)} rows, {len(members)} were packed")
            for i, ((_, doc), got) in enumerate(zip(members, rows)):
                errs += compare_rows(expected_row(doc, shared), row_doc(got, shared), f"pyarrow row {i}")
                counts.note("rows read by pyarrow")
            proc = subprocess.run([spt, "unpack", table, outdir], capture_output=True, text=True)
            if proc.returncode != 0:
                errs.append(f"unpack: {proc.stderr.strip()}")
            else:
                for i, (_, doc) in enumerate(members):
                    out = subprocess.run([spt, "dump", "--json", os.path.join(outdir, f"{i}.arrow")],
                                         capture_output=True, text=True)
                    got = json.loads(out.stdout)
                    if "error" in got:
                        errs.append(f"unpacked row {i}: {got['error']}")
                        continue
                    want = expected_row(doc, shared)
                    errs += compare_rows(want, {k: got.get(k) for k in want}, f"unpacked row {i}")
                    counts.note("messages unpacked and read back")
            if errs:
                counts.fail(where, "; ".join(errs[:3]))
    for k, v in sorted(counts.notes.items()):
        print(f"  {v} {k}")
    print(f"{counts.checked} checked, {counts.failed} failed")
    return 1 if counts.failed else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "write":
        return cmd_write(int(argv[2]), argv[3])
    if len(argv) == 3 and argv[1] == "golden":
        os.makedirs(argv[2], exist_ok=True)
        w = Writer(20261123, argv[2])
        w.golden()
        print(f"pyarrow_tables: {w.count} tables written")
        return 0
    if len(argv) == 3 and argv[1] == "read":
        return cmd_read(argv[2])
    if len(argv) == 4 and argv[1] == "check-dump":
        return cmd_check_dump(argv[2], argv[3])
    if len(argv) == 2 and argv[1] == "pins":
        return cmd_pins()
    if len(argv) == 5 and argv[1] == "packed":
        return cmd_packed(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
