"""The interop script of the extension types (tests/interop_ext.py): what
it writes reads back and checks, its sidecars agree with the dense
tensors, and a wrong sidecar fails the check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import arrowsparse as asp
import interop_ext

SCRIPT = Path(interop_ext.__file__)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("interop_ext")
    assert interop_ext.write(d) == 0
    return d


def test_write_then_check(written: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert interop_ext.check(written) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    n = len(list(written.glob("*.json")))
    assert last == f"{n} checked, 0 failed" and n > 200
    kinds = {json.loads(p.read_text())["container"] for p in written.glob("*.json")}
    assert kinds == {"ipc-file", "ipc-stream", "parquet"}


def test_sidecars_agree_with_dense_rows(written: Path) -> None:
    seen = set()
    for side in sorted(written.glob("*.arrows.json")):
        doc = json.loads(side.read_text())
        table = interop_ext.read(written / side.name[:-5], doc["container"])
        for c in doc["columns"]:
            col = table.column(c["name"]).chunk(0)
            for i, row in enumerate(c["rows"]):
                if row is None:
                    continue
                seen.add(row["format"])
                if row["kind"] == "dense":
                    got = (asp.fixed_shape_tensor_to_numpy(col)[i] if row["shape"] and
                           col.type.extension_name == "arrow.fixed_shape_tensor"
                           else asp.variable_shape_tensor_row(col, i))
                    np.testing.assert_array_equal(got.reshape(-1).astype(float),
                                                  np.array(row["dense_values"], dtype=float))
                    continue
                dense = col[i].to_numpy()
                rebuilt = np.zeros(row["shape"], dtype=dense.dtype)
                for e in row["entries"]:
                    rebuilt[tuple(e[:-1])] = float(e[-1]) if dense.dtype.kind == "f" else int(e[-1])
                np.testing.assert_array_equal(rebuilt, dense, err_msg=f"{side.name} row {i}")
                assert row["nnz"] == col[i].nnz
    assert seen == {"COO", "CSR", "CSC", "CSF", "GCS", "TENSOR"}


def test_wrong_sidecar_fails(written: Path, tmp_path: Path) -> None:
    for p in written.glob("csr-float64-int32-fixed.arrow*"):
        (tmp_path / p.name).write_bytes(p.read_bytes())
    side = tmp_path / "csr-float64-int32-fixed.arrow.json"
    doc = json.loads(side.read_text())
    doc["columns"][0]["rows"][0]["entries"][0][-1] += 1
    side.write_text(json.dumps(doc))
    out = subprocess.run([sys.executable, str(SCRIPT), "check", str(tmp_path)], capture_output=True,
                         text=True, cwd=SCRIPT.parent)
    assert out.returncode == 1
    assert out.stdout.strip().splitlines()[-1] == "2 checked, 1 failed"
    assert "row 0: entries[0]" in out.stdout


def test_empty_directory_fails(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "check", str(tmp_path)], capture_output=True,
                         text=True, cwd=SCRIPT.parent)
    assert out.returncode == 1 and out.stdout.strip() == "0 checked, 0 failed"
