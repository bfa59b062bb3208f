"""DuckDB reads the Parquet storage of sparse columns and gets the entries
with a lateral unnest (SPARSE.md 5)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sps

import arrowsparse as asp


def _matrices() -> list[sps.coo_array]:
    rng = np.random.default_rng(11)
    return [sps.random_array((5, 6), density=0.3, format="coo", random_state=rng) for _ in range(4)]


def test_unnest_coo(tmp_path: Path) -> None:
    ms: list = _matrices()
    ms[1] = None
    col = asp.from_sparse(ms, "coo", index_type="int32")
    path = tmp_path / "coo.parquet"
    pq.write_table(pa.table({"id": np.arange(4), "tensor": col}), path)
    rows = duckdb.sql(
        "SELECT t.id, unnest(t.tensor.indices) AS ij, unnest(t.tensor.values) AS v "
        f"FROM read_parquet('{path}') AS t ORDER BY t.id, ij").fetchall()
    want = sorted((i, [int(r), int(c)], float(v)) for i, m in enumerate(ms) if m is not None
                  for r, c, v in zip(m.row, m.col, m.data))
    assert rows == want and len(rows) > 10
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}') WHERE tensor IS NULL").fetchall() == [(1,)]


def test_unnest_csr(tmp_path: Path) -> None:
    ms = [sps.csr_array(m) for m in _matrices()]
    col = asp.from_sparse(ms, "csr", index_type="int32")
    path = tmp_path / "csr.parquet"
    pq.write_table(pa.table({"id": np.arange(4), "tensor": col}), path)
    # the row index of entry k is the number of pointers <= k-1, minus one
    rows = duckdb.sql(f"""
        SELECT id, list_count(list_filter(p, lambda x: x <= k - 1)) - 1 AS i, j, v FROM (
          SELECT t.id, t.tensor.pointers_to_1 AS p,
                 unnest(generate_series(1, len(t.tensor.indices_1))) AS k,
                 unnest(t.tensor.indices_1) AS j, unnest(t.tensor.values) AS v
          FROM read_parquet('{path}') AS t)
        ORDER BY id, i, j""").fetchall()
    want = []
    for n, m in enumerate(ms):
        c = m.tocoo()
        want += sorted((n, int(r), int(cc), float(v)) for r, cc, v in zip(c.row, c.col, c.data))
    assert rows == want


def test_varying_shapes_with_null_rows(tmp_path: Path) -> None:
    """DuckDB reads what pyarrow 25 cannot (apache/arrow#35692): a
    varying-shape column with null rows."""
    vecs = [sps.coo_array((np.array([1.0, 2.0]), (np.array([0, 3]),)), shape=(5,)), None,
            sps.coo_array((np.array([4.0]), (np.array([6]),)), shape=(7,))]
    col = asp.from_sparse(vecs, "coo")
    path = tmp_path / "vec.parquet"
    pq.write_table(pa.table({"tensor": col}), path)
    rows = duckdb.sql(f"SELECT tensor.shape, len(tensor.values) FROM read_parquet('{path}')").fetchall()
    assert rows == [([5], 2), (None, None), ([7], 1)]
