"""The pyarrow extension types ``arrowsparse.coo``, ``.csr``, ``.csc``,
``.csf`` and ``.gcs`` (arrowext/SPARSE.md), their array and scalar classes,
registration and re-wrapping."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Optional, Union

import numpy as np
import pyarrow as pa

from . import _ext_rows as R
from ._errors import ArrowSparseError
from ._ext_meta import (EXTENSION_NAMES, FORMAT_OF_NAME, PA_TYPES, SparseMeta, TypeArg,
                        array_names, deserialize, make_meta)

ShapeArg = Optional[Sequence[Optional[int]]]
LargeArg = Union[bool, Sequence[str]]


class SparseTensorType(pa.ExtensionType):
    """Base class of the five sparse extension types: one sparse tensor per
    row, stored as a struct of lists named after the binsparse arrays.

    Instances are made by the subclasses (:class:`COOType`, :class:`CSRType`,
    :class:`CSCType`, :class:`CSFType`, :class:`GCSType`) or read from IPC
    and Parquet. Equality and hashing cover every parameter (the metadata)
    and the storage type.
    """

    format: ClassVar[str] = ""
    _meta: SparseMeta

    def _setup(self, meta: SparseMeta, storage: Optional[pa.DataType] = None) -> None:
        self._meta = meta
        self._serialized = meta.serialize()
        pa.ExtensionType.__init__(self, storage if storage is not None else meta.storage_type(),
                                  EXTENSION_NAMES[meta.format])

    # -- pyarrow protocol --

    def __arrow_ext_serialize__(self) -> bytes:
        return self._serialized

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> "SparseTensorType":
        """Reads the metadata strictly; any defect raises ArrowSparseError,
        which pyarrow passes on as the error of the read."""
        name = EXTENSION_NAMES[cls.format]
        meta = deserialize(name, storage_type, bytes(serialized))
        obj = cls.__new__(cls)
        obj._setup(meta, storage_type)
        return obj

    def __arrow_ext_class__(self) -> type:
        return SparseTensorArray

    def __arrow_ext_scalar_class__(self) -> type:
        return SparseTensorScalar

    def __reduce__(self) -> Any:
        return _deserialize_type, (EXTENSION_NAMES[self.format], self.storage_type, self._serialized)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SparseTensorType):
            return NotImplemented
        return (type(self) is type(other) and self._serialized == other._serialized
                and self.storage_type == other.storage_type)

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return hash((EXTENSION_NAMES[self.format], self._serialized))

    def __repr__(self) -> str:
        m = self._meta
        parts = [str(self.value_type)]
        parts.append(f"shape={list(m.shape)}" if m.shape_key else f"ndim={m.ndim}")
        idx = {k: v for k, v in m.data_types.items() if k != "values"}
        if len(set(idx.values())) == 1:
            parts.append(f"index_type={next(iter(idx.values()))}")
        else:
            parts.append("index_types={" + ", ".join(f"{k}: {v}" for k, v in idx.items()) + "}")
        if m.dim_names is not None:
            parts.append(f"dim_names={list(m.dim_names)}")
        if m.canonical:
            parts.append("canonical=True")
        if m.axis_order is not None:
            parts.append(f"axis_order={list(m.axis_order)}")
        if m.format == "GCS":
            parts.append(f"dimensions={list(m.dimensions or ())}, partitioning={m.partitioning}, "
                         f"compressed_axis={m.compressed_axis!r}")
        if m.large:
            parts.append(f"large_lists={sorted(m.large)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __str__(self) -> str:
        return f"extension<{EXTENSION_NAMES[self.format]}: {self.__repr__()}>"

    # -- parameters --

    @property
    def meta(self) -> SparseMeta:
        """The parsed parameters."""
        return self._meta

    @property
    def value_type(self) -> pa.DataType:
        """The type of the stored values."""
        return PA_TYPES[self._meta.data_types["values"]]

    @property
    def ndim(self) -> int:
        return self._meta.ndim

    @property
    def shape(self) -> tuple[Optional[int], ...]:
        """The shape of every row, None for a dimension that varies."""
        return self._meta.shape

    @property
    def fixed_shape(self) -> Optional[tuple[int, ...]]:
        """The shape of every row, or None when some dimension varies."""
        return self._meta.fixed_shape

    @property
    def dim_names(self) -> Optional[tuple[str, ...]]:
        return self._meta.dim_names

    @property
    def canonical(self) -> bool:
        """Whether the type claims every row canonical (always true for CSF)."""
        return self._meta.canonical or self.format == "CSF"

    @property
    def data_types(self) -> dict[str, str]:
        """Array name → type name, as in the metadata."""
        return dict(self._meta.data_types)

    @property
    def index_types(self) -> dict[str, pa.DataType]:
        """Array name → pyarrow type of every index and pointer array."""
        return {k: PA_TYPES[v] for k, v in self._meta.data_types.items() if k != "values"}

    @property
    def large_lists(self) -> frozenset[str]:
        """The list fields stored as LargeList (64-bit offsets)."""
        return self._meta.large

    @property
    def binsparse_version(self) -> Optional[str]:
        return self._meta.binsparse_version

    @property
    def extension_metadata(self) -> bytes:
        """The JSON metadata (``ARROW:extension:metadata``)."""
        return self._serialized

    def with_params(self, **changes: Any) -> "SparseTensorType":
        """A copy of this type with some parameters changed (the names of
        the subclass constructor's arguments)."""
        args = self._ctor_args()
        args.update(changes)
        return type(self)(**args)

    def _ctor_args(self) -> dict[str, Any]:
        m = self._meta
        return dict(value_type=self.value_type, shape=m.shape, dim_names=m.dim_names,
                    large_lists=m.large)


def _deserialize_type(name: str, storage: pa.DataType, serialized: bytes) -> SparseTensorType:
    return TYPES[name].__arrow_ext_deserialize__(storage, serialized)


def _idx(index_type: TypeArg, given: Optional[TypeArg]) -> TypeArg:
    return index_type if given is None else given


class COOType(SparseTensorType):
    """``arrowsparse.coo``: a coordinate list of any rank ≥ 1 per row.

    Parameters
    ----------
    value_type : str, numpy dtype or pyarrow.DataType
        int8…int64, uint8…uint64, float16, float32 or float64.
    shape : sequence of int or None, optional
        The shape of every row; an entry None marks a dimension that varies
        between rows (the storage then has a ``shape`` field). None: every
        dimension varies and ``ndim`` is required.
    ndim : int, optional
        The number of dimensions when ``shape`` is None.
    index_type : type, default "int64"
        The coordinate type: int8…int64 or uint8…uint32.
    dim_names : sequence of str, optional
    canonical : bool, default False
        Claim that every row is sorted without duplicates (verified on read).
    large_lists : bool or sequence of str, default False
        Store these list fields (or all) as LargeList.
    """

    format = "COO"

    def __init__(self, value_type: TypeArg, shape: ShapeArg = None, *, ndim: Optional[int] = None,
                 index_type: TypeArg = "int64", dim_names: Optional[Sequence[str]] = None,
                 canonical: bool = False, large_lists: LargeArg = False) -> None:
        self._setup(make_meta("COO", value_type, shape, ndim, {"indices": index_type}, dim_names,
                              canonical, large_lists))

    def _ctor_args(self) -> dict[str, Any]:
        return {**super()._ctor_args(), "ndim": self._meta.ndim, "canonical": self._meta.canonical,
                "index_type": self._meta.data_types["indices"]}


class _CSXType(SparseTensorType):
    def __init__(self, value_type: TypeArg, shape: ShapeArg = None, *, index_type: TypeArg = "int64",
                 indptr_type: Optional[TypeArg] = None, dim_names: Optional[Sequence[str]] = None,
                 canonical: bool = False, large_lists: LargeArg = False) -> None:
        self._setup(make_meta(self.format, value_type, shape, 2,
                              {"pointers_to_1": _idx(index_type, indptr_type), "indices_1": index_type},
                              dim_names, canonical, large_lists))

    def _ctor_args(self) -> dict[str, Any]:
        d = self._meta.data_types
        return {**super()._ctor_args(), "canonical": self._meta.canonical,
                "index_type": d["indices_1"], "indptr_type": d["pointers_to_1"]}


class CSRType(_CSXType):
    """``arrowsparse.csr``: a compressed-sparse-rows matrix per row.

    Parameters
    ----------
    value_type : type
    shape : (int or None, int or None), optional
        None entries vary between rows; None: both vary.
    index_type : type, default "int64"
        The type of ``indices_1`` (column indices).
    indptr_type : type, optional
        The type of ``pointers_to_1``; defaults to ``index_type``.
    dim_names, canonical, large_lists
        As for :class:`COOType`. Canonical: indices strictly increasing
        within every row.
    """

    format = "CSR"


class CSCType(_CSXType):
    """``arrowsparse.csc``: a compressed-sparse-columns matrix per row;
    parameters as for :class:`CSRType` (``indices_1`` holds row indices)."""

    format = "CSC"


class CSFType(SparseTensorType):
    """``arrowsparse.csf``: a compressed-sparse-fibers tensor (rank ≥ 2) per row.

    Parameters
    ----------
    value_type : type
    shape, ndim
        As for :class:`COOType`.
    axis_order : sequence of int, optional
        Level l holds dimension ``axis_order[l]``; default the identity.
    index_type : type or sequence of types, default "int64"
        The type of ``indices_0 … indices_{N-1}`` (one for all, or one per level).
    indptr_type : type or sequence of types, optional
        The type of ``pointers_to_1 … pointers_to_{N-1}``; default ``index_type``
        (when that is a single type) or int64.
    dim_names, large_lists
        As for :class:`COOType`. CSF rows are always canonical.
    """

    format = "CSF"

    def __init__(self, value_type: TypeArg, shape: ShapeArg = None, *, ndim: Optional[int] = None,
                 axis_order: Optional[Sequence[int]] = None,
                 index_type: Union[TypeArg, Sequence[TypeArg]] = "int64",
                 indptr_type: Union[TypeArg, Sequence[TypeArg], None] = None,
                 dim_names: Optional[Sequence[str]] = None, large_lists: LargeArg = False) -> None:
        nd = len(shape) if shape is not None else ndim
        if nd is None:
            raise ArrowSparseError("arrowsparse.csf: give shape or ndim")
        its = _per_level(index_type, nd, "index_type")
        if indptr_type is None:
            pts = _per_level(index_type if _is_one_type(index_type) else "int64", nd - 1, "indptr_type")
        else:
            pts = _per_level(indptr_type, nd - 1, "indptr_type")
        types = {f"indices_{lv}": its[lv] for lv in range(nd)}
        types.update({f"pointers_to_{lv}": pts[lv - 1] for lv in range(1, nd)})
        order = tuple(range(nd)) if axis_order is None else tuple(int(a) for a in axis_order)
        self._setup(make_meta("CSF", value_type, shape, ndim, types, dim_names, False, large_lists,
                              axis_order=order))

    def _ctor_args(self) -> dict[str, Any]:
        m = self._meta
        d = m.data_types
        return {**super()._ctor_args(), "ndim": m.ndim, "axis_order": m.axis_order,
                "index_type": [d[f"indices_{lv}"] for lv in range(m.ndim)],
                "indptr_type": [d[f"pointers_to_{lv}"] for lv in range(1, m.ndim)]}

    @property
    def axis_order(self) -> tuple[int, ...]:
        return self._meta.axis_order or ()


def _is_one_type(t: Any) -> bool:
    return isinstance(t, (str, pa.DataType, np.dtype, type))


def _per_level(t: Any, n: int, what: str) -> list[Any]:
    if _is_one_type(t):
        return [t] * n
    t = list(t)
    if len(t) != n:
        raise ArrowSparseError(f"arrowsparse.csf: {what} has {len(t)} entries, want {n}")
    return t


class GCSType(SparseTensorType):
    """``arrowsparse.gcs``: a tensor of any rank ≥ 1 per row, stored as the
    CSR or CSC of a 2-d reduction.

    Parameters
    ----------
    value_type : type
    shape, ndim
        As for :class:`COOType`.
    dimensions : sequence of int, optional
        A permutation of ``0…N-1``; default the identity.
    partitioning : int, optional
        ``dimensions[:p]`` are linearised (C order) into the matrix's row
        index and ``dimensions[p:]`` into its column index; default 1 (0
        for a 1-d tensor, which is then one row).
    compressed_axis : {"row", "column"}, default "row"
        CSR or CSC storage of the reduced matrix.
    index_type, indptr_type, dim_names, canonical, large_lists
        As for :class:`CSRType`.
    """

    format = "GCS"

    def __init__(self, value_type: TypeArg, shape: ShapeArg = None, *, ndim: Optional[int] = None,
                 dimensions: Optional[Sequence[int]] = None, partitioning: Optional[int] = None,
                 compressed_axis: str = "row", index_type: TypeArg = "int64",
                 indptr_type: Optional[TypeArg] = None, dim_names: Optional[Sequence[str]] = None,
                 canonical: bool = False, large_lists: LargeArg = False) -> None:
        nd = len(shape) if shape is not None else ndim
        if nd is None:
            raise ArrowSparseError("arrowsparse.gcs: give shape or ndim")
        dims = tuple(range(nd)) if dimensions is None else tuple(int(d) for d in dimensions)
        p = (1 if nd > 1 else 0) if partitioning is None else int(partitioning)
        self._setup(make_meta("GCS", value_type, shape, ndim,
                              {"pointers_to_1": _idx(index_type, indptr_type), "indices_1": index_type},
                              dim_names, canonical, large_lists, dimensions=dims, partitioning=p,
                              compressed_axis=compressed_axis))

    def _ctor_args(self) -> dict[str, Any]:
        m = self._meta
        d = m.data_types
        return {**super()._ctor_args(), "ndim": m.ndim, "canonical": m.canonical,
                "dimensions": m.dimensions, "partitioning": m.partitioning,
                "compressed_axis": m.compressed_axis, "index_type": d["indices_1"],
                "indptr_type": d["pointers_to_1"]}

    @property
    def dimensions(self) -> tuple[int, ...]:
        return self._meta.dimensions or ()

    @property
    def partitioning(self) -> int:
        return int(self._meta.partitioning or 0)

    @property
    def compressed_axis(self) -> str:
        return self._meta.compressed_axis or "row"


TYPES: dict[str, type[SparseTensorType]] = {
    "arrowsparse.coo": COOType, "arrowsparse.csr": CSRType, "arrowsparse.csc": CSCType,
    "arrowsparse.csf": CSFType, "arrowsparse.gcs": GCSType,
}


def type_from_storage(extension_name: str, storage: pa.DataType, metadata: Union[bytes, str]
                      ) -> SparseTensorType:
    """The extension type an ``ARROW:extension:name`` and
    ``ARROW:extension:metadata`` describe over a storage type; checked as on
    read."""
    cls = TYPES.get(extension_name)
    if cls is None:
        raise ArrowSparseError(f"{extension_name!r} is not one of the arrowsparse extension "
                               f"types ({', '.join(TYPES)})")
    if isinstance(metadata, str):
        metadata = metadata.encode("utf-8")
    return cls.__arrow_ext_deserialize__(storage, metadata)


# -- scalars and arrays ----------------------------------------------------------


class SparseTensorScalar(pa.ExtensionScalar):
    """One row of a sparse extension column (``array[i]``).

    A null row converts to None. Conversions check the row (SPARSE.md 2.5,
    including the type's canonical claim) unless ``trusted=True``, which
    keeps only the O(1) checks. ``as_py()`` gives the storage's dict.
    """

    def _row(self, trusted: bool = False) -> Optional[R.Row]:
        r = getattr(self, "_row_index", None)
        where = f"row {r}" if r is not None else "value"
        row = R.row_from_scalar(self.type.meta, self, where)
        if row is not None:
            R.check_row(row, full=not trusted)
        return row

    @property
    def shape(self) -> Optional[tuple[int, ...]]:
        """The row's shape (None for a null row)."""
        row = self._row(trusted=True)
        return None if row is None else row.shape

    @property
    def nnz(self) -> Optional[int]:
        """The number of stored values (None for a null row)."""
        row = self._row(trusted=True)
        return None if row is None else row.nnz

    def arrays(self, trusted: bool = False) -> Optional[dict[str, np.ndarray]]:
        """The row's arrays as read-only numpy views of the Arrow buffers
        (COO ``indices`` as the (nnz, ndim) coordinate block)."""
        row = self._row(trusted)
        return None if row is None else dict(row.arrays)

    def validate(self) -> None:
        """Raises ArrowSparseError if the row breaks a rule of SPARSE.md 2.5."""
        self._row(trusted=False)

    def to_scipy(self, *, matrix: bool = False, trusted: bool = False) -> Any:
        """A scipy.sparse ``coo_array``/``csr_array``/``csc_array`` (or
        ``*_matrix`` with ``matrix=True``) of a 1-d or 2-d row. CSR, CSC and
        2-d GCS rows whose reduction is the matrix or its transpose share
        their arrays with the column (scipy casts index arrays other than
        int32/int64, or of two different types, to one type: a copy); COO
        rows give scipy strided views of their coordinate block; other
        formats are expanded to COO (a copy). float16 values become float32
        (scipy.sparse has no float16). The arrays are read-only."""
        row = self._row(trusted)
        return None if row is None else R.to_scipy(row, matrix)

    def to_pydata(self, *, trusted: bool = False) -> Any:
        """A pydata ``sparse.COO`` (COO, CSF) or ``sparse.GCXS`` (CSR, CSC,
        GCS). COO rows that are canonical share values and int32/int64
        coordinates with the column; CSR/CSC and GCS rows that GCXS can
        express share all three arrays (index types other than int32/int64
        are copied to int64 and float16 values to float32, which pydata's
        numba kernels lack); other rows are converted."""
        row = self._row(trusted)
        return None if row is None else R.to_pydata(row)

    def to_pyarrow(self, *, trusted: bool = False) -> Any:
        """A ``pa.SparseCOOTensor``, ``SparseCSRMatrix``, ``SparseCSCMatrix``
        or ``SparseCSFTensor`` (GCS rows: the CSR/CSC matrix when 2-d and
        the reduction is the matrix or its transpose, else COO). pyarrow
        takes only int64 indices: other index types are copied; values are
        shared. Rows that may hold duplicates are handed over in canonical
        form (a copy), since Arrow C++ does not sum duplicates."""
        row = self._row(trusted)
        return None if row is None else R.to_pyarrow(row)

    def to_numpy(self, *, trusted: bool = False) -> Optional[np.ndarray]:  # type: ignore[override]
        """The dense tensor (a new array; duplicates summed)."""
        row = self._row(trusted)
        return None if row is None else R.to_numpy(row)

    def __repr__(self) -> str:
        name = EXTENSION_NAMES[self.type.format]
        if not self.is_valid:
            return f"<{name} null>"
        try:
            row = self._row(trusted=True)
        except ArrowSparseError as err:
            return f"<{name} invalid: {err}>"
        assert row is not None
        return f"<{name} shape={row.shape} nnz={row.nnz} {self.type.value_type}>"


class SparseTensorArray(pa.ExtensionArray):
    """A column of sparse tensors (one per row).

    ``array[i]`` is a :class:`SparseTensorScalar`. The ``to_*`` methods
    convert every row (None for null rows) and check each row first unless
    ``trusted=True``.
    """

    def __getitem__(self, key: Any) -> Any:
        out = super().__getitem__(key)
        if isinstance(out, SparseTensorScalar):
            i = int(key)
            out._row_index = i + len(self) if i < 0 else i
        return out

    @property
    def meta(self) -> SparseMeta:
        return self.type.meta

    def _column(self) -> R.Column:
        return R.Column(self.type.meta, self.storage)

    def rows(self, trusted: bool = False) -> list[Optional[R.Row]]:
        """Every row as numpy views (None for null rows), after checking
        the column (vectorised; see :meth:`validate`)."""
        col = self._column()
        col.check(full=not trusted)
        return [col.row(r, checked=True) for r in range(len(self))]

    def validate(self, *, full: bool = False) -> None:  # type: ignore[override]
        """pyarrow's validation of the storage, then the rules of SPARSE.md
        2.5 for every row, vectorised over the column: with ``full`` every
        index is read (O(nnz): ranges, pointer order, the canonical claim),
        otherwise only the O(rows) checks that keep readers inside the
        buffers (list lengths, pointer ends, nulls, shapes). pyarrow calls
        ``validate()`` when it wraps a storage (``from_storage``)."""
        super().validate(full=full)
        self._column().check(full=full)

    def to_scipy(self, *, matrix: bool = False, trusted: bool = False) -> list[Any]:
        """Every row as scipy.sparse (see :meth:`SparseTensorScalar.to_scipy`)."""
        return [None if r is None else R.to_scipy(r, matrix) for r in self.rows(trusted)]

    def to_pydata(self, *, trusted: bool = False) -> list[Any]:
        """Every row as pydata sparse (see :meth:`SparseTensorScalar.to_pydata`)."""
        return [None if r is None else R.to_pydata(r) for r in self.rows(trusted)]

    def to_pyarrow(self, *, trusted: bool = False) -> list[Any]:
        """Every row as a pyarrow sparse tensor."""
        return [None if r is None else R.to_pyarrow(r) for r in self.rows(trusted)]

    def to_numpy(self, zero_copy_only: bool = False, writable: bool = False, *,  # type: ignore[override]
                 fill_null: Optional[Any] = None, trusted: bool = False) -> np.ndarray:
        """The dense rows. With a fixed shape: one ``(len, *shape)`` array,
        where a null row raises unless ``fill_null`` gives its value. With a
        varying shape: a 1-d object array of per-row arrays (None for null
        rows). Always a new array (``zero_copy_only=True`` raises)."""
        if zero_copy_only:
            raise ArrowSparseError("densifying a sparse column always copies; pass "
                                   "zero_copy_only=False")
        rows = self.rows(trusted)
        shape = self.type.fixed_shape
        if shape is None:
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = None if r is None else R.to_numpy(r)
            return out
        dt = R.NP_DTYPES[self.type.meta.data_types["values"]].newbyteorder("=")
        dense = np.zeros((len(rows),) + shape, dtype=dt)
        for i, r in enumerate(rows):
            if r is None:
                if fill_null is None:
                    raise ArrowSparseError(f"{EXTENSION_NAMES[self.type.format]} row {i} is null; "
                                           "pass fill_null to fill null rows")
                dense[i] = fill_null
            else:
                dense[i] = R.to_numpy(r)
        return dense

    def to_csr_matrix(self, *, matrix: bool = False, trusted: bool = False,
                      ncols: Optional[int] = None) -> Any:
        """A column of sparse vectors (``arrowsparse.coo`` with ndim 1) as one
        scipy CSR matrix without copying its indices and values: see
        :func:`arrowsparse.vectors_to_csr`."""
        from ._ext_build import vectors_to_csr

        return vectors_to_csr(self, matrix=matrix, trusted=trusted, ncols=ncols)

    def __repr__(self) -> str:
        name = EXTENSION_NAMES[self.type.format]
        return f"<{name} array of {len(self)} rows, {self.null_count} null: {self.type!r}>"


# -- registration ----------------------------------------------------------------


def _prototype(cls: type[SparseTensorType]) -> SparseTensorType:
    if cls is COOType:
        return COOType("float64", [1])
    if cls is CSFType:
        return CSFType("float64", [1, 1])
    if cls is GCSType:
        return GCSType("float64", [1])
    return cls("float64", [1, 1])  # type: ignore[call-arg]


def register(*, replace: bool = False) -> list[str]:
    """Registers the five types with pyarrow, so that IPC files and streams
    and Parquet files give typed columns. Idempotent: a name that is already
    registered is left alone (pyarrow raises ArrowKeyError for duplicates;
    this function does not), unless ``replace`` is true, which unregisters
    it first (e.g. after reloading the module). Returns the names newly
    registered. ``import arrowsparse`` calls it."""
    done = []
    for name, cls in TYPES.items():
        if replace:
            try:
                pa.unregister_extension_type(name)
            except (KeyError, pa.ArrowKeyError):
                pass
        try:
            pa.register_extension_type(_prototype(cls))
        except (KeyError, pa.ArrowKeyError):
            continue
        done.append(name)
    return done


def unregister() -> list[str]:
    """Unregisters the five types (those not registered are skipped).
    pyarrow then reads their columns as the struct storage with the keys
    ``ARROW:extension:name`` and ``ARROW:extension:metadata`` in the field
    metadata (see :func:`rewrap`). Returns the names unregistered."""
    done = []
    for name in TYPES:
        try:
            pa.unregister_extension_type(name)
        except (KeyError, pa.ArrowKeyError):
            continue
        done.append(name)
    return done


# -- re-wrapping -------------------------------------------------------------------

EXT_NAME_KEY = b"ARROW:extension:name"
EXT_META_KEY = b"ARROW:extension:metadata"


def _wrap(t: SparseTensorType, col: Any) -> Any:
    if isinstance(col, pa.ChunkedArray):
        return pa.chunked_array([pa.ExtensionArray.from_storage(t, c) for c in col.chunks], type=t)
    return pa.ExtensionArray.from_storage(t, col)


def _foreign(col: Any) -> Optional[tuple[str, bytes, Any]]:
    """(name, metadata, storage) of a column of an arrowsparse extension
    name that is not one of this module's types (another registration)."""
    t = col.type
    if isinstance(t, SparseTensorType) or not isinstance(t, pa.BaseExtensionType):
        return None
    name = t.extension_name
    if name not in TYPES:
        return None
    ser = getattr(t, "__arrow_ext_serialize__", None)
    md = ser() if ser is not None else extension_metadata_of(t)
    storage = col.storage if isinstance(col, pa.Array) else \
        pa.chunked_array([c.storage for c in col.chunks], type=t.storage_type)
    return name, md, storage


def extension_metadata_of(t: pa.DataType) -> bytes:
    """The serialized metadata of any extension type, read through the C
    data interface (pyarrow exposes it only for Python-defined types)."""
    from ._cdata import exported_metadata

    md = exported_metadata(t)
    return md.get(EXT_META_KEY, b"")


def rewrap(obj: Any, *, metadata: Union[bytes, str, None] = None,
           extension_name: Optional[str] = None) -> Any:
    """Turns columns that hold an arrowsparse type's storage back into the
    extension type.

    Parameters
    ----------
    obj : pyarrow.Table, RecordBatch, Array or ChunkedArray
        A table or batch: every top-level column whose field metadata has
        ``ARROW:extension:name`` = ``arrowsparse.*`` (what pyarrow reads when
        the types are not registered) becomes the extension column, and the
        two keys leave the field metadata. An array: a column of an
        arrowsparse extension name from another registration is wrapped
        again; a bare storage array needs ``metadata``.
    metadata : bytes or str, optional
        For a bare storage array: the extension metadata.
    extension_name : str, optional
        For a bare storage array: the name; by default from the metadata's
        ``format``.

    Returns
    -------
    The same kind of object, sharing the buffers of ``obj``.

    Raises
    ------
    ArrowSparseError
        If a column's metadata does not describe a valid type over its
        storage (the message names the column).
    """
    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        fields, cols = [], []
        changed = False
        for i, f in enumerate(obj.schema):
            col = obj.column(i)
            md = f.metadata or {}
            try:
                if not isinstance(f.type, pa.BaseExtensionType) and md.get(EXT_NAME_KEY, b"").decode(
                        "utf-8", "replace") in TYPES:
                    t = type_from_storage(md[EXT_NAME_KEY].decode(), f.type, md.get(EXT_META_KEY, b""))
                    rest = {k: v for k, v in md.items() if k not in (EXT_NAME_KEY, EXT_META_KEY)}
                    f = pa.field(f.name, t, f.nullable, metadata=rest or None)
                    col = _wrap(t, col)
                    changed = True
                else:
                    got = _foreign(col)
                    if got is not None:
                        t = type_from_storage(got[0], got[2].type, got[1])
                        f = pa.field(f.name, t, f.nullable, metadata=f.metadata)
                        col = _wrap(t, got[2])
                        changed = True
            except ArrowSparseError as err:
                raise ArrowSparseError(f"column {f.name!r}: {err}") from None
            fields.append(f)
            cols.append(col)
        if not changed:
            return obj
        schema = pa.schema(fields, metadata=obj.schema.metadata)
        if isinstance(obj, pa.Table):
            return pa.Table.from_arrays(cols, schema=schema)
        return pa.RecordBatch.from_arrays(cols, schema=schema)
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        if isinstance(obj.type, SparseTensorType):
            return obj
        got = _foreign(obj)
        if got is not None:
            return _wrap(type_from_storage(got[0], got[2].type, got[1]), got[2])
        if metadata is None:
            raise ArrowSparseError("a storage array carries no extension metadata: pass "
                                   "metadata= (and extension_name=) or rewrap the table")
        if extension_name is None:
            from ._ext_meta import decode_json

            raw = metadata.encode() if isinstance(metadata, str) else metadata
            fmt = decode_json(raw, "rewrap").get("format")
            if not isinstance(fmt, str) or "arrowsparse." + fmt.lower() not in TYPES:
                raise ArrowSparseError(f"rewrap: metadata format {fmt!r} is not a sparse format")
            extension_name = "arrowsparse." + fmt.lower()
        return _wrap(type_from_storage(extension_name, obj.type, metadata), obj)
    raise TypeError(f"rewrap takes a pyarrow Table, RecordBatch, Array or ChunkedArray, not "
                    f"{type(obj).__name__}")


__all__ = ["COOType", "CSCType", "CSFType", "CSRType", "GCSType", "SparseTensorArray",
           "SparseTensorScalar", "SparseTensorType", "register", "rewrap", "type_from_storage",
           "unregister", "array_names", "FORMAT_OF_NAME"]
