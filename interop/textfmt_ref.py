#!/usr/bin/env python3
"""Reference side of the text-format cross-check (packages mtx and tns).

    textfmt_ref.py write SEED DIR   scipy.io.mmwrite writes .mtx files (and
                                    gzip copies), a reference FROSTT writer
                                    writes .tns files, each with a JSON
                                    sidecar of what scipy.io.mmread (or the
                                    reference reader) reads back from it
    textfmt_ref.py read DIR         reads every file of DIR that has a
                                    sidecar (written by this library) with
                                    scipy.io.mmread or the reference FROSTT
                                    reader, and compares it with the sidecar

The sidecar format is described in internal/textcheck/textcheck.go. `read`
prints one FAIL line per mismatch and "N checked, M failed" last. Run it
with the project venv (.venv/bin/python: numpy and scipy pinned in
interop/requirements.txt).
"""
import gzip
import json
import math
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def text(v):
    """A value as a sidecar string that reads back to the same value."""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    if math.isnan(f):
        return "nan"
    return repr(f)


def sidecar_of(m, kind):
    """The sidecar of a matrix as scipy.io.mmread returns it."""
    if sp.issparse(m):
        c = sp.coo_array(m)
        order = np.lexsort((c.col, c.row))
        entries = [[str(int(c.row[k])), str(int(c.col[k])), text(c.data[k])] for k in order]
        dtype = "int64" if np.issubdtype(c.dtype, np.integer) else "float64"
        return {"kind": kind, "shape": list(map(int, c.shape)), "dtype": dtype, "entries": entries}
    a = np.asarray(m)
    dtype = "int64" if np.issubdtype(a.dtype, np.integer) else "float64"
    return {"kind": kind, "shape": list(map(int, a.shape)), "dtype": dtype,
            "dense": [text(x) for x in a.reshape(-1)]}


def random_values(rng, n, field):
    if field == "integer":
        big = rng.integers(-2**62, 2**62, size=n, dtype=np.int64)
        small = rng.integers(-1000, 1000, size=n, dtype=np.int64)
        return np.where(rng.random(n) < 0.5, big, small)
    v = rng.uniform(-1, 1, size=n)
    kinds = rng.integers(0, 10, size=n)
    v = np.where(kinds == 0, rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, size=n), v)
    v = np.where(kinds == 1, np.round(v * 1000), v)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308, 1e-310, 0.1, 1e22, 123456789.125])
    v = np.where(kinds == 2, specials[rng.integers(0, len(specials), size=n)], v)
    return v


def random_sparse(rng, rows, cols, sym, field, dups):
    n = int(rng.integers(1, rows * cols + 1)) if rows * cols else 0
    i = rng.integers(0, max(rows, 1), size=n)
    j = rng.integers(0, max(cols, 1), size=n)
    if sym != "general":
        i, j = np.maximum(i, j), np.minimum(i, j)
    if sym == "skew-symmetric":
        keep = i != j
        i, j = i[keep], j[keep]
    if not dups:
        ij = np.unique(np.stack([i, j]), axis=1) if len(i) else np.zeros((2, 0), dtype=np.int64)
        i, j = ij[0], ij[1]
    v = random_values(rng, len(i), field)
    if sym == "skew-symmetric":
        v = np.where(np.isfinite(v.astype(float)), v, 1.5).astype(v.dtype) if field == "real" else v
    if sym == "general":
        return sp.coo_array((v, (i, j)), shape=(rows, cols))
    off = i != j
    vv = v[off]
    if sym == "skew-symmetric":
        vv = -vv
    return sp.coo_array((np.concatenate([v, vv]), (np.concatenate([i, j[off]]), np.concatenate([j, i[off]]))),
                        shape=(rows, cols))


def zero_row_array(path):
    """The size line of a general array file with no rows, or None.

    scipy 1.17.1's mmread dies with SIGFPE (a division by zero in its
    fast_matrix_market core) on a general array file with 0 rows, so such
    files are read here: the banner, comments, the size line, and nothing
    after it."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [l.strip() for l in f]
    banner = lines[0].lower().split()
    if banner[2] != "array" or banner[4] != "general":
        return None
    rest = [l for l in lines[1:] if l and not l.startswith("%")]
    rows, cols = (int(x) for x in rest[0].split())
    if rows != 0:
        return None
    if len(rest) != 1:
        raise ValueError("values after the size line of an empty array")
    return rows, cols


def mmread(path):
    """scipy.io.mmread, except for the files it cannot read (zero_row_array)."""
    z = zero_row_array(path)
    if z is not None:
        return np.zeros(z)
    return scipy.io.mmread(path)


def write_cases(seed, d):
    rng = np.random.default_rng(seed)
    n = 0

    def emit(name, write, kind):
        nonlocal n
        path = os.path.join(d, name)
        write(path)
        sc = sidecar_of(mmread(path), kind)
        with open(path[:-len(".mtx")] + ".json", "w") as f:
            json.dump(sc, f)
        n += 1
        if n % 5 == 0:  # a gzip copy with its own sidecar
            with open(path, "rb") as f:
                data = f.read()
            gz = os.path.join(d, name[:-len(".mtx")] + "_gz.mtx.gz")
            with open(gz, "wb") as f:
                f.write(gzip.compress(data))
            with open(gz[:-len(".mtx.gz")] + ".json", "w") as f:
                json.dump(sc, f)
            n += 1

    shapes = [(0, 0), (1, 1), (3, 0), None, None, "large"]
    for field in ["real", "integer", "pattern"]:
        for sym in ["general", "symmetric", "skew-symmetric", "hermitian"]:
            if field == "pattern" and sym in ("skew-symmetric", "hermitian"):
                continue
            if field == "integer" and sym == "hermitian":
                continue
            for k, shape in enumerate(shapes):
                if shape is None:
                    shape = (int(rng.integers(1, 15)), int(rng.integers(1, 15)))
                elif shape == "large":
                    shape = (int(rng.integers(100, 400)), int(rng.integers(100, 400)))
                rows, cols = shape
                if sym != "general":
                    if rows != cols and shape == (3, 0):
                        continue
                    cols = rows
                dups = sym == "general" and k % 2 == 1
                m = random_sparse(rng, rows, cols, sym, "integer" if field == "integer" else "real", dups)
                kw = {"symmetry": sym}
                if field == "pattern":
                    kw["field"] = "pattern"
                emit("py_coo_%s_%s_%d.mtx" % (field, sym, k),
                     lambda p, m=m, kw=kw: scipy.io.mmwrite(p, m, comment="written by scipy.io.mmwrite", **kw),
                     "coordinate")
                if field == "pattern":
                    continue
                a = m.toarray()
                emit("py_array_%s_%s_%d.mtx" % (field, sym, k),
                     lambda p, a=a, sym=sym: scipy.io.mmwrite(p, a, symmetry=sym), "array")
                if field == "real" and k == 3:
                    emit("py_array_float32_%s_%d.mtx" % (sym, k),
                         lambda p, a=a, sym=sym: scipy.io.mmwrite(p, a.astype(np.float32), symmetry=sym), "array")
    # FROSTT files from the reference writer: comments, blank lines, tabs,
    # duplicates, ranks 1 to 6.
    for rank in range(1, 7):
        for k in range(3):
            shape = [int(x) for x in rng.integers(1, 30, size=rank)]
            nnz = int(rng.integers(1, 300))
            coords = np.stack([rng.integers(0, s, size=nnz) for s in shape], axis=1)
            coords[0] = np.array(shape) - 1
            ints = k == 2
            vals = random_values(rng, nnz, "integer" if ints else "real")
            if not ints:
                vals = np.where(np.isnan(vals), 0.5, vals)
            path = os.path.join(d, "py_tns_rank%d_%d.tns" % (rank, k))
            with open(path, "w") as f:
                f.write("# written by the reference FROSTT writer\n")
                for c, v in zip(coords, vals):
                    sep = "\t" if rng.random() < 0.2 else " "
                    f.write(sep.join(str(int(x) + 1) for x in c) + sep + text(v) + "\n")
                    if rng.random() < 0.05:
                        f.write("\n# a comment\n")
            entries = sorted([[str(int(x)) for x in c] + [text(v)] for c, v in zip(coords, vals)],
                             key=lambda e: [int(x) for x in e[:-1]])
            sc = {"kind": "tns", "shape": shape, "dtype": "int64" if ints else "float64", "entries": entries}
            if ints:
                sc["read"] = {"value_type": "int64"}
            with open(path[:-len(".tns")] + ".json", "w") as f:
                json.dump(sc, f)
            n += 1
    print("%d written" % n)


def read_tns(path):
    """The reference FROSTT reader: 1-based coordinates, '#' comments."""
    opener = gzip.open if path.endswith(".gz") else open
    coords, vals = [], []
    with opener(path, "rt") as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            coords.append(tuple(int(x) - 1 for x in t[:-1]))
            vals.append(t[-1])
    return coords, vals


def cast(v, dtype):
    """A value (number or sidecar string) as a value of dtype."""
    if dtype.startswith("float"):
        t = {"float64": np.float64, "float32": np.float32, "float16": np.float16}[dtype]
        return t(float(v))
    return int(v)


def key(v):
    """Orders values within a group of equal coordinates."""
    if isinstance(v, int):
        return (0, v)
    return (1, int(np.float64(v).view(np.uint64)))


def same(g, w, zero_sign=True):
    if isinstance(g, int):
        return g == w
    if np.isnan(g) or np.isnan(w):
        return bool(np.isnan(g) and np.isnan(w))
    return g == w and (np.signbit(g) == np.signbit(w) or not zero_sign)


def compare_entries(got, entries, dtype):
    """got: (coords tuple, value) pairs; entries: sidecar entries."""
    want = [(tuple(int(x) for x in e[:-1]), cast(e[-1], dtype)) for e in entries]
    got = [(c, cast(v, dtype)) for c, v in got]
    if len(got) != len(want):
        return "%d entries, want %d" % (len(got), len(want))
    got.sort(key=lambda e: (e[0], key(e[1])))
    want.sort(key=lambda e: (e[0], key(e[1])))
    for (gc, gv), (wc, wv) in zip(got, want):
        if gc != wc or not same(gv, wv):
            return "entry %s = %r, want %s = %r" % (gc, gv, wc, wv)
    return None


def check_file(path, sc):
    dtype = sc["dtype"]
    if sc["kind"] == "tns":
        coords, vals = read_tns(path)
        msg = compare_entries(list(zip(coords, vals)), sc.get("entries") or [], dtype)
        if msg is None and coords and not all(max(c[k] for c in coords) < s for k, s in enumerate(sc["shape"])):
            msg = "coordinate outside the shape"
        return msg
    m = mmread(path)
    if list(m.shape) != sc["shape"]:
        return "shape %s, want %s" % (m.shape, sc["shape"])
    if sc["kind"] == "array":
        if sp.issparse(m):
            return "mmread returned a sparse matrix for an array file"
        flat = np.asarray(m).reshape(-1)
        for k, (g, w) in enumerate(zip(flat, sc.get("dense") or [])):
            # scipy's array reader turns -0 into 0: zeros compare without sign.
            if not same(cast(g, dtype), cast(w, dtype), zero_sign=False):
                return "element %d: %r, want %s" % (k, g, w)
        return None
    if not sp.issparse(m):
        return "mmread returned a dense array for a coordinate file"
    c = sp.coo_array(m)
    got = [((int(r), int(k)), v) for r, k, v in zip(c.row, c.col, c.data)]
    return compare_entries(got, sc.get("entries") or [], dtype)


def read_cases(d):
    names = sorted(x for x in os.listdir(d) if x.endswith((".mtx", ".mtx.gz", ".tns", ".tns.gz")))
    checked = failed = 0
    for name in names:
        path = os.path.join(d, name)
        base = name
        for ext in (".gz", ".mtx", ".tns"):
            if base.endswith(ext):
                base = base[:-len(ext)]
        side = os.path.join(d, base + ".json")
        if not os.path.exists(side):
            continue
        with open(side) as f:
            sc = json.load(f)
        checked += 1
        try:
            msg = check_file(path, sc)
        except Exception as e:  # a reader error is a failure
            msg = "%s: %s" % (type(e).__name__, e)
        if msg:
            failed += 1
            print("FAIL %s: %s" % (name, msg))
    print("%d checked, %d failed" % (checked, failed))
    return 1 if failed else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "write":
        os.makedirs(sys.argv[3], exist_ok=True)
        write_cases(int(sys.argv[2]), sys.argv[3])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "read":
        return read_cases(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
