"""Baselines: qarena's Q-learner against a plain-Python dictionary Q-learner and OpenSpiel's
tabular QLearner, on the same games, in one process on one core.

Each learner is measured on environment steps (moves played) per second of training, and on
the episodes and training seconds until its greedy play is perfect (qarena optimality 1.0,
checked every CHECK episodes; checking time is not counted).

Run: .venv/bin/python benchmarks/baselines.py [--quick] [--write]
``--quick`` is a smoke run of a few seconds; ``--write`` also replaces the section between
the baselines markers in BENCHMARKS.md (appended at the end if the markers are absent).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from qarena.exact.space import game_tables
from qarena.games import Game, Nim, TicTacToe, parse_spec
from qarena.judging.tables import optimality_of_values
from qarena.learn.tables.base import LearnConfig
from qarena.learn.tables.qlearning import QLearner

SPECS = ("nim", "nim:2,6,7,8", "tictactoe")
COMMAND = ".venv/bin/python benchmarks/baselines.py"
BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
START, END = "<!-- baselines:start -->", "<!-- baselines:end -->"

# Settings of the two baselines, printed in the notes under the table.
DICT_ALPHA, DICT_GAMMA, DICT_EPSILON = 1.0, 0.9, 0.1
OS_STEP_SIZE, OS_EPSILON, OS_DISCOUNT = 0.1, 0.2, 1.0  # OpenSpiel QLearner's own defaults


@dataclass(frozen=True)
class Budget:
    """How long each learner trains; the full run must stay within ~10 minutes."""

    check: int  # episodes between optimality checks
    qarena_seeds: int
    qarena_limit: int  # total_episodes of qarena's epsilon schedule, and its cap
    qarena_rate_episodes: int
    dict_episodes: int
    os_episodes: int
    os_seconds: float  # training-time cap per game, so a slow machine still finishes


FULL = Budget(5_000, 3, 2_000_000, 500_000, 100_000, 100_000, 90.0)
QUICK = Budget(1_000, 1, 2_000_000, 20_000, 4_000, 2_000, 5.0)


@dataclass(frozen=True)
class Row:
    learner: str
    game: str
    steps_per_second: float
    episodes: int  # episodes trained when perfect play was first seen, else all trained
    seconds: float  # training seconds to those episodes
    share: float  # optimality at that point: 1.0 when perfect play was reached


def log(message: str) -> None:
    # Progress goes to stderr so stdout stays the Markdown section alone.
    print(message, file=sys.stderr, flush=True)


# --- 1. qarena ----------------------------------------------------------------------------


def qarena_rate(spec: str, budget: Budget) -> float:
    learner = QLearner(parse_spec(spec), LearnConfig(schedule="constant", epsilon=0.1))
    learner.train(100)  # compile or load the cached numba kernel outside the timing
    t0 = time.perf_counter()
    steps = learner.train(budget.qarena_rate_episodes)
    return steps / (time.perf_counter() - t0)


def qarena_to_perfect(spec: str, seed: int, budget: Budget) -> tuple[int, float, float]:
    learner = QLearner(parse_spec(spec), LearnConfig(seed=seed))
    seconds, share = 0.0, 0.0
    while learner.episodes < budget.qarena_limit:
        t0 = time.perf_counter()
        learner.train(budget.check, total_episodes=budget.qarena_limit)
        seconds += time.perf_counter() - t0
        share = optimality_of_values(learner.tables, learner.values()).share
        if share == 1.0:
            break
    return learner.episodes, seconds, share


def run_qarena(spec: str, budget: Budget) -> Row:
    runs = sorted(qarena_to_perfect(spec, seed, budget) for seed in range(budget.qarena_seeds))
    episodes, seconds, share = runs[len(runs) // 2]  # the median run by episodes
    return Row("qarena", parse_spec(spec).spec, qarena_rate(spec, budget), episodes, seconds, share)


# --- 2. a plain-Python dictionary Q-learner, as in classic course code ---------------------

State = Hashable
Action = Hashable


class PlainGame(Protocol):
    def start(self) -> State: ...

    def actions(self, state: State) -> list[Action]: ...

    def play(self, state: State, action: Action) -> tuple[State, float | None]:
        """The next state, and the mover's reward if the game is over (None while it goes on)."""
        ...

    def qarena_index(self, game: Game, state: State, action: Action) -> tuple[int, int]:
        """(position code, move id) of a (state, action) in qarena's encoding."""
        ...


class PlainNim:
    """Misère nim: take 1..n objects from one pile; whoever takes the last object loses.

    The state is just the piles: both players face the same choices, so one table serves both.
    """

    def __init__(self, piles: Sequence[int]) -> None:
        self.piles = tuple(piles)

    def start(self) -> tuple[int, ...]:
        return self.piles

    def actions(self, state: tuple[int, ...]) -> list[tuple[int, int]]:
        return [(pile, take) for pile, size in enumerate(state) for take in range(1, size + 1)]

    def play(
        self, state: tuple[int, ...], action: tuple[int, int]
    ) -> tuple[tuple[int, ...], float | None]:
        pile, take = action
        nxt = (*state[:pile], state[pile] - take, *state[pile + 1 :])
        return nxt, (-1.0 if not any(nxt) else None)

    def qarena_index(
        self, game: Game, state: tuple[int, ...], action: tuple[int, int]
    ) -> tuple[int, int]:
        assert isinstance(game, Nim)
        return game.encode(state), game.move_for(*action)


LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class PlainTicTacToe:
    """3x3 tic-tac-toe; the state is (board of 9 characters ' ', 'X', 'O', player to move)."""

    def start(self) -> tuple[str, str]:
        return " " * 9, "X"

    def actions(self, state: tuple[str, str]) -> list[int]:
        return [i for i, cell in enumerate(state[0]) if cell == " "]

    def play(self, state: tuple[str, str], action: int) -> tuple[tuple[str, str], float | None]:
        board, mover = state
        board = board[:action] + mover + board[action + 1 :]
        nxt = (board, "O" if mover == "X" else "X")
        if any(board[a] == board[b] == board[c] == mover for a, b, c in LINES):
            return nxt, 1.0
        return nxt, (0.0 if " " not in board else None)

    def qarena_index(self, game: Game, state: tuple[str, str], action: int) -> tuple[int, int]:
        assert isinstance(game, TicTacToe)
        return game.encode(tuple(" XO".index(cell) for cell in state[0])), action


class DictQLearner:
    """One Q dict keyed by (state, action) for both seats; self-play negamax updates."""

    def __init__(self, game: PlainGame, seed: int = 0) -> None:
        self.game = game
        self.q: dict[tuple[State, Action], float] = {}
        self.rng = random.Random(seed)

    def choose(self, state: State, actions: list[Action]) -> Action:
        if self.rng.random() < DICT_EPSILON:
            return self.rng.choice(actions)
        values = [self.q.get((state, a), 0.0) for a in actions]
        best = max(values)
        return self.rng.choice([a for a, v in zip(actions, values, strict=True) if v == best])

    def episode(self) -> int:
        """Play one self-play game, learning from every move; returns the moves played."""
        game, q = self.game, self.q
        state = game.start()
        actions = game.actions(state)
        steps = 0
        while True:
            action = self.choose(state, actions)
            nxt, reward = game.play(state, action)
            steps += 1
            if reward is None:
                # The opponent moves next: our value is minus the best it can do there.
                actions = game.actions(nxt)
                target = -DICT_GAMMA * max(q.get((nxt, a), 0.0) for a in actions)
            else:
                target = reward
            old = q.get((state, action), 0.0)
            q[state, action] = old + DICT_ALPHA * (target - old)
            if reward is not None:
                return steps
            state = nxt

    def values(self, game: Game) -> np.ndarray:
        # Unseen (state, action) pairs stay 0, as they are for the learner itself.
        values = np.zeros((game.num_positions, game.num_moves))
        for (state, action), v in self.q.items():
            values[self.game.qarena_index(game, state, action)] = v
        return values


def plain_game(game: Game) -> PlainGame:
    if isinstance(game, Nim) and game.misere:
        return PlainNim(game.piles)
    if isinstance(game, TicTacToe) and (game.rows, game.cols, game.k) == (3, 3, 3):
        return PlainTicTacToe()
    raise ValueError(f"no plain-Python version of {game.spec}")


def run_dict(spec: str, budget: Budget) -> Row:
    game = parse_spec(spec)
    tables = game_tables(game)
    learner = DictQLearner(plain_game(game), seed=0)
    steps, seconds, share = 0, 0.0, 0.0
    first: tuple[int, float] | None = None
    # Trains all dict_episodes (the 10^5 games) so steps/s covers the whole run; the
    # first check at optimality 1.0 gives the episodes and seconds to perfect play.
    for done in range(budget.check, budget.dict_episodes + 1, budget.check):
        t0 = time.perf_counter()
        for _ in range(budget.check):
            steps += learner.episode()
        seconds += time.perf_counter() - t0
        share = optimality_of_values(tables, learner.values(game)).share
        if share == 1.0 and first is None:
            first = (done, seconds)
    # Perfect play once seen is what the table reports, even if exploration later spoils it.
    episodes, to_perfect = first or (budget.dict_episodes, seconds)
    share = 1.0 if first else share
    return Row("dict (plain Python)", game.spec, steps / seconds, episodes, to_perfect, share)


# --- 3. OpenSpiel's tabular QLearner --------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One OpenSpiel decision state: its qarena code, who moves, the mover's Q-table key."""

    code: int
    player: int
    key: str
    moves: tuple[tuple[int, int], ...]  # (OpenSpiel action, qarena move id)


def openspiel_game(game: Game) -> Any:
    import pyspiel

    if isinstance(game, Nim):
        piles = ";".join(str(p) for p in game.piles)
        return pyspiel.load_game("nim", {"pile_sizes": piles, "is_misere": game.misere})
    return pyspiel.load_game("tic_tac_toe")


def openspiel_position(game: Game, state: Any) -> tuple[int, ...]:
    text = str(state)
    if isinstance(game, Nim):
        # str(state) is "(player): pile pile ...", piles in the order of pile_sizes.
        return tuple(int(p) for p in text.split(":", 1)[1].split())
    # Three rows of '.', 'x', 'o'; x is player 0, as in qarena.
    return tuple(".xo".index(c) for c in text.replace("\n", ""))


def openspiel_move(game: Game, state: Any, action: int) -> int:
    if isinstance(game, Nim):
        # Read the action's text rather than assume OpenSpiel's (take - 1) * piles + pile layout.
        m = re.fullmatch(r"pile:(\d+), take:(\d+);", state.action_to_string(action))
        assert m, state.action_to_string(action)
        return game.move_for(int(m.group(1)) - 1, int(m.group(2)))
    return action  # tic_tac_toe actions are the cells, row-major


def openspiel_entries(game: Game, os_game: Any) -> list[Entry]:
    """Every reachable decision state, found by a walk of OpenSpiel's game tree."""
    out: list[Entry] = []
    seen: set[tuple[int, str]] = set()
    stack = [os_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        player = state.current_player()
        # The key rl_environment gives the agent: str of the observation tensor (neither game
        # has an information-state tensor), which for nim includes whose turn it is.
        key = str(state.observation_tensor(player))
        if (player, key) in seen:
            continue
        seen.add((player, key))
        legal = state.legal_actions()
        moves = tuple((a, openspiel_move(game, state, a)) for a in legal)
        out.append(Entry(game.encode(openspiel_position(game, state)), player, key, moves))
        stack.extend(state.child(a) for a in legal)
    return out


def openspiel_share(game: Game, entries: list[Entry], agents: list[Any]) -> float:
    """Optimality of the pair of agents, each judged where it is the one to move.

    A nim position says nothing of whose turn it is and each agent has its own table, so one
    position can have two different greedy moves. The strict choice made here: the values array
    is built twice, once preferring each agent's table where that agent can be to move, and
    the lower optimality counts; perfect play means both agents play perfectly everywhere.
    """
    tables = game_tables(game)
    # Tic-tac-toe boards say whose turn it is: then one array is enough.
    both = len({(e.code, e.player) for e in entries}) > len({e.code for e in entries})
    shares = []
    for prefer in (0, 1) if both else (0,):
        values = np.zeros((game.num_positions, game.num_moves))
        # The preferred agent's rows come last, so they overwrite where both players can move.
        for e in sorted(entries, key=lambda e: e.player == prefer):
            q = agents[e.player]._q_values.get(e.key, {})  # no public accessor; .get adds nothing
            for action, move in e.moves:
                values[e.code, move] = q.get(action, 0.0)
        shares.append(optimality_of_values(tables, values).share)
    return min(shares)


def run_openspiel(spec: str, budget: Budget) -> Row | None:
    try:
        from open_spiel.python import rl_environment
        from open_spiel.python.algorithms import tabular_qlearner
    except ImportError:
        return None
    game = parse_spec(spec)
    os_game = openspiel_game(game)
    entries = openspiel_entries(game, os_game)
    np.random.seed(0)  # noqa: NPY002 - QLearner explores with numpy's global generator
    env = rl_environment.Environment(os_game)
    num_actions = env.action_spec()["num_actions"]
    # OpenSpiel's defaults: step_size 0.1, constant epsilon 0.2, discount 1.0.
    agents = [tabular_qlearner.QLearner(player_id=p, num_actions=num_actions) for p in (0, 1)]
    steps, seconds, share, done = 0, 0.0, 0.0, 0
    first: tuple[int, float] | None = None
    while done < budget.os_episodes and seconds < budget.os_seconds:
        t0 = time.perf_counter()
        for _ in range(budget.check):
            # The loop of open_spiel/python/examples/tic_tac_toe_qlearner.py.
            time_step = env.reset()
            while not time_step.last():
                player = time_step.observations["current_player"]
                output = agents[player].step(time_step)
                time_step = env.step([output.action])
                steps += 1
            for agent in agents:
                agent.step(time_step)
        seconds += time.perf_counter() - t0
        done += budget.check
        share = openspiel_share(game, entries, agents)
        if share == 1.0 and first is None:
            first = (done, seconds)
    episodes, to_perfect = first or (done, seconds)
    share = 1.0 if first else share
    return Row("OpenSpiel QLearner", game.spec, steps / seconds, episodes, to_perfect, share)


# --- report -------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def rate_text(rate: float) -> str:
    return f"{rate / 1e6:.1f} M" if rate >= 1e6 else f"{rate / 1e3:.0f} k"


def seconds_text(seconds: float) -> str:
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def table_line(row: Row) -> str:
    if row.share == 1.0:
        episodes, seconds = f"{row.episodes:,}", seconds_text(row.seconds)
    else:
        episodes = f"never in {row.episodes:,} (optimality {row.share:.4f})"
        seconds = f"— ({seconds_text(row.seconds)} s trained)"
    return (
        f"| {row.learner} | {row.game} | {rate_text(row.steps_per_second)} "
        f"| {episodes} | {seconds} |"
    )


def report(rows: list[Row], budget: Budget, openspiel: bool, quick: bool) -> str:
    lines = [
        "## Baselines: a plain-Python dictionary learner and OpenSpiel's QLearner",
        "",
        f"command: {COMMAND}" + (" --quick" if quick else ""),
        "",
        f"machine: {platform.machine()}, {cpu_model()}, Python {platform.python_version()}",
        "",
        "| learner | game | steps/s | episodes to perfect play | seconds to perfect play |",
        "|---|---|---:|---:|---:|",
        *(table_line(row) for row in rows),
        "",
        f"Optimality (qarena's, against the exact solver) checked every {budget.check:,} "
        "episodes; checking time not counted. Steps are moves played; one core.",
        "",
        f"- qarena: defaults (α = 1, γ = 0.9, ε linear 1.0 → 0.1 over "
        f"{budget.qarena_limit:,} episodes, symmetric positions share entries); episodes "
        f"and seconds are the median run of seeds 0..{budget.qarena_seeds - 1}; steps/s with "
        f"constant ε = 0.1 over {budget.qarena_rate_episodes:,} episodes after a warm-up.",
        f"- dict (plain Python): one dict keyed by (state, action), α = {DICT_ALPHA:g}, "
        f"γ = {DICT_GAMMA:g}, constant ε = {DICT_EPSILON:g}, self-play negamax update, own "
        f"game logic; seed 0; trains {budget.dict_episodes:,} games, steps/s over all of them.",
    ]
    if openspiel:
        lines.append(
            "- OpenSpiel QLearner: `tabular_qlearner.QLearner` with its defaults (step size "
            f"{OS_STEP_SIZE:g}, constant ε = {OS_EPSILON:g}, discount {OS_DISCOUNT:g}), one "
            "agent per player in self-play through `rl_environment.Environment`, keyed by the "
            "observation tensor; pyspiel `nim` with the same piles and `is_misere=True`, "
            f"`tic_tac_toe`; numpy seed 0; up to {budget.os_episodes:,} episodes or "
            f"{budget.os_seconds:g} s of training per game. Nim positions reachable by both "
            "players count as optimal only if both agents' greedy moves are."
        )
    else:
        lines.append("- OpenSpiel is not installed: its QLearner was skipped.")
    return "\n".join(lines)


def write_section(section: str, path: Path = BENCHMARKS_MD) -> None:
    block = f"{START}\n{section}\n{END}"
    text = path.read_text() if path.exists() else ""
    start, end = text.find(START), text.find(END)
    if start != -1 and end > start:
        text = text[:start] + block + text[end + len(END) :]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    path.write_text(text)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md too")
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else FULL
    if hasattr(os, "sched_setaffinity"):
        # One core for every learner, so the rates compare like for like.
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    started = time.perf_counter()
    rows: list[Row] = []
    openspiel = True
    runners: list[tuple[str, Callable[[str, Budget], Row | None]]] = [
        ("qarena", run_qarena),
        ("dict", run_dict),
        ("OpenSpiel", run_openspiel),
    ]
    for name, run in runners:
        for spec in SPECS:
            log(f"{name} on {spec} ...")
            row = run(spec, budget)
            if row is None:
                openspiel = False
                log("OpenSpiel is not installed: skipping its QLearner")
                break
            rows.append(row)
            log(f"  {table_line(row)}  [{time.perf_counter() - started:.0f} s so far]")
    section = report(rows, budget, openspiel, args.quick)
    print(section)
    log(f"total wall time {time.perf_counter() - started:.0f} s")
    if args.write:
        write_section(section)
        log(f"wrote the section to {BENCHMARKS_MD}")


if __name__ == "__main__":
    main()
