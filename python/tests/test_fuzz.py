"""Seeded mutations of every interop message: whatever the bytes, reading
raises ArrowSparseError or returns a tensor that writes back stably; no
other exception, no hang."""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import arrowsparse as asp
from conftest import INTEROP

SEEDS = sorted((INTEROP / "golden").glob("*.arrow")) + sorted((INTEROP / "crafted").glob("*.arrow")) + \
    sorted((INTEROP / "cpp-corpus").glob("*.arrow"))[::4]
INTERESTING32 = [0, 1, 2, 3, 4, 7, 8, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                 0xFFFFFFFE, 0xFFFFFFFF]
STATS: dict[str, int] = {"mutations": 0, "rejected": 0, "read": 0, "rewritten": 0}


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        op = rng.randrange(7)
        if not b:
            b.append(rng.randrange(256))
            continue
        i = rng.randrange(len(b))
        if op == 0:  # flip a bit
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:  # random byte
            b[i] = rng.randrange(256)
        elif op == 2 and i + 4 <= len(b):  # an interesting 32-bit word, aligned as offsets are
            i &= ~3
            struct.pack_into("<I", b, i, rng.choice(INTERESTING32))
        elif op == 3 and i + 8 <= len(b):  # a 64-bit length or offset
            i &= ~7
            struct.pack_into("<q", b, i, rng.choice([0, 1, -1, 8, 1 << 31, 1 << 40, (1 << 63) - 1]))
        elif op == 4:  # truncate
            del b[i:]
        elif op == 5:  # insert bytes
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        else:  # delete bytes
            del b[i:i + rng.randrange(1, 9)]
    return bytes(b)


def small_enough(t: asp.TensorLike) -> bool:
    """Whether writing t back is cheap: a mutated dense shape with zero
    strides can describe an enormous broadcast view of a few bytes, which a
    writer has to materialise."""
    if isinstance(t, pa.Tensor):
        return t.size * t.type.bit_width // 8 < 1 << 24
    return True


def check(data: bytes) -> None:
    STATS["mutations"] += 1
    try:
        m = asp.read_message(data, with_metadata=True)
    except asp.ArrowSparseError:
        STATS["rejected"] += 1
        return
    STATS["read"] += 1
    if not small_enough(m.tensor):
        return
    try:
        first = asp.message_bytes(m)
    except asp.ArrowSparseError:
        return  # readable, but not writable as Arrow C++ would write it
    again = asp.read_message(first, with_metadata=True)
    assert asp.message_bytes(again) == first
    STATS["rewritten"] += 1


@pytest.mark.parametrize("path", SEEDS, ids=[f"{p.parent.name}/{p.stem}" for p in SEEDS])
def test_mutated_messages(path: Path) -> None:
    data = path.read_bytes()
    rng = random.Random(f"{path.parent.name}/{path.name}")
    for _ in range(40):
        check(mutate(data, rng))


@pytest.mark.parametrize("path", SEEDS[:12] + SEEDS[-40:], ids=lambda p: p.stem)
def test_mutated_bodies(path: Path) -> None:
    """Random bodies under valid metadata: the index checks (coordinates,
    indptr, CSF trees) rather than the framing."""
    data = path.read_bytes()
    try:
        m = asp.read_message(data, with_metadata=True)
    except asp.ArrowSparseError:
        pytest.skip("an invalid crafted message has no valid metadata to keep")
    head = data[:len(data) - m.body_length]
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    for _ in range(30):
        body = rng.integers(0, 256, m.body_length, dtype=np.uint8)
        if rng.random() < 0.5:  # small values, so that some indices are in range
            body %= np.uint8(rng.integers(1, 8))
        check(head + body.tobytes())


def test_enough_mutations() -> None:
    assert STATS["mutations"] >= 3000, STATS
    assert STATS["read"] > 100 and STATS["rejected"] > 1000, STATS
