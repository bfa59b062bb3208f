"""Shared paths and helpers of the arrowsparse tests."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[2]
INTEROP = REPO / "testdata" / "interop"
TESTDATA = Path(__file__).resolve().parent / "testdata"
PEER = Path(os.environ.get("ARROWPEER", REPO / "build" / "arrowpeer"))

# Reproducible property tests: the same examples on every run.
settings.register_profile("repo", derandomize=True, deadline=None, database=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("repo")


def _load_checker() -> Any:
    spec = importlib.util.spec_from_file_location("check_corpus", INTEROP / "check_corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check_corpus = _load_checker()


def corpus_files() -> list[Path]:
    """The 212 C++-written messages with sidecars (golden and cpp-corpus)."""
    files = sorted((INTEROP / "golden").glob("*.arrow")) + sorted((INTEROP / "cpp-corpus").glob("*.arrow"))
    assert len(files) == 212, len(files)
    return files


def crafted_verdicts() -> dict[str, str]:
    return json.loads((INTEROP / "crafted" / "expected.json").read_text())


def compare_with(expected: dict[str, Any], actual: dict[str, Any], strict: bool = True) -> list[str]:
    """Differences found by the reference checker (testdata/interop/check_corpus.py).
    strict requires the layout keys (strides as written) in actual."""
    return check_corpus.compare(expected, actual, strict=strict)


def peer_read_json(path: Path) -> dict[str, Any]:
    """What Arrow C++ (through build/arrowpeer) reads from a message file."""
    if not PEER.exists():
        pytest.fail(f"{PEER} is missing: run interop/setup.sh (python/run_tests.sh does)")
    proc = subprocess.run([str(PEER), "read-json", str(path)], capture_output=True, timeout=60)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise AssertionError(f"arrowpeer printed no JSON (status {proc.returncode}): "
                             f"{proc.stdout[:200]!r} {proc.stderr[:200]!r}") from None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Reports how many generated cases the property and fuzz tests ran."""
    import sys

    for name in ("test_property", "test_fuzz", "test_ext_property"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "STATS", None):
            stats = ", ".join(f"{k} {v}" for k, v in mod.STATS.items())
            terminalreporter.write_line(f"{name}: {stats}")
