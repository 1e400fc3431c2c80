"""Uniformly random legal actions, batched, from the bits of the legal-action masks.

:func:`random_legal_actions` draws one uniform float ``u`` per row; a row with ``c`` legal actions
gets its ``k``-th legal action in increasing order, ``k = floor(u * c)``. So each legal action
has probability ``1 / c`` (up to the 2**-53 grain of the float), and the same generator state
gives the same actions whatever the batch around a row, and whichever path below runs.

The method, with no pass over the ``(n, A)`` mask beyond packing it: the mask is packed into
64-bit words, 8 bytes a word; the bytes' popcounts times ``0x0101010101010101`` give, in each
byte, the number of legal actions up to and including it (a prefix sum in one multiplication);
the byte that holds the ``k``-th legal action is the number of bytes whose prefix is at most
``k``, counted with one subtraction per word (SWAR: the prefixes are below 128 so no byte
borrows from the next); a 256 x 8 table gives the position of the ``r``-th set bit of that byte.
A few dozen numpy calls on ``n`` or ``2n`` elements, against ``argmax(random * mask)`` which
draws, multiplies and scans all ``n x A`` entries. Rows of up to 127 actions (the game has
108). Below ``BITS_FROM`` rows (where the fixed cost of those operations dominates) and for
masks wider than 127 a cumulative sum along the rows finds the same action; below
``CUMSUM_FROM`` rows each row is done on its own (``flatnonzero``), again with the same result.

Rows with no legal action get action 0.

Seeding: :func:`as_generator` is the one conversion of a seed (an int, None, a sequence of ints, a
``SeedSequence`` or a ``Generator``, shared as it is) to a ``np.random.Generator`` used by the
environments and the agents; :func:`int_seed` draws one int seed from such a seed (for a torch
generator, say).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["random_legal_actions", "as_generator", "int_seed", "SeedLike", "CUMSUM_FROM", "BITS_FROM"]

#: what may seed a generator: an int, None (fresh entropy), a sequence of ints, a ``SeedSequence``
#: or a ``Generator`` (used as it is)
SeedLike = int | np.integer | Sequence[int] | np.random.SeedSequence | np.random.Generator | None

#: from this many rows, the cumulative-sum path (below: a Python loop over ``flatnonzero``)
CUMSUM_FROM = 4
#: from this many rows, the bit path (the fastest for large batches, about 25 us fixed)
BITS_FROM = 48

_ONES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_U56 = np.uint64(56)


def as_generator(seed: SeedLike = None) -> np.random.Generator:
    """``seed`` as a ``np.random.Generator``: a Generator is returned as it is (shared, not
    copied); anything else (an int, None for fresh entropy, a sequence of ints, a
    ``SeedSequence``) seeds a new one (``np.random.default_rng``)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def int_seed(seed: SeedLike = None) -> int:
    """One int seed in ``[0, 2**62)`` drawn from ``as_generator(seed)`` (a Generator given as
    ``seed`` advances by that draw)."""
    return int(as_generator(seed).integers(2**62))


def _select_table() -> np.ndarray:
    """``_SELECT8[8 * byte + r]``: the position of the ``r``-th set bit (from 0) of ``byte``."""
    table = np.zeros((256, 8), dtype=np.int64)
    for v in range(256):
        for r, j in enumerate(j for j in range(8) if v >> j & 1):
            table[v, r] = j
    return table.reshape(-1)


_SELECT8 = _select_table()


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` ``(n, A)`` (int64 ``(n,)``; rows
    without a legal action get 0). Draws ``rng.random(n)``: one uniform float per row."""
    masks = np.asarray(masks)
    if masks.dtype != bool:
        masks = masks.astype(bool)
    if masks.ndim != 2:
        raise ValueError(f"masks must have shape (n, A), got {masks.shape}")
    n, a = masks.shape
    if a == 0:
        rng.random(n)  # the same draws whatever the mask
        return np.zeros(n, dtype=np.int64)
    if n == 1:  # the one-game envs: rng.random() is the same draw as rng.random(1)[0]
        legal = masks[0].nonzero()[0]
        u1 = rng.random()
        return np.array([legal[int(u1 * legal.size)] if legal.size else 0], dtype=np.int64)
    u = rng.random(n)
    if n < CUMSUM_FROM:
        return _rows_one_by_one(masks, u)
    if n < BITS_FROM or a > 127:
        return _cumsum_path(masks, u)
    return _bits_path(masks, u)


def _rows_one_by_one(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    out = np.zeros(masks.shape[0], dtype=np.int64)
    for i, ui in enumerate(u.tolist()):
        legal = np.flatnonzero(masks[i])
        if legal.size:
            out[i] = legal[int(ui * legal.size)]
    return out


def _cumsum_path(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    cum = np.cumsum(masks, axis=1, dtype=np.int16 if masks.shape[1] < 32768 else np.int64)
    total = cum[:, -1]
    k = (u * total).astype(cum.dtype)
    out = np.count_nonzero(cum <= k[:, None], axis=1).astype(np.int64)  # legal actions up to the k-th
    out[total == 0] = 0
    return out


def _bits_path(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    n, a = masks.shape
    words = (a + 63) // 64
    width = 64 * words
    if a == width and masks.flags.c_contiguous:
        padded = masks
    else:
        padded = np.zeros((n, width), dtype=bool)
        padded[:, :a] = masks
    nbytes = 8 * words
    packed = np.packbits(padded.reshape(-1), bitorder="little")  # row i: bytes [nbytes i, nbytes (i + 1))
    counts = np.bitwise_count(packed)
    prefix = counts.view(np.uint64).reshape(n, words) * _ONES  # byte j: legal actions in bytes 0..j of its word
    for w in range(1, words):
        prefix[:, w] += (prefix[:, w - 1] >> _U56) * _ONES
    total = prefix[:, -1] >> _U56
    k = (u * total).astype(np.uint64)  # the k-th legal action (from 0) of each row
    # number of bytes whose prefix is <= k: the byte that holds the k-th legal action
    kk = (k * _ONES) | _HIGH
    byte = np.zeros(n, dtype=np.int64)
    for w in range(words):
        byte += np.bitwise_count((kk - prefix[:, w]) & _HIGH)
    np.minimum(byte, nbytes - 1, out=byte)  # rows without a legal action (fixed below)
    flat = np.arange(0, n * nbytes, nbytes) + byte
    before = prefix.reshape(-1).view(np.uint8)[flat].astype(np.int64) - counts[flat]
    out = 8 * byte + _SELECT8[8 * packed[flat].astype(np.int64) + (k.astype(np.int64) - before)]
    out[total == 0] = 0
    return out
