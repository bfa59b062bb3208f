"""NumPy conversions of Arrow's canonical dense tensor extension types,
``arrow.fixed_shape_tensor`` and ``arrow.variable_shape_tensor``, that
follow the Arrow specification for permutations: logical dimension i is
physical dimension ``permutation[i]``, so a row is
``physical.reshape(shape).transpose(permutation)``.

pyarrow 25.0.1's ``FixedShapeTensorArray.to_numpy_ndarray()`` and
``FixedShapeTensorScalar.to_numpy()`` give the right logical shape but the
strides of the inverse permutation, which is wrong whenever the
permutation is not its own inverse (a 3-cycle such as [1, 2, 0]). pyarrow
25 has no Python class for ``arrow.variable_shape_tensor``: Arrow C++
registers its own type under that name, pyarrow shows it as a generic
``BaseExtensionType`` and refuses a second registration of the name.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Union

import numpy as np
import pyarrow as pa

from ._errors import ArrowSparseError
from ._ext_meta import NP_DTYPES, type_name
from ._ext_rows import fsl_view, null_mask, offsets_view, prim_view
from ._wire import check_permutation

FIXED = "arrow.fixed_shape_tensor"
VARIABLE = "arrow.variable_shape_tensor"

ArrayLike = Union[pa.Array, pa.ChunkedArray]


def _value_dtype(t: pa.DataType, what: str) -> np.dtype:
    name = type_name(t)
    if name is None:
        if pa.types.is_boolean(t):
            raise ArrowSparseError(f"{what}: bool tensors have no NumPy view (bit-packed)")
        raise ArrowSparseError(f"{what}: value type {t} has no NumPy conversion here")
    return NP_DTYPES[name]


def _ext_metadata(t: pa.DataType) -> dict[str, Any]:
    from ._cdata import exported_metadata

    raw = exported_metadata(t).get(b"ARROW:extension:metadata", b"")
    if not raw:
        return {}
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise ArrowSparseError(f"{t.extension_name}: metadata is not JSON: {err}") from None
    if not isinstance(doc, dict):
        raise ArrowSparseError(f"{t.extension_name}: metadata is not a JSON object")
    return doc


def _permutation(doc: dict[str, Any], ndim: int, what: str) -> tuple[int, ...]:
    perm = doc.get("permutation")
    if perm is None:
        return tuple(range(ndim))
    if not isinstance(perm, list) or not all(isinstance(p, int) and not isinstance(p, bool)
                                             for p in perm):
        raise ArrowSparseError(f"{what}: permutation {perm!r} is not a list of integers")
    check_permutation(perm, ndim, f"{what} permutation")
    return tuple(perm)


# -- arrow.fixed_shape_tensor ----------------------------------------------------------


def fixed_shape_tensor_to_numpy(arr: ArrayLike) -> np.ndarray:
    """A column of ``arrow.fixed_shape_tensor`` as one ndarray of shape
    ``(len, *logical_shape)``, a read-only view of the storage (no copy)
    whose axes follow the Arrow specification for ``permutation``.

    Null rows are not masked: their elements are whatever the storage holds
    (zeros when pyarrow built the column). A chunked column is concatenated
    (a copy) unless it has one chunk.

    Raises
    ------
    ArrowSparseError
        For another type, a bool value type, or nulls inside the tensors.
    """
    if isinstance(arr, pa.ChunkedArray):
        from ._ext_build import one_chunk

        arr = one_chunk(arr)
    t = arr.type
    if not isinstance(t, pa.BaseExtensionType) or t.extension_name != FIXED:
        raise ArrowSparseError(f"fixed_shape_tensor_to_numpy takes an {FIXED} column, not {t}")
    shape = tuple(int(d) for d in t.shape)
    perm = tuple(int(p) for p in t.permutation) if t.permutation is not None else tuple(range(len(shape)))
    storage = arr.storage
    dt = _value_dtype(storage.type.value_type, FIXED)
    child = storage.values.slice(storage.offset * storage.type.list_size,
                                 len(storage) * storage.type.list_size)
    if child.null_count:
        raise ArrowSparseError(f"{FIXED}: the tensors hold null elements")
    phys = fsl_view(storage, dt).reshape((len(storage),) + shape)
    return phys.transpose((0,) + tuple(p + 1 for p in perm))


def fixed_shape_tensor_row(arr: ArrayLike, i: int) -> Optional[np.ndarray]:
    """Row i of an ``arrow.fixed_shape_tensor`` column (None when null)."""
    if isinstance(arr, pa.ChunkedArray):
        arr, i = _locate(arr, i)
    if not arr[i].is_valid:
        return None
    return fixed_shape_tensor_to_numpy(arr.slice(i, 1))[0]


# -- arrow.variable_shape_tensor ---------------------------------------------------------


class _VariableColumn:
    def __init__(self, arr: pa.Array) -> None:
        t = arr.type
        if not isinstance(t, pa.BaseExtensionType) or t.extension_name != VARIABLE:
            raise ArrowSparseError(f"variable_shape_tensor_to_numpy takes an {VARIABLE} column, "
                                   f"not {t}")
        st = t.storage_type
        names = [st.field(i).name for i in range(st.num_fields)]
        if sorted(names) != ["data", "shape"]:
            raise ArrowSparseError(f"{VARIABLE}: storage {st} is not struct<data, shape>")
        shape_t = st.field("shape").type
        if not (pa.types.is_fixed_size_list(shape_t) and shape_t.value_type == pa.int32()):
            raise ArrowSparseError(f"{VARIABLE}: shape field is {shape_t}, want "
                                   "fixed_size_list<int32>[ndim]")
        data_t = st.field("data").type
        if not (pa.types.is_list(data_t) or pa.types.is_large_list(data_t)):
            raise ArrowSparseError(f"{VARIABLE}: data field is {data_t}, want a list")
        self.ndim = shape_t.list_size
        doc = _ext_metadata(t)
        self.perm = _permutation(doc, self.ndim, VARIABLE)
        uniform = doc.get("uniform_shape")
        self.uniform = None if uniform is None else list(uniform)
        self.dtype = _value_dtype(data_t.value_type, VARIABLE)
        storage = arr.storage
        m = null_mask(storage)
        self.valid = None if m is None else ~m
        data = storage.field("data")
        self.data_nulls = null_mask(data)
        self.offsets = offsets_view(data)
        self.child = data.values
        self.flat = prim_view(self.child, self.dtype)
        shape_arr = storage.field("shape")
        self.shape_nulls = null_mask(shape_arr)
        self.shapes = fsl_view(shape_arr, np.dtype("<i4"))

    def row(self, r: int) -> Optional[np.ndarray]:
        if self.valid is not None and not self.valid[r]:
            return None
        where = f"{VARIABLE} row {r}"
        if (self.data_nulls is not None and self.data_nulls[r]) or \
                (self.shape_nulls is not None and self.shape_nulls[r]):
            raise ArrowSparseError(f"{where}: data or shape is null in a non-null row")
        shape = tuple(int(d) for d in self.shapes[r])
        if any(d < 0 for d in shape):
            raise ArrowSparseError(f"{where}: negative shape {list(shape)}")
        if self.uniform is not None:
            for k, (d, u) in enumerate(zip(shape, self.uniform)):
                if u is not None and d != u:
                    raise ArrowSparseError(f"{where}: shape {list(shape)} disagrees with "
                                           f"uniform_shape {self.uniform} in dimension {k}")
        s, e = int(self.offsets[r]), int(self.offsets[r + 1])
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if e - s != size or not 0 <= s <= e <= self.flat.shape[0]:
            raise ArrowSparseError(f"{where}: {e - s} elements for shape {list(shape)}")
        if self.child.null_count and self.child.slice(s, e - s).null_count:
            raise ArrowSparseError(f"{where}: the tensor holds null elements")
        return self.flat[s:e].reshape(shape).transpose(self.perm)


def _locate(arr: pa.ChunkedArray, i: int) -> tuple[pa.Array, int]:
    if i < 0:
        i += len(arr)
    if not 0 <= i < len(arr):
        raise IndexError(f"row {i} is outside a column of {len(arr)} rows")
    for c in arr.chunks:
        if i < len(c):
            return c, i
        i -= len(c)
    raise IndexError(i)


def variable_shape_tensor_to_numpy(arr: ArrayLike) -> list[Optional[np.ndarray]]:
    """Every row of an ``arrow.variable_shape_tensor`` column as an ndarray
    in its logical layout (None for null rows): a read-only view of the
    storage, ``data.reshape(shape).transpose(permutation)`` with the
    physical ``shape`` of the row. Checks each row's element count against
    its shape and ``uniform_shape``."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out: list[Optional[np.ndarray]] = []
    for c in chunks:
        col = _VariableColumn(c)
        out.extend(col.row(r) for r in range(len(c)))
    return out


def variable_shape_tensor_row(arr: ArrayLike, i: int) -> Optional[np.ndarray]:
    """Row i of an ``arrow.variable_shape_tensor`` column (see
    :func:`variable_shape_tensor_to_numpy`)."""
    if isinstance(arr, pa.ChunkedArray):
        arr, i = _locate(arr, i)
    if i < 0:
        i += len(arr)
    return _VariableColumn(arr.slice(i, 1)).row(0)
