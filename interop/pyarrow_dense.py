#!/usr/bin/env python3
"""Dense Tensor messages between this library and pyarrow (interop check 4).

Usage (with the interop venv's python, see interop/run.sh):

  pyarrow_dense.py read DIR
      Read every dense message of DIR (NAME.arrow with a NAME.json sidecar
      of kind "dense", as gocases writes them) with pyarrow.ipc.read_tensor
      and compare the tensor with the sidecar: type, shape, byte strides,
      dim names, and to_numpy() against a NumPy array made from
      dense_values (bit for bit; any NaN matches any NaN).

  pyarrow_dense.py write SEED DIR
      Write Tensor messages with pyarrow.ipc.write_tensor from NumPy arrays
      of every dtype (C and Fortran order, views that skip elements or
      permute axes, 0-d, 1-d, zero-size, with and without dim names, special
      values), each with a sidecar describing what Arrow C++ writes: the
      array's strides and names when it is row- or column-major by Arrow's
      rule, otherwise a row-major copy without names. The sidecars are made
      from the arrays, not by reading the messages.

Both print "N checked, M failed" (or the count written) and exit 1 on any
failure.
"""

import json
import math
import os
import sys

import numpy as np
import pyarrow as pa

DTYPES = {
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
}
# pyarrow's names of the tensor value types.
ARROW_NAMES = {
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "halffloat", "float32": "float", "float64": "double",
}
UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def parse_value(v, vt):
    """A sidecar value as a Python number of the value type's kind."""
    if vt.startswith("float"):
        return float(v)  # accepts "NaN", "Infinity", "-Infinity"
    return int(v)


def expected_array(doc):
    vt = doc["value_type"]
    vals = [parse_value(v, vt) for v in doc["dense_values"]]
    if vt.startswith("float"):
        arr = np.array(vals, dtype=np.float64).astype(DTYPES[vt])
    else:
        arr = np.array(vals, dtype=object).astype(DTYPES[vt])
    return arr.reshape(doc["shape"])


def same_elements(a, b):
    """Element-wise equality of bits, any NaN matching any NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.size == 0:
        return True
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    u = UINT_OF_WIDTH[a.dtype.itemsize]
    same = a.view(u) == b.view(u)
    if a.dtype.kind == "f":
        same |= np.isnan(a) & np.isnan(b)
    return bool(same.all())


def norm_names(names):
    if not names or all(n == "" for n in names):
        return None
    return list(names)


def read(directory):
    checked = failed = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(directory, name[:-5] + ".arrow")
        with open(os.path.join(directory, name), "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        if doc.get("kind") != "dense" or not os.path.exists(path):
            continue
        checked += 1
        problems = []
        try:
            with pa.memory_map(path) as source:
                t = pa.ipc.read_tensor(source)
                if str(t.type) != ARROW_NAMES[doc["value_type"]]:
                    problems.append("type %s, expected %s" % (t.type, doc["value_type"]))
                if list(t.shape) != doc["shape"]:
                    problems.append("shape %s, expected %s" % (t.shape, doc["shape"]))
                if list(t.strides) != doc["strides"]:
                    problems.append("strides %s, expected %s" % (t.strides, doc["strides"]))
                if norm_names(t.dim_names) != norm_names(doc["dim_names"]):
                    problems.append("dim names %r, expected %r" % (t.dim_names, doc["dim_names"]))
                if not problems and not same_elements(t.to_numpy(), expected_array(doc)):
                    problems.append("values differ from the sidecar")
        except Exception as err:  # pyarrow raises various types
            problems.append("%s: %s" % (type(err).__name__, err))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (path, "; ".join(problems)))
    print("%d checked, %d failed" % (checked, failed))
    return 1 if failed or checked == 0 else 0


# ---------------------------------------------------------------------------
# Writing


def arrow_strides(shape, width, column_major=False):
    """Byte strides as Arrow C++ computes them (all equal to the width for a
    shape without elements)."""
    if 0 in shape:
        return [width] * len(shape)
    strides, acc = [0] * len(shape), width
    order = range(len(shape)) if column_major else reversed(range(len(shape)))
    for k in order:
        strides[k] = acc
        acc *= shape[k]
    return strides


def json_value(x, vt):
    if vt.startswith("float"):
        d = float(x)
        if math.isnan(d):
            return "NaN"
        if math.isinf(d):
            return "Infinity" if d > 0 else "-Infinity"
        return d
    v = int(x)
    return str(v) if abs(v) > 2 ** 53 else v


def sidecar(arr, vt, names, note):
    """What Arrow C++'s WriteTensor writes for pa.Tensor.from_numpy(arr):
    a row- or column-major tensor as it is, anything else as a row-major
    copy without dim names."""
    width = arr.dtype.itemsize
    shape = list(arr.shape)
    strides = list(arr.strides)
    contiguous = strides in (arrow_strides(shape, width), arrow_strides(shape, width, True))
    if not contiguous:
        strides, names = arrow_strides(shape, width), None
    return {
        "kind": "dense",
        "format": "TENSOR",
        "value_type": vt,
        "shape": shape,
        "dim_names": norm_names(names),
        "strides": strides,
        "dense_values": [json_value(x, vt) for x in arr.reshape(-1, order="C")] if arr.size else [],
        "_note": note,
    }


def random_array(rng, vt, shape, special):
    dt = np.dtype(DTYPES[vt])
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "f":
        vals = rng.integers(-400, 401, size=n).astype(np.float64) / 8
        if special:
            picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 65504.0, 2.0 ** -24, 0.1,
                              np.finfo(dt).max, np.finfo(dt).tiny, np.finfo(dt).smallest_subnormal])
            mask = rng.random(n) < 0.5
            vals[mask] = picks[rng.integers(0, len(picks), size=int(mask.sum()))]
        with np.errstate(over="ignore"):
            return vals.astype(dt).reshape(shape)
    info = np.iinfo(dt)
    if special:
        picks = [info.min, info.max, 0, 1, info.max - 1]
        if dt.itemsize == 8:
            picks += [2 ** 53 + 1, 2 ** 53] + ([-(2 ** 53) - 1] if info.min < 0 else [])
        vals = np.array([picks[i] for i in rng.integers(0, len(picks), size=n)], dtype=object)
        return vals.astype(dt).reshape(shape)
    lo = max(info.min, -50)
    return rng.integers(lo, min(info.max, 100) + 1, size=n, dtype=np.int64).astype(dt).reshape(shape)


def arrays(rng, vt):
    """(label, array, names) for one dtype: the layouts and shapes to write."""
    base = random_array(rng, vt, (4, 6), False)
    cube = random_array(rng, vt, (3, 4, 5), False)
    out = [
        ("c-2d", base, ["row", "col"]),
        ("f-2d", np.asfortranarray(base), ["row", "col"]),
        ("f-3d", np.asfortranarray(cube), None),
        ("c-3d-special", random_array(rng, vt, (2, 3, 4), True), ["a", "größe", "c"]),
        ("0d", random_array(rng, vt, (), False), None),
        ("1d", random_array(rng, vt, (int(rng.integers(1, 3000)),), False), ["x"]),
        ("zero-size", random_array(rng, vt, (2, 0, 3), False), ["a", "b", "c"]),
        ("zero-size-f", np.asfortranarray(random_array(rng, vt, (3, 0), False)), None),
        ("unit-dims", random_array(rng, vt, (1, 5, 1), False), ["u", "v", "w"]),
        ("step", base[::2, 1::2], ["row", "col"]),
        ("column-slice", base[:, 2:3], None),
        ("permuted", cube.transpose(2, 0, 1), ["k", "i", "j"]),
        ("offset-row", base[1:3], ["row", "col"]),
        ("5d", random_array(rng, vt, (2, 1, 3, 2, 2), True), None),
        ("reversed", base[:, ::-1], None),  # negative strides: pyarrow refuses
    ]
    return out


def write(seed, directory):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = rejected = 0
    for vt in DTYPES:
        for label, arr, names in arrays(rng, vt):
            name = "%03d-pyarrow-%s-%s" % (written + rejected, vt, label)
            try:
                t = pa.Tensor.from_numpy(arr, dim_names=names)
            except (pa.ArrowException, ValueError, TypeError) as err:
                print("pyarrow rejects %s: %s" % (name, err))
                rejected += 1
                continue
            with pa.OSFile(os.path.join(directory, name + ".arrow"), "wb") as sink:
                pa.ipc.write_tensor(t, sink)
            doc = sidecar(arr, vt, names, "%s: numpy strides %s, C %s, F %s" % (
                label, list(arr.strides), arr.flags["C_CONTIGUOUS"], arr.flags["F_CONTIGUOUS"]))
            with open(os.path.join(directory, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, indent=1)
                f.write("\n")
            written += 1
    print("pyarrow %s, numpy %s: wrote %d Tensor messages to %s (%d arrays pyarrow rejects)"
          % (pa.__version__, np.__version__, written, directory, rejected))
    return 0 if written else 1


def main(argv):
    if len(argv) == 2 and argv[0] == "read":
        return read(argv[1])
    if len(argv) == 3 and argv[0] == "write":
        return write(int(argv[1]), argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
