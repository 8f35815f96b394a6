"""The command line as users run it: outputs, exit codes, one-line errors."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qarena.cli import run, solving
from qarena.cli.common import styled


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_solve_json_tictactoe(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "solve", "tictactoe", "--json")
    assert code == 0
    record = json.loads(out)
    assert record == {
        "game": "tictactoe:3x3:3",
        "position": ".../.../...",
        "value": "draw",
        "optimal_moves": ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"],
        "positions": 5478,
        "oracle": {"family": "enumerated", "route": "enumerated"},
    }


def test_solve_json_nim(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "solve", "nim", "--json")
    assert code == 0
    # 3^5^7 = 1: the first player wins by taking one from any pile (Bouton).
    assert json.loads(out) == {
        "game": "nim:3,5,7",
        "position": "3 5 7",
        "value": "win",
        "optimal_moves": ["1:1", "2:1", "3:1"],
        "positions": 192,
        "oracle": {"family": "enumerated", "route": "enumerated"},
    }


def test_solve_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "solve", "tictactoe", "--position", "xx./oo./...", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["value"] == "win"
    assert record["optimal_moves"] == ["c1"]
    code, out, _ = _run(capsys, "solve", "subtraction:12:3", "-p", "5", "--json")
    assert json.loads(out)["value"] == "loss"  # 5 = 4 + 1: lost in misère play


def test_solve_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "solve", "nim")
    assert code == 0
    assert "win" in out
    assert "1:1 2:1 3:1" in out
    assert "192" in out


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "nim:-3"],
        ["solve", "nim:abc"],
        ["solve", "nim:0"],
        ["solve", "nim:"],
        ["solve", "tictactoe:3x3:4"],
        ["solve", "tictactoe:0x3:3"],
        ["solve", "nim", "--position", "3 5"],
        ["solve", "nim", "--position", "4 5 7"],
        ["solve", "tictactoe", "--position", "z9"],
        ["solve", "tictactoe", "--position", "xxx/ooo/x.."],
        ["solve", "tictactoe", "--position", "xxx/oo./o.."],
        ["solve", "tictactoe:7x7:5"],
        ["solve", "nim:1000000,1000000,1000000,1000000"],
        ["solve"],
        ["solve", "nim", "--bogus"],
        ["frobnicate"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = _run(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err


def test_too_large_names_positions_and_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    # Solved by search instead, 5×5 is still too large to enumerate, which training needs.
    _, _, err = _run(capsys, "train", "tictactoe:5x5:5", "--out", "never.npz")
    # Boards with ceil(n/2) x's and floor(n/2) o's, shared among the 8 symmetries.
    bound = sum(math.comb(25, n) * math.comb(n, n // 2) for n in range(26))
    assert f"up to {-(-bound // 8):,} positions" in err
    assert "TB" in err


def test_memory_limit_refuses_before_allocating(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "1000")
    allocations: list[object] = []
    real_empty = np.empty
    monkeypatch.setattr(np, "empty", lambda *a, **k: allocations.append(a) or real_empty(*a, **k))
    code, _, err = _run(capsys, "solve", "nim:9,9,9")
    assert code == 2
    # Every one of nim's 10 × 10 × 10 pile sizes is reachable; the estimate takes them all.
    assert "up to 1,000 positions need" in err and "kB" in err
    assert allocations == []


def test_a_file_too_large_to_load_now_names_the_file_not_learning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 54: ``qarena table`` of a connect4:5x5 table learned on this machine, run when
    less memory was free, said the game "is too large to learn here" (and offered search
    instead). It was learned here: what is too large is its tables, now."""
    import re

    path = tmp_path / "t.npz"
    assert run(["train", "nim:1,2,3", "--episodes", "200", "--out", str(path)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "1000")
    for command in ("table", "eval"):
        code, out, err = _run(capsys, command, str(path))
        assert code == 2 and out == ""
        assert re.fullmatch(
            rf"error: {re.escape(str(path))}: its tables for nim:1,2,3 \([\d,]+ positions\) "
            r"need [\d.]+ kB, more than the 1\.0 kB this machine can spare now\n",
            err,
        ), err
    code, _out, err = _run(capsys, "--lang", "de", "table", str(path))
    assert code == 2 and "can spare" not in err and "1,0 kB" in err


def test_a_search_that_outgrows_the_budget_stops(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tic-tac-toe's bound shared among its 8 symmetries is 756 positions, but it has 765
    classes (symmetric positions make smaller classes): a budget that just holds the estimate
    lets the search start, and the search stops at what the budget holds."""
    from qarena.budget import footprint
    from qarena.exact import game_tables, solve
    from qarena.games import parse_spec

    solve.cache_clear()  # tables built by earlier tests in this process are not searched again
    game_tables.cache_clear()
    game = parse_spec("tictactoe")
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", str(footprint(game, "solve").total))
    code, out, err = _run(capsys, "solve", "tictactoe")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "tictactoe:3x3:3 is too large to search here: more than" in err


def test_console_script_exits_2_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "qarena", "solve", "tictactoe", "--position", "z9"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("error: position 'z9'")


def test_bad_memory_limit_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "lots")
    code, out, err = _run(capsys, "solve", "nim")
    assert code == 2
    assert out == ""
    assert err.strip() == (
        "error: QARENA_MEMORY_LIMIT='lots' is not a number of bytes, like 2000000000"
    )


def test_a_memory_limit_beyond_the_machine_counts_as_the_machine(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 10**20 bytes let 3-in-a-row on a 5x6 Connect Four board start a search that grew until
    # memory ran out (and nim:99×6 a MemoryError): the limit is a cap, not a promise.
    from qarena.budget import machine_memory, memory_budget

    most = machine_memory()
    assert most is not None  # Linux: /proc/meminfo
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "99999999999999999999")
    assert memory_budget() == most
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "123456789")
    assert memory_budget() == 123_456_789  # a limit under what the machine has is kept
    monkeypatch.setenv("QARENA_MEMORY_LIMIT", "99999999999999999999")
    code, out, err = _run(capsys, "solve", "nim:99,99,99,99,99,99")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "is too large to solve here" in err


def test_an_allocation_refused_all_the_same_is_one_line_and_code_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the budget lets through can still fail (an estimate short, memory taken by
    # another process): numba's "Allocation failed" was a traceback.
    from qarena.exact import solve, space

    def refused(*args: object) -> object:
        raise MemoryError("Allocation failed (probably too large).")

    solve.cache_clear()  # tables built by earlier tests in this process are searched again
    space.game_tables.cache_clear()
    monkeypatch.setattr(space, "explore", refused)
    code, out, err = _run(capsys, "solve", "nim:2,2")
    space.game_tables.cache_clear()
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1  # a failure, not 2
    assert err.startswith("error: this machine ran out of memory; set QARENA_MEMORY_LIMIT")


# --- names that rich would read as markup ----------------------------------------------------

#: File and folder names rich would read as markup or emoji codes: a closing tag matching
#: nothing (a MarkupError), a tag it would swallow ("nim .npz"), an emoji code.
MARKUP_NAMES = ("[/x]", "nim [draft]", "[bold]b:smile:")


@pytest.mark.parametrize(
    "name", [MARKUP_NAMES[0], *(pytest.param(n, marks=pytest.mark.slow) for n in MARKUP_NAMES[1:])]
)
def test_names_are_printed_as_they_are(
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "[").mkdir()  # so that "[/x].npz" is a file x].npz in a folder [
    policy = f"{name}.npz"

    def shown(*args: str, stdin: str = "") -> str:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code, out, err = _run(capsys, *args)
        assert code == 0, err
        assert "Traceback" not in out + err and "MarkupError" not in out + err
        return out + err

    assert f"│ {policy} " in shown("train", "nim:1,2", "-o", policy, "--curve")
    assert f"from {policy}: " in shown("play", policy, "--seed", "1", stdin="q\n")
    for command in ("compete", "watch"):
        text = shown(command, policy, "random", "--games", "1")
        assert f"A: {policy} (q," in text
        assert "B: random (built-in player)" in text
    assert "nim:1,2, 1,000 games in each order" in shown(
        "compete", "random", "random", "--game", "nim:1,2"
    )
    assert "Q-learning  nim:1,2, " in shown("table", policy)
    assert "Q-learning on Nim 1-2 (misère)  nim:1,2, " in shown("eval", policy, "--games", "10")
    assert f"wrote {name}.png" in shown("plot", policy)
    explained = json.loads(shown("explain", "nim:1,2", "--policy", policy, "--json"))
    assert explained["policy"]["file"] == policy
    assert "Q-learning" in shown("explain", "nim:1,2", "--policy", policy)
    assert f" rows to {name}.csv\n" in shown("table", policy, "--csv", f"{name}.csv")
    folder = f"sweep {name}"
    text = shown("sweep", "nim:1,2", "-o", folder, "--alpha", "0.5,1", "--episodes", "100")
    assert f"results: {folder}/results.csv" in text
    assert "Sweep of Nim 1-2 (misère)  nim:1,2: 2 runs, 2 trained now" in text


# --- ends that are not bad input: Ctrl-C inside compiled code, output that cannot be written ---


def test_ctrl_c_inside_a_compiled_call_is_stopped_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # What numba raises when Ctrl-C reaches Python inside one of its compiled calls.
    def interrupted(*args: object, **kwargs: object) -> None:
        raise SystemError(
            "CPUDispatcher(<function explore>) returned a result with an exception set"
        ) from KeyboardInterrupt()

    monkeypatch.setattr(solving, "solve", interrupted)
    code, out, err = _run(capsys, "solve", "nim")
    assert (code, out, err) == (130, "", "stopped.\n")


def test_other_system_errors_are_not_taken_for_ctrl_c(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise SystemError("a real bug")

    monkeypatch.setattr(solving, "solve", broken)
    with pytest.raises(SystemError, match="a real bug"):
        run(["solve", "nim"])


FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args", [["solve", "nim"], ["solve", "nim", "--json"], ["--help"], ["play", "nim:1"]]
)
def test_output_to_a_full_device_is_one_line_and_exit_1(args: list[str]) -> None:
    with FULL.open("w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "qarena", *args],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert proc.returncode == 1
    assert (
        proc.stderr.splitlines()[-1] == "error: cannot write the output (No space left on device)"
    )
    assert "Traceback" not in proc.stderr


def test_play_with_standard_input_closed_is_one_line_and_exit_2() -> None:
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" "$@" <&-', sys.executable, "-m", "qarena", "play", "nim:1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "error: play reads your moves from standard input, which is closed\n"


def test_styled_headings_style_their_own_words_only() -> None:
    text = styled(
        "[bold]{name}[/] {count:,} [dim]{share:.1%}[/]", name="[/x] [b]", count=12345, share=0.5
    )
    assert text.plain == "[/x] [b] 12,345 50.0%"
    assert [(s.start, s.end, str(s.style)) for s in text.spans] == [
        (0, 8, "bold"),
        (16, 21, "dim"),
    ]


@pytest.mark.slow
def test_warm_up_compiles_what_a_first_game_uses(capsys: pytest.CaptureFixture[str]) -> None:
    """What make install runs: it trains and judges one game of each kind of rules, quietly,
    and says it is done (benchmarks/first_game.py measures what it saves)."""
    assert run(["warm-up"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "kernels are compiled" in captured.err
    # Each step says what it compiles, as n of total: make install's first minute is not silent.
    steps = [line for line in captured.err.splitlines() if line.startswith("Compiling")]
    assert len(steps) == 10 and steps[0].startswith("Compiling qarena's kernels, 1 of 10: training")
    assert steps[-1] == "Compiling qarena's kernels, 10 of 10: MCTS searches"


#: A fresh process's first MCTS moves, as the web's players make them: each compiled kernel
#: of MCTS, and whether numba compiled it (a cache miss) or read it from disk.
FIRST_MCTS_MOVES = """
import json
from qarena.agents.players import player
from qarena.games import parse_spec
from qarena.kernels import mcts
for spec, who in (("tictactoe", "mcts:1000"), ("nim:3,5,7", "mcts:1000"),
                  ("connect4", "mcts:1000"), ("connect4", "mcts:200:network")):
    game = parse_spec(spec)
    player(who, game, seed=1).act(game.start())
kernels = (mcts.simulate, mcts.simulate_bits, mcts.simulate_bits_network)
print(json.dumps({k.__name__: [sum(k.stats.cache_hits.values()),
                               sum(k.stats.cache_misses.values())] for k in kernels}))
"""


@pytest.mark.slow
def test_after_warm_up_a_fresh_process_plays_mcts_without_compiling(tmp_path: Path) -> None:
    """The first MCTS reply of a server took 5 to 10 s (its kernels were not in warm-up), the
    next 0.07 s: after warm-up's MCTS step, a fresh process's first moves of every kind of
    MCTS the web plays read their kernels from numba's cache and compile none."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    warm = "from qarena.cli.warm import _warm_mcts; _warm_mcts()"
    subprocess.run([sys.executable, "-c", warm], env=env, check=True, timeout=600)
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MCTS_MOVES], env=env, check=True, timeout=600,
        capture_output=True, text=True,
    )  # fmt: skip
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    for kernel, (hits, misses) in stats.items():
        assert hits >= 1 and misses == 0, (kernel, stats)


def test_a_ctrl_c_python_cannot_raise_in_a_callback_is_raised_again_in_the_main_thread() -> None:
    """A Ctrl-C that lands in numba's compiler-cache callback came out as "Exception ignored
    in … KeyboardInterrupt" and a traceback; the command line's hook raises it again in the
    main thread (where the command stops as at any Ctrl-C) and passes anything else on."""
    import time
    from types import SimpleNamespace

    from qarena.cli.app import _interrupt_again

    passed_on: list[object] = []
    hook = _interrupt_again(passed_on.append)
    other = SimpleNamespace(exc_value=ValueError("x"))
    hook(other)
    assert passed_on == [other]
    with pytest.raises(KeyboardInterrupt):
        hook(SimpleNamespace(exc_value=KeyboardInterrupt()))
        for _ in range(200):  # the interrupt arrives at the main thread's next check
            time.sleep(0.01)
    assert passed_on == [other]


# A Ctrl-C that arrives while the command line is still being imported (seconds on a busy
# machine), made certain here by an import hook that raises it at the command line's module.
CTRL_C_WHILE_LOADING = """
import sys
class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "qarena.cli.app":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, CtrlC())
from qarena.__main__ import main
main()
"""


def test_ctrl_c_while_the_program_loads_is_exit_130_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_LOADING],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
