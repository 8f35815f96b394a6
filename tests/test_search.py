"""Connect Four solved by search (qarena.exact.search): its scores are BitBully's on classic
6×7 positions, agree with the enumerating solver's value and distance on boards small enough
to enumerate, and the pure-Python path gives the same scores."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from qarena.agents.strategies import strongest_moves
from qarena.errors import QarenaError
from qarena.exact import solve
from qarena.exact.book import shipped_book
from qarena.exact.search import Searcher, SearchSolution, bits, plies_to_end, searchable
from qarena.games import parse_spec
from qarena.games.base import Position, grid_of
from qarena.games.connect4 import ConnectFour
from qarena.kernels import search as k
from tests.conftest import RunScript


def _game(spec: str) -> ConnectFour:
    game = parse_spec(spec)
    assert isinstance(game, ConnectFour)
    return game


def _random_positions(
    game: ConnectFour, count: int, low: int, high: int, seed: int
) -> list[tuple[list[int], Position]]:
    """Positions of random games of ``low`` to ``high`` plies in which nobody has won and
    nobody could have won on the move before (as Pons' test sets are drawn)."""
    rng = random.Random(seed)
    found: list[tuple[list[int], Position]] = []
    while len(found) < count:
        position, moves = game.start(), []
        for _ in range(rng.randrange(low, high + 1)):
            safe = [m for m in game.legal_moves(position)
                    if not game.is_terminal(game.apply(position, m))]  # fmt: skip
            if not safe:
                break
            move = rng.choice(safe)
            moves.append(move)
            position = game.apply(position, move)
        else:
            found.append((moves, position))
    return found


def test_scores_are_bitbully_s_on_classic_connect_four() -> None:
    bitbully = pytest.importorskip("bitbully")
    game = _game("connect4:6x7")
    searcher = Searcher(game, entries=1_000_003)
    engine = bitbully.BitBully(opening_book=None)
    for moves, position in _random_positions(game, 40, 16, 32, seed=2026):
        theirs = engine.score_all_moves(bitbully.Board("".join(map(str, moves))))
        assert searcher.move_scores(position) == dict(theirs), moves


def test_the_shipped_book_s_scores_are_bitbully_s() -> None:
    # BitBully with its own opening book answers these early positions at once.
    bitbully = pytest.importorskip("bitbully")
    game = _game("connect4:6x7")
    book = shipped_book(game)
    assert book is not None and book.plies == 5
    engine = bitbully.BitBully()
    for moves, position in _random_positions(game, 40, 0, book.plies, seed=11):
        mine, mask, _stones = bits(game.grid, position)
        theirs = engine.score_all_moves(bitbully.Board("".join(map(str, moves))))
        assert book.score(mine, mask, game.rows, game.cols) == max(dict(theirs).values()), moves


@pytest.mark.slow  # make test stays under 8 minutes; CI runs the slow checks too
def test_early_positions_score_as_bitbully_s_with_one_thread_or_two() -> None:
    # Early positions are where the table folds mirror images together and threads share it.
    bitbully = pytest.importorskip("bitbully")
    game = _game("connect4:6x7")
    engine = bitbully.BitBully(opening_book=None)
    one, two = Searcher(game, entries=1_000_003, workers=1), Searcher(game, workers=2)
    for moves, position in _random_positions(game, 6, 9, 12, seed=7):
        theirs = dict(engine.score_all_moves(bitbully.Board("".join(map(str, moves)))))
        assert one.move_scores(position) == theirs == two.move_scores(position), moves


def test_a_key_s_mirror_is_the_key_of_the_mirror_image() -> None:
    from qarena.kernels import search as k

    for spec in ("connect4:6x7", "connect4:5x6", "connect4:7x8"):
        game = _game(spec)
        geo = k.geometry(game.rows, game.cols)
        for _moves, position in _random_positions(game, 20, 0, 20, seed=3):
            mine, mask, _ = bits(game.grid, position)
            image = tuple(
                position[r * game.cols + game.cols - 1 - c]
                for r in range(game.rows)
                for c in range(game.cols)
            )
            other_mine, other_mask, _ = bits(game.grid, image)
            assert k.mirrored(mine + mask, game.rows, game.cols, geo) == other_mine + other_mask


@pytest.mark.parametrize("spec", ["connect4:4x4", "connect4:4x5", "connect4:5x4"])
def test_scores_agree_with_the_enumerating_solver(spec: str) -> None:
    # Two algorithms: retrograde analysis over every reachable position, and alpha-beta search.
    # A score is the value times the winner's stones still to place, plus one.
    game = _game(spec)
    solution = solve(game)
    searcher = Searcher(game, entries=100_003)
    cells = game.rows * game.cols
    for _moves, position in _random_positions(game, 60, 0, cells - 3, seed=5):
        value, plies = solution.value_of(position), solution.depth_of(position)
        stones = sum(1 for v in position if v)
        expected = value * ((cells + 2 - stones - plies) // 2)
        assert searcher.score(position) == expected, game.format_position(position)
        # ... and back: the plies to the end that a score means.
        assert plies_to_end(expected, stones, cells) == plies


def test_known_results() -> None:
    # Tromp: 6×6 Connect Four is a second-player win, with the board's last stone at the
    # latest; 5×5 is a draw; 4×5 (4 rows, 5 columns) is a draw too.
    six = _game("connect4:6x6")
    assert Searcher(six, entries=4_000_037).score(six.start()) == -1
    assert (
        Searcher(_game("connect4:5x5"), entries=1_000_003).score(_game("connect4:5x5").start()) == 0
    )
    assert (
        Searcher(_game("connect4:4x5"), entries=100_003).score(_game("connect4:4x5").start()) == 0
    )


SCRIPT = """
import sys
from qarena.games import parse_spec
from qarena.exact.search import Searcher
game = parse_spec("connect4:4x4")
searcher = Searcher(game, entries=10_007)
position = game.start()
scores = []
for move in (1, 2, 1, 2, 0):
    position = game.apply(position, move)
    scores.append(searcher.score(position))
print(scores)
"""


def test_the_pure_python_path_gives_the_same_scores(run_script: RunScript) -> None:
    plain = run_script(SCRIPT, jit=False)
    game = _game("connect4:4x4")
    searcher = Searcher(game, entries=10_007)
    position, scores = game.start(), []
    for move in (1, 2, 1, 2, 0):
        position = game.apply(position, move)
        scores.append(searcher.score(position))
    assert plain.strip() == str(scores)


def test_a_table_beyond_the_memory_budget_is_refused_before_it_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "1000000")
    with pytest.raises(QarenaError, match=r"a search table of 1,000,000 entries needs 8\.0 MB"):
        Searcher(_game("connect4:6x7"), entries=1_000_000)
    assert Searcher(_game("connect4:6x7"), entries=100_000).table.size == 100_003 + 1


def test_what_cannot_be_searched_is_refused_in_a_line() -> None:
    assert not searchable(_game("connect4:6x7:5")) and not searchable(_game("connect4:8x8"))
    with pytest.raises(QarenaError, match="cannot be searched") as e:
        Searcher(_game("connect4:6x7:5"))
    assert "\n" not in str(e.value)


def test_a_book_holds_the_search_s_scores_and_a_stopped_build_goes_on(tmp_path: Path) -> None:
    # Built from the last ply backwards; every score must be what a search of that position
    # finds, and the earlier plies what the enumerating solver says.
    import numpy as np

    from qarena.exact.book import BookBuild, load_book
    from qarena.kernels import search as k

    game = _game("connect4:4x5")
    out = str(tmp_path / "book.npz")
    stopped = BookBuild(game, 6, out, workers=2, entries=100_003)
    stopped.record(np.arange(40), np.full(40, 0))  # a wrong score, to see it is kept as saved
    stopped.checkpoint()
    build = BookBuild(game, 6, out, workers=2, entries=100_003)
    assert build.done == stopped.done and (build.scores[:40] == 0).all()
    build.scores[:40] = k.FULL  # forget them again: searched for real this time
    build.checkpoint()
    book = BookBuild(game, 6, out, workers=2, entries=100_003).run()
    assert book is not None and not Path(out + ".partial").exists()
    loaded = load_book(out, game)
    assert len(loaded) == len(book) == 2411 and loaded.plies == 6
    searcher = Searcher(game, entries=100_003, workers=1)
    solution = solve(game)
    cells = game.rows * game.cols
    for _moves, position in _random_positions(game, 80, 0, 6, seed=11):
        if game.is_terminal(position):
            continue
        mine, mask, stones = bits(game.grid, position)
        found = loaded.score(mine, mask, game.rows, game.cols)
        assert found == searcher.score(position)
        value, plies = solution.value_of(position), solution.depth_of(position)
        assert found == value * ((cells + 2 - stones - plies) // 2)


def test_a_book_of_another_board_or_kind_is_refused(tmp_path: Path) -> None:
    from qarena.exact.book import BookBuild, load_book

    out = str(tmp_path / "book.npz")
    BookBuild(_game("connect4:4x4"), 3, out, workers=1, entries=10_007).run()
    with pytest.raises(QarenaError, match="is a book of connect4:4x4:4, not of connect4:4x5:4"):
        load_book(out, _game("connect4:4x5"))
    with pytest.raises(QarenaError, match=r"not a qarena policy file|not an opening book"):
        load_book(__file__, _game("connect4:4x4"))


def test_the_book_command_writes_a_book_and_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from qarena.cli.app import run
    from qarena.exact.book import load_book

    out = tmp_path / "book.npz"
    assert run(["book", "connect4:4x4", "--plies", "4", "--out", str(out)]) == 0
    assert "Wrote" in capsys.readouterr().out
    assert load_book(out, _game("connect4:4x4")).plies == 4
    for args, expected in [
        (["tictactoe", "--plies", "2"], "has no book"),
        (["connect4:4x4", "--plies", "99"], "--plies must be at most 14"),
        (["connect4:4x4", "--plies", "2", "--workers", "0"], "--workers must be at least 1"),
        (["connect4:4x4", "--plies", "2", "--backend", "mpi"], "unknown backend 'mpi'"),
    ]:
        assert run(["book", *args, "--out", str(tmp_path / "other.npz")]) == 2
        err = capsys.readouterr().err.strip()
        assert expected in err and len(err.splitlines()) == 1
    assert not (tmp_path / "other.npz").exists()


def test_a_partial_book_with_scores_out_of_range_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Scores of 10**15 + 7 were kept, then stored as int8: a book of 7, -24 and 24.
    import numpy as np

    from qarena.cli.app import run
    from qarena.exact.book import BookBuild
    from qarena.kernels import search as k
    from qarena.policyfile import save_policy

    game = _game("connect4:4x4")
    out = tmp_path / "book.npz"
    build = BookBuild(game, 3, str(out), workers=1, entries=10_007)
    # A position of 3 stones on 16 cells scores at most (16 + 1 - 3) // 2 = 7.
    for bad in (10**15 + 7, 8, -8, -(2**63)):
        hostile = np.where(build.scores == k.FULL, bad, build.scores).astype(np.int64)
        save_policy(build.partial, {"scores": hostile}, build._meta())
        before = Path(build.partial).read_bytes()
        with pytest.raises(QarenaError, match="is damaged: it holds scores no position of 3"):
            BookBuild(game, 3, str(out), workers=1, entries=10_007)
        assert run(["book", "connect4:4x4", "--plies", "3", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert "is damaged" in err and len(err.splitlines()) == 1
        assert not out.exists() and Path(build.partial).read_bytes() == before
    # The largest score a position can have is kept, and the book is built from it.
    edge = np.where(build.scores == k.FULL, 7, build.scores).astype(np.int64)
    save_policy(build.partial, {"scores": edge}, build._meta())
    assert BookBuild(game, 3, str(out), workers=1, entries=10_007).done == build.total


def test_a_book_with_a_score_out_of_range_is_refused(tmp_path: Path) -> None:
    import numpy as np

    from qarena.exact.book import Book, BookBuild, load_book, save_book

    game = _game("connect4:4x4")
    out = tmp_path / "book.npz"
    book = BookBuild(game, 2, str(out), workers=1, entries=10_007).run()
    assert book is not None
    scores = book.scores.copy()
    scores[0] = 9  # beyond (16 + 1) // 2 = 8, a win with the first stone
    save_book(str(out), Book(book.spec, book.plies, book.keys, scores.astype(np.int8)))
    with pytest.raises(QarenaError, match="is damaged: a score is out of range"):
        load_book(out, game)


def test_a_finished_position_s_score_agrees_with_its_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # After x's vertical four (7 stones) o has lost: "loss" came with a score of 0, a draw's.
    import json

    from qarena.cli.app import run

    assert run(["solve", "connect4", "--position", "1212121", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["value"] == "loss" and record["plies"] == 0
    # Minus the score of the winning move one ply earlier: (42 + 2 - 7) // 2 = 18.
    game = _game("connect4")
    before = game.parse_position("121212")
    won = Searcher(game, entries=100_003, workers=1).move_scores(before)[0]
    assert won == 18 and record["score"] == -won
    assert (
        SearchSolution(game, Searcher(game, entries=10_007)).score(game.parse_position("1212121"))
        == -18
    )
    # A full board drawn scores 0, as a draw does (4x5: Tromp's draw, played out perfectly).
    small = _game("connect4:4x5")
    solution = SearchSolution(small, Searcher(small, entries=100_003, workers=1))
    position = small.start()
    while not small.is_terminal(position):
        position = small.apply(position, solution.best_moves(position)[0])
    assert small.result(position) == 0 and solution.score(position) == 0


def test_a_game_of_no_board_is_refused_in_one_line() -> None:
    """Search reads a game's board (``Game.grid``); a heap game has none, and says so."""
    with pytest.raises(QarenaError, match=r"^nim:3,5,7 is not a board game$"):
        Searcher(parse_spec("nim"))


def test_nodes_are_split_the_way_c4_counts_them() -> None:
    # Every node searched is exactly one of: settled at entry, one safe move, cut at entry,
    # interior; only the last is what Steininger's c4 counts as a node.
    game = _game("connect4:4x5")
    searcher = Searcher(game, entries=100_003, workers=1)
    assert searcher.score(game.start()) == 0
    counts = searcher.counts
    assert counts["nodes"] == searcher.nodes > 0
    parts = counts["leaves"] + counts["forced"] + counts["cuts"] + counts["interior"]
    assert parts == counts["nodes"]
    assert min(counts["leaves"], counts["forced"], counts["interior"]) > 0


def _walk(game: ConnectFour, count: int, seed: int) -> list[Position]:
    """Positions where play goes on, each after a random count of random moves."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = game.start()
        for _ in range(rng.randrange(game.rows * game.cols - 1)):
            position = game.apply(position, rng.choice(game.legal_moves(position)))
            if game.is_terminal(position):
                break
        else:
            found.append(position)
    return found


def _check_cannot_win(spec: str, count: int) -> None:
    from qarena.kernels import search as k

    game = _game(spec)
    solution = solve(game)
    geo = k.geometry(game.rows, game.cols)
    fired = by_claims = 0
    for position in _walk(game, count, seed=39):
        mine, mask, stones = bits(game.grid, position)
        if k.cannot_win(mine, mask, stones, game.rows, geo):
            # The bound says a draw at best for the player to move: never below the truth.
            assert solution.value_of(position) <= 0, game.format_position(position)
            fired += 1
            by_claims += k.has_four(mine | (geo[k.GEO_BOARD] ^ mask), game.rows)
    # Facts about the sample, so that the check above is not empty: the bound fires often,
    # and on positions where only the opponent's claims on even rows stop a four.
    assert fired > count // 50
    if game.rows % 2 == 0:
        assert by_claims > 0


@pytest.mark.parametrize("spec", ["connect4:4x4", "connect4:4x5", "connect4:5x4"])
def test_cannot_win_is_never_below_the_enumerated_value(spec: str) -> None:
    _check_cannot_win(spec, 4_000)


@pytest.mark.slow  # enumerating 6×4 takes ~25 s
def test_cannot_win_is_never_below_the_enumerated_value_on_six_rows() -> None:
    _check_cannot_win("connect4:6x4", 4_000)


def test_a_table_match_is_never_a_false_one() -> None:
    # Two keys with the same low 40 bits, one at home h and one at home h + 1 (k2 = k1 +
    # m · 2^40 with m · 2^40 ≡ 1 modulo the size): an entry of k1 kept in its bucket's second
    # slot sits at k2's home with k2's key bits. Only the slot bit tells them apart.
    import numpy as np

    from qarena.kernels import search as k

    size = 4099
    table = np.zeros(size + 1, dtype=np.uint64)
    step = pow(2**k.KEY_BITS, -1, size) << k.KEY_BITS  # ≡ 1 modulo the size
    k1 = np.uint64(5 * size + 7)
    k2 = np.uint64(int(k1) + step)
    assert int(k2) % size == int(k1) % size + 1
    assert int(k2) % 2**k.KEY_BITS == int(k1) % 2**k.KEY_BITS
    other = np.uint64(int(k1) + size)  # the same home as k1: fills its first slot
    k.store(table, other, 3, 0, 2, 20)  # much work: it stays
    k.store(table, k1, 5, 9, 1, 1)  # to the second slot, k2's home
    assert k.probe(table, k1) == (2 << 14) | (9 << 7) | 5
    assert k.probe(table, other) == (3 << 14) | 3
    assert k.probe(table, k2) == 0  # k1's entry sits at k2's home with k2's key bits
    # Bounds for one key merge: the tighter of each; a new key takes the lesser work's slot.
    k.store(table, k1, 4, 7, -1, 2)
    assert k.probe(table, k1) == (2 << 14) | (7 << 7) | 5
    k.store(table, np.uint64(int(k1) + 2 * size), 1, 0, -1, 0)
    assert k.probe(table, k1) == 0 and k.probe(table, other) != 0
    # And the fewest entries for which the argument holds on each board.
    assert k.least_entries(6, 7) == 2 ** (7 * 7 - k.KEY_BITS)
    assert Searcher(_game("connect4:7x8"), entries=5_000).table.size > 2 ** (8 * 8 - 40)


@pytest.mark.parametrize("spec", ["connect4:4x5", "connect4:5x4"])
def test_scores_with_a_tiny_table_agree_with_the_enumerating_solver(spec: str) -> None:
    # A table far too small for the search: buckets are overwritten all the time.
    game = _game(spec)
    solution = solve(game)
    searcher = Searcher(game, entries=10, workers=1)
    assert searcher.table.size == 4099 + 1
    cells = game.rows * game.cols
    for _moves, position in _random_positions(game, 40, 0, cells - 3, seed=8):
        value, plies = solution.value_of(position), solution.depth_of(position)
        stones = sum(1 for v in position if v)
        assert searcher.score(position) == value * ((cells + 2 - stones - plies) // 2)


def test_solve_no_book_searches_from_scratch(capsys: pytest.CaptureFixture[str]) -> None:
    # 4x5 is enumerated unless told; --no-book solves it by search, and says what it cost.
    import json

    from qarena.cli.app import run

    assert run(["solve", "connect4:4x5", "--no-book", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "search" and record["value"] == "draw" and record["score"] == 0
    assert record["nodes"] > 1_000 and record["seconds"] >= 0
    assert run(["solve", "connect4:4x5", "--json"]) == 0
    assert "method" not in json.loads(capsys.readouterr().out)  # enumerated
    # Tic-tac-toe is searched too (it has no book).
    assert run(["solve", "tictactoe", "--no-book", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "search" and record["value"] == "draw"


def _best_of(scores: dict[int, int]) -> list[int]:
    top = max(scores.values())
    return [m for m, s in scores.items() if s == top]


def test_the_best_moves_are_those_of_the_best_scores_on_classic_connect_four() -> None:
    # The players' cheaper way (the position's score, then one null-window test a move) picks
    # the very moves every move's score picks: the same games, seed for seed. Positions from
    # just past the book (plies 6 to 9 are the slow ones) and from the middle game.
    game = _game("connect4:6x7")
    book = shipped_book(game)
    scored = Searcher(game, entries=1_000_003, book=book)
    tested = Searcher(game, entries=1_000_003, book=book)
    solution = SearchSolution(game, Searcher(game, entries=1_000_003, book=book))
    positions = _random_positions(game, 20, 14, 30, seed=39)
    positions += _random_positions(game, 3, 2, 6, seed=40)  # in or at the edge of the book
    for moves, position in positions:
        exact = scored.move_scores(position)
        signs = {m: (s > 0) - (s < 0) for m, s in exact.items()}
        assert tested.best_moves(position) == _best_of(exact), moves
        assert tested.best_moves(position, weak=True) == _best_of(signs), moves
        assert solution.optimal_moves(position) == _best_of(signs), moves
        assert solution.best_moves(position) == _best_of(exact), moves


@pytest.mark.parametrize("spec", ["connect4:4x5", "connect4:5x4"])
def test_the_best_moves_agree_with_the_enumerating_solver(spec: str) -> None:
    game = _game(spec)
    solution = solve(game)
    searcher = Searcher(game, entries=100_003)
    cells = game.rows * game.cols
    for _moves, position in _random_positions(game, 80, 0, cells - 3, seed=11):
        outcomes = solution.move_outcomes(position)
        assert searcher.best_moves(position, weak=True) == sorted(solution.optimal_moves(position))
        assert searcher.best_moves(position) == sorted(strongest_moves(outcomes)), position
        # The score handed back with them is the position's value for its mover.
        sign, _kept = searcher.scored_best_moves(position, weak=True)
        assert sign == solution.value_of(position), position


def test_a_window_s_answer_is_a_true_bound_or_the_score() -> None:
    # solve_between is fail-soft: at or below the window's low end an upper bound, at or
    # above its high end a lower bound, between them the score itself.
    game = _game("connect4:5x4")
    grid = grid_of(game)
    searcher = Searcher(game, entries=100_003)
    other = Searcher(game, entries=100_003)
    for _moves, position in _random_positions(game, 60, 0, 14, seed=12):
        mine, mask, stones = bits(grid, position)
        score = searcher.score(position)
        for low in range(-4, 4):
            for high in (low + 1, low + 3):
                found = k.solve_between(
                    mine, mask, stones, game.rows, game.cols, other.table, other.counters, 0,
                    low, high,
                )  # fmt: skip
                if found <= low:
                    assert score <= found, (position, low, high)
                elif found >= high:
                    assert score >= found, (position, low, high)
                else:
                    assert score == found, (position, low, high)
