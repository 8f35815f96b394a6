"""A caller's limit (threads.limit) stops a search deep inside its work: a never-ending search
of a big board ends with Stopped, and the searcher still answers correctly afterwards."""

from __future__ import annotations

import threading
import time

import pytest

from qarena.exact.search import Searcher
from qarena.games import parse_spec
from qarena.threads import Stopped, check, limit, limit_reached


def test_a_deadline_stops_a_search_that_would_not_end() -> None:
    game = parse_spec("connect4:7x8")  # no book: the empty board takes hours to solve
    searcher = Searcher(game, entries=1 << 16, workers=2)
    with limit(seconds=0.3), pytest.raises(Stopped) as caught:
        searcher.score(game.start())
    assert caught.value.why == "time"
    # Nothing unproved was stored: after three stones in column 1 for the first player (and
    # three in column 2 for the other), the first player wins with their next stone, and the
    # score says so exactly (Pons' scale: (cells + 1 - stones) // 2 for a win with the next stone).
    position = game.start()
    for move in (0, 1, 0, 1, 0, 1):
        position = game.apply(position, move)
    assert searcher.score(position) == (56 + 1 - 6) // 2


def test_a_stop_flag_stops_a_search_and_outer_limits_hold_inside_inner_ones() -> None:
    game = parse_spec("connect4:7x8")
    searcher = Searcher(game, entries=1 << 16, workers=2)
    flag = threading.Event()
    timer = threading.Timer(0.3, flag.set)
    timer.start()
    started = time.monotonic()
    with limit(flag.is_set), limit(seconds=600), pytest.raises(Stopped) as caught:
        searcher.move_scores(game.start())
    assert caught.value.why == "stopped"
    assert time.monotonic() - started < 60  # it ended: without the flag it would run for hours
    assert limit_reached() is None
    check()  # no limit outside the block
