"""The 13-bit suit tables every meld computation reads, batched (:mod:`hollywood_env.melds`) or
compiled (:mod:`hollywood_env.kernels`).

A suit is a 13-bit pattern (bit ``rank``). With sets out of the way, the best use of a suit's
cards in runs is every maximal stretch of 3+ consecutive ranks, so one lookup in an 8192-entry
table gives it. The tables live here, apart from both users, so that :mod:`hollywood_env.melds`
can call the compiled kernels without an import cycle.
"""

from __future__ import annotations

import numpy as np

from .cards import RANK_VALUES

#: the 13 bits of one suit's pattern
SUIT_BITS = 0x1FFF
_P = np.arange(8192, dtype=np.int64)
_BITS = (_P[:, None] >> np.arange(13)) & 1
#: value of the cards of a suit pattern
SUIT_VALUE = (_BITS * RANK_VALUES).sum(axis=1).astype(np.int64)
_SEG3 = _P & (_P >> 1) & (_P >> 2)
#: the cards of a suit pattern that lie in a stretch of 3+ consecutive ranks
RUN_BITS = ((_SEG3 | (_SEG3 << 1) | (_SEG3 << 2)) & SUIT_BITS).astype(np.int64)
#: the value of those cards: the best a suit can meld in runs alone
RUN_VALUE = SUIT_VALUE[RUN_BITS]
#: index of the lowest set bit (for p > 0)
LOW_BIT_INDEX = np.zeros(8192, dtype=np.int64)
LOW_BIT_INDEX[1:] = np.array([(p & -p).bit_length() - 1 for p in range(1, 8192)])
del _P, _BITS, _SEG3
