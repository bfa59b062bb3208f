#!/usr/bin/env python3
"""Reads the files of examples/fixedshape with pyarrow (25.0.1 in the
interop venv) and checks them: python read.py DIR.

The column's type is pyarrow's FixedShapeTensorType. Its permutation is
not its own inverse (a 3-cycle), so the logical tensors are read from the
storage and the type's parameters, as the specification says; pyarrow
25.0.1's to_numpy_ndarray() misplaces the values for such permutations
(see the arrowext package doc)."""

import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def logical(column):
    """The logical tensors of a fixed-shape tensor column, by the spec:
    logical dimension i is physical dimension permutation[i]."""
    ty = column.type
    physical = column.storage.flatten().to_numpy().reshape([len(column)] + list(ty.shape))
    perm = list(ty.permutation) if ty.permutation is not None else list(range(len(ty.shape)))
    return np.transpose(physical, [0] + [1 + p for p in perm])


def main(d):
    tables = {
        "images.arrow": pa.ipc.open_file(os.path.join(d, "images.arrow")).read_all(),
        "images.parquet": pq.read_table(os.path.join(d, "images.parquet")),
    }
    for name, table in tables.items():
        column = table.column("images").combine_chunks()
        ty = column.type
        assert isinstance(ty, pa.FixedShapeTensorType), ty
        images = logical(column)
        print(f"{name}: {ty}, shape {list(ty.shape)}, permutation {ty.permutation}, dim_names {ty.dim_names}")
        names = [ty.dim_names[p] for p in ty.permutation]
        print(f"  logical tensors: {images.shape[1:]} named {names}")
        # Image i, channel ch, pixel (r, c) is 100·i + 10·r + c + ch/10.
        i, ch, r, c = np.indices(images.shape)
        want = (100 * i + 10 * r + c + ch / 10).astype(np.float32)
        assert names == ["channel", "row", "column"], names
        assert np.array_equal(images, want), "values differ"
        print(f"  image 1, channel 2:\n{images[1, 2]}")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
