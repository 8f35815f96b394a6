"""Malformed invocations of every subcommand: each is refused with exit code 2, exactly one
line on stderr, no traceback, and no file written or changed.

Each case runs in a fresh folder (the working directory) holding real policy files and the
awkward things a user can name: a device node, a named pipe, a symbolic link, a hard link, a
folder, empty, random, truncated and text files. The folder is snapshotted before and after
(names, kinds, sizes, mtimes, contents, link targets, device numbers): any difference fails.

Most cases run in-process through ``qarena.cli.app.run`` (fast), under a SIGALRM guard. Those
that read stdin (play), serve, or would start unbounded work if they were not refused run in a
subprocess with a timeout; a timeout is a failure. Subprocesses get at most 4 GiB of address
space, so a case that is not refused cannot take the machine's memory; the cases that must be
refused before any table is built (a small file naming a huge game, a game over
QARENA_MEMORY_LIMIT) get 1.5 GiB and a time limit, so building the tables fails them.

The table (``CASES``) and the runners are shared with ``benchmarks/reliability.py``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import random
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: Seconds a case may take before it counts as a hang.
TIMEOUT = 60.0
#: Address space a subprocess case may take (bytes).
SUBPROCESS_MEMORY = 4 * 1024**3
#: Address space for the cases that must be refused before building tables: plenty for the
#: command itself (it runs in 600 MB), far less than the tables they name.
SMALL_MEMORY = 3 * 1024**3 // 2
#: Memory budget given to the cases that name a game just over it.
LOW_MEMORY_LIMIT = "200000000"
#: What the symlink ``link.png`` points to; it must never change.
TARGET_TEXT = b"the symlink's target: must stay exactly as it is\n"

# Specs from the issue, and other oversized texts.
PILES_160 = "nim:" + ",".join(["99"] * 160)
PILES_14300 = "nim:" + ",".join(["99"] * 14_300)
PILES_130 = "nim:" + ",".join(["99"] * 130)
PILES_2151 = "nim:" + ",".join(["99"] * 2_151)
PILES_65 = "nim:" + ",".join(["99"] * 65)  # under the spec length limit, 100**65 positions
PILES_600_ONES = "nim:" + ",".join(["1"] * 600)  # > 1,000 characters, 2**600 positions
DIGITS_100K = "nim:" + "9" * 100_000  # a number with 100,000 digits
LONG_NAME = "x" * 5_000
HUGE = "99999999999999999999"  # 20 digits: beyond int64
BIG_POLICY_GAME = "nim:400,400"


@dataclass(frozen=True)
class Case:
    """One malformed invocation. ``argv`` is run in the case's folder; ``{port}`` in it is
    replaced by a loopback port that another socket holds, ``{free}`` by a free one."""

    id: str
    argv: tuple[str, ...]
    #: Run in a subprocess (stdin, serve, or unbounded work if the input were accepted).
    sub: bool = False
    env: tuple[tuple[str, str], ...] = ()
    #: Needs the device node (root only: mknod).
    device: bool = False
    #: Must be refused within this many seconds (refused "fast", before building tables).
    max_seconds: float | None = None
    port_in_use: bool = False
    slow: bool = False
    #: Address space the subprocess may take (bytes): a tight cap shows that a case is refused
    #: before any large table is built.
    memory: int = SUBPROCESS_MEMORY


def _c(
    case_id: str,
    *argv: str,
    sub: bool = False,
    env: dict[str, str] | None = None,
    device: bool = False,
    max_seconds: float | None = None,
    port_in_use: bool = False,
    slow: bool = False,
    memory: int = SUBPROCESS_MEMORY,
) -> Case:
    return Case(
        case_id,
        tuple(argv),
        sub=sub,
        env=tuple(sorted((env or {}).items())),
        device=device,
        max_seconds=max_seconds,
        port_in_use=port_in_use,
        slow=slow,
        memory=memory,
    )


LOW_MEMORY = {"QARENA_MEMORY_LIMIT": LOW_MEMORY_LIMIT}

# Output targets that are not regular files (see build_workspace), for every command that
# writes: train -o, table --csv, plot -o.
_BAD_TARGETS = [
    ("device", "null.png", True),
    ("fifo", "pipe.png", False),
    ("symlink", "link.png", False),
    ("directory", "folder.png", False),
    ("dir-slash", "folder.png/", False),
    ("missing-folder", "nowhere/out.png", False),
    ("empty-name", "", False),
]


def _target_cases() -> list[Case]:
    cases = []
    for label, target, device in _BAD_TARGETS:
        cases.append(
            _c(
                f"train-out-{label}",
                "train",
                "nim",
                "--episodes",
                "50",
                "-o",
                target,
                device=device,
            )
        )
        cases.append(_c(f"table-csv-{label}", "table", "p.npz", "--csv", target, device=device))
        cases.append(_c(f"plot-out-{label}", "plot", "c.npz", "-o", target, device=device))
    return cases


CASES: list[Case] = [
    # --- the command line itself ----------------------------------------------------------
    _c("unknown-command", "frobnicate"),
    _c("unknown-global-option", "--frobnicate"),
    _c("unknown-option", "solve", "nim", "--frobnicate"),
    # --- solve: specs -----------------------------------------------------------------------
    _c("solve-no-spec", "solve"),
    _c("solve-spec-empty", "solve", ""),
    _c("solve-spec-blank", "solve", "   "),
    _c("solve-spec-unknown-game", "solve", "chess"),
    _c("solve-spec-too-many-parts", "solve", "nim:3,5,7:normal:extra"),
    _c("solve-spec-zero-piles", "solve", "nim:"),
    _c("solve-spec-pile-zero", "solve", "nim:0"),
    _c("solve-spec-negative", "solve", "nim:-3"),
    _c("solve-spec-empty-pile", "solve", "nim:3,,5"),
    _c("solve-spec-bad-rule", "solve", "nim:3,5,7:sideways"),
    _c("solve-spec-ten-digits", "solve", "nim:1000000000"),
    _c("solve-spec-100k-digits", "solve", DIGITS_100K),
    _c("solve-spec-devanagari-digits", "solve", "nim:३,५"),
    _c("solve-spec-fullwidth-digits", "solve", "nim:３,５"),
    _c("solve-spec-arabic-indic-digits", "solve", "subtraction:١٢:٣"),
    _c("solve-spec-inner-space", "solve", "nim:3, 5"),
    _c("solve-spec-tab", "solve", "nim:3\t5"),
    _c("solve-spec-nul", "solve", "nim:3\x015"),
    _c("solve-spec-float", "solve", "nim:3.5"),
    _c("solve-spec-exponent", "solve", "nim:1e9"),
    _c("solve-spec-long-name", "solve", LONG_NAME),
    _c("solve-spec-600-piles-of-1", "solve", PILES_600_ONES, sub=True),
    _c("solve-spec-160-piles-of-99", "solve", PILES_160, sub=True, slow=True),
    _c("solve-spec-14300-piles", "solve", PILES_14300, sub=True),
    _c("solve-spec-65-piles-of-99", "solve", PILES_65, sub=True, slow=True),
    _c("solve-spec-subtraction-zero-heap", "solve", "subtraction:0"),
    _c("solve-spec-subtraction-zero-k", "solve", "subtraction:12:0"),
    _c("solve-spec-subtraction-too-many-parts", "solve", "subtraction:12:3:normal:x"),
    _c("solve-spec-subtraction-ten-digits", "solve", "subtraction:1000000000:3"),
    _c("solve-spec-tictactoe-zero-rows", "solve", "tictactoe:0x3:3"),
    _c("solve-spec-tictactoe-k-too-big", "solve", "tictactoe:3x3:4"),
    _c("solve-spec-tictactoe-k-zero", "solve", "tictactoe:3x3:0"),
    _c("solve-spec-tictactoe-bad-size", "solve", "tictactoe:axb"),
    _c("solve-spec-tictactoe-huge-board", "solve", "tictactoe:9999x9999", sub=True),
    _c("solve-spec-tictactoe-too-many-parts", "solve", "tictactoe:3x3:3:3"),
    _c("solve-spec-tictactoe-7x7", "solve", "tictactoe:7x7:5", sub=True),
    _c("solve-spec-tictactoe-12x12", "solve", "tictactoe:12x12:5", sub=True, slow=True),
    # --- solve: positions --------------------------------------------------------------------
    _c("solve-position-too-few-piles", "solve", "nim", "-p", "3 5"),
    _c("solve-position-above-start", "solve", "nim", "-p", "4 5 7"),
    _c("solve-position-negative", "solve", "nim", "-p", "-1 5 7"),
    _c("solve-position-words", "solve", "nim", "-p", "a b c"),
    _c("solve-position-empty", "solve", "nim", "-p", ""),
    _c("solve-position-devanagari", "solve", "nim", "-p", "३ ५ ७"),
    _c("solve-position-huge", "solve", "nim", "-p", f"{HUGE} 5 7"),
    _c("solve-position-board-for-nim", "solve", "nim", "-p", ".../.../..."),
    _c("solve-position-tictactoe-impossible", "solve", "tictactoe", "-p", "xxx/ooo/x.."),
    _c("solve-position-tictactoe-bad-mark", "solve", "tictactoe", "-p", "z9"),
    _c("solve-position-tictactoe-wrong-size", "solve", "tictactoe", "-p", "..../..../...."),
    _c("solve-position-tictactoe-too-many-o", "solve", "tictactoe", "-p", "o../.../..."),
    _c("solve-position-subtraction-over-heap", "solve", "subtraction", "-p", "13"),
    _c("solve-position-subtraction-negative", "solve", "subtraction", "-p", "-1"),
    _c("solve-position-very-long", "solve", "nim", "-p", " ".join(["1"] * 5_000)),
    _c("solve-position-board-very-long", "solve", "tictactoe", "-p", "x." * 60_000),
    _c("solve-position-connect4-board-very-long", "solve", "connect4", "-p", "x" * 120_000),
    # A memory limit beyond the machine counts as what the machine has: refused in one line,
    # not a MemoryError (nim) or a search until memory runs out (Connect Four, 3 in a row).
    _c(
        "solve-memory-limit-beyond-the-machine",
        "solve",
        "nim:99,99,99,99,99,99",
        sub=True,
        env={"QARENA_MEMORY_LIMIT": HUGE},
        max_seconds=30,
        memory=SMALL_MEMORY,
    ),
    _c(
        "solve-memory-limit-beyond-the-machine-no-search",
        "solve",
        "connect4:5x6:3",
        sub=True,
        env={"QARENA_MEMORY_LIMIT": HUGE},
        max_seconds=30,
        memory=SMALL_MEMORY,
    ),
    # --- train -------------------------------------------------------------------------------
    _c("train-no-spec", "train"),
    _c("train-out-without-value", "train", "nim", "--episodes", "50", "--out"),
    _c("train-spec-unknown", "train", "chess", "-o", "out.npz"),
    _c("train-spec-devanagari", "train", "nim:३,५", "-o", "out.npz"),
    _c("train-spec-160-piles", "train", PILES_160, "-o", "out.npz", sub=True),
    _c("train-spec-14300-piles", "train", PILES_14300, "-o", "out.npz", sub=True),
    _c("train-spec-65-piles-of-99", "train", PILES_65, "-o", "out.npz", sub=True, slow=True),
    _c(
        "train-tictactoe-4x4-over-budget",
        "train",
        "tictactoe:4x4:4",
        "-o",
        "out.npz",
        sub=True,
        env=LOW_MEMORY,
        max_seconds=20,
        memory=SMALL_MEMORY,
    ),
    _c(
        "train-memory-limit-not-a-number",
        "train",
        "nim",
        "-o",
        "out.npz",
        env={"QARENA_MEMORY_LIMIT": "lots"},
    ),
    _c("train-episodes-zero", "train", "nim", "-o", "out.npz", "--episodes", "0"),
    _c("train-episodes-negative", "train", "nim", "-o", "out.npz", "--episodes", "-1"),
    _c("train-episodes-huge", "train", "nim", "-o", "out.npz", "--episodes", HUGE, sub=True),
    _c("train-episodes-not-int", "train", "nim", "-o", "out.npz", "--episodes", "1e3"),
    _c("train-episodes-word", "train", "nim", "-o", "out.npz", "--episodes", "many"),
    _c("train-learner-unknown", "train", "nim", "-o", "out.npz", "--learner", "sarsa"),
    _c("train-opponent-unknown", "train", "nim", "-o", "out.npz", "--opponent", "god"),
    _c("train-opponent-missing-file", "train", "nim", "-o", "out.npz", "--opponent", "gone.npz"),
    _c("train-opponent-other-game", "train", "nim", "-o", "out.npz", "--opponent", "ttt.npz"),
    _c("train-opponent-folder", "train", "nim", "-o", "out.npz", "--opponent", "folder.png"),
    _c("train-out-is-opponent", "train", "nim", "-o", "p.npz", "--opponent", "p.npz"),
    _c("train-out-is-opponent-hardlink", "train", "nim", "-o", "hard.npz", "--opponent", "p.npz"),
    _c("train-opponent-random-bytes", "train", "nim", "-o", "out.npz", "--opponent", "random.npz"),
    _c(
        "train-seat-unknown",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--opponent",
        "random",
        "--seat",
        "middle",
    ),
    _c("train-seat-without-opponent", "train", "nim", "-o", "out.npz", "--seat", "first"),
    _c("train-alpha-two", "train", "nim", "-o", "out.npz", "--alpha", "2"),
    _c("train-alpha-zero", "train", "nim", "-o", "out.npz", "--alpha", "0"),
    _c("train-alpha-nan", "train", "nim", "-o", "out.npz", "--alpha", "nan"),
    _c("train-alpha-inf", "train", "nim", "-o", "out.npz", "--alpha", "inf"),
    _c("train-alpha-word", "train", "nim", "-o", "out.npz", "--alpha", "fast"),
    _c("train-gamma-above-one", "train", "nim", "-o", "out.npz", "--gamma", "1.5"),
    _c("train-epsilon-negative", "train", "nim", "-o", "out.npz", "--epsilon", "-0.1"),
    _c("train-epsilon-end-two", "train", "nim", "-o", "out.npz", "--epsilon-end", "2"),
    _c("train-schedule-unknown", "train", "nim", "-o", "out.npz", "--epsilon-schedule", "cosine"),
    _c(
        "train-schedule-exp-epsilon-zero",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--epsilon-schedule",
        "exp",
        "--epsilon",
        "0",
    ),
    _c("train-rewards-two", "train", "nim", "-o", "out.npz", "--rewards", "1,0"),
    _c("train-rewards-words", "train", "nim", "-o", "out.npz", "--rewards", "a,b,c"),
    _c("train-rewards-nan", "train", "nim", "-o", "out.npz", "--rewards", "1,0,nan"),
    _c("train-rewards-inf", "train", "nim", "-o", "out.npz", "--rewards", "1,0,-inf"),
    _c("train-rewards-empty", "train", "nim", "-o", "out.npz", "--rewards", ""),
    # Only ASCII digits are numbers: Python's float() would read these.
    _c("train-rewards-arabic", "train", "nim", "-o", "out.npz", "--rewards", "\u0661,0,-1"),
    _c("train-rewards-underscore", "train", "nim", "-o", "out.npz", "--rewards", "1_0,0,-1"),
    _c("train-rewards-overflow", "train", "nim", "-o", "out.npz", "--rewards", "1e400,0,-1"),
    _c("train-initial-nan", "train", "nim", "-o", "out.npz", "--initial", "nan"),
    _c("train-initial-inf", "train", "nim", "-o", "out.npz", "--initial", "inf"),
    _c("train-seed-negative", "train", "nim", "-o", "out.npz", "--seed", "-1"),
    _c("train-seed-2-63", "train", "nim", "-o", "out.npz", "--seed", str(2**63)),
    _c("train-seed-huge", "train", "nim", "-o", "out.npz", "--seed", HUGE),
    _c("train-check-every-zero", "train", "nim", "-o", "out.npz", "--check-every", "0"),
    _c("train-check-every-negative", "train", "nim", "-o", "out.npz", "--check-every", "-5"),
    _c("train-check-every-huge", "train", "nim", "-o", "out.npz", "--check-every", HUGE),
    _c("train-every-without-curve", "train", "nim", "-o", "out.npz", "--every", "10"),
    _c("train-every-zero", "train", "nim", "-o", "out.npz", "--curve", "--every", "0"),
    _c("train-every-negative", "train", "nim", "-o", "out.npz", "--curve", "--every", "-1"),
    _c("train-every-huge", "train", "nim", "-o", "out.npz", "--curve", "--every", HUGE),
    _c(
        "train-every-too-many-points",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--curve",
        "--every",
        "1",
        "--episodes",
        "10000000",
    ),
    _c(
        "train-matchbox-alpha",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--learner",
        "matchbox",
        "--alpha",
        "0.5",
    ),
    _c("train-resume-missing", "train", "nim", "-o", "out.npz", "--resume", "gone.npz"),
    _c("train-resume-other-game", "train", "nim", "-o", "out.npz", "--resume", "ttt.npz"),
    _c("train-resume-truncated", "train", "nim", "-o", "out.npz", "--resume", "trunc.npz"),
    _c("train-resume-text", "train", "nim", "-o", "out.npz", "--resume", "notes.npz"),
    _c(
        "train-resume-other-learner",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--resume",
        "p.npz",
        "--learner",
        "matchbox",
    ),
    _c(
        "train-resume-no-canonical",
        "train",
        "nim",
        "-o",
        "out.npz",
        "--resume",
        "p.npz",
        "--no-canonical",
    ),
    # --- table ---------------------------------------------------------------------------------
    _c("table-no-file", "table"),
    _c("table-missing-file", "table", "gone.npz"),
    _c("table-folder", "table", "folder.png"),
    _c("table-empty-file", "table", "empty.npz"),
    _c("table-random-bytes", "table", "random.npz"),
    _c("table-truncated", "table", "trunc.npz"),
    _c("table-text-file", "table", "notes.npz"),
    _c("table-fifo-as-input", "table", "pipe.png", sub=True),
    _c("table-device-as-input", "table", "null.png", device=True, sub=True),
    _c(
        "table-big-game-in-metadata",
        "table",
        "big.npz",
        sub=True,
        max_seconds=15,
        memory=SMALL_MEMORY,
    ),
    _c("table-top-zero", "table", "p.npz", "--top", "0"),
    _c("table-top-negative", "table", "p.npz", "--top", "-1"),
    _c("table-top-word", "table", "p.npz", "--top", "ten"),
    _c("table-position-unreachable", "table", "p.npz", "-p", "9 9 9"),
    _c("table-position-words", "table", "p.npz", "-p", "x"),
    _c("table-position-too-few", "table", "p.npz", "-p", "3 5"),
    _c("table-position-board-for-nim", "table", "p.npz", "-p", ".../.../..."),
    _c("table-position-game-over", "table", "p.npz", "-p", "0 0 0"),
    _c("table-top-and-csv", "table", "p.npz", "--top", "3", "--csv", "out.csv"),
    _c("table-position-and-top", "table", "p.npz", "-p", "3 5 7", "--top", "3"),
    _c("table-csv-own-input", "table", "p.npz", "--csv", "p.npz"),
    _c("table-csv-own-input-hardlink", "table", "p.npz", "--csv", "hard.npz"),
    _c("table-csv-own-input-symlink", "table", "p.npz", "--csv", "plink.npz"),
    _c("table-csv-own-input-via-symlink", "table", "plink.npz", "--csv", "p.npz"),
    *_target_cases(),
    # --- eval ----------------------------------------------------------------------------------
    _c("eval-no-file", "eval"),
    _c("eval-missing-file", "eval", "gone.npz"),
    _c("eval-folder", "eval", "folder.png"),
    _c("eval-random-bytes", "eval", "random.npz"),
    _c("eval-truncated", "eval", "trunc.npz"),
    _c("eval-games-zero", "eval", "p.npz", "--games", "0"),
    _c("eval-games-negative", "eval", "p.npz", "--games", "-1"),
    _c("eval-games-ten-billion", "eval", "p.npz", "--games", "10000000000", sub=True),
    _c("eval-games-huge", "eval", "p.npz", "--games", HUGE, sub=True),
    _c("eval-games-word", "eval", "p.npz", "--games", "all"),
    _c("eval-seed-negative", "eval", "p.npz", "--seed", "-1"),
    _c("eval-seed-huge", "eval", "p.npz", "--seed", HUGE),
    _c("eval-missing-file-and-games-ten-billion", "eval", "gone.npz", "--games", "10000000000"),
    # A line read a piece at a time: /dev/zero is one endless line, refused once it is longer
    # than any position (it grew until memory ran out).
    _c(
        "eval-positions-dev-zero",
        "eval",
        "random",
        "--game",
        "connect4",
        "--positions",
        "/dev/zero",
        sub=True,
        max_seconds=20,
        memory=SMALL_MEMORY,
    ),
    _c(
        "eval-positions-folder", "eval", "random", "--game", "connect4", "--positions", "folder.png"
    ),
    _c(
        "eval-positions-not-positions",
        "eval",
        "random",
        "--game",
        "connect4",
        "--positions",
        "notes.txt",
    ),
    _c(
        "eval-positions-binary", "eval", "random", "--game", "connect4", "--positions", "random.npz"
    ),
    # --- compete -------------------------------------------------------------------------------
    _c("compete-no-files", "compete"),
    _c("compete-one-file", "compete", "p.npz"),
    _c("compete-other-games", "compete", "p.npz", "ttt.npz"),
    _c("compete-missing-second", "compete", "p.npz", "gone.npz"),
    _c("compete-random-first", "compete", "random.npz", "p.npz"),
    _c("compete-games-zero", "compete", "p.npz", "p.npz", "--games", "0"),
    _c(
        "compete-games-ten-billion", "compete", "p.npz", "p.npz", "--games", "10000000000", sub=True
    ),
    _c("compete-seed-negative", "compete", "p.npz", "p.npz", "--seed", "-1"),
    _c("compete-seed-huge", "compete", "p.npz", "p.npz", "--seed", HUGE),
    _c("compete-three-files", "compete", "p.npz", "p.npz", "p.npz"),
    _c("compete-built-ins-without-a-game", "compete", "random", "perfect"),
    _c("compete-rule-player-of-another-game", "compete", "bouton", "random", "--game", "tictactoe"),
    _c("compete-file-of-another-game", "compete", "p.npz", "random", "--game", "tictactoe"),
    _c("compete-mcts-no-budget", "compete", "mcts:", "random", "--game", "tictactoe"),
    _c("compete-mcts-huge-budget", "compete", "mcts:1e99", "random", "--game", "tictactoe"),
    _c(
        "compete-openings-dev-zero",
        "compete",
        "random",
        "random",
        "--game",
        "connect4",
        "--openings",
        "/dev/zero",
        sub=True,
        max_seconds=20,
        memory=SMALL_MEMORY,
    ),
    _c(
        "compete-openings-folder",
        "compete",
        "random",
        "random",
        "--game",
        "connect4",
        "--openings",
        "folder.png",
    ),
    _c(
        "compete-openings-not-positions",
        "compete",
        "random",
        "random",
        "--game",
        "connect4",
        "--openings",
        "notes.txt",
    ),
    _c(
        "compete-openings-binary",
        "compete",
        "random",
        "random",
        "--game",
        "connect4",
        "--openings",
        "random.npz",
    ),
    _c("eval-mcts-zero", "eval", "mcts:0", "--game", "tictactoe"),
    _c("eval-mcts-missing-evaluator", "eval", "mcts:10:nosuchfile", "--game", "tictactoe"),
    # --- matrix --------------------------------------------------------------------------------
    _c("matrix-no-spec", "matrix"),
    _c("matrix-spec-unknown", "matrix", "chess"),
    _c("matrix-spec-devanagari", "matrix", "nim:३,५"),
    _c("matrix-spec-160-piles", "matrix", PILES_160, sub=True),
    _c("matrix-spec-65-piles-of-99", "matrix", PILES_65, sub=True, slow=True),
    _c(
        "matrix-tictactoe-4x4-over-budget",
        "matrix",
        "tictactoe:4x4:4",
        sub=True,
        env=LOW_MEMORY,
        max_seconds=20,
        memory=SMALL_MEMORY,
    ),
    _c("matrix-learner-unknown", "matrix", "nim", "--learner", "sarsa"),
    _c("matrix-episodes-zero", "matrix", "nim", "--episodes", "0"),
    _c("matrix-episodes-huge", "matrix", "nim", "--episodes", HUGE, sub=True),
    _c("matrix-games-zero", "matrix", "nim", "--games", "0"),
    _c("matrix-games-ten-billion", "matrix", "nim", "--games", "10000000000", sub=True),
    _c("matrix-seed-negative", "matrix", "nim", "--seed", "-1"),
    _c("matrix-seed-huge", "matrix", "nim", "--seed", HUGE),
    _c("matrix-trainer-unknown", "matrix", "nim", "--trainers", "self,chess"),
    _c("matrix-trainer-of-another-game", "matrix", "nim", "--trainers", "subtraction"),
    _c("matrix-judge-self", "matrix", "nim", "--judges", "self"),
    _c("matrix-judges-twice", "matrix", "nim", "--judges", "random,random"),
    _c("matrix-judges-empty", "matrix", "nim", "--judges", ""),
    _c("matrix-seat-unknown", "matrix", "nim", "--seat", "middle"),
    # --- explain -------------------------------------------------------------------------------
    _c("explain-no-spec", "explain"),
    _c("explain-spec-unknown", "explain", "chess"),
    _c("explain-spec-devanagari", "explain", "nim:३,५"),
    _c("explain-spec-2151-piles", "explain", PILES_2151, sub=True, slow=True),
    _c("explain-spec-14300-piles", "explain", PILES_14300, sub=True),
    _c("explain-position-too-few", "explain", "nim", "-p", "3 5"),
    _c("explain-position-above-start", "explain", "nim", "-p", "9 9 9"),
    _c("explain-position-tictactoe-impossible", "explain", "tictactoe", "-p", "xxx/ooo/..."),
    _c("explain-policy-missing", "explain", "nim", "--policy", "gone.npz"),
    _c("explain-policy-other-game", "explain", "nim", "--policy", "ttt.npz"),
    _c("explain-policy-random-bytes", "explain", "nim", "--policy", "random.npz"),
    _c("explain-policy-folder", "explain", "nim", "--policy", "folder.png"),
    # --- play (stdin) --------------------------------------------------------------------------
    _c("play-spec-unknown", "play", "chess", sub=True),
    _c("play-spec-devanagari", "play", "nim:३,५", sub=True),
    _c("play-spec-130-piles", "play", PILES_130, sub=True),
    _c("play-spec-65-piles-of-99", "play", PILES_65, sub=True, slow=True),
    _c(
        # Asked for a trained agent: the board is searched (perfect play) when none is asked.
        "play-tictactoe-4x4-over-budget",
        "play",
        "tictactoe:4x4:4",
        "--opponent",
        "trained",
        sub=True,
        env=LOW_MEMORY,
        max_seconds=20,
        memory=SMALL_MEMORY,
    ),
    _c("play-missing-file", "play", "gone.npz", sub=True),
    _c("play-folder", "play", "folder.png", sub=True),
    _c("play-random-bytes", "play", "random.npz", sub=True),
    _c("play-truncated", "play", "trunc.npz", sub=True),
    _c("play-first-unknown", "play", "p.npz", "--first", "nobody", sub=True),
    _c("play-seed-negative", "play", "p.npz", "--seed", "-1", sub=True),
    _c("play-seed-huge", "play", "p.npz", "--seed", HUGE, sub=True, slow=True),
    # --- plot ----------------------------------------------------------------------------------
    _c("plot-no-files", "plot"),
    _c("plot-format-gif", "plot", "c.npz", "-o", "out.gif"),
    _c("plot-format-none", "plot", "c.npz", "-o", "out"),
    _c("plot-two-files-no-out", "plot", "c.npz", "c.npz"),
    _c("plot-no-curve", "plot", "p.npz", "-o", "out.png"),
    _c("plot-no-curve-default-out", "plot", "p.npz"),
    _c("plot-missing-file", "plot", "gone.npz", "-o", "out.png"),
    _c("plot-random-bytes", "plot", "random.npz", "-o", "out.png"),
    _c("plot-out-is-input", "plot", "c.npz", "-o", "c.npz"),
    _c("plot-out-is-input-same-name", "plot", "curve.svg", "-o", "curve.svg"),
    _c("plot-out-is-input-hardlink", "plot", "c.npz", "-o", "chard.png"),
    # --- serve ---------------------------------------------------------------------------------
    _c("serve-port-zero", "serve", "--port", "0", sub=True),
    _c("serve-port-negative", "serve", "--port", "-1", sub=True, slow=True),
    _c("serve-port-too-big", "serve", "--port", "65536", sub=True, slow=True),
    _c("serve-port-huge", "serve", "--port", HUGE, sub=True, slow=True),
    _c("serve-port-word", "serve", "--port", "http", sub=True),
    _c("serve-port-in-use", "serve", "--port", "{port}", sub=True, port_in_use=True),
    _c("serve-host-not-local", "serve", "--host", "192.0.2.1", "--port", "8765", sub=True),
    _c("serve-data-dir-is-file", "serve", "--data-dir", "notes.txt", "--port", "{free}", sub=True),
    _c(
        "serve-memory-limit-not-a-number",
        "serve",
        "--port",
        "{free}",
        sub=True,
        env={"QARENA_MEMORY_LIMIT": "abc"},
    ),
    _c("serve-allow-host-blank", "serve", "--port", "{free}", "--allow-host", " ", sub=True),
    _c(
        "serve-data-dir-in-missing-folder",
        "serve",
        "--data-dir",
        "notes.txt/data",
        "--port",
        "{free}",
        sub=True,
    ),
]


# ---------------------------------------------------------------------------------------------
# Files the cases use


def _cli(argv: list[str]) -> None:
    """Run the CLI in-process for setup; it must succeed."""
    from qarena.cli.app import run

    code = run(argv)
    if code != 0:
        raise RuntimeError(f"setup command failed with exit {code}: qarena {' '.join(argv)}")


def make_sources(folder: Path) -> Path:
    """Real policy files, made once: ``p.npz`` (nim), ``ttt.npz`` (tictactoe), ``c.npz``
    (nim with a learning curve) and ``big.npz`` (p.npz's arrays and metadata, but naming the
    game nim:400,400, with a correct checksum)."""
    from qarena.learn.learners import load_learner
    from qarena.policyfile import load_policy, save_policy

    folder.mkdir(parents=True, exist_ok=True)
    p, ttt, c, big = (folder / n for n in ("p.npz", "ttt.npz", "c.npz", "big.npz"))
    _cli(["train", "nim", "--episodes", "300", "--seed", "1", "-o", str(p)])
    _cli(["train", "tictactoe", "--episodes", "300", "--seed", "1", "-o", str(ttt)])
    _cli(["train", "nim", "--episodes", "300", "--seed", "2", "--curve", "-o", str(c)])
    arrays = load_learner(p).arrays()
    data = load_policy(p, lambda meta: {n: (a.shape, a.dtype) for n, a in arrays.items()})
    meta = dict(data.meta)
    meta["game"] = BIG_POLICY_GAME
    save_policy(big, data.arrays, meta)
    return folder


def device_possible() -> bool:
    return hasattr(os, "mknod") and os.geteuid() == 0


def build_workspace(ws: Path, sources: Path) -> None:
    """A fresh folder of everything the cases name."""
    ws.mkdir(parents=True)
    for name in ("p.npz", "ttt.npz", "c.npz", "big.npz"):
        shutil.copyfile(sources / name, ws / name)
    os.link(ws / "p.npz", ws / "hard.npz")
    shutil.copyfile(ws / "c.npz", ws / "curve.svg")  # a policy with a figure's name
    os.link(ws / "c.npz", ws / "chard.png")
    os.symlink("p.npz", ws / "plink.npz")
    (ws / "target.png").write_bytes(TARGET_TEXT)
    os.symlink("target.png", ws / "link.png")
    os.mkfifo(ws / "pipe.png")
    if device_possible():
        # Our own null device: a write to it is harmless, a replacement shows in the snapshot.
        os.mknod(ws / "null.png", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    (ws / "folder.png").mkdir()
    (ws / "folder.png" / "keep.txt").write_text("keep\n")
    (ws / "empty.npz").write_bytes(b"")
    (ws / "random.npz").write_bytes(random.Random(7).randbytes(4096))
    data = (ws / "p.npz").read_bytes()
    (ws / "trunc.npz").write_bytes(data[: len(data) // 2])
    (ws / "notes.npz").write_text("this is not a policy file\n")
    (ws / "notes.txt").write_text("neither is this\n")


def snapshot(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``root``: kind and, for files, size, mtime and content hash; for
    links, the target; for devices, the device number. Folders' own mtimes are left out."""
    seen: dict[str, tuple[Any, ...]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            mode = st.st_mode
            if stat.S_ISREG(mode):
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                seen[rel] = ("file", st.st_size, st.st_mtime_ns, digest, st.st_ino)
            elif stat.S_ISLNK(mode):
                seen[rel] = ("symlink", os.readlink(path))
            elif stat.S_ISDIR(mode):
                seen[rel] = ("folder",)
            elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                seen[rel] = ("device", stat.S_IFMT(mode), st.st_rdev)
            elif stat.S_ISFIFO(mode):
                seen[rel] = ("fifo",)
            else:
                seen[rel] = ("other", stat.S_IFMT(mode))
    return seen


def changes(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    out = [f"new {n}" for n in sorted(set(after) - set(before))]
    out += [f"removed {n}" for n in sorted(set(before) - set(after))]
    out += [
        f"changed {n}: {before[n][0]} -> {after[n][0]}"
        for n in sorted(set(before) & set(after))
        if before[n] != after[n]
    ]
    return out


# ---------------------------------------------------------------------------------------------
# Running a case


@dataclass
class Outcome:
    code: int | None  # None: no answer within the timeout
    stdout: str
    stderr: str
    seconds: float
    changed: list[str] = field(default_factory=list)
    crash: str = ""  # an exception that escaped run() (in-process)


class _Deadline(BaseException):
    """Raised by SIGALRM in an in-process case that runs too long."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise _Deadline

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _held_port(needed: bool) -> Iterator[str]:
    """A loopback port another socket listens on, while the case runs."""
    if not needed:
        yield ""
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        yield str(s.getsockname()[1])


def _free_port() -> str:
    """A loopback port nothing listens on (just now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _argv(case: Case, port: str) -> list[str]:
    argv = list(case.argv)
    if port:
        argv = [a.replace("{port}", port) for a in argv]
    if any("{free}" in a for a in argv):
        free = _free_port()
        argv = [a.replace("{free}", free) for a in argv]
    return argv


def _case_env(case: Case, ws: Path) -> dict[str, str]:
    # serve's default data folder lands inside the case's folder, where a write shows.
    return {"XDG_DATA_HOME": str(ws / "xdg"), **dict(case.env)}


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_subprocess(case: Case, ws: Path, timeout: float = TIMEOUT) -> Outcome:
    """Run ``python -m qarena ARGV`` in ``ws`` with empty stdin and a timeout."""
    env = {**os.environ, **_case_env(case, ws)}
    before = snapshot(ws)
    with _held_port(case.port_in_use) as port:
        t0 = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "qarena", *_argv(case, port)],
                cwd=ws,
                input="",
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                env=env,
                preexec_fn=functools.partial(_limit_memory, case.memory),
                check=False,
            )
            outcome = Outcome(done.returncode, done.stdout, done.stderr, time.monotonic() - t0)
        except subprocess.TimeoutExpired as e:

            def text(b: bytes | str | None) -> str:
                return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")

            outcome = Outcome(None, text(e.stdout), text(e.stderr), time.monotonic() - t0)
    outcome.changed = changes(before, snapshot(ws))
    return outcome


def run_in_process(
    case: Case,
    ws: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    timeout: float = TIMEOUT,
) -> Outcome:
    """Run ``qarena.cli.app.run(ARGV)`` with ``ws`` as the working directory."""
    from qarena.cli.app import run

    monkeypatch.chdir(ws)
    for key, value in _case_env(case, ws).items():
        monkeypatch.setenv(key, value)
    before = snapshot(ws)
    capsys.readouterr()
    code: int | None = None
    crash = ""
    with _held_port(case.port_in_use) as port:
        t0 = time.monotonic()
        try:
            with _alarm(timeout):
                code = run(_argv(case, port))
        except _Deadline:
            code = None
        except BaseException as e:  # anything escaping run() is a failure, shown in full
            import traceback

            crash = "".join(traceback.format_exception(e))
            code = e.code if isinstance(e, SystemExit) and isinstance(e.code, int) else -1
        seconds = time.monotonic() - t0
    captured = capsys.readouterr()
    outcome = Outcome(code, captured.out, captured.err, seconds, crash=crash)
    outcome.changed = changes(before, snapshot(ws))
    return outcome


def one_line(stderr: str) -> bool:
    """Exactly one non-empty line (a trailing newline allowed)."""
    text = stderr.removesuffix("\n")
    return bool(text.strip()) and "\n" not in text and "\r" not in text


def has_traceback(outcome: Outcome) -> bool:
    return bool(outcome.crash) or "Traceback" in outcome.stderr or "Traceback" in outcome.stdout


def problems(case: Case, outcome: Outcome, timeout: float = TIMEOUT) -> list[str]:
    """What is wrong with a case's outcome; empty when it was refused as it should be."""
    found = []
    if outcome.code is None:
        found.append(f"no answer within {timeout:.0f} s")
    elif outcome.code != 2:
        found.append(f"exit code {outcome.code}, expected 2")
    if outcome.code is not None and not one_line(outcome.stderr):
        lines = len(outcome.stderr.removesuffix("\n").split("\n")) if outcome.stderr else 0
        found.append(f"stderr is not exactly one line ({lines} lines)")
    if has_traceback(outcome):
        found.append("a traceback")
    if outcome.changed:
        found.append("files changed: " + "; ".join(outcome.changed[:5]))
    if case.max_seconds is not None and outcome.seconds > case.max_seconds:
        found.append(f"took {outcome.seconds:.1f} s; must be refused within {case.max_seconds} s")
    return found


def report(case: Case, outcome: Outcome, found: list[str]) -> str:
    """A failure message the engineer fixing the source can act on."""
    shown = " ".join(a if len(a) <= 60 else a[:40] + f"…({len(a):,} chars)" for a in case.argv)
    parts = [
        f"{case.id}: qarena {shown}",
        "problems: " + ", ".join(found),
        f"exit code: {outcome.code}, {outcome.seconds:.2f} s"
        + (f", address space capped at {case.memory / 1024**3:.1f} GiB" if case.sub else ""),
        "stderr:\n" + (outcome.stderr[-3000:] or "(empty)"),
    ]
    if outcome.crash:
        parts.append("escaped run():\n" + outcome.crash[-3000:])
    if outcome.stdout and outcome.code != 2:
        parts.append("stdout (tail):\n" + outcome.stdout[-1000:])
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# The tests


def test_the_table_is_large_and_covers_every_subcommand() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    assert len(CASES) >= 100
    commands = {c.argv[0] for c in CASES if c.argv}
    assert commands >= {
        "solve",
        "train",
        "table",
        "eval",
        "compete",
        "matrix",
        "explain",
        "play",
        "plot",
        "serve",
    }


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_sources(tmp_path_factory.mktemp("malformed-sources"))


def _param(case: Case) -> Any:
    marks = [pytest.mark.slow] if case.slow else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_malformed_invocation_is_refused(
    case: Case,
    sources: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if case.device and not device_possible():
        pytest.skip("making a device node needs root (mknod)")
    ws = tmp_path / "ws"
    build_workspace(ws, sources)
    if case.sub:
        outcome = run_subprocess(case, ws)
    else:
        outcome = run_in_process(case, ws, capsys, monkeypatch)
    found = problems(case, outcome)
    assert not found, report(case, outcome, found)


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        ("nim", "1 " * 60_000),
        ("subtraction", "9" * 120_000),
        ("tictactoe", "x." * 60_000),
        ("tictactoe", "x" * 120_000),
        ("connect4", "x" * 120_000),  # the board form
        ("connect4", "1" * 120_000),  # moves, as column numbers
        ("connect4", "1" * 41 + "9" * 1),  # a bad column near the end of a long, short-enough text
    ],
)
def test_a_long_position_is_repeated_short(
    spec: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # The error line repeats what was typed, cut at 80 characters: a 120,000-character
    # position gave a 120 KB line.
    from qarena.cli.app import run
    from qarena.errors import ECHO_CHARS

    monkeypatch.chdir(tmp_path)
    assert run(["solve", spec, "-p", text]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and len(err) < 400, err[:500]
    shown = err.split("'")[1] if "'" in err else ""
    assert len(shown) <= ECHO_CHARS and (len(text) <= ECHO_CHARS or shown.endswith("…"))
