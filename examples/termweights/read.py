#!/usr/bin/env python3
"""Reads examples/termweights' documents.parquet with pyarrow and the
Python package arrowsparse (python/), and scores the documents as main.go
does: python read.py DIR (with python/ on PYTHONPATH).

The terms column is an arrowsparse.coo column of sparse vectors, which
vectors_to_csr turns into one scipy CSR matrix over the column's buffers."""

import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

import arrowsparse as asp

VOCABULARY = ["arrow", "column", "go", "matrix", "parquet", "python", "sparse", "tensor"]
EXPECTED = {"Sparse tensors in Arrow": 4.0, "Parquet from Go": 1.0, "Matrices in Python": 1.0, "An empty note": 0.0}


def main(d: Path) -> int:
    table = asp.rewrap(pq.read_table(d / "documents.parquet"))
    terms = table.column("terms")
    assert terms.type.extension_name == "arrowsparse.coo", terms.type
    m = asp.vectors_to_csr(terms)
    query = np.zeros(len(VOCABULARY), dtype=np.float32)
    for w in ("sparse", "arrow", "column"):
        query[VOCABULARY.index(w)] = 1
    scores = m @ query
    titles = table.column("title").to_pylist()
    for title, score in zip(titles, scores):
        print(f"{score:4.1f}  {title}")
        if EXPECTED[title] != score:
            print(f"FAIL: {title}: score {score}, expected {EXPECTED[title]}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
