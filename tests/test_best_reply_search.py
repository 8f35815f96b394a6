"""The best reply on a board solved by search (classic Connect Four: ``judging.refutation``),
checked against facts from outside the code: perfect play cannot be beaten, so a budget too
small to prove anything ends in "none found within …", never in "unbeatable"; a random player
can be, and its line replays through the rules to the loss it claims, the position after its
mistake lost or drawn for it by BitBully's independent solver; moving second the start is lost
(the first player wins classic Connect Four), which is never "beaten". Budgets are checked
before any work, one line each."""

from __future__ import annotations

import json
import time

import pytest

import qarena
from qarena.errors import QarenaError
from qarena.exact.search import LineSearcher, Searcher, SearchSolution
from qarena.judging.best_reply import SeatReply, best_reply
from qarena.judging.refutation import MAX_POSITIONS, refute
from tests.test_best_reply import _replays


def _columns(game: object, reply: SeatReply, plies: int) -> str:
    """The first ``plies`` moves of the line as BitBully writes them: columns from 0."""
    return "".join(str(ord(text) - ord("a")) for text in reply.line_text[:plies])


def test_perfect_play_is_not_called_unbeatable_by_a_search_that_ran_out() -> None:
    perfect = qarena.player("perfect", "connect4")
    found = best_reply(perfect, ("first",), positions=6, seconds=30)
    reply = found.seats["first"]
    assert reply.value == 1  # the first player wins classic Connect Four
    assert not reply.proved and not reply.beaten and reply.line == ()
    assert reply.search is not None and not reply.search.whole
    assert reply.search.max_positions == 6
    assert reply.decisions == reply.kept > 0  # every move it may play kept the win
    shown = reply.to_json()
    assert shown["proved"] is False and shown["line"] == []
    assert shown["search"]["max_positions"] == 6 and shown["search"]["positions"] == 6
    assert shown["reachable_decisions"] is None


def test_a_random_player_is_beaten_and_its_line_replays_to_the_loss() -> None:
    bitbully = pytest.importorskip("bitbully")
    engine = bitbully.BitBully()
    randomly = qarena.player("random", "connect4", seed=1)
    reply = best_reply(randomly, ("first",), positions=1_000, seconds=60).seats["first"]
    assert reply.value == 1 and reply.proved and reply.beaten
    # A random player may play any move: an opponent who knows that wins.
    assert reply.secured == -1
    after_own = _replays(randomly, reply)
    # The player's first move in the line gives the win away, by BitBully: the opponent to
    # move after it does not lose.
    first = after_own[0]
    assert not randomly.game.is_terminal(first)
    theirs = dict(engine.score_all_moves(bitbully.Board(_columns(randomly.game, reply, 1))))
    assert max(theirs.values()) >= 0


def test_moving_second_the_start_is_lost_and_never_beaten() -> None:
    randomly = qarena.player("random", "connect4", seed=2)
    reply = best_reply(randomly, ("second",), positions=100, seconds=30).seats["second"]
    assert reply.value == -1 and reply.secured == -1
    assert reply.proved and not reply.beaten
    _replays(randomly, reply)


def test_the_time_budget_ends_the_search() -> None:
    perfect = qarena.player("perfect", "connect4")
    began = time.monotonic()
    reply = best_reply(perfect, ("first",), positions=MAX_POSITIONS // 100, seconds=1).seats[
        "first"
    ]
    # The start's value comes from the book; the search stops within a fraction of a second
    # of its deadline (the machine is shared: a generous bound).
    assert time.monotonic() - began < 15
    assert not reply.proved and reply.search is not None
    assert reply.search.seconds < 15


def _solution(spec: str) -> SearchSolution:
    """A search solution of a small board, whose tables fit too: the tables' exact best reply
    beside the search's."""
    game = qarena.game(spec)
    grid = game.grid
    assert grid is not None
    searcher = Searcher if grid.gravity else LineSearcher
    return SearchSolution(game, searcher(game, entries=100_003))


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("tictactoe", "random"),
        ("tictactoe", "strongest"),
        ("tictactoe", 7),
        ("tictactoe", 11),
        ("tictactoe:3x4:3", "strongest"),
        ("connect4:4x4", "random"),
    ],
)
def test_the_search_agrees_with_the_tables_on_boards_where_both_answer(
    spec: str, name: str | int
) -> None:
    """Where the search proves something it is what the tables say: a line that beats the
    player only where the tables find one too, the outcome of the line no better for the
    player than what the tables say the strongest opponent forces; a won start held on every
    line only where the tables say it cannot be beaten (tictactoe:3x4:3 is won moving first,
    and strongest play keeps it)."""
    if isinstance(name, int):  # a Q-table trained as the example, which is beaten
        who = qarena.player(qarena.train(spec, episodes=2000, seed=name))
    else:
        who = qarena.player(name, spec, seed=1)
    exact = best_reply(who)
    solution = _solution(spec)
    searched = {}
    for seat, tables in exact.seats.items():
        found = searched[seat] = refute(who, solution, seat == "first", 20_000, 60)
        assert found.value == tables.value
        if found.proved:
            assert (found.secured < found.value) == tables.beaten
            assert tables.secured <= found.secured
        else:
            assert not tables.beaten or not found.spent.whole
    if spec == "tictactoe:3x4:3":
        first = searched["first"]
        assert first.value == 1 and first.proved and first.spent.whole and first.secured == 1


@pytest.mark.parametrize(
    ("keywords", "word"),
    [
        ({"positions": 0}, "positions must be at least 1"),
        ({"positions": MAX_POSITIONS + 1}, "positions must be at most"),
        ({"positions": 1.5}, "positions must be a whole number"),
        ({"seconds": 0}, "seconds must be a number of seconds above 0"),
        ({"seconds": float("nan")}, "seconds must be a number of seconds"),
        ({"seconds": True}, "seconds must be a number of seconds"),
        ({"seats": "first"}, "seats must name"),
        ({"seats": ["third"]}, "seats must name"),
    ],
)
def test_the_python_api_refuses_a_bad_budget_in_one_line(
    keywords: dict[str, object], word: str
) -> None:
    with pytest.raises(QarenaError) as e:
        qarena.best_reply("perfect", "connect4", **keywords)  # type: ignore[arg-type]
    assert word in str(e.value) and "\n" not in str(e.value)


def test_the_command_line_says_none_found_within_its_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from qarena.cli import run

    argv = ["beat", "perfect", "--game", "connect4", "--seat", "first", "--positions", "6"]
    assert run(argv) == 0
    shown = " ".join(capsys.readouterr().out.split())  # as read, not as wrapped
    assert "none found within 6 positions and 60 s" in shown
    assert "unbeatable" not in shown.lower() and "holds" not in shown
    assert run([*argv, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["best_reply"]
    assert set(found) == {"first"}
    assert found["first"]["proved"] is False and found["first"]["search"]["max_positions"] == 6
    for bad in (
        ["--positions", "0"],
        ["--positions", "100000000000"],
        ["--seconds", "0"],
        ["--seconds", "nan"],
        ["--seconds", "1e9"],
    ):
        assert run(["beat", "perfect", "--game", "connect4", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error:") and "\n" not in err and "Traceback" not in err
        assert bad[0] in err


@pytest.mark.slow
def test_the_shipped_network_is_beaten_moving_first_and_holds_its_lost_start_second() -> None:
    """Measured: the shipped network gives the win away moving first on a line the search
    finds in seconds (a draw then: 685 positions, 24 s here). Every move of its own in the line
    is one it plays, the line replays to its outcome, and BitBully says which of its moves gave
    the win away. Moving second its start is lost: never beaten, and the line ends in its
    loss."""
    bitbully = pytest.importorskip("bitbully")
    engine = bitbully.BitBully()
    network = qarena.player("network")
    found = best_reply(network, positions=5_000, seconds=120)
    first = found.seats["first"]
    assert first.value == 1 and first.proved and first.beaten
    after_own = _replays(network, first)
    mistakes = []
    for index, position in enumerate(after_own):
        if network.game.is_terminal(position):
            break
        board = bitbully.Board(_columns(network.game, first, 2 * index + 1))
        if max(dict(engine.score_all_moves(board)).values()) >= 0:  # the opponent does not lose
            mistakes.append(index)
    assert mistakes, "no move of the network's in the line gave the win away"
    second = found.seats["second"]
    assert second.value == -1 and second.secured == -1 and second.proved and not second.beaten
    _replays(network, second)
