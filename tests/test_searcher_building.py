"""Issue 57: the oracle builds every searcher (``exact.search.build_searcher``, asked through
``Oracle.searcher``) and says when it falls back; a search bounded by a count of positions
ends at the same position on any machine; the one check whether a game's tables fit here."""

from __future__ import annotations

import pytest

from qarena.errors import QarenaError, TooLargeError
from qarena.exact import ENUMERATED, Oracle, enumeration_refused
from qarena.exact.search import BudgetSpent, LineSearcher, Searcher
from qarena.games import parse_spec

#: A position of classic Connect Four past the opening book (7 stones): seconds to prove.
DEEP = [3, 3, 2, 4, 2, 2, 5]


def _replay(moves: list[int]) -> tuple[int, ...]:
    game = parse_spec("connect4")
    position = game.start()
    for m in moves:
        position = game.apply(position, m)
    return position


def test_the_oracle_builds_each_kind_of_searcher() -> None:
    classic = Oracle.of(parse_spec("connect4")).searcher(table_bytes=1 << 20, workers=1)
    assert isinstance(classic.searcher, Searcher) and classic.fallback is None
    assert classic.searcher.book is not None and classic.searcher.workers == 1
    assert classic.searcher.table.nbytes < 2 << 20
    plain = Oracle.of(parse_spec("connect4")).searcher(table_bytes=1 << 20, book=False)
    assert isinstance(plain.searcher, Searcher) and plain.searcher.book is None
    lines = Oracle.of(parse_spec("tictactoe")).searcher()
    assert isinstance(lines.searcher, LineSearcher) and lines.fallback is None


def test_a_game_search_cannot_solve_gives_no_searcher_and_says_why() -> None:
    built = Oracle.of(parse_spec("nim")).searcher()
    assert built.searcher is None and built.fallback is not None
    assert "\n" not in built.fallback and "nim" in built.fallback
    with pytest.raises(QarenaError):
        built.required()


def test_a_table_over_the_budget_falls_back_only_when_asked_and_says_so() -> None:
    oracle = Oracle.of(parse_spec("connect4"))
    refused = oracle.searcher(table_bytes=1 << 43)  # 8 TiB
    assert refused.searcher is None and refused.fallback is not None
    with pytest.raises(QarenaError):
        refused.required()
    smaller = oracle.searcher(table_bytes=1 << 43, smaller=True)
    assert isinstance(smaller.searcher, Searcher)
    assert smaller.fallback is not None and "instead" in smaller.fallback


def test_no_book_on_a_game_search_cannot_solve_is_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from qarena.cli.app import run

    assert run(["solve", "nim:1,2", "--no-book"]) == 0
    assert "--no-book" in capsys.readouterr().err


def test_a_budget_of_positions_ends_a_search_at_the_same_place() -> None:
    """Two fresh one-thread searchers given the same budget stop after the same positions;
    a budget large enough changes no answer."""
    game = parse_spec("connect4")
    position = _replay(DEEP)
    counts = []
    for _ in range(2):
        searcher = Searcher(game, entries=1 << 16, workers=1)
        with searcher.within(5_000), pytest.raises(BudgetSpent):
            searcher.move_scores(position, weak=True)
        counts.append(searcher.nodes)
    assert counts[0] == counts[1] and 5_000 <= counts[0] <= 5_000 + 8
    late = _replay([3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 1, 1, 1, 1, 1])
    free = Searcher(game, entries=1 << 16, workers=1).move_scores(late, weak=True)
    bounded = Searcher(game, entries=1 << 16, workers=1)
    with bounded.within(10**9):
        assert bounded.move_scores(late, weak=True) == free


def test_an_alphabeta_without_its_solver_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import qarena.agents.alphabeta as ab
    from qarena.agents.players import player

    monkeypatch.setattr(ab, "SOLVE_ENTRIES", 2**40)  # 8 TiB: refused before allocating
    game = parse_spec("connect4")
    found = ab.make_alphabeta(game, 1, None, player("network", game), seed=0)
    assert isinstance(found, ab.AlphaBeta)
    text = found.describe() or ""
    assert "not asked" in text and found.fallback is not None and found.fallback[:20] in text


def test_whether_tables_fit_is_asked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "1000")
    nim = parse_spec("nim:9,9,9")
    assert isinstance(enumeration_refused(nim), TooLargeError)
    answers = Oracle.of(nim)
    assert answers.route == ENUMERATED and isinstance(answers.refusal, TooLargeError)
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "8000000000")
    assert enumeration_refused(nim) is None and Oracle.of(nim).refusal is None
