"""The shipped network as a Kaggle ConnectX submission (``qarena export network --connectx
FILE``), played through Kaggle's own client against its built-in agents.

The file is exported (with ``--book`` unless ``--no-book``), then loaded as Kaggle loads it
(``kaggle_environments.agent.get_last_callable``: its size, the seconds to load it and build
its tables), then played by ``kaggle_environments.make("connectx").run([...])`` — Kaggle's real
client with its real clock (``actTimeout`` 2 s a move, 60 s of overage), not in debug mode, so
an exception is an ERROR and a move over time a TIMEOUT — ``--games`` games in each seat
against ``negamax`` and ``--random-games`` against ``random``. Kaggle's client loads the file
afresh for each game, and the first move pays for that (from the overage), as on Kaggle.

Reported per opponent and seat: wins, draws, losses, errors, timeouts (a status other than
DONE), the longest and mean seconds of our agent's moves as Kaggle's client times them (its
first move of each game apart: the file's loading is timed within it), the moves over Kaggle's
``actTimeout`` (paid from the overage; more than the overage is a TIMEOUT), and the opponent's
mean seconds a move; then the file's size, its load time
and the process's peak RSS. One line per game goes to stderr as it ends.

Run: .venv/bin/python benchmarks/connectx_kaggle.py [--games 100] [--random-games 20]
     [--no-book] [--file PATH] [--network FILE]
Measured in BENCHMARKS.md: --games 100 --random-games 20 (nice -n 10).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from qarena.cli.app import run as qarena


@dataclass
class Seat:
    """The games against one opponent in one seat."""

    opponent: str
    seat: int  # 1: we move first
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: list[str] = field(default_factory=list)
    ours: list[float] = field(default_factory=list)
    #: Our first move of each game: Kaggle's client loads the file within it.
    firsts: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses + len(self.faults)

    def row(self, act: float) -> str:
        longest = max(self.ours, default=0.0)
        mean = statistics.fmean(self.ours) if self.ours else 0.0
        first = max(self.firsts, default=0.0)
        over = sum(1 for t in self.ours + self.firsts if t > act)
        other = statistics.fmean(self.theirs) if self.theirs else 0.0
        seat = "first" if self.seat == 1 else "second"
        share = self.wins / self.games if self.games else 0.0
        return (
            f"| {self.opponent} | {seat} | {self.games} | {self.wins} ({share:.0%}) | {self.draws} "
            f"| {self.losses} | {len(self.faults)} | {longest:.3f} | {mean:.3f} | {first:.3f} "
            f"| {over} | {other:.3f} |"
        )


def play(file: str, seat: Seat) -> None:
    """One game through Kaggle's client, its result and move times added to ``seat``."""
    from kaggle_environments import make

    env = make("connectx")
    agents = [file, seat.opponent] if seat.seat == 1 else [seat.opponent, file]
    env.run(agents)
    us, them = seat.seat - 1, 2 - seat.seat
    final = env.state
    first = True
    for logs in env.logs:
        for who, log in enumerate(logs):
            if isinstance(log, dict) and "duration" in log:
                took = float(log["duration"])
                if who != us:
                    seat.theirs.append(took)
                elif first:
                    seat.firsts.append(took)
                    first = False
                else:
                    seat.ours.append(took)
    status = final[us].status
    if status != "DONE":
        seat.faults.append(status)
    elif final[us].reward == 1:
        seat.wins += 1
    elif final[us].reward == -1:
        seat.losses += 1
    else:
        seat.draws += 1
    if final[them].status != "DONE":
        print(f"  {seat.opponent}: {final[them].status}", file=sys.stderr)


def load_time(file: str) -> tuple[float, float]:
    """Seconds to read and run the file as Kaggle does, and to build its network and book."""
    from kaggle_environments.agent import get_last_callable

    t0 = time.perf_counter()
    agent = get_last_callable(Path(file).read_text(), path=file)
    t1 = time.perf_counter()
    agent.__globals__["_loaded"]()
    return t1 - t0, time.perf_counter() - t1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games a seat against negamax")
    parser.add_argument("--random-games", type=int, default=20, help="games a seat vs random")
    parser.add_argument("--no-book", action="store_true", help="export without the book")
    parser.add_argument("--network", default="network", help="the network to export")
    parser.add_argument("--file", help="the submission to write (default: a temporary file)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="qarena-connectx-")
    file = args.file or os.path.join(folder, "submission.py")
    command = ["export", args.network, "--connectx", file] + ([] if args.no_book else ["--book"])
    if qarena(command):
        return 1
    read, built = load_time(file)
    seats = [
        Seat(opponent, s)
        for opponent, n in (("negamax", args.games), ("random", args.random_games))
        if n > 0
        for s in (1, 2)
    ]
    started = time.perf_counter()
    for seat in seats:
        n = args.games if seat.opponent == "negamax" else args.random_games
        for g in range(n):
            play(file, seat)
            gc.collect()  # Kaggle's client loads the file afresh each game: one copy at a time
            print(
                f"{seat.opponent} seat {seat.seat} game {g + 1}/{n}: {seat.wins} W "
                f"{seat.draws} D {seat.losses} L {len(seat.faults)} faults; longest move "
                f"{max(seat.ours, default=0):.3f} s, first {max(seat.firsts, default=0):.3f} s; "
                f"{time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    print(f"command: qarena {' '.join(command)}")
    from kaggle_environments import make

    act = float(make("connectx").configuration.actTimeout)
    print(
        "| opponent | our seat | games | wins | draws | losses | errors/timeouts | longest "
        "move (s) | mean move (s) | longest first move, loading included (s) | moves over "
        f"actTimeout ({act:g} s) | opponent's mean move (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for seat in seats:
        print(seat.row(act))
    size = os.path.getsize(file)
    print(f"file: {size / 1e6:.1f} MB; read and run as Kaggle does: {read:.2f} s; network and "
          f"book built: {built:.2f} s")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MB; wall time: {time.perf_counter() - started:.0f} s")
    faults = [f for seat in seats for f in seat.faults]
    return 1 if faults else 0


if __name__ == "__main__":
    raise SystemExit(main())
