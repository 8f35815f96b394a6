"""The search solver's transposition table (``kernels/search.py``): one array of 64-bit
entries, so an entry is written and read whole and threads can share the table without locks.

An entry holds, from the top: the key's low 40 bits, a slot bit, the work spent on the position
(the binary log of its subtree's nodes, 5 bits), the column of the move that proved its lower
bound (4 bits), and both bounds (7 bits each, 0 for none). A key's home is the key modulo
``size`` (an odd prime, the array holding one more entry); it is kept at its home or the entry
after (a two-way bucket: a new key takes the place of the one that cost less work, so big
subtrees stay), the slot bit saying which. Why a match is never a false one: an entry's place
and slot bit give its key modulo ``size``, its key bits give the key modulo 2^40, and so
(Chinese remainders, ``size`` odd) the key modulo ``size`` · 2^40, which is the key itself when
``size`` ≥ 2^(key bits − 40) (:func:`least_entries`). Without the slot bit the place alone
would leave two candidate homes, and the argument would fail. The table keeps a position and
its mirror image under the smaller key.
"""

from __future__ import annotations

import numpy as np

from qarena.kernels.bitboard import mirrored
from qarena.kernels.jit import njit

#: Bits of the key an entry keeps.
KEY_BITS = 40
_KEY_LOW = np.uint64((1 << KEY_BITS) - 1)
_KEY_SHIFT = np.uint64(64 - KEY_BITS)
_SLOT = np.uint64(1 << (63 - KEY_BITS))  # set when an entry sits one past its key's home
_ID = ~np.uint64((1 << (63 - KEY_BITS)) - 1)  # the key bits and the slot bit
_WORK_SHIFT = np.uint64(18)
_WORK_MOST = 31
_INFO = np.uint64((1 << 18) - 1)  # the move (4 bits) above the upper and the lower bound
#: Positions with at most this many empty cells are not mirrored for the table: symmetric
#: twins are rare that late, and reversing the columns would cost more than it finds.
MIRROR_UNTIL = 20
#: Positions with at most this many empty cells are searched without the table: their trees
#: are small, and a probe far away in memory costs more than it saves.
TABLE_FROM = 8
#: Positions with an odd count of empty cells are kept in the table only with more than this:
#: nearer the end a probe costs more than it saves.
ODD_FROM = 14
#: Positions with more empty cells than this look their moves up in the table first.
ETC_FROM = 10


@njit
def table_key(mine: np.uint64, mask: np.uint64, empty: int, rows: int, cols: int,
              geo: np.ndarray) -> tuple[np.uint64, bool]:  # fmt: skip
    """The key the table keeps a position under, and whether it is the mirror image's."""
    key = mine + mask
    if empty > MIRROR_UNTIL:
        other = mirrored(key, rows, cols, geo)
        if other < key:
            return other, True
    return key, False


def least_entries(rows: int, cols: int) -> int:
    """The fewest entries (the table's ``size``) for which a match is never a false one."""
    return 1 << max(0, cols * (rows + 1) - KEY_BITS)


@njit
def kept(empty: int) -> bool:
    """Whether the table keeps positions with this many empty cells."""
    return empty > TABLE_FROM and (empty % 2 == 0 or empty > ODD_FROM)


@njit
def probe(table: np.ndarray, key: np.uint64) -> int:
    """What the table keeps for ``key`` (0 when nothing): the column of the move that proved
    its lower bound plus one (0 for none), times 16,384; plus its upper bound times 128; plus
    its lower bound; each bound the score less the least score, 0 for none."""
    home = np.int64(key % np.uint64(table.size - 1))  # int64: uint64 + 1 would be a float
    tag = (key & _KEY_LOW) << _KEY_SHIFT
    entry = table[home]
    if entry & _ID == tag:
        return int(np.int64(entry & _INFO))  # int64, not uint64: it meets int64 later
    entry = table[home + 1]
    if entry & _ID == tag | _SLOT:
        return int(np.int64(entry & _INFO))
    return 0


@njit
def work_of(nodes: int) -> int:
    """The binary log of a count of nodes, at most what an entry can hold."""
    w = 0
    while nodes > 1 and w < _WORK_MOST:
        nodes >>= 1
        w += 1
    return w


@njit
def store(table: np.ndarray, key: np.uint64, lower: int, upper: int, best: int, work: int) -> None:
    """Keep bounds for ``key`` (each the score less the least score, 0 for none), the column
    of the move that proved the lower one (-1 for none) and the work spent: merged with what
    the table keeps for ``key`` (the tighter of each bound), else in the slot of its bucket
    that cost less work."""
    home = np.int64(key % np.uint64(table.size - 1))  # int64: uint64 + 1 would be a float
    tag = (key & _KEY_LOW) << _KEY_SHIFT
    first = table[home]
    second = table[home + 1]
    old = np.uint64(0)
    if first & _ID == tag:
        slot = home
        old = first
    elif second & _ID == tag | _SLOT:
        slot = home + 1
        old = second
    elif (first >> _WORK_SHIFT) & np.uint64(31) < (second >> _WORK_SHIFT) & np.uint64(31):
        slot = home
    else:
        slot = home + 1
    if old:
        was_lower = int(old & np.uint64(127))
        was_upper = int((old >> np.uint64(7)) & np.uint64(127))
        lower = max(lower, was_lower)
        if was_upper and (upper == 0 or was_upper < upper):
            upper = was_upper
        if best < 0:
            best = int((old >> np.uint64(14)) & np.uint64(15)) - 1
        work = max(work, int((old >> _WORK_SHIFT) & np.uint64(31)))
    if slot != home:
        tag |= _SLOT
    table[slot] = (
        tag
        | (np.uint64(work) << _WORK_SHIFT)
        | (np.uint64(best + 1) << np.uint64(14))
        | (np.uint64(upper) << np.uint64(7))
        | np.uint64(lower)
    )
