"""The one exception type for bad input."""

from __future__ import annotations


class ArrowSparseError(ValueError):
    """Raised for any message or tensor that arrowsparse cannot read or write.

    Reading raises it for every defect of the input bytes: framing, the
    flatbuffer metadata, unsupported types, buffers outside the body or
    misaligned, sizes over the limits, and index structures that are not
    valid (coordinates out of range, indptr arrays that do not start at 0,
    decrease or do not end at the next level's length, a false
    ``isCanonical`` claim, ...). Writing raises it for content that cannot
    be written as Arrow C++ would write it (an unsupported value or index
    type, an index type too narrow for the counts, an invalid index
    structure).

    It derives from :class:`ValueError`, so ``except ValueError`` catches it
    too. The message names what was wrong, e.g. ``"COO coordinate 1 of entry
    4 is 7, outside [0, 3)"``.
    """
