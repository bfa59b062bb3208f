"""One row of a sparse extension column as numpy views, its checks
(arrowext/SPARSE.md 2.5) and its conversions to scipy, pydata sparse,
pyarrow and dense numpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pyarrow as pa

from . import _content as C
from ._errors import ArrowSparseError
from ._ext_meta import EXTENSION_NAMES, NP_DTYPES, SparseMeta, array_names, check_row_shape

# -- numpy views of Arrow arrays ---------------------------------------------


def prim_view(a: pa.Array, dtype: np.dtype) -> np.ndarray:
    """The elements of a primitive array (its offset applied) as a read-only
    numpy view of its data buffer; validity is ignored."""
    n = len(a)
    bufs = a.buffers()
    if n == 0 or bufs[1] is None:
        return np.empty(0, dtype=dtype)
    v = np.frombuffer(bufs[1], dtype=dtype, count=n, offset=a.offset * dtype.itemsize)
    v.flags.writeable = False  # Arrow buffers are immutable
    return v


def fsl_view(a: pa.Array, dtype: np.dtype) -> np.ndarray:
    """A FixedSizeListArray of k-element lists as an (len, k) view."""
    k = a.type.list_size
    child = a.values  # the whole child: a's offset is not applied
    flat = prim_view(child, dtype)
    start = a.offset * k
    return flat[start:start + len(a) * k].reshape(len(a), k)


def offsets_view(a: pa.Array) -> np.ndarray:
    """The len+1 offsets of a List or LargeList array (its offset applied)."""
    dt = np.dtype("<i8") if pa.types.is_large_list(a.type) else np.dtype("<i4")
    bufs = a.buffers()
    if bufs[1] is None:
        return np.zeros(len(a) + 1, dtype=dt)
    v = np.frombuffer(bufs[1], dtype=dt, count=len(a) + 1, offset=a.offset * dt.itemsize)
    v.flags.writeable = False
    return v


def null_mask(a: pa.Array) -> Optional[np.ndarray]:
    """A boolean array, True where a is null, or None when nothing is."""
    if a.null_count == 0:
        return None
    return np.asarray(a.is_null())


def _has_nulls(a: pa.Array) -> bool:
    if a.null_count:
        return True
    return pa.types.is_fixed_size_list(a.type) and a.values.null_count > 0 and \
        a.values.slice(a.offset * a.type.list_size, len(a) * a.type.list_size).null_count > 0


# -- rows ----------------------------------------------------------------------


@dataclass
class Row:
    """One non-null row: its shape and its arrays as numpy views (COO
    ``indices`` as the (nnz, ndim) coordinate block)."""

    meta: SparseMeta
    shape: tuple[int, ...]
    arrays: dict[str, np.ndarray]
    where: str

    @property
    def values(self) -> np.ndarray:
        return self.arrays["values"]

    @property
    def nnz(self) -> int:
        return int(self.arrays["values"].shape[0])

    def fail(self, rule: str) -> ArrowSparseError:
        return ArrowSparseError(f"{EXTENSION_NAMES[self.meta.format]} {self.where}: {rule}")

    @property
    def known_canonical(self) -> bool:
        return self.meta.canonical or self.meta.format == "CSF"


def _dtype(meta: SparseMeta, name: str) -> np.dtype:
    return NP_DTYPES[meta.data_types[name]]


def row_from_scalar(meta: SparseMeta, scalar: pa.ExtensionScalar, where: str) -> Optional[Row]:
    """The row held by a scalar of the extension type (None when null)."""
    if not scalar.is_valid:
        return None
    sv = scalar.value
    name = EXTENSION_NAMES[meta.format]
    arrays = {}
    for k in array_names(meta.format, meta.ndim):
        ls = sv[k]
        if not ls.is_valid or ls.values is None:
            raise ArrowSparseError(f"{name} {where}: list {k} is null in a non-null row")
        a = ls.values
        if _has_nulls(a):
            raise ArrowSparseError(f"{name} {where}: list {k} holds nulls")
        if meta.format == "COO" and k == "indices":
            arrays[k] = fsl_view(a, _dtype(meta, k))
        else:
            arrays[k] = prim_view(a, _dtype(meta, k))
    if meta.varying:
        s = sv["shape"]
        if not s.is_valid or s.values.null_count:
            raise ArrowSparseError(f"{name} {where}: the shape of a non-null row is null")
        shape = tuple(int(x) for x in prim_view(s.values, np.dtype("<i8")))
    else:
        shape = meta.fixed_shape  # type: ignore[assignment]
    check_row_shape(meta, shape, f"{where} shape")
    return Row(meta, shape, arrays, where)


class Column:
    """Numpy views of a whole column's storage, for row access without one
    pyarrow object per row."""

    def __init__(self, meta: SparseMeta, storage: pa.StructArray) -> None:
        self.meta = meta
        self.n = len(storage)
        self.name = EXTENSION_NAMES[meta.format]
        m = null_mask(storage)
        self.valid = None if m is None else ~m
        self.offsets: dict[str, np.ndarray] = {}
        self.flat: dict[str, np.ndarray] = {}
        self.child_nulls: dict[str, Optional[np.ndarray]] = {}
        self.list_nulls: dict[str, Optional[np.ndarray]] = {}
        for k in array_names(meta.format, meta.ndim):
            child = storage.field(k)
            self.offsets[k] = offsets_view(child)
            self.list_nulls[k] = null_mask(child)
            values = child.values
            dt = _dtype(meta, k)
            if meta.format == "COO" and k == "indices":
                flat = prim_view(values.values, dt)
                nd = meta.ndim
                start = values.offset * nd
                self.flat[k] = flat[start:start + len(values) * nd].reshape(len(values), nd)
                nulls = null_mask(values)
                inner = values.values.slice(values.offset * nd, len(values) * nd)
                if inner.null_count:
                    im = np.asarray(inner.is_null()).reshape(len(values), nd).any(axis=1)
                    nulls = im if nulls is None else (nulls | im)
                self.child_nulls[k] = nulls
            else:
                self.flat[k] = prim_view(values, dt)
                self.child_nulls[k] = null_mask(values)
        self.fixed = meta.fixed_shape
        self.shapes: Optional[np.ndarray] = None
        self.shape_nulls: Optional[np.ndarray] = None
        if meta.varying:
            s = storage.field("shape")
            self.shapes = fsl_view(s, np.dtype("<i8"))
            sn = null_mask(s)
            inner = s.values.slice(s.offset * meta.ndim, len(s) * meta.ndim)
            if inner.null_count:
                im = np.asarray(inner.is_null()).reshape(len(s), meta.ndim).any(axis=1)
                sn = im if sn is None else (sn | im)
            self.shape_nulls = sn

    def is_valid(self, r: int) -> bool:
        return self.valid is None or bool(self.valid[r])

    def row(self, r: int, checked: bool = False) -> Optional[Row]:
        """Row r as views (None when null). ``checked``: the column's
        :meth:`check` has passed, so the structural checks are skipped."""
        if self.valid is not None and not self.valid[r]:
            return None
        where = f"row {r}"
        arrays = {}
        for k, off in self.offsets.items():
            s, e = int(off[r]), int(off[r + 1])
            if not checked:
                ln = self.list_nulls[k]
                if ln is not None and ln[r]:
                    raise ArrowSparseError(f"{self.name} {where}: list {k} is null in a non-null row")
                if not 0 <= s <= e <= self.flat[k].shape[0]:
                    raise ArrowSparseError(f"{self.name} {where}: list {k} has offsets {s}..{e}, "
                                           f"outside its {self.flat[k].shape[0]} elements")
                cn = self.child_nulls[k]
                if cn is not None and cn[s:e].any():
                    raise ArrowSparseError(f"{self.name} {where}: list {k} holds nulls")
            arrays[k] = self.flat[k][s:e]
        if self.shapes is not None:
            if not checked and self.shape_nulls is not None and self.shape_nulls[r]:
                raise ArrowSparseError(f"{self.name} {where}: the shape of a non-null row is null")
            shape = tuple(int(x) for x in self.shapes[r])
            if not checked:
                check_row_shape(self.meta, shape, f"{where} shape")
        else:
            shape = self.fixed  # checked when the type was made
        return Row(self.meta, shape, arrays, where)

    # -- the checks of every row at once --

    def _fail(self, bad: np.ndarray, full: bool) -> None:
        """Raises the per-row error of the first row flagged in bad."""
        rows = np.flatnonzero(bad)
        if rows.size == 0:
            return
        r = int(rows[0])
        row = self.row(r)
        if row is not None:
            check_row(row, full=full)
        raise ArrowSparseError(f"{self.name} row {r}: breaks a rule of the format")  # not reached

    def lengths(self, k: str) -> np.ndarray:
        return np.diff(self.offsets[k].astype(np.int64))

    def row_shapes(self) -> np.ndarray:
        """(n, ndim) int64 shapes (zeros for null rows of a varying shape)."""
        if self.shapes is None:
            return np.broadcast_to(np.array(self.fixed, dtype=np.int64), (self.n, self.meta.ndim))
        return self.shapes

    def _chunks(self, k: str, limit: int = C.CHUNK * 4) -> Any:
        """Row ranges [r0, r1) whose entries in list k span at most about
        limit elements."""
        off = self.offsets[k]
        r0 = 0
        while r0 < self.n:
            target = int(off[r0]) + limit
            r1 = int(np.searchsorted(off, target, side="right")) - 1
            r1 = min(max(r1, r0 + 1), self.n)
            yield r0, r1
            r0 = r1

    def check(self, full: bool = True) -> None:
        """Every row's checks (Row/check_row), vectorised over the column;
        the first failing row raises the per-row error."""
        n, meta = self.n, self.meta
        if n == 0:
            return
        v = np.ones(n, dtype=bool) if self.valid is None else self.valid
        for k, off in self.offsets.items():
            ln = self.list_nulls[k]
            if ln is not None:
                self._fail(ln & v, full)
            size = self.flat[k].shape[0]
            o = off.astype(np.int64)
            self._fail(((o[1:] < o[:-1]) | (o[:-1] < 0) | (o[1:] > size)) & v, full)
            if (o[1:] < o[:-1]).any():
                # Arrow requires monotone offsets even across null rows.
                raise ArrowSparseError(f"{self.name}: the offsets of list {k} decrease")
            cn = self.child_nulls[k]
            if cn is not None:
                cs = np.concatenate([[0], np.cumsum(cn, dtype=np.int64)])
                self._fail((cs[o[1:]] - cs[o[:-1]] > 0) & v, full)
        if self.shapes is not None:
            if self.shape_nulls is not None:
                self._fail(self.shape_nulls & v, full)
            sh = self.shapes
            bad = (sh < 0).any(axis=1)
            for i, d in enumerate(meta.shape):
                if d is not None:
                    bad |= sh[:, i] != d
            if meta.format in ("CSR", "CSC", "GCS"):
                bad |= (sh == np.iinfo(np.int64).max).any(axis=1)
                if meta.format == "GCS":
                    big = np.log2(np.maximum(sh, 1).astype(np.float64)).sum(axis=1) > 61
                    for r in np.flatnonzero(big & v):
                        check_row_shape(meta, tuple(int(x) for x in sh[r]), f"row {int(r)} shape")
            self._fail(bad & v, full)
        S = self.row_shapes()
        L = {k: self.lengths(k) for k in self.offsets}
        fmt = meta.format
        if fmt == "COO":
            self._fail((L["indices"] != L["values"]) & v, full)
        elif fmt in ("CSR", "CSC", "GCS"):
            lanes, minor = self._lanes(S)
            self._fail(((L["pointers_to_1"] != lanes + 1) | (L["indices_1"] != L["values"])) & v, full)
            self._check_ends("pointers_to_1", "indices_1", L, v, full)
        else:
            nd = meta.ndim
            bad = L[f"indices_{nd - 1}"] != L["values"]
            for lv in range(1, nd):
                bad |= L[f"pointers_to_{lv}"] != L[f"indices_{lv - 1}"] + 1
            self._fail(bad & v, full)
            for lv in range(1, nd):
                self._check_ends(f"pointers_to_{lv}", f"indices_{lv}", L, v, full)
        if not full:
            return
        if fmt == "COO":
            self._check_coo(S, v)
        elif fmt in ("CSR", "CSC", "GCS"):
            self._check_csx(S, v)
        else:
            for r in np.flatnonzero(v):
                row = self.row(int(r), checked=True)
                assert row is not None
                check_row(row, full=True)

    def _lanes(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        meta = self.meta
        if meta.format == "CSR":
            return S[:, 0], S[:, 1]
        if meta.format == "CSC":
            return S[:, 1], S[:, 0]
        assert meta.dimensions is not None and meta.partitioning is not None
        p = meta.partitioning
        rows = np.prod(S[:, list(meta.dimensions[:p])], axis=1, dtype=np.int64)
        cols = np.prod(S[:, list(meta.dimensions[p:])], axis=1, dtype=np.int64)
        return (rows, cols) if meta.compressed_axis == "row" else (cols, rows)

    def _check_ends(self, pk: str, ik: str, L: dict[str, np.ndarray], v: np.ndarray, full: bool) -> None:
        """Every valid row's pointers start at 0 and end at the length of ik."""
        off = self.offsets[pk].astype(np.int64)
        has = v & (L[pk] > 0)
        p = self.flat[pk]
        first = np.zeros(self.n, dtype=np.int64)
        last = np.zeros(self.n, dtype=np.int64)
        first[has] = p[off[:-1][has]]
        last[has] = p[off[1:][has] - 1]
        self._fail(has & ((first != 0) | (last != L[ik])), full)

    def _entry_rows(self, k: str, r0: int, r1: int) -> tuple[np.ndarray, int, int]:
        off = self.offsets[k]
        s, e = int(off[r0]), int(off[r1])
        rid = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(off[r0:r1 + 1].astype(np.int64)))
        return rid, s, e

    def _check_coo(self, S: np.ndarray, v: np.ndarray) -> None:
        nd = self.meta.ndim
        for r0, r1 in self._chunks("indices"):
            rid, s, e = self._entry_rows("indices", r0, r1)
            if e == s:
                continue
            coords = self.flat["indices"][s:e]
            ok = v[rid]
            dims = S[rid] if self.shapes is not None else S[0]
            bad_entry = ((coords < 0) | (coords >= dims)).any(axis=1) & ok
            if bad_entry.any():
                self._fail(np.isin(np.arange(self.n), rid[bad_entry]), True)
            if self.meta.canonical and coords.shape[0] > 1:
                a, b = coords[:-1], coords[1:]
                undecided = np.ones(a.shape[0], dtype=bool)
                worse = np.zeros(a.shape[0], dtype=bool)
                for j in range(nd):
                    worse |= undecided & (b[:, j] < a[:, j])
                    undecided &= b[:, j] == a[:, j]
                bad_pair = (worse | undecided) & (rid[1:] == rid[:-1]) & ok[1:]
                if bad_pair.any():
                    self._fail(np.isin(np.arange(self.n), rid[1:][bad_pair]), True)

    def _check_csx(self, S: np.ndarray, v: np.ndarray) -> None:
        lanes, minor = self._lanes(S)
        for r0, r1 in self._chunks("indices_1"):
            # pointers never decrease within a row
            prid, ps, pe = self._entry_rows("pointers_to_1", r0, r1)
            p = self.flat["pointers_to_1"][ps:pe].astype(np.int64)
            if p.shape[0] > 1:
                dec = (p[1:] < p[:-1]) & (prid[1:] == prid[:-1]) & v[prid[1:]]
                if dec.any():
                    self._fail(np.isin(np.arange(self.n), prid[1:][dec]), True)
            rid, s, e = self._entry_rows("indices_1", r0, r1)
            if e == s:
                continue
            idx = self.flat["indices_1"][s:e]
            ok = v[rid]
            hi = minor[rid] if self.shapes is not None else minor[0]
            bad = ((idx < 0) | (idx >= hi)) & ok
            if bad.any():
                self._fail(np.isin(np.arange(self.n), rid[bad]), True)
            if self.meta.canonical and idx.shape[0] > 1:
                starts = np.zeros(e - s, dtype=bool)
                # lane starts: the row's index offset plus each pointer but the last
                not_last = np.ones(p.shape[0], dtype=bool)
                ends = np.cumsum(np.diff(self.offsets["pointers_to_1"][r0:r1 + 1].astype(np.int64)))
                not_last[ends[ends > 0] - 1] = False
                use = not_last & v[prid]
                pos = self.offsets["indices_1"][prid[use]].astype(np.int64) + p[use] - s
                pos = pos[(pos >= 0) & (pos < e - s)]
                starts[pos] = True
                bad_pair = (idx[1:] <= idx[:-1]) & ~starts[1:] & (rid[1:] == rid[:-1]) & ok[1:]
                if bad_pair.any():
                    self._fail(np.isin(np.arange(self.n), rid[1:][bad_pair]), True)


# -- checks --------------------------------------------------------------------


def _lanes(row: Row) -> tuple[int, int]:
    """CSR/CSC/GCS: the number of compressed lanes and the size of the
    other axis of the (reduced) matrix."""
    fmt, shape = row.meta.format, row.shape
    if fmt == "CSR":
        return shape[0], shape[1]
    if fmt == "CSC":
        return shape[1], shape[0]
    rows, cols = row.meta.reduced_shape(shape)
    return (rows, cols) if row.meta.compressed_axis == "row" else (cols, rows)


def _check_pointers(row: Row, ptr: np.ndarray, pname: str, want_len: int, end: int,
                    end_what: str, full: bool) -> None:
    if ptr.shape[0] != want_len:
        raise row.fail(f"{pname} has {ptr.shape[0]} entries, want {want_len}")
    if int(ptr[0]) != 0:
        raise row.fail(f"{pname} starts at {int(ptr[0])}, not 0")
    if int(ptr[-1]) != end:
        raise row.fail(f"{pname} ends at {int(ptr[-1])}, but {end_what} has {end} entries")
    if full:
        i = C._first_decrease(ptr)
        if i >= 0:
            raise row.fail(f"{pname} decreases from {int(ptr[i - 1])} to {int(ptr[i])} at "
                           f"entry {i}")


def _check_range(row: Row, idx: np.ndarray, hi: int, what: str) -> None:
    if C._outside(idx, hi):
        j = C._first_outside(idx, 0, hi)
        raise row.fail(f"{what} entry {j} is {int(idx[j])}, outside [0, {hi})")


def _strictly_increasing_within(idx: np.ndarray, starts: np.ndarray) -> int:
    """Position k of the first idx[k] <= idx[k-1] that does not start a new
    lane (starts: positions where lanes begin), or -1."""
    n = idx.shape[0]
    if n <= 1:
        return -1
    bad = idx[1:] <= idx[:-1]
    if not bad.any():
        return -1
    s = starts[(starts > 0) & (starts < n)].astype(np.int64)
    bad[s - 1] = False
    where = np.flatnonzero(bad)
    return int(where[0]) + 1 if where.size else -1


def check_row(row: Row, full: bool = True) -> None:
    """The rules of SPARSE.md 2.5. Without full (a trusting reader) only
    the O(1) checks that keep later code inside the arrays."""
    m, a, shape = row.meta, row.arrays, row.shape
    nnz = row.nnz
    if m.format == "COO":
        coords = a["indices"]
        if coords.shape[0] != nnz:
            raise row.fail(f"indices has {coords.shape[0]} entries but values has {nnz}")
        if not full:
            return
        for k, d in enumerate(shape):
            col = coords[:, k]
            if C._outside(col, d):
                j = C._first_outside(col, 0, d)
                raise row.fail(f"coordinate {k} of entry {j} is {int(col[j])}, outside [0, {d})")
        if m.canonical and not C.coo_is_canonical(coords):
            raise row.fail("the type claims canonical rows, but the coordinates are not "
                           "sorted without duplicates")
    elif m.format in ("CSR", "CSC", "GCS"):
        lanes, minor = _lanes(row)
        ptr, idx = a["pointers_to_1"], a["indices_1"]
        if idx.shape[0] != nnz:
            raise row.fail(f"indices_1 has {idx.shape[0]} entries but values has {nnz}")
        lane = "row" if (m.format == "CSR" or m.compressed_axis == "row") else "column"
        _check_pointers(row, ptr, "pointers_to_1", lanes + 1, nnz, "indices_1", full)
        if not full:
            return
        _check_range(row, idx, minor, "indices_1")
        if m.canonical:
            k = _strictly_increasing_within(idx, ptr[:-1])
            if k >= 0:
                r = int(np.searchsorted(ptr, k, side="right")) - 1
                raise row.fail(f"the type claims canonical rows, but indices_1 is not strictly "
                               f"increasing in {lane} {r} (entry {k})")
    else:  # CSF
        nd = m.ndim
        assert m.axis_order is not None
        if a[f"indices_{nd - 1}"].shape[0] != nnz:
            raise row.fail(f"indices_{nd - 1} has {a[f'indices_{nd - 1}'].shape[0]} entries but "
                           f"values has {nnz}")
        for lv in range(1, nd):
            up, cur = a[f"indices_{lv - 1}"], a[f"indices_{lv}"]
            _check_pointers(row, a[f"pointers_to_{lv}"], f"pointers_to_{lv}", up.shape[0] + 1,
                            cur.shape[0], f"indices_{lv}", full)
        if not full:
            return
        for lv in range(nd):
            idx = a[f"indices_{lv}"]
            _check_range(row, idx, shape[m.axis_order[lv]], f"indices_{lv}")
            starts = a[f"pointers_to_{lv}"][:-1] if lv else np.zeros(1, np.int64)
            k = _strictly_increasing_within(idx, starts)
            if k >= 0:
                raise row.fail(f"indices_{lv} is not strictly increasing within a node at "
                               f"entry {k}")


# -- conversions ---------------------------------------------------------------


def sum_sorted(keys: list[np.ndarray], values: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Sorts entries by keys (first key most significant) and sums
    duplicates in the value type."""
    n = values.shape[0]
    if n == 0:
        return keys, values
    order = np.lexsort(tuple(reversed(keys)))
    keys = [k[order] for k in keys]
    values = values[order]
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in keys:
        new[1:] |= k[1:] != k[:-1]
    if new.all():
        return keys, values
    starts = np.flatnonzero(new)
    with np.errstate(over="ignore"):
        summed = np.add.reduceat(values, starts)
    return [k[starts] for k in keys], summed.astype(values.dtype, copy=False)


def compress(major: np.ndarray, minor: np.ndarray, values: np.ndarray, lanes: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    (major, minor), values = sum_sorted([major, minor], values)
    ptr = np.zeros(lanes + 1, dtype=np.int64)
    if major.size:
        np.cumsum(np.bincount(major, minlength=lanes), out=ptr[1:])
    return ptr, minor, values




def _repeat_lanes(ptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int64), np.diff(ptr.astype(np.int64)))


def to_coo(row: Row) -> tuple[np.ndarray, np.ndarray, bool]:
    """(coords (nnz, ndim), values, sorted without duplicates). COO rows
    give their own views; the other formats expand into new int64 coordinates."""
    m, a = row.meta, row.arrays
    if m.format == "COO":
        return a["indices"], a["values"], m.canonical
    if m.format in ("CSR", "CSC"):
        major = _repeat_lanes(a["pointers_to_1"])
        minor = a["indices_1"].astype(np.int64)
        cols = (major, minor) if m.format == "CSR" else (minor, major)
        return np.stack(cols, axis=1), a["values"], m.canonical and m.format == "CSR"
    if m.format == "GCS":
        assert m.dimensions is not None and m.partitioning is not None
        major = _repeat_lanes(a["pointers_to_1"])
        minor = a["indices_1"].astype(np.int64)
        r, c = (major, minor) if m.compressed_axis == "row" else (minor, major)
        coords = np.empty((row.nnz, m.ndim), dtype=np.int64)
        p = m.partitioning
        for lin, group in ((r, m.dimensions[:p]), (c, m.dimensions[p:])):
            if not group:
                continue
            parts = np.unravel_index(lin, tuple(row.shape[g] for g in group)) if row.nnz else \
                [np.empty(0, np.int64)] * len(group)
            for g, part in zip(group, parts):
                coords[:, g] = part
        identity = list(m.dimensions) == list(range(m.ndim))
        return coords, a["values"], m.canonical and identity and m.compressed_axis == "row"
    # CSF: expand the tree from the root.
    nd = m.ndim
    assert m.axis_order is not None
    coords = np.empty((row.nnz, nd), dtype=np.int64)
    # expand[l]: for every leaf, the position of its ancestor at level l.
    pos = np.arange(a["indices_0"].shape[0], dtype=np.int64)
    levels = [pos]
    for lv in range(1, nd):
        ptr = a[f"pointers_to_{lv}"].astype(np.int64)
        counts = np.diff(ptr)
        levels = [np.repeat(x, counts) for x in levels]
        levels.append(np.arange(a[f"indices_{lv}"].shape[0], dtype=np.int64))
    for lv in range(nd):
        coords[:, m.axis_order[lv]] = a[f"indices_{lv}"][levels[lv]] if row.nnz else []
    return coords, a["values"], list(m.axis_order) == list(range(nd))


def to_numpy(row: Row) -> np.ndarray:
    """The dense tensor (a new array); duplicates are summed in the value
    type."""
    out = np.zeros(row.shape, dtype=row.values.dtype.newbyteorder("="))
    if row.nnz == 0:
        return out
    coords, values, _ = to_coo(row)
    idx = tuple(coords[:, k] for k in range(coords.shape[1]))
    if row.known_canonical:
        out[idx] = values
    else:
        with np.errstate(over="ignore"):
            np.add.at(out, idx, values)
    return out


def _gcs_as_matrix(row: Row) -> Optional[tuple[str, np.ndarray, np.ndarray]]:
    """A 2-d GCS row whose reduction is the matrix itself or its transpose:
    ("csr" or "csc", pointers, indices) for scipy without conversion."""
    m = row.meta
    if m.ndim != 2 or m.partitioning != 1:
        return None
    transposed = list(m.dimensions or ()) == [1, 0]
    csr = (m.compressed_axis == "row") != transposed
    return ("csr" if csr else "csc"), row.arrays["pointers_to_1"], row.arrays["indices_1"]


def to_scipy(row: Row, matrix: bool = False) -> Any:
    """A scipy.sparse array (or matrix) of a 1-d or 2-d row."""
    import scipy.sparse as sps

    m, a = row.meta, row.arrays
    nd = len(row.shape)
    if nd not in (1, 2) or (nd == 1 and matrix):
        raise row.fail(f"scipy.sparse holds 2-d matrices{'' if matrix else ' and 1-d arrays'}, "
                       f"not a {nd}-d tensor: use to_pydata()")
    kind, ptr, idx = None, None, None
    if m.format in ("CSR", "CSC"):
        kind, ptr, idx = m.format.lower(), a["pointers_to_1"], a["indices_1"]
    elif m.format == "GCS":
        got = _gcs_as_matrix(row)
        if got is not None:
            kind, ptr, idx = got
    values = row.values
    if values.dtype == np.float16:  # scipy.sparse has no float16
        values = values.astype(np.float32)
    if kind is not None:
        cls = {("csr", False): sps.csr_array, ("csr", True): sps.csr_matrix,
               ("csc", False): sps.csc_array, ("csc", True): sps.csc_matrix}[(kind, matrix)]
        out = cls((values, idx, ptr), shape=row.shape, copy=False)
        if m.canonical:
            out.has_canonical_format = True
        return out
    coords, _, canonical = to_coo(row)
    cls = sps.coo_matrix if matrix else sps.coo_array
    out = cls((values, tuple(coords[:, k] for k in range(nd))), shape=row.shape, copy=False)
    if canonical or row.known_canonical:
        out.has_canonical_format = True
    return out


def _pydata_index(a: np.ndarray) -> np.ndarray:
    """GCXS index arrays: int32 and int64 as they are, narrower or unsigned
    types copied to int64 (pydata's numba kernels compile per dtype)."""
    return a if a.dtype in (np.dtype("<i4"), np.dtype("<i8")) else a.astype(np.int64)


def _pydata_coords(coords: np.ndarray) -> np.ndarray:
    """The ndim × nnz coordinates pydata wants: a transposed view for int32
    and int64, a copy for narrower or unsigned types."""
    if coords.dtype not in (np.dtype("<i4"), np.dtype("<i8")):
        coords = coords.astype(np.int64)
    return coords.T


def to_pydata(row: Row) -> Any:
    """A pydata sparse.COO (COO, CSF) or sparse.GCXS (CSR, CSC, GCS)."""
    import sparse

    m, a = row.meta, row.arrays
    if m.format in ("CSR", "CSC", "GCS"):
        if m.format == "GCS":
            assert m.dimensions is not None and m.partitioning is not None
            dims, p = list(m.dimensions), m.partitioning
            if m.compressed_axis == "column":  # the CSC of M is the CSR of M^T
                dims, p = dims[p:] + dims[:p], m.ndim - p
            rest = dims[p:]
            # GCXS: sorted compressed axes, then the other axes in order
            ok = 1 <= p < m.ndim and rest == sorted(rest) and dims[:p] == sorted(dims[:p])
            axes = tuple(dims[:p])
        else:
            ok, axes = True, ((0,) if m.format == "CSR" else (1,))
        values = row.values
        if values.dtype == np.float16:  # GCXS's numba kernels have no float16
            values = values.astype(np.float32)
        if ok:
            return sparse.GCXS((values, _pydata_index(a["indices_1"]),
                                _pydata_index(a["pointers_to_1"])), shape=row.shape,
                               compressed_axes=axes)
        coords, _, canonical = to_coo(row)
        coo = sparse.COO(coords.T, values, shape=row.shape, has_duplicates=not canonical,
                         sorted=canonical)
        return sparse.GCXS.from_coo(coo)
    coords, values, canonical = to_coo(row)
    if not canonical and m.format == "COO":
        canonical = C.coo_is_canonical(coords)
    return sparse.COO(_pydata_coords(coords), values, shape=row.shape,
                      has_duplicates=not canonical, sorted=canonical, fill_value=0)


def to_pyarrow(row: Row) -> Any:
    """The pyarrow sparse tensor of the row's format (COO for GCS rows that
    are not a 2-d matrix or its transpose)."""
    from ._read import _int64_rows

    m, a = row.meta, row.arrays
    names = list(m.dim_names) if m.dim_names else None
    shape = tuple(row.shape)
    i64 = np.int64
    if m.format in ("CSR", "CSC") and not m.canonical and \
            _strictly_increasing_within(a["indices_1"], a["pointers_to_1"][:-1]) >= 0:
        # possibly duplicates, which Arrow C++ would not sum: via COO (a copy)
        coords, values, _ = to_coo(row)
        axis = 0 if m.format == "CSR" else 1
        ptr, idx, vals = compress(coords[:, axis], coords[:, 1 - axis], values, shape[axis])
        cls = pa.SparseCSRMatrix if axis == 0 else pa.SparseCSCMatrix
        return cls.from_numpy(vals, ptr, idx, shape=shape, dim_names=names)
    gcs_matrix = m.format == "GCS" and _gcs_as_matrix(row) is not None and (
        m.canonical or _strictly_increasing_within(a["indices_1"], a["pointers_to_1"][:-1]) < 0)
    if m.format in ("CSR", "CSC") or gcs_matrix:
        if m.format == "GCS":
            kind, ptr, idx = _gcs_as_matrix(row)  # type: ignore[misc]
        else:
            kind, ptr, idx = m.format.lower(), a["pointers_to_1"], a["indices_1"]
        cls = pa.SparseCSRMatrix if kind == "csr" else pa.SparseCSCMatrix
        return cls.from_numpy(row.values, np.ascontiguousarray(ptr, dtype=i64),
                              np.ascontiguousarray(idx, dtype=i64), shape=shape, dim_names=names)
    if m.format == "CSF":
        nd = m.ndim
        return pa.SparseCSFTensor.from_numpy(
            row.values, [np.ascontiguousarray(a[f"pointers_to_{lv}"], dtype=i64) for lv in range(1, nd)],
            [np.ascontiguousarray(a[f"indices_{lv}"], dtype=i64) for lv in range(nd)],
            shape=shape, axis_order=list(m.axis_order or ()), dim_names=names)
    coords, values, canonical = to_coo(row)
    if not canonical and not C.coo_is_canonical(coords):
        # Arrow C++ does not sum duplicates when it densifies: hand over the
        # canonical form (a copy).
        keys, values = sum_sorted([coords[:, k].astype(np.int64) for k in range(coords.shape[1])],
                                  values)
        coords = np.stack(keys, axis=1) if keys else coords
    return pa.SparseCOOTensor.from_numpy(values, _int64_rows(coords), shape=shape, dim_names=names)
