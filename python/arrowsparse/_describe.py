"""The JSON description of a message's content (testdata/interop/README.md).

``describe`` gives, for a message read with ``read_message(...,
with_metadata=True)``, the document ``arrowpeer read-json`` prints for the
same message, so that ``testdata/interop/check_corpus.py`` can compare the
two. ``python -m arrowsparse read-json FILE`` prints it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._read import Message

_BIG = 2**53


def json_value(v: Any, value_type: str) -> Any:
    """A value as the schema writes it: integers as numbers (strings beyond
    2^53), floats as the exact double of the stored number, NaN and the
    infinities as strings."""
    if value_type.startswith(("int", "uint")):
        i = int(v)
        return str(i) if abs(i) > _BIG else i
    x = float(v)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def stored_coordinates(m: Message) -> tuple[np.ndarray, np.ndarray]:
    """The coordinates (nnz × ndim, int64) and values of every stored value
    of a sparse message, in storage order."""
    t = m.tensor
    if m.format == "COO":
        data, coords = t.to_numpy()
        values = data.reshape(-1)
        return np.asarray(coords, dtype=np.int64).reshape(len(values), len(m.shape)), values
    if m.format in ("CSR", "CSC"):
        data, indptr, indices = t.to_numpy()
        lanes = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
        pair = (lanes, indices) if m.format == "CSR" else (indices, lanes)
        return np.stack(pair, axis=1).astype(np.int64), data.reshape(-1)
    data, indptr, indices = t.to_numpy()
    nd = len(m.shape)
    order = m.axis_order or tuple(range(nd))
    coords = np.empty((len(indices[-1]), nd), dtype=np.int64)
    node = np.arange(len(indices[-1]), dtype=np.int64)
    for lv in range(nd - 1, -1, -1):
        coords[:, order[lv]] = indices[lv][node]
        if lv:
            node = np.searchsorted(indptr[lv - 1], node, side="right") - 1
    return coords, data.reshape(-1)


def describe(m: Message) -> dict[str, Any]:
    """The JSON-schema description of a message read with metadata."""
    doc: dict[str, Any] = {
        "kind": "dense" if m.format == "TENSOR" else "sparse",
        "format": m.format,
        "value_type": m.value_type,
    }
    if m.format != "TENSOR":
        doc["index_type"] = m.index_type
        if m.indptr_type is not None:
            doc["indptr_type"] = m.indptr_type
    doc["shape"] = list(m.shape)
    doc["dim_names"] = list(m.dim_names) if m.dim_names else None
    vt = m.value_type
    if m.format == "TENSOR":
        if m.strides is not None:
            doc["strides"] = list(m.strides)
        arr = m.tensor.to_numpy()
        doc["dense_values"] = [json_value(v, vt) for v in arr.ravel(order="C").tolist()]
        return doc
    doc["nnz"] = m.nnz
    if m.format == "COO":
        doc["is_canonical"] = m.is_canonical
        if m.indices_strides is not None:
            doc["indices_strides"] = list(m.indices_strides)
    if m.format == "CSF":
        doc["axis_order"] = list(m.axis_order or ())
    coords, values = stored_coordinates(m)
    doc["entries"] = entries(coords, values, vt)
    return doc


def entries(coords: np.ndarray, values: np.ndarray, value_type: str) -> list[list[Any]]:
    """One [i0, …, value] per distinct coordinate, sorted lexicographically,
    duplicates summed in the value type."""
    n, nd = coords.shape
    if n == 0:
        return []
    order = np.lexsort(coords.T[::-1]) if nd else np.arange(n)
    c, v = coords[order], values[order]
    new = np.ones(n, dtype=bool)
    if nd:
        new[1:] = (c[1:] != c[:-1]).any(axis=1)
    else:
        new[1:] = False
    starts = np.flatnonzero(new)
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.add.reduceat(v, starts) if v.dtype.kind == "f" else \
            np.add.reduceat(v, starts, dtype=v.dtype)
    return [[int(x) for x in c[s]] + [json_value(sums[k], value_type)] for k, s in enumerate(starts)]
