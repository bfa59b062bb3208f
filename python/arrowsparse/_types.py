"""Value and index types of tensor messages, by name."""

from __future__ import annotations

import numpy as np

from ._errors import ArrowSparseError

# Value types Arrow C++ accepts in tensors (is_tensor_supported), with their
# little-endian numpy dtypes.
VALUE_DTYPES: dict[str, np.dtype] = {
    "int8": np.dtype("<i1"), "int16": np.dtype("<i2"), "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"), "uint8": np.dtype("<u1"), "uint16": np.dtype("<u2"),
    "uint32": np.dtype("<u4"), "uint64": np.dtype("<u8"), "float16": np.dtype("<f2"),
    "float32": np.dtype("<f4"), "float64": np.dtype("<f8"),
}
INT_PARAMS: dict[str, tuple[int, bool]] = {
    "int8": (8, True), "int16": (16, True), "int32": (32, True), "int64": (64, True),
    "uint8": (8, False), "uint16": (16, False), "uint32": (32, False), "uint64": (64, False),
}
FLOAT_PRECISION = {"float16": 0, "float32": 1, "float64": 2}
# Sparse index types: every integer type but uint64 (Arrow C++'s
# CheckSparseIndexMaximumValue rejects it).
INDEX_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")
INDEX_MAX = {name: int(np.iinfo(VALUE_DTYPES[name]).max) for name in INDEX_TYPES}


def width(name: str) -> int:
    """Byte width of a value or index type."""
    return VALUE_DTYPES[name].itemsize


def int_type_name(bit_width: int, signed: bool, what: str) -> str:
    """Converts an Int table as Arrow C++'s IntFromFlatbuffer does."""
    if bit_width not in (8, 16, 32, 64):
        raise ArrowSparseError(f"{what}: Int bitWidth {bit_width} is not supported "
                               "(want 8, 16, 32 or 64)")
    return ("int" if signed else "uint") + str(bit_width)


def check_index_type(name: str, what: str) -> None:
    if name == "uint64":
        raise ArrowSparseError(f"{what}: uint64 cannot be a sparse index type "
                               "(Arrow C++ rejects it); use int64")
    if name not in INDEX_MAX:
        raise ArrowSparseError(f"{what}: {name} is not a sparse index type "
                               "(want int8…int64 or uint8…uint32)")


def check_index_fits(name: str, value: int, what: str, quantity: str) -> None:
    """Requires an index type that holds every value in 0..value."""
    check_index_type(name, what)
    if value > INDEX_MAX[name]:
        raise ArrowSparseError(f"{what}: index type {name} is too narrow for {quantity} = "
                               f"{value} (max {INDEX_MAX[name]})")


def value_type_of(dtype: np.dtype, what: str = "values") -> str:
    """The value type name of a numpy dtype (any byte order)."""
    dt = np.dtype(dtype)
    if dt.kind in "iuf" and not dt.fields:
        name = ("float" if dt.kind == "f" else "int" if dt.kind == "i" else "uint") + str(8 * dt.itemsize)
        if name in VALUE_DTYPES:
            return name
    raise ArrowSparseError(f"{what}: {dt} is not a tensor value type "
                           "(want int8…int64, uint8…uint64, float16, float32 or float64)")


def index_type_of(dtype: np.dtype, what: str) -> str:
    """The index type name of a numpy integer dtype."""
    dt = np.dtype(dtype)
    if dt.kind in "iu" and not dt.fields:
        name = ("int" if dt.kind == "i" else "uint") + str(8 * dt.itemsize)
        check_index_type(name, what)
        return name
    raise ArrowSparseError(f"{what}: {dt} is not a sparse index type "
                           "(want int8…int64 or uint8…uint32)")


def index_type_from_arg(t: object, what: str) -> str:
    """Accepts an index type given as a name, numpy dtype or pyarrow type."""
    import pyarrow as pa

    if isinstance(t, pa.DataType):
        t = str(t)  # "int8" … "uint64"; other types fail below
    try:
        dt = np.dtype(t)  # type: ignore[call-overload]
    except TypeError as err:
        raise TypeError(f"{what}: {t!r} is not an index type") from err
    return index_type_of(dt, what)
