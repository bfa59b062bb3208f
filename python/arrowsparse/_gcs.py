"""The GCS mapping that travels in a CSR/CSC message's custom metadata."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ._errors import ArrowSparseError
from ._wire import INT64_MAX, check_permutation

GCS_METADATA_KEY = "arrowsparse.gcs"


@dataclass(frozen=True)
class GCSMetadata:
    """The N-d mapping of a GCS (generalized compressed storage) tensor.

    The Go library writes a GCS tensor as the CSR or CSC message of its 2-d
    storage matrix and puts this mapping in the message's custom metadata
    under the key ``"arrowsparse.gcs"`` as a JSON object, e.g.
    ``{"version":1,"shape":[2,3,4],"dimensions":[0,1,2],"partitioning":[2],
    "dim_names":null}``. Arrow C++ and pyarrow see only the storage matrix.

    Attributes
    ----------
    shape : tuple of int
        The N-d shape of the tensor.
    dimensions : tuple of int
        A permutation of ``range(len(shape))``: the first ``partitioning``
        axes, in this order, are linearised (row-major) into the storage
        rows, the others into the storage columns.
    partitioning : int
        How many of ``dimensions`` go to the rows, in ``[0, len(shape)]``.
    dim_names : tuple of str or None
        Names of the N-d dimensions, or None.
    """

    shape: tuple[int, ...]
    dimensions: tuple[int, ...]
    partitioning: int
    dim_names: Optional[tuple[str, ...]] = None

    def reduced_shape(self) -> tuple[int, int]:
        """The (rows, cols) shape of the storage matrix.

        Raises
        ------
        ArrowSparseError
            If the mapping is not valid (see the class documentation).
        """
        n = len(self.shape)
        for i, d in enumerate(self.shape):
            if not isinstance(d, int) or d < 0:
                raise ArrowSparseError(f"GCS shape dimension {i} is {d!r}, not a size >= 0")
        check_permutation(list(self.dimensions), n, "GCS dimensions")
        p = self.partitioning
        if not isinstance(p, int) or not 0 <= p <= n:
            raise ArrowSparseError(f"GCS partitioning {p!r} is outside [0, {n}] for a {n}-d tensor")
        if self.dim_names is not None and len(self.dim_names) not in (0, n):
            raise ArrowSparseError(f"GCS mapping has {len(self.dim_names)} dim names for {n} "
                                   "dimensions")
        out = []
        for group in (self.dimensions[:p], self.dimensions[p:]):
            size = 1
            for a in group:
                size *= self.shape[a]
                if size > INT64_MAX:
                    raise ArrowSparseError(f"GCS: the product of the sizes of dimensions "
                                           f"{list(group)} of shape {list(self.shape)} overflows int64")
            out.append(size)
        if INT64_MAX in out:
            raise ArrowSparseError(f"GCS reduced shape {tuple(out)} needs more than 2^63-1 "
                                   "index pointers")
        return out[0], out[1]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _int_list(v: Any, what: str) -> list[int]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r}: {what} must be a list of "
                               "integers")
    return v


def decode_gcs(value: bytes, storage_shape: Sequence[int]) -> GCSMetadata:
    """Parses and checks the JSON value of the GCS key against the storage
    matrix shape, as the Go reader does."""
    try:
        doc = json.loads(value.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r} is not valid JSON: {err}") from None
    if not isinstance(doc, dict):
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r} is not a JSON object")
    version = doc.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool):
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r}: version must be an integer")
    if version != 1:
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r} has version {version}; "
                               "this reader knows version 1")
    shape = _int_list(doc.get("shape"), "shape")
    dims = _int_list(doc.get("dimensions"), "dimensions")
    part = _int_list(doc.get("partitioning"), "partitioning")
    if len(part) != 1:
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r} has {len(part)} partitioning "
                               "entries; a GCS mapping has exactly 1")
    names = doc.get("dim_names")
    if names is not None and (not isinstance(names, list) or not all(isinstance(x, str) for x in names)):
        raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r}: dim_names must be null or "
                               "a list of strings")
    if names is not None:
        for i, x in enumerate(names):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise ArrowSparseError(f"custom metadata {GCS_METADATA_KEY!r}: dim name {i} is not "
                                       "valid Unicode") from None
    if names is not None and all(x == "" for x in names):
        names = None
    g = GCSMetadata(tuple(shape), tuple(dims), part[0], tuple(names) if names is not None else None)
    rows, cols = g.reduced_shape()
    if (rows, cols) != tuple(storage_shape):
        raise ArrowSparseError(f"GCS storage is {storage_shape[0]}×{storage_shape[1]}, but the "
                               f"reduced shape of {list(shape)} under dimensions {list(dims)} and "
                               f"partitioning {part[0]} is {rows}×{cols}")
    return g


# Characters Go's encoding/json escapes beyond what Python's json does.
_GO_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                             "\u2028": "\\u2028", "\u2029": "\\u2029"})


def encode_gcs(g: GCSMetadata) -> bytes:
    """The JSON value the Go writer stores, byte for byte (Go's json.Marshal
    of its gcsMeta struct: no spaces, HTML characters escaped)."""
    names = list(g.dim_names) if g.dim_names else None
    doc = {"version": 1, "shape": list(g.shape), "dimensions": list(g.dimensions),
           "partitioning": [g.partitioning], "dim_names": names}
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.translate(_GO_ESCAPES).encode("utf-8")
