"""Building sparse extension columns from scipy, pydata sparse, pyarrow and
numpy objects; a column of sparse vectors from one scipy CSR matrix and
back, without copying the index and value arrays."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
import pyarrow as pa

from . import _content as C
from . import _ext_rows as R
from ._errors import ArrowSparseError
from ._ext_meta import (EXTENSION_NAMES, INDEX_TYPE_NAMES, NP_DTYPES, PA_TYPES, VALUE_TYPE_NAMES,
                        SparseMeta, TypeArg, array_names, pa_type, type_name)
from ._ext_types import (COOType, CSCType, CSFType, CSRType, GCSType, SparseTensorArray,
                         SparseTensorType)

INT32_MAX = 2**31 - 1
_FORMAT_ALIASES = {"coo": "COO", "csr": "CSR", "csc": "CSC", "csf": "CSF", "gcs": "GCS"}


@dataclass
class _Src:
    """A source object taken apart, in its own layout and dtypes."""

    kind: str  # "COO", "CSR", "CSC", "CSF", "GCS" (pydata GCXS) or "DENSE"
    shape: tuple[int, ...]
    values: np.ndarray
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    axis_order: Optional[tuple[int, ...]] = None
    dimensions: Optional[tuple[int, ...]] = None
    partitioning: Optional[int] = None
    dim_names: Optional[tuple[str, ...]] = None
    canonical: Optional[bool] = None  # known order; None: not known

    def as_row(self, where: str) -> R.Row:
        """The source as a Row of its own format, for the row conversions."""
        nd = len(self.shape)
        fmt = self.kind
        types = {k: "int64" for k in array_names(fmt, nd)}
        meta = SparseMeta(fmt, nd, self.shape, types, None, bool(self.canonical),
                          self.axis_order if fmt == "CSF" else None,
                          self.dimensions if fmt == "GCS" else None,
                          self.partitioning if fmt == "GCS" else None,
                          "row" if fmt == "GCS" else None)
        return R.Row(meta, self.shape, {**self.arrays, "values": self.values}, where)


def _mod(obj: Any) -> str:
    return type(obj).__module__ or ""


def _source(obj: Any, where: str) -> _Src:
    from ._write import _csf_axis_order

    if isinstance(obj, pa.SparseCOOTensor):
        data, coords = obj.to_numpy()
        return _Src("COO", tuple(obj.shape), data.reshape(-1), {"indices": coords},
                    dim_names=_names(obj.dim_names), canonical=bool(obj.has_canonical_format) or None)
    if isinstance(obj, (pa.SparseCSRMatrix, pa.SparseCSCMatrix)):
        data, indptr, indices = obj.to_numpy()
        kind = "CSC" if isinstance(obj, pa.SparseCSCMatrix) else "CSR"
        return _Src(kind, tuple(obj.shape), data.reshape(-1),
                    {"pointers_to_1": indptr.reshape(-1), "indices_1": indices.reshape(-1)},
                    dim_names=_names(obj.dim_names))
    if isinstance(obj, pa.SparseCSFTensor):
        data, indptr, indices = obj.to_numpy()
        order = _csf_axis_order(obj, data, indptr, indices)
        arrays = {f"indices_{lv}": a.reshape(-1) for lv, a in enumerate(indices)}
        arrays.update({f"pointers_to_{lv + 1}": a.reshape(-1) for lv, a in enumerate(indptr)})
        return _Src("CSF", tuple(obj.shape), data.reshape(-1), arrays, axis_order=order,
                    dim_names=_names(obj.dim_names), canonical=True)
    if isinstance(obj, pa.Tensor):
        return _dense(obj.to_numpy(), _names(obj.dim_names))
    if isinstance(obj, np.ndarray):
        return _dense(obj, None)
    mod = _mod(obj)
    if mod.startswith("scipy.sparse"):
        fmt = getattr(obj, "format", None)
        if fmt in ("csr", "csc"):
            return _Src(fmt.upper(), tuple(obj.shape), np.asarray(obj.data),
                        {"pointers_to_1": np.asarray(obj.indptr), "indices_1": np.asarray(obj.indices)})
        coo = obj if fmt == "coo" else obj.tocoo()  # dok, lil, bsr, dia: a converted copy
        coords = getattr(coo, "coords", None)
        if coords is None:
            coords = (coo.row, coo.col)
        mat = np.stack([np.asarray(c) for c in coords], axis=1)
        return _Src("COO", tuple(coo.shape), np.asarray(coo.data), {"indices": mat})
    if mod.startswith("sparse"):
        import sparse

        if isinstance(obj, sparse.GCXS):
            axes = tuple(int(a) for a in obj.compressed_axes)
            rest = tuple(a for a in range(obj.ndim) if a not in axes)
            return _Src("GCS", tuple(obj.shape), np.asarray(obj.data),
                        {"pointers_to_1": np.asarray(obj.indptr), "indices_1": np.asarray(obj.indices)},
                        dimensions=axes + rest, partitioning=len(axes))
        if not isinstance(obj, sparse.COO):
            obj = obj.asformat("coo")
        return _Src("COO", tuple(obj.shape), np.asarray(obj.data),
                    {"indices": np.asarray(obj.coords).T})
    raise TypeError(f"{where}: cannot take a {type(obj).__module__}.{type(obj).__name__}: want a "
                    "scipy.sparse matrix or array, a pydata sparse.COO or GCXS, a pyarrow sparse "
                    "tensor, a pyarrow.Tensor, a numpy.ndarray or None")


def _names(names: Any) -> Optional[tuple[str, ...]]:
    if not names:
        return None
    names = tuple(str(x) for x in names)
    return names if any(names) else None


def _dense(a: np.ndarray, names: Optional[tuple[str, ...]]) -> _Src:
    nz = np.nonzero(a)
    coords = np.stack(nz, axis=1).astype(np.int64) if a.ndim else np.empty((0, 0), np.int64)
    return _Src("COO", tuple(a.shape), a[nz], {"indices": coords}, dim_names=names, canonical=True)


# -- conversions between layouts ----------------------------------------------------


def _coo_of(src: _Src, where: str) -> tuple[np.ndarray, np.ndarray, bool]:
    if src.kind == "COO":
        return src.arrays["indices"], src.values, bool(src.canonical)
    return R.to_coo(src.as_row(where))


def _to_format(src: _Src, meta: SparseMeta, shape: tuple[int, ...], where: str
               ) -> tuple[dict[str, np.ndarray], Optional[bool]]:
    """The row's arrays in the target format (source dtypes or int64), and
    whether they are known canonical (None: not known)."""
    fmt = meta.format
    if fmt == "COO":
        coords, values, canon = _coo_of(src, where)
        return {"indices": coords, "values": values}, (True if canon else None)
    if fmt in ("CSR", "CSC") and src.kind == fmt:
        return {**src.arrays, "values": src.values}, None
    if fmt == "CSF" and src.kind == "CSF" and tuple(src.axis_order or ()) == tuple(meta.axis_order or ()):
        return {**src.arrays, "values": src.values}, True
    if fmt == "GCS":
        if _same_gcs(src, meta):
            return {**src.arrays, "values": src.values}, None
    coords, values, _ = _coo_of(src, where)
    coords = coords.astype(np.int64, copy=False)
    if fmt in ("CSR", "CSC"):
        axis = 0 if fmt == "CSR" else 1
        ptr, idx, vals = R.compress(coords[:, axis], coords[:, 1 - axis], values, shape[axis])
        return {"pointers_to_1": ptr, "indices_1": idx, "values": vals}, True
    if fmt == "GCS":
        assert meta.dimensions is not None and meta.partitioning is not None
        p = meta.partitioning
        lin = []
        for group in (meta.dimensions[:p], meta.dimensions[p:]):
            if not group or coords.shape[0] == 0:
                lin.append(np.zeros(coords.shape[0], dtype=np.int64))
            else:
                lin.append(np.ravel_multi_index(tuple(coords[:, g] for g in group),
                                                tuple(shape[g] for g in group)).astype(np.int64))
        rows, cols = meta.reduced_shape(shape)
        if meta.compressed_axis == "row":
            ptr, idx, vals = R.compress(lin[0], lin[1], values, rows)
        else:
            ptr, idx, vals = R.compress(lin[1], lin[0], values, cols)
        return {"pointers_to_1": ptr, "indices_1": idx, "values": vals}, True
    # CSF from COO: sort by the levels' dimensions, sum duplicates, build levels.
    assert meta.axis_order is not None
    nd = len(shape)
    keys = [coords[:, a] for a in meta.axis_order]
    keys, vals = R.sum_sorted(keys, values)
    n = vals.shape[0]
    out: dict[str, np.ndarray] = {}
    starts_prev = np.zeros(n, dtype=bool)
    if n:
        starts_prev[0] = True
    for lv in range(nd):
        starts = starts_prev.copy()
        if n:
            starts[1:] |= keys[lv][1:] != keys[lv][:-1]
        out[f"indices_{lv}"] = keys[lv][starts]
        if lv:
            node = np.cumsum(starts) - 1
            ptr = np.append(node[starts_prev], np.int64(starts.sum())).astype(np.int64)
            out[f"pointers_to_{lv}"] = ptr if n else np.zeros(1, dtype=np.int64)
        starts_prev = starts
    out["values"] = vals
    return out, True


def _same_gcs(src: _Src, meta: SparseMeta) -> bool:
    """Whether the source's compressed arrays are the target GCS's as they are."""
    if src.kind == "GCS":  # pydata GCXS: compressed rows of (dims[:p], dims[p:])
        return (meta.compressed_axis == "row" and tuple(meta.dimensions or ()) == src.dimensions
                and meta.partitioning == src.partitioning)
    if src.kind in ("CSR", "CSC") and len(src.shape) == 2:
        ca = "row" if src.kind == "CSR" else "column"
        return (tuple(meta.dimensions or ()) == (0, 1) and meta.partitioning == 1
                and meta.compressed_axis == ca)
    return False


def _row_canonical(fmt: str, arrays: dict[str, np.ndarray]) -> bool:
    if fmt == "COO":
        return C.coo_is_canonical(arrays["indices"])
    if fmt == "CSF":
        return True
    return R._strictly_increasing_within(arrays["indices_1"], arrays["pointers_to_1"][:-1]) < 0


# -- casting --------------------------------------------------------------------------


def _cast_values(v: np.ndarray, dt: np.dtype, where: str) -> np.ndarray:
    v = np.asarray(v)
    if v.dtype == dt:
        return v
    if v.dtype.kind not in "iufb":
        raise ArrowSparseError(f"{where}: values of dtype {v.dtype} are not a tensor value type")
    if np.can_cast(v.dtype, dt, "safe") or dt.kind == "f":
        return v.astype(dt)
    if v.size:
        info = np.iinfo(dt)
        lo, hi = v.min(), v.max()
        if v.dtype.kind == "f" and not np.array_equal(v, np.trunc(v)):
            raise ArrowSparseError(f"{where}: non-integral values do not fit {dt}")
        if lo < info.min or hi > info.max:
            raise ArrowSparseError(f"{where}: values in [{lo}, {hi}] do not fit {_name_of_dtype(dt)}")
    return v.astype(dt)


def _name_of_dtype(dt: np.dtype) -> str:
    for k, v in NP_DTYPES.items():
        if v == dt:
            return k
    raise KeyError(dt)


def _cast_index(a: np.ndarray, dt: np.dtype, what: str) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == dt:
        return a
    if a.dtype.kind not in "iu":
        raise ArrowSparseError(f"{what}: dtype {a.dtype} is not an integer type")
    if a.size and not np.can_cast(a.dtype, dt, "safe"):
        info = np.iinfo(dt)
        lo, hi = int(a.min()), int(a.max())
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            raise ArrowSparseError(f"{what}: index {bad} does not fit {_name_of_dtype(dt)}")
    return a.astype(dt)


def _auto_index_dtype(arrs: list[np.ndarray]) -> str:
    """The narrowest allowed type among the given arrays' own dtypes that
    holds all of them (uint64 becomes int64)."""
    dts = [a.dtype for a in arrs]
    if not dts:
        return "int32"
    dt = np.result_type(*dts)
    if dt.kind not in "iu" or dt.itemsize > 8:
        dt = np.dtype(np.int64)
    if dt == np.uint64:
        dt = np.dtype(np.int64)
    name = _name_of_dtype(dt.newbyteorder("<"))
    if name not in INDEX_TYPE_NAMES:
        name = "int64"
    return name


# -- assembling the storage ---------------------------------------------------------


def _prim(a: np.ndarray, t: pa.DataType) -> pa.Array:
    a = np.ascontiguousarray(a)
    return pa.Array.from_buffers(t, a.shape[0], [None, pa.py_buffer(a)])


def _offsets(lengths: np.ndarray, large: bool) -> np.ndarray:
    off = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=off[1:])
    return off if large else off.astype(np.int32)


def _resolve_format(format: str) -> str:
    f = _FORMAT_ALIASES.get(str(format).lower())
    if f is None:
        raise ArrowSparseError(f"unknown format {format!r}: want coo, csr, csc, csf or gcs")
    return f


def from_sparse(objs: Iterable[Any], format: str = "coo", *, type: Optional[SparseTensorType] = None,
                value_type: Optional[TypeArg] = None,
                index_type: Union[TypeArg, Sequence[TypeArg], None] = None,
                indptr_type: Union[TypeArg, Sequence[TypeArg], None] = None,
                shape: Optional[Sequence[Optional[int]]] = None, ndim: Optional[int] = None,
                dim_names: Optional[Sequence[str]] = None, canonical: Optional[bool] = None,
                axis_order: Optional[Sequence[int]] = None, dimensions: Optional[Sequence[int]] = None,
                partitioning: Optional[int] = None, compressed_axis: str = "row",
                large_lists: Union[bool, Sequence[str], None] = None) -> SparseTensorArray:
    """A sparse extension column with one row per object.

    Parameters
    ----------
    objs : iterable
        scipy.sparse matrices or arrays (any format; COO, CSR and CSC are
        taken as they are, others through ``.tocoo()``), pydata ``sparse.COO``
        or ``GCXS``, ``pa.SparseCOOTensor``, ``SparseCSRMatrix``,
        ``SparseCSCMatrix``, ``SparseCSFTensor``, dense ``pa.Tensor`` or
        ``numpy.ndarray`` (non-zeros become entries), and None for null rows.
    format : {"coo", "csr", "csc", "csf", "gcs"}
        The extension type, unless ``type`` is given.
    type : SparseTensorType, optional
        The exact type of the column; the other type arguments must then be
        omitted. Rows are converted to its value and index types (refusing
        indices that do not fit), must agree with its shape, and must be
        canonical if it claims so.
    value_type, index_type, indptr_type : optional
        By default the common dtype of the objects' values, and the
        narrowest of the objects' own index dtypes (computed arrays are
        int64; uint64 becomes int64). For CSF, a type per level is allowed.
    shape, ndim : optional
        By default the dimensions on which all rows agree are fixed, the
        others vary (None entries).
    dim_names : sequence of str, optional
        By default the pyarrow objects' names when all rows have the same.
    canonical : bool, optional
        None: claim canonical rows when every row is (checked). True: every
        row must be (else ArrowSparseError). False: no claim.
    axis_order : CSF level order (default the identity).
    dimensions, partitioning, compressed_axis : GCS reduction (default
        identity, 1 (0 when 1-d), "row"); pydata GCXS rows set the default.
    large_lists : bool or names, optional
        None: LargeList only for a field whose column needs more than
        2^31-1 elements; True: every list field; False: never (error).

    Returns
    -------
    SparseTensorArray
        Rows are converted into the target format; the column's buffers are
        new (the objects' arrays are copied into them).
    """
    items = list(objs)
    where = lambda i: f"object {i}"  # noqa: E731
    srcs = [None if o is None else _source(o, where(i)) for i, o in enumerate(items)]
    present = [s for s in srcs if s is not None]
    if type is not None:
        if any(x is not None for x in (value_type, index_type, indptr_type, shape, ndim, dim_names,
                                       axis_order, dimensions, partitioning)):
            raise TypeError("from_sparse: give either type= or the type's parameters, not both")
        meta = type.meta
        fmt = meta.format
    else:
        fmt = _resolve_format(format)
        meta = None
    name = EXTENSION_NAMES[fmt]
    # ndim and the row shapes
    nd = meta.ndim if meta is not None else (len(shape) if shape is not None else ndim)
    for i, s in enumerate(srcs):
        if s is None:
            continue
        if nd is None:
            nd = len(s.shape)
        if len(s.shape) != nd:
            raise ArrowSparseError(f"{name}: {where(i)} has {len(s.shape)} dimensions, want {nd}")
    if nd is None:
        raise ArrowSparseError(f"{name}: no non-null object to take the shape from; give shape or ndim")
    if meta is None:
        if shape is None:
            shp: list[Optional[int]] = []
            for k in range(nd):
                sizes = {s.shape[k] for s in present}
                shp.append(sizes.pop() if len(sizes) == 1 else None)
            if not present:
                shp = [None] * nd
            shape = shp
        # the value type
        if value_type is None:
            if not present:
                raise ArrowSparseError(f"{name}: no non-null object to take the value type from; "
                                       "give value_type")
            dt = np.result_type(*[s.values.dtype for s in present])
            value_type = pa_type(dt, f"{name} value type", VALUE_TYPE_NAMES)
        if dim_names is None:
            names = {s.dim_names for s in present}
            if len(names) == 1:
                dim_names = names.pop()
        if fmt == "GCS" and dimensions is None and partitioning is None:
            g = {(s.dimensions, s.partitioning) for s in present if s.kind == "GCS"}
            if len(g) == 1 and all(s.kind == "GCS" for s in present):
                dimensions, partitioning = g.pop()
        # a provisional type (int64 indices) fixes the layout of the conversions
        meta = _build_type(fmt, "float64", shape, nd, "int64", None, dim_names, False, False,
                           axis_order, dimensions, partitioning, compressed_axis).meta
    vt_name = meta.data_types["values"] if type is not None else type_name(pa_type(value_type, name, VALUE_TYPE_NAMES))
    assert vt_name is not None
    vdt = NP_DTYPES[vt_name]
    # convert every row
    rows: list[Optional[dict[str, np.ndarray]]] = []
    shapes: list[Optional[tuple[int, ...]]] = []
    all_canonical = True
    for i, s in enumerate(srcs):
        if s is None:
            rows.append(None)
            shapes.append(None)
            continue
        for d, m in zip(s.shape, meta.shape):
            if m is not None and d != m:
                raise ArrowSparseError(f"{name}: {where(i)} has shape {list(s.shape)}, but the "
                                       f"type's shape is {list(meta.shape)}")
        arrays, canon = _to_format(s, meta, s.shape, where(i))
        arrays["values"] = _cast_values(arrays["values"], vdt, f"{name} {where(i)}")
        if canon is None:
            canon = _row_canonical(fmt, arrays)
        if not canon:
            all_canonical = False
            if (type is not None and meta.canonical) or canonical:
                raise ArrowSparseError(f"{name}: {where(i)} is not canonical, but the column "
                                       "claims canonical rows")
        rows.append(arrays)
        shapes.append(s.shape)
    present_rows = [r for r in rows if r is not None]
    # the final type
    if type is None:
        claim = all_canonical if canonical is None else bool(canonical)
        if fmt == "CSF":
            claim = False
        its: dict[str, str] = {}
        for k in array_names(fmt, nd):
            if k == "values":
                continue
            given = _given_index(fmt, k, index_type, indptr_type)
            if given is not None:
                its[k] = type_name(pa_type(given, f"{name} {k} type", INDEX_TYPE_NAMES))  # type: ignore[assignment]
            else:
                its[k] = _auto_index_dtype([r[k] for r in present_rows])
        large = _decide_large(fmt, nd, rows, large_lists, None)
        typ = _typed(fmt, vt_name, meta, its, claim, large)
    else:
        typ = type
        _decide_large(fmt, nd, rows, False if not meta.large else sorted(meta.large), meta.large)
    return _assemble(typ, rows, shapes)


def _is_one(t: Any) -> bool:
    return isinstance(t, (str, pa.DataType, np.dtype, type))


def _given_index(fmt: str, k: str, index_type: Any, indptr_type: Any) -> Any:
    """The index type the caller gave for array k (None: choose)."""
    pointer = k.startswith("pointers_to_")
    level = int(k.rsplit("_", 1)[1]) if "_" in k else 0

    def pick(t: Any, i: int) -> Any:
        return t if _is_one(t) else list(t)[i]

    if pointer:
        if indptr_type is not None:
            return pick(indptr_type, level - 1)
        return index_type if index_type is not None and _is_one(index_type) else None
    return None if index_type is None else pick(index_type, level)


def _decide_large(fmt: str, nd: int, rows: list[Optional[dict[str, np.ndarray]]], large_lists: Any,
                  fixed: Optional[frozenset[str]]) -> frozenset[str]:
    names = array_names(fmt, nd)
    if large_lists is True:
        return frozenset(names)
    chosen = set(large_lists) if large_lists not in (None, False, True) else set()
    for k in names:
        total = sum(r[k].shape[0] for r in rows if r is not None)
        if total > INT32_MAX and k not in chosen:
            if large_lists is None:
                chosen.add(k)
            else:
                raise ArrowSparseError(f"{EXTENSION_NAMES[fmt]}: list field {k} needs {total} "
                                       "elements, more than a List's 2^31-1; use large_lists")
    return frozenset(chosen)


def _build_type(fmt: str, vt: Any, shape: Any, nd: int, it: Any, pt: Any, names: Any, canonical: bool,
                large: Any, axis_order: Any, dimensions: Any, partitioning: Any,
                compressed_axis: str) -> SparseTensorType:
    if fmt == "COO":
        return COOType(vt, shape, ndim=nd, index_type=it, dim_names=names, canonical=canonical,
                       large_lists=large)
    if fmt in ("CSR", "CSC"):
        cls = CSRType if fmt == "CSR" else CSCType
        return cls(vt, shape, index_type=it, indptr_type=pt, dim_names=names, canonical=canonical,
                   large_lists=large)
    if fmt == "CSF":
        return CSFType(vt, shape, ndim=nd, axis_order=axis_order, index_type=it, indptr_type=pt,
                       dim_names=names, large_lists=large)
    return GCSType(vt, shape, ndim=nd, dimensions=dimensions, partitioning=partitioning,
                   compressed_axis=compressed_axis, index_type=it, indptr_type=pt, dim_names=names,
                   canonical=canonical, large_lists=large)


def _typed(fmt: str, vt: str, meta: SparseMeta, its: dict[str, str], claim: bool,
           large: frozenset[str]) -> SparseTensorType:
    nd = meta.ndim
    if fmt == "CSF":
        it: Any = [its[f"indices_{lv}"] for lv in range(nd)]
        pt: Any = [its[f"pointers_to_{lv}"] for lv in range(1, nd)]
    elif fmt == "COO":
        it, pt = its["indices"], None
    else:
        it, pt = its["indices_1"], its["pointers_to_1"]
    return _build_type(fmt, vt, meta.shape, nd, it, pt, meta.dim_names, claim, sorted(large),
                       meta.axis_order, meta.dimensions, meta.partitioning,
                       meta.compressed_axis or "row")


def _assemble(typ: SparseTensorType, rows: list[Optional[dict[str, np.ndarray]]],
              shapes: list[Optional[tuple[int, ...]]]) -> SparseTensorArray:
    meta = typ.meta
    name = EXTENSION_NAMES[meta.format]
    n = len(rows)
    nulls = np.array([r is None for r in rows], dtype=bool)
    children = []
    st = typ.storage_type
    shared: dict[tuple[bytes, bool], pa.Buffer] = {}  # equal offsets share one buffer (3.1)
    for f in st:
        if f.name == "shape":
            flat = np.zeros((n, meta.ndim), dtype=np.int64)
            for i, s in enumerate(shapes):
                if s is not None:
                    flat[i] = s
            values = _prim(flat.reshape(-1), pa.int64())
            children.append(pa.FixedSizeListArray.from_arrays(values, meta.ndim,
                                                               mask=pa.array(nulls) if nulls.any() else None))
            continue
        k = f.name
        dt = NP_DTYPES[meta.data_types[k]]
        parts = []
        lengths = np.zeros(n, dtype=np.int64)
        for i, r in enumerate(rows):
            if r is None:
                continue
            a = r[k] if k == "values" else _cast_index(r[k], dt, f"{name} object {i}: {k}")
            parts.append(a)
            lengths[i] = a.shape[0]
        if k == "indices" and meta.format == "COO":
            block = np.concatenate(parts, axis=0) if parts else np.empty((0, meta.ndim), dt)
            inner = _prim(np.ascontiguousarray(block, dtype=dt).reshape(-1), PA_TYPES[meta.data_types[k]])
            child = pa.FixedSizeListArray.from_arrays(inner, meta.ndim)
        else:
            flat = np.concatenate(parts) if parts else np.empty(0, dt)
            child = _prim(flat.astype(dt, copy=False), PA_TYPES[meta.data_types[k]])
        large = k in meta.large
        off = _offsets(lengths, large)
        key = (off.tobytes(), large)
        buf = shared.setdefault(key, pa.py_buffer(off))
        typ_k = pa.large_list(child.type) if large else pa.list_(child.type)
        children.append(pa.Array.from_buffers(typ_k, n, [None, buf], children=[child]))
    storage = pa.StructArray.from_arrays(children, fields=list(st),
                                         mask=pa.array(nulls) if nulls.any() else None)
    out = pa.ExtensionArray.from_storage(typ, storage)
    assert isinstance(out, SparseTensorArray)
    return out


def one_chunk(col: pa.ChunkedArray) -> pa.Array:
    """The column as one array (a concatenating copy for several chunks)."""
    if col.num_chunks == 1:
        return col.chunk(0)
    if col.num_chunks == 0:
        t = col.type
        storage = pa.array([], type=t.storage_type) if isinstance(t, pa.BaseExtensionType) else None
        return pa.ExtensionArray.from_storage(t, storage) if storage is not None else pa.array([], type=t)
    return pa.concat_arrays(col.chunks)


# -- sparse vectors <-> one CSR matrix -----------------------------------------------


def csr_to_vectors(m: Any, *, dim_names: Optional[Sequence[str]] = None,
                   canonical: Optional[bool] = None,
                   large_lists: Optional[bool] = None) -> SparseTensorArray:
    """A column of sparse vectors (``arrowsparse.coo``, ndim 1, shape
    ``[m.shape[1]]``), one per row of a scipy CSR matrix, sharing the
    matrix's index and value arrays.

    The lists' offsets are the matrix's ``indptr`` and both lists share one
    offsets buffer. ``m.indices`` and ``m.data`` become the children without
    a copy. Copies happen only for: an int64 ``indptr`` written as List
    (cast to int32, n+1 entries; pass ``large_lists=True`` to share it as
    LargeList offsets instead), an ``indptr`` that does not start at 0,
    uint64 indices (cast to int64: not an Arrow index type), and
    non-contiguous or big-endian arrays. The matrix must then not be
    modified while the column lives.

    Parameters
    ----------
    m : scipy.sparse csr_array or csr_matrix
    dim_names : one name, optional
    canonical : bool, optional
        None: claim canonical when every row's indices are strictly
        increasing (checked, O(nnz)); True: require it; False: no claim.
    large_lists : bool, optional
        None: List unless nnz > 2^31-1; True: LargeList; False: List (error
        when nnz is too large).
    """
    if getattr(m, "format", None) != "csr" or not _mod(m).startswith("scipy.sparse"):
        raise TypeError(f"csr_to_vectors takes a scipy.sparse CSR matrix or array, not "
                        f"{type(m).__name__} (convert with .tocsr())")
    n, ncols = (int(d) for d in m.shape)
    indptr = np.asarray(m.indptr)
    nnz = int(indptr[-1]) - int(indptr[0]) if indptr.size else 0
    if int(indptr[0]) != 0:
        start = int(indptr[0])
        indices = np.asarray(m.indices)[start:start + nnz]
        data = np.asarray(m.data)[start:start + nnz]
        indptr = indptr - start
    else:
        indices, data = np.asarray(m.indices), np.asarray(m.data)
    if large_lists is None:
        large = nnz > INT32_MAX
    else:
        large = bool(large_lists)
        if not large and nnz > INT32_MAX:
            raise ArrowSparseError(f"arrowsparse.coo: {nnz} entries do not fit List offsets; "
                                   "use large_lists=True")
    offsets = np.ascontiguousarray(indptr, dtype=np.dtype("<i8") if large else np.dtype("<i4"))
    vt = type_name(pa_type(data.dtype, "arrowsparse.coo value type", VALUE_TYPE_NAMES))
    if indices.dtype == np.uint64:
        indices = _cast_index(indices, np.dtype("<i8"), "csr_to_vectors indices")
    it = type_name(pa_type(indices.dtype, "arrowsparse.coo index type", INDEX_TYPE_NAMES))
    assert vt is not None and it is not None
    indices = np.ascontiguousarray(indices, dtype=NP_DTYPES[it])
    data = np.ascontiguousarray(data, dtype=NP_DTYPES[vt])
    if canonical is None or canonical:
        ok = R._strictly_increasing_within(indices[:nnz], offsets[:-1]) < 0
        if canonical and not ok:
            raise ArrowSparseError("csr_to_vectors: canonical=True, but some row's indices are not "
                                   "strictly increasing (call m.sort_indices() / sum_duplicates())")
        claim = ok
    else:
        claim = False
    typ = COOType(vt, [ncols], index_type=it, dim_names=dim_names, canonical=claim,
                  large_lists=large)
    off_buf = pa.py_buffer(offsets)
    inner = pa.Array.from_buffers(PA_TYPES[it], indices.shape[0], [None, pa.py_buffer(indices)])
    fsl = pa.FixedSizeListArray.from_arrays(inner, 1)
    vals = pa.Array.from_buffers(PA_TYPES[vt], data.shape[0], [None, pa.py_buffer(data)])
    lt = (pa.large_list if large else pa.list_)
    ind_list = pa.Array.from_buffers(lt(fsl.type), n, [None, off_buf], children=[fsl])
    val_list = pa.Array.from_buffers(lt(vals.type), n, [None, off_buf], children=[vals])
    storage = pa.StructArray.from_arrays([ind_list, val_list], fields=list(typ.storage_type))
    out = pa.ExtensionArray.from_storage(typ, storage)
    assert isinstance(out, SparseTensorArray)
    return out


def vectors_to_csr(col: Any, *, matrix: bool = False, trusted: bool = False,
                   ncols: Optional[int] = None) -> Any:
    """One scipy CSR matrix whose rows are a column of sparse vectors
    (``arrowsparse.coo`` with ndim 1), sharing the column's buffers.

    ``indptr`` is the lists' offsets, ``indices`` and ``data`` are views of
    the children: nothing of size nnz is copied, except when scipy needs
    another index type (index types other than int32/int64 are cast to
    int32 or int64; an int64 index child with List offsets gets an int64
    copy of the n+1 offsets), when the two lists' row lengths are not laid
    out alike, or when a null row holds entries (they are dropped; null rows
    become empty rows). A chunked column is concatenated first (a copy).

    Parameters
    ----------
    col : SparseTensorArray or ChunkedArray of one
    matrix : bool
        Return ``csr_matrix`` instead of ``csr_array``.
    trusted : bool
        Skip the O(nnz) checks (indices in range, canonical claim); the
        O(n) checks of the offsets always run.
    ncols : int, optional
        The number of columns; by default the type's fixed size, or the
        largest row size when the size varies.
    """
    import scipy.sparse as sps

    if isinstance(col, pa.ChunkedArray):
        col = one_chunk(col)
    if not isinstance(col, SparseTensorArray) or col.type.format != "COO" or col.type.ndim != 1:
        raise ArrowSparseError("vectors_to_csr takes a column of sparse vectors (arrowsparse.coo "
                               f"with ndim 1), not {getattr(col, 'type', type(col))!r}")
    meta = col.type.meta
    st = col.storage
    n = len(st)
    il, vl = st.field("indices"), st.field("values")
    oi, ov = R.offsets_view(il), R.offsets_view(vl)
    flat_i = R.prim_view(il.values.values, NP_DTYPES[meta.data_types["indices"]])
    fsl = il.values
    flat_i = flat_i[fsl.offset:fsl.offset + len(fsl)]
    flat_v = R.prim_view(vl.values, NP_DTYPES[meta.data_types["values"]])
    name = "arrowsparse.coo"
    for what, off, flat in (("indices", oi, flat_i), ("values", ov, flat_v)):
        if off.shape[0] and (int(off[0]) < 0 or int(off[-1]) > flat.shape[0]
                             or (n and bool((off[1:] < off[:-1]).any()))):
            raise ArrowSparseError(f"{name}: the offsets of {what} are not a valid list layout")
    li, lv = np.diff(oi), np.diff(ov)
    valid = None if st.null_count == 0 else ~np.asarray(st.is_null())
    if valid is not None and (il.null_count or vl.null_count):
        bad = (np.asarray(il.is_null()) | np.asarray(vl.is_null())) & valid
        if bad.any():
            raise ArrowSparseError(f"{name} row {int(np.flatnonzero(bad)[0])}: a list is null in "
                                   "a non-null row")
    elif valid is None and (il.null_count or vl.null_count):
        r = int(np.flatnonzero(np.asarray(il.is_null()) | np.asarray(vl.is_null()))[0])
        raise ArrowSparseError(f"{name} row {r}: a list is null in a non-null row")
    mismatch = li != lv
    if valid is not None:
        mismatch &= valid
    if mismatch.any():
        r = int(np.flatnonzero(mismatch)[0])
        raise ArrowSparseError(f"{name} row {r}: indices has {int(li[r])} entries but values has "
                               f"{int(lv[r])}")
    used_i = fsl.slice(int(oi[0]), int(oi[-1]) - int(oi[0])) if n else fsl.slice(0, 0)
    used_v = vl.values.slice(int(ov[0]), int(ov[-1]) - int(ov[0])) if n else vl.values.slice(0, 0)
    if used_i.null_count or used_v.null_count or R._has_nulls(used_i):
        raise ArrowSparseError(f"{name}: the indices or values hold nulls")
    # shapes
    if meta.varying:
        shapes = R.fsl_view(st.field("shape"), np.dtype("<i8"))[:, 0]
        dims = shapes if valid is None else np.where(valid, shapes, 0)
        if (dims < 0).any():
            raise ArrowSparseError(f"{name} row {int(np.flatnonzero(dims < 0)[0])}: negative shape")
        width = int(dims.max()) if n else 0
    else:
        width = meta.shape[0]  # type: ignore[assignment]
        dims = None
    if ncols is None:
        ncols = width
    elif ncols < width:
        raise ArrowSparseError(f"{name}: ncols {ncols} is smaller than the vectors' size {width}")
    if valid is not None and bool((li[~valid] != 0).any()):
        # null rows that hold entries: drop them (a copy)
        keep = np.repeat(valid, li)
        indices = flat_i[int(oi[0]):int(oi[-1])][keep]
        keepv = np.repeat(valid, lv)
        values = flat_v[int(ov[0]):int(ov[-1])][keepv]
        lengths = np.where(valid, li, 0)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
    else:
        indices = flat_i[int(oi[0]):int(oi[-1])]
        values = flat_v[int(ov[0]):int(ov[-1])]
        indptr = oi if int(oi[0]) == 0 else oi - oi[0]
    if not trusted and indices.size:
        if dims is None:
            bad = C._outside(indices, width)
            if bad:
                j = C._first_outside(indices, 0, width)
                r = int(np.searchsorted(indptr, j, side="right")) - 1
                raise ArrowSparseError(f"{name} row {r}: coordinate 0 is {int(indices[j])}, "
                                       f"outside [0, {width})")
        else:
            per = np.repeat(dims, np.diff(indptr))
            badm = (indices < 0) | (indices >= per)
            if badm.any():
                j = int(np.flatnonzero(badm)[0])
                r = int(np.searchsorted(indptr, j, side="right")) - 1
                raise ArrowSparseError(f"{name} row {r}: coordinate 0 is {int(indices[j])}, "
                                       f"outside [0, {int(per[j])})")
        if meta.canonical:
            k = R._strictly_increasing_within(indices, indptr[:-1])
            if k >= 0:
                r = int(np.searchsorted(indptr, k, side="right")) - 1
                raise ArrowSparseError(f"{name} row {r}: the type claims canonical rows, but the "
                                       "coordinates are not sorted without duplicates")
    # scipy wants indptr and indices of one type, int32 or int64
    idt = indices.dtype
    if idt not in (np.dtype("<i4"), np.dtype("<i8")):
        target = np.dtype("<i4") if idt.itemsize < 4 or idt == np.dtype("<u2") else np.dtype("<i8")
        indices = indices.astype(target)
        idt = target
    if indptr.dtype != idt:
        if idt == np.dtype("<i4") and int(indptr[-1]) > INT32_MAX:
            indices = indices.astype(np.int64)
            indptr = indptr.astype(np.int64)
        else:
            indptr = indptr.astype(idt)
    cls = sps.csr_matrix if matrix else sps.csr_array
    out = cls((values, indices, indptr), shape=(n, int(ncols)), copy=False)
    if meta.canonical:
        out.has_canonical_format = True
    return out
