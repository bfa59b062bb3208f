"""The metadata and storage types of the ``arrowsparse.*`` extension types
(arrowext/SPARSE.md sections 2 and 3): parsing with every check the spec
asks of a reader, and serialisation with the keys in the spec's order."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
import pyarrow as pa

from ._errors import ArrowSparseError
from ._wire import INT64_MAX, check_permutation

FORMATS = ("COO", "CSR", "CSC", "CSF", "GCS")
EXTENSION_NAMES = {f: "arrowsparse." + f.lower() for f in FORMATS}
FORMAT_OF_NAME = {v: k for k, v in EXTENSION_NAMES.items()}

VALUE_TYPE_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64")
INDEX_TYPE_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")
PA_TYPES: dict[str, pa.DataType] = {
    "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(), "uint64": pa.uint64(),
    "float16": pa.float16(), "float32": pa.float32(), "float64": pa.float64(),
}
NP_DTYPES: dict[str, np.dtype] = {
    "int8": np.dtype("<i1"), "int16": np.dtype("<i2"), "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"), "uint8": np.dtype("<u1"), "uint16": np.dtype("<u2"),
    "uint32": np.dtype("<u4"), "uint64": np.dtype("<u8"), "float16": np.dtype("<f2"),
    "float32": np.dtype("<f4"), "float64": np.dtype("<f8"),
}
_NAME_OF_ID = {t.id: name for name, t in PA_TYPES.items()}

TypeArg = Union[str, np.dtype, type, pa.DataType]

# Keys in the order writers emit them (2.3).
KEY_ORDER = ("format", "shape", "ndim", "dim_names", "canonical", "data_types", "axis_order",
             "dimensions", "partitioning", "compressed_axis", "binsparse")
_FORMAT_KEYS = {
    "COO": {"canonical"}, "CSR": {"canonical"}, "CSC": {"canonical"}, "CSF": {"axis_order"},
    "GCS": {"canonical", "dimensions", "partitioning", "compressed_axis"},
}
_COMMON_KEYS = {"format", "shape", "ndim", "dim_names", "data_types", "binsparse"}
MIN_NDIM = {"COO": 1, "CSR": 2, "CSC": 2, "CSF": 2, "GCS": 1}


def type_name(t: pa.DataType) -> Optional[str]:
    """The spec's name of a value or index type ("int8" … "float64"), or None."""
    name = _NAME_OF_ID.get(t.id)
    return name if name is not None and PA_TYPES[name] == t else None


def pa_type(t: TypeArg, what: str, allowed: Sequence[str]) -> pa.DataType:
    """A value or index type given as a name, numpy dtype or pyarrow type."""
    name: Optional[str]
    if isinstance(t, pa.DataType):
        name = type_name(t)
    else:
        try:
            dt = np.dtype(t)  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(f"{what}: {t!r} is not a type") from None
        name = None
        if dt.kind in "iuf" and not dt.fields:
            name = {"i": "int", "u": "uint", "f": "float"}[dt.kind] + str(8 * dt.itemsize)
    if name is None or name not in allowed:
        hint = "int8…int64 or uint8…uint32" if "float64" not in allowed else \
            "int8…int64, uint8…uint64, float16, float32 or float64"
        extra = " (uint64 is excluded as in Arrow's SparseTensor)" if name == "uint64" else ""
        raise ArrowSparseError(f"{what}: {t} is not allowed{extra}; want {hint}")
    return PA_TYPES[name]


def array_names(fmt: str, ndim: int) -> list[str]:
    """The names of a format's list fields (without ``shape``), in storage order."""
    if fmt == "COO":
        return ["indices", "values"]
    if fmt == "CSF":
        names = ["indices_0"]
        for lv in range(1, ndim):
            names += [f"pointers_to_{lv}", f"indices_{lv}"]
        return names + ["values"]
    return ["pointers_to_1", "indices_1", "values"]


@dataclass(frozen=True)
class SparseMeta:
    """The parameters of one sparse extension type (its metadata, parsed).

    ``shape`` always has ``ndim`` entries, None for a dimension that varies;
    ``shape_key`` tells whether the ``shape`` key is written (it is not when
    every dimension varies). ``data_types`` maps every array name to its
    type name, in storage order.
    """

    format: str
    ndim: int
    shape: tuple[Optional[int], ...]
    data_types: dict[str, str]
    dim_names: Optional[tuple[str, ...]] = None
    canonical: bool = False
    axis_order: Optional[tuple[int, ...]] = None
    dimensions: Optional[tuple[int, ...]] = None
    partitioning: Optional[int] = None
    compressed_axis: Optional[str] = None
    binsparse_version: Optional[str] = None
    large: frozenset[str] = field(default_factory=frozenset)  # list fields stored as LargeList

    @property
    def shape_key(self) -> bool:
        return any(d is not None for d in self.shape)

    @property
    def varying(self) -> bool:
        """Whether the storage has the ``shape`` field."""
        return any(d is None for d in self.shape)

    @property
    def fixed_shape(self) -> Optional[tuple[int, ...]]:
        return None if self.varying else tuple(int(d) for d in self.shape)  # type: ignore[arg-type]

    def serialize(self) -> bytes:
        doc: dict[str, Any] = {"format": self.format}
        if self.shape_key:
            doc["shape"] = list(self.shape)
        else:
            doc["ndim"] = self.ndim
        if self.dim_names is not None:
            doc["dim_names"] = list(self.dim_names)
        if self.canonical:
            doc["canonical"] = True
        doc["data_types"] = dict(self.data_types)
        if self.format == "CSF":
            doc["axis_order"] = list(self.axis_order or ())
        if self.format == "GCS":
            doc["dimensions"] = list(self.dimensions or ())
            doc["partitioning"] = self.partitioning
            doc["compressed_axis"] = self.compressed_axis
        if self.binsparse_version is not None:
            doc["binsparse"] = {"version": self.binsparse_version}
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")

    def storage_type(self) -> pa.StructType:
        fields = []
        if self.varying:
            fields.append(pa.field("shape", pa.list_(pa.int64(), self.ndim)))
        for name in array_names(self.format, self.ndim):
            elem: pa.DataType = PA_TYPES[self.data_types[name]]
            if self.format == "COO" and name == "indices":
                elem = pa.list_(elem, self.ndim)
            lt = pa.large_list(elem) if name in self.large else pa.list_(elem)
            fields.append(pa.field(name, lt))
        return pa.struct(fields)

    def check(self) -> None:
        """Checks the parameters against each other (what a reader checks
        in the metadata alone)."""
        fmt, nd = self.format, self.ndim
        if fmt not in FORMATS:
            raise ArrowSparseError(f"unknown sparse format {fmt!r}")
        name = EXTENSION_NAMES[fmt]
        if fmt in ("CSR", "CSC") and nd != 2:
            raise ArrowSparseError(f"{name}: a {fmt} matrix has 2 dimensions, not {nd}")
        if nd < MIN_NDIM[fmt]:
            raise ArrowSparseError(f"{name}: ndim {nd} is below the minimum {MIN_NDIM[fmt]}")
        if len(self.shape) != nd:
            raise ArrowSparseError(f"{name}: shape {list(self.shape)} has {len(self.shape)} "
                                   f"entries for ndim {nd}")
        for i, d in enumerate(self.shape):
            if d is not None and not 0 <= d <= INT64_MAX:
                raise ArrowSparseError(f"{name}: shape entry {i} is {d}, not a size in [0, 2^63-1]")
        if self.dim_names is not None and len(self.dim_names) != nd:
            raise ArrowSparseError(f"{name}: {len(self.dim_names)} dim_names for {nd} dimensions")
        want = array_names(fmt, nd)
        if list(self.data_types) != want:
            raise ArrowSparseError(f"{name}: data_types has the arrays {sorted(self.data_types)}, "
                                   f"want {sorted(want)}")
        for k, v in self.data_types.items():
            allowed = VALUE_TYPE_NAMES if k == "values" else INDEX_TYPE_NAMES
            if v not in allowed:
                what = "value" if k == "values" else "index"
                raise ArrowSparseError(f"{name}: data_types[{k!r}] is {v!r}, not a {what} type "
                                       f"({', '.join(allowed)})")
        if fmt == "CSF":
            if self.axis_order is None:
                raise ArrowSparseError(f"{name}: axis_order is missing")
            check_permutation(list(self.axis_order), nd, f"{name} axis_order")
        elif self.axis_order is not None:
            raise ArrowSparseError(f"{name}: axis_order belongs to arrowsparse.csf only")
        if fmt == "GCS":
            if self.dimensions is None or self.partitioning is None or self.compressed_axis is None:
                raise ArrowSparseError(f"{name}: dimensions, partitioning and compressed_axis "
                                       "are required")
            check_permutation(list(self.dimensions), nd, f"{name} dimensions")
            if not 0 <= self.partitioning <= nd:
                raise ArrowSparseError(f"{name}: partitioning {self.partitioning} is outside "
                                       f"[0, {nd}]")
            if self.compressed_axis not in ("row", "column"):
                raise ArrowSparseError(f"{name}: compressed_axis is {self.compressed_axis!r}, "
                                       "want \"row\" or \"column\"")
        elif (self.dimensions, self.partitioning, self.compressed_axis) != (None, None, None):
            raise ArrowSparseError(f"{name}: dimensions, partitioning and compressed_axis belong "
                                   "to arrowsparse.gcs only")
        if fmt == "CSF" and self.canonical:
            raise ArrowSparseError(f"{name}: CSF rows are always canonical; the canonical key "
                                   "is not used")
        if self.fixed_shape is not None:
            check_row_shape(self, self.fixed_shape, "shape")

    def reduced_shape(self, shape: Sequence[int]) -> tuple[int, int]:
        """GCS: the (rows, cols) of the 2-d reduction of a row's shape."""
        assert self.dimensions is not None and self.partitioning is not None
        p = self.partitioning
        out = []
        for group in (self.dimensions[:p], self.dimensions[p:]):
            size = 1
            for a in group:
                size *= int(shape[a])
            out.append(size)
        return out[0], out[1]


def check_row_shape(meta: SparseMeta, shape: Sequence[int], what: str) -> None:
    """Checks one row's shape against the type: length, non-negative, the
    fixed entries, and the sizes the format needs to fit in int64."""
    name = EXTENSION_NAMES[meta.format]
    if len(shape) != meta.ndim:
        raise ArrowSparseError(f"{name}: {what} {list(shape)} has {len(shape)} dimensions, "
                               f"want {meta.ndim}")
    for i, (d, m) in enumerate(zip(shape, meta.shape)):
        if d < 0:
            raise ArrowSparseError(f"{name}: {what} {list(shape)} has the negative dimension {d}")
        if m is not None and d != m:
            raise ArrowSparseError(f"{name}: {what} {list(shape)} disagrees with the type's "
                                   f"shape {list(meta.shape)} in dimension {i}")
    if meta.format == "GCS":
        rows, cols = meta.reduced_shape(shape)
        if max(rows, cols) >= INT64_MAX:
            raise ArrowSparseError(f"{name}: {what} {list(shape)} reduces to a {rows} × {cols} "
                                   "matrix, whose sizes overflow int64")
    elif meta.format in ("CSR", "CSC") and max(shape) >= INT64_MAX:
        raise ArrowSparseError(f"{name}: {what} {list(shape)} needs more than 2^63-1 pointers")


# -- parsing ------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ArrowSparseError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    raise ArrowSparseError(f"{name} is not valid JSON")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(x: Any, what: str, lo: int = 0) -> int:
    if not _is_int(x) or not lo <= x <= INT64_MAX:
        raise ArrowSparseError(f"{what} is {json.dumps(x)}, not an integer in [{lo}, 2^63-1]")
    return int(x)


def _int_list(x: Any, what: str) -> tuple[int, ...]:
    if not isinstance(x, list):
        raise ArrowSparseError(f"{what} is {json.dumps(x)}, not a list of integers")
    return tuple(_int(v, f"{what} entry {i}") for i, v in enumerate(x))


def decode_json(data: bytes, what: str) -> dict[str, Any]:
    if data.startswith(b"\xef\xbb\xbf"):
        raise ArrowSparseError(f"{what}: the metadata starts with a byte order mark")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ArrowSparseError(f"{what}: the metadata is not UTF-8: {err}") from None
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except ArrowSparseError as err:
        raise ArrowSparseError(f"{what}: metadata: {err}") from None
    except (ValueError, RecursionError) as err:
        raise ArrowSparseError(f"{what}: the metadata is not JSON: {err}") from None
    if not isinstance(doc, dict):
        raise ArrowSparseError(f"{what}: the metadata is not a JSON object")
    return doc


def parse_metadata(ext_name: str, data: bytes) -> tuple[SparseMeta, dict[str, Any]]:
    """The parameters written in the metadata (data_types unchecked against
    a storage yet), and the parsed document."""
    fmt = FORMAT_OF_NAME[ext_name]
    doc = decode_json(data, ext_name)
    known = _COMMON_KEYS | _FORMAT_KEYS[fmt]
    for k in doc:
        if k not in known:
            why = " (it belongs to another format)" if k in KEY_ORDER else ""
            raise ArrowSparseError(f"{ext_name}: unknown metadata key {k!r}{why}")
    if "format" not in doc:
        raise ArrowSparseError(f"{ext_name}: the metadata has no \"format\"")
    if doc["format"] != fmt:
        raise ArrowSparseError(f"{ext_name}: metadata format is {json.dumps(doc['format'])}, "
                               f"want \"{fmt}\"")
    if "data_types" not in doc:
        raise ArrowSparseError(f"{ext_name}: the metadata has no \"data_types\"")
    shape: Optional[tuple[Optional[int], ...]] = None
    if "shape" in doc:
        s = doc["shape"]
        if not isinstance(s, list):
            raise ArrowSparseError(f"{ext_name}: shape is {json.dumps(s)}, not a list")
        shape = tuple(None if v is None else _int(v, f"{ext_name}: shape entry {i}")
                      for i, v in enumerate(s))
    if "ndim" in doc:
        nd = _int(doc["ndim"], f"{ext_name}: ndim")
        if shape is not None and len(shape) != nd:
            raise ArrowSparseError(f"{ext_name}: ndim {nd} disagrees with shape {json.dumps(doc['shape'])}")
    elif shape is None:
        raise ArrowSparseError(f"{ext_name}: the metadata has neither \"shape\" nor \"ndim\"")
    else:
        nd = len(shape)
    if shape is None:
        shape = (None,) * nd
    names = None
    if "dim_names" in doc:
        n = doc["dim_names"]
        if not isinstance(n, list) or not all(isinstance(x, str) for x in n):
            raise ArrowSparseError(f"{ext_name}: dim_names is {json.dumps(n)}, not a list of strings")
        names = tuple(n)
    canonical = doc.get("canonical", False)
    if not isinstance(canonical, bool):
        raise ArrowSparseError(f"{ext_name}: canonical is {json.dumps(canonical)}, not true or false")
    dt = doc["data_types"]
    if not isinstance(dt, dict) or not all(isinstance(v, str) for v in dt.values()):
        raise ArrowSparseError(f"{ext_name}: data_types is {json.dumps(dt)}, not an object of "
                               "type names")
    axis_order = _int_list(doc["axis_order"], f"{ext_name}: axis_order") if "axis_order" in doc else None
    dims = _int_list(doc["dimensions"], f"{ext_name}: dimensions") if "dimensions" in doc else None
    part = _int(doc["partitioning"], f"{ext_name}: partitioning") if "partitioning" in doc else None
    ca = doc.get("compressed_axis")
    if ca is not None and not isinstance(ca, str):
        raise ArrowSparseError(f"{ext_name}: compressed_axis is {json.dumps(ca)}, not a string")
    version = None
    if "binsparse" in doc:
        b = doc["binsparse"]
        if not isinstance(b, dict) or set(b) != {"version"} or not isinstance(b["version"], str):
            raise ArrowSparseError(f"{ext_name}: binsparse is {json.dumps(b)}, want "
                                   "{\"version\": \"…\"}")
        version = b["version"]
    if fmt == "CSF" and "axis_order" not in doc:
        raise ArrowSparseError(f"{ext_name}: the metadata has no \"axis_order\"")
    if fmt == "GCS":
        for k in ("dimensions", "partitioning", "compressed_axis"):
            if k not in doc:
                raise ArrowSparseError(f"{ext_name}: the metadata has no {json.dumps(k)}")
    # data_types in the storage order of the format's arrays; checked below.
    want = array_names(fmt, nd)
    if set(dt) != set(want):
        missing = [k for k in want if k not in dt]
        extra = [k for k in dt if k not in want]
        raise ArrowSparseError(f"{ext_name}: data_types must name the arrays {want}"
                               + (f"; missing {missing}" if missing else "")
                               + (f"; unknown {extra}" if extra else ""))
    meta = SparseMeta(fmt, nd, shape, {k: dt[k] for k in want}, names, canonical, axis_order,
                      dims, part, ca, version)
    meta.check()
    return meta, doc


def _list_elem(t: pa.DataType) -> Optional[tuple[pa.DataType, bool]]:
    if pa.types.is_list(t):
        return t.value_type, False
    if pa.types.is_large_list(t):
        return t.value_type, True
    return None


def check_storage(meta: SparseMeta, storage: pa.DataType) -> SparseMeta:
    """Checks a storage type against parsed metadata (2.2): a struct with
    exactly the format's fields, each of the right type, agreeing with
    data_types. Returns the metadata with the LargeList fields recorded."""
    name = EXTENSION_NAMES[meta.format]
    if not pa.types.is_struct(storage):
        raise ArrowSparseError(f"{name}: the storage is {storage}, not a struct")
    fields = {}
    for i in range(storage.num_fields):
        f = storage.field(i)
        if f.name in fields:
            raise ArrowSparseError(f"{name}: the storage has two fields named {f.name!r}")
        fields[f.name] = f.type
    want = array_names(meta.format, meta.ndim)
    expected = (["shape"] if meta.varying else []) + want
    missing = [k for k in expected if k not in fields]
    extra = [k for k in fields if k not in expected]
    if missing or extra:
        why = ""
        if "shape" in missing:
            why = " (the type's shape varies, so the storage needs a shape field)"
        elif "shape" in extra:
            why = " (the type's shape is fixed, so the storage has no shape field)"
        raise ArrowSparseError(f"{name}: storage fields {list(fields)} do not match {expected}"
                               + (f"; missing {missing}" if missing else "")
                               + (f"; extra {extra}" if extra else "") + why)
    if meta.varying:
        t = fields["shape"]
        if not (pa.types.is_fixed_size_list(t) and t.list_size == meta.ndim
                and t.value_type == pa.int64()):
            raise ArrowSparseError(f"{name}: storage field shape is {t}, want "
                                   f"fixed_size_list<int64>[{meta.ndim}]")
    large = set()
    for k in want:
        t = fields[k]
        le = _list_elem(t)
        if le is None:
            raise ArrowSparseError(f"{name}: storage field {k} is {t}, not a list or large_list")
        elem, is_large = le
        if is_large:
            large.add(k)
        if meta.format == "COO" and k == "indices":
            if not (pa.types.is_fixed_size_list(elem) and elem.list_size == meta.ndim):
                raise ArrowSparseError(f"{name}: storage field indices is {t}, want a list of "
                                       f"fixed_size_list<I>[{meta.ndim}]")
            elem = elem.value_type
        tn = type_name(elem)
        allowed = VALUE_TYPE_NAMES if k == "values" else INDEX_TYPE_NAMES
        if tn is None or tn not in allowed:
            what = "value" if k == "values" else "index"
            raise ArrowSparseError(f"{name}: storage field {k} holds {elem}, not a {what} type")
        if tn != meta.data_types[k]:
            raise ArrowSparseError(f"{name}: data_types says {k} is {meta.data_types[k]}, but "
                                   f"the storage holds {tn}")
    return SparseMeta(meta.format, meta.ndim, meta.shape, meta.data_types, meta.dim_names,
                      meta.canonical, meta.axis_order, meta.dimensions, meta.partitioning,
                      meta.compressed_axis, meta.binsparse_version, frozenset(large))


def deserialize(ext_name: str, storage: pa.DataType, data: bytes) -> SparseMeta:
    meta, _ = parse_metadata(ext_name, data)
    return check_storage(meta, storage)


def make_meta(fmt: str, value_type: TypeArg, shape: Optional[Sequence[Optional[int]]],
              ndim: Optional[int], index_types: Mapping[str, TypeArg], dim_names: Any,
              canonical: bool, large: Any, **extra: Any) -> SparseMeta:
    """Parameters given by a caller, checked."""
    name = EXTENSION_NAMES[fmt]
    if shape is None:
        if ndim is None:
            if fmt in ("CSR", "CSC"):
                ndim = 2
            else:
                raise ArrowSparseError(f"{name}: give shape or ndim")
        shape_t: tuple[Optional[int], ...] = (None,) * int(ndim)
    else:
        shape_t = tuple(None if d is None else int(d) for d in shape)
        if ndim is not None and ndim != len(shape_t):
            raise ArrowSparseError(f"{name}: ndim {ndim} disagrees with shape {list(shape)}")
    nd = len(shape_t)
    vt = type_name(pa_type(value_type, f"{name} value type", VALUE_TYPE_NAMES))
    assert vt is not None
    data_types = {}
    for k in array_names(fmt, nd):
        if k == "values":
            data_types[k] = vt
        else:
            data_types[k] = type_name(pa_type(index_types[k], f"{name} {k} type", INDEX_TYPE_NAMES))
    names = None if dim_names is None else tuple(str(x) for x in dim_names)
    if large is True:
        large_set = frozenset(array_names(fmt, nd))
    elif not large:
        large_set = frozenset()
    else:
        large_set = frozenset(large)
        bad = large_set - set(array_names(fmt, nd))
        if bad:
            raise ArrowSparseError(f"{name}: large_lists names unknown arrays {sorted(bad)}")
    meta = SparseMeta(fmt, nd, shape_t, data_types, names, bool(canonical), large=large_set, **extra)
    meta.check()
    return meta
