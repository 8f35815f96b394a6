"""What an n-tuple network believes where classic Connect Four is drawn (issue 40): on the
shipped varied-openings judging set, which records every move's exact value,

- the network's value of each value-keeping move, by the position's value (a drawn position's
  draw-keeping moves are worth 0 in the game; a won position's winning moves +1);
- at each position where it misses the value: its value of the move it chose and of the best
  move that keeps the value, and the gap between them;
- from each drawn decision position, the network playing itself greedily to the end: how
  those games end for the side to move there. A network learned by TD(λ) from self-play
  estimates how *its own* games end from a position, not the game's value; where its games
  from drawn positions are decided, its values there are not 0.

Run: .venv/bin/python benchmarks/c4_drawn.py [network | FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

import numpy as np

from qarena.agents.players import player
from qarena.errors import QarenaError
from qarena.games import parse_spec
from qarena.judging.sets import shipped_set

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
WORDS = {1: "win", 0: "draw", -1: "loss"}


def _q(values: list[float]) -> list[float]:
    return [round(float(x), 3) for x in np.quantile(np.array(values), QUANTILES)]


def analyse(which: str) -> dict[str, Any]:
    game = parse_spec("connect4")
    net = player(which, game)
    jset = shipped_set(game, "varied")
    if jset is None:
        raise QarenaError("the varied-openings set is not shipped")
    keeping: dict[int, list[float]] = {1: [], 0: [], -1: []}
    misses: dict[int, dict[str, list[float]]] = {
        v: {"chosen": [], "kept": [], "gap": []} for v in (1, 0)
    }
    ends: Counter[str] = Counter()
    for position, values in zip(jset.positions, jset.values, strict=True):
        best = max(values.values())
        keep = [m for m, v in values.items() if v == best]
        if len(keep) == len(values):
            continue  # every move keeps the value: no decision
        seen = net.values(position)
        if seen is None:
            raise QarenaError(f"{which} gives no values of its moves")
        keeping[best].extend(seen[m] for m in keep)
        chosen = net.act(position)
        if values[chosen] != best and best in misses:
            top = max(seen[m] for m in keep)
            misses[best]["chosen"].append(seen[chosen])
            misses[best]["kept"].append(top)
            misses[best]["gap"].append(seen[chosen] - top)
        if best == 0:
            p = position
            while not game.is_terminal(p):
                p = game.apply(p, net.act(p))
            result = game.result(p)  # for the player to move at the end
            same_side = (sum(1 for c in p if c) - sum(1 for c in position if c)) % 2 == 0
            ends["draw" if result == 0 else "win" if (result > 0) == same_side else "loss"] += 1
    return {
        "player": which,
        "keeping_values": {
            WORDS[v]: {
                "moves": len(xs),
                "quantiles": _q(xs),
                "within_0.2": round(float(np.mean(np.abs(xs) < 0.2)), 3),
            }
            for v, xs in keeping.items()
            if xs
        },
        "misses": {
            WORDS[v]: {"count": len(d["gap"]), **{k: _q(xs) for k, xs in d.items()}}
            for v, d in misses.items()
            if d["gap"]
        },
        "self_play_from_drawn": dict(ends),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("player", nargs="?", default="network")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        found = analyse(args.player)
    except QarenaError as e:
        print(f"c4_drawn.py: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(found))
        return 0
    qs = "/".join(str(int(q * 100)) for q in QUANTILES)
    print(f"{found['player']} on varied openings; quantiles {qs}")
    for word, d in found["keeping_values"].items():
        print(f"  {word} positions: its value of the {d['moves']:,} moves keeping the value "
              f"{d['quantiles']}; within ±0.2: {d['within_0.2']:.0%}")  # fmt: skip
    for word, d in found["misses"].items():
        print(f"  {d['count']} misses in {word} positions: the move it chose {d['chosen']}, "
              f"the best keeping move {d['kept']}, gap {d['gap']}")  # fmt: skip
    ends = found["self_play_from_drawn"]
    total = sum(ends.values())
    print(f"  itself against itself from the {total:,} drawn positions: "
          + ", ".join(f"{k} {ends.get(k, 0):,}" for k in ("win", "draw", "loss"))
          + " (for the side to move there)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
