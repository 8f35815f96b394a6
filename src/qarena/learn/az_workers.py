"""The AlphaZero learner's games of self-play on several cores: worker processes (spawned,
each with PyTorch on one thread) play shares of a chunk's games with the network's latest
weights and hand back what the games leave to learn from; the learner learns in its own
process between chunks (the synchronous rhythm of ``alphazero.py``). A share's randomness
comes from the seed, the games before the chunk and the share's place, so a seed learns the
same network on the same number of workers."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from qarena.games import parse_spec
from qarena.learn.az_net import PolicyValueNet, move_count, torch_module
from qarena.learn.az_search import Samples, SearchSettings, self_play
from qarena.processes import quiet_worker, spawn_pool

#: The networks a worker keeps, by (game, channels, blocks): built once, weights refreshed.
_NETS: dict[tuple[str, int, int], PolicyValueNet] = {}


def _start() -> None:
    quiet_worker()
    torch_module()  # imported once, before the first share, on one thread


@dataclass(frozen=True)
class Share:
    """One worker's part of a chunk: ``games`` games of ``spec`` with these weights, its
    randomness from ``seed``, the games learned ``before`` the chunk and its ``index``."""

    spec: str
    channels: int
    blocks: int
    weights: np.ndarray
    search: SearchSettings
    seed: int
    before: int
    index: int
    games: int


def play_share(share: Share) -> tuple[Samples, list[float]]:
    """Play a share's games (in a worker): what they leave to learn from and their results."""
    game = parse_spec(share.spec)
    grid = game.grid
    assert grid is not None  # the learner refused a game without a board
    key = (share.spec, share.channels, share.blocks)
    net = _NETS.get(key)
    if net is None:
        net = _NETS[key] = PolicyValueNet(grid, share.channels, share.blocks, share.weights)
    else:
        net.weights = share.weights
    net.sync()
    rng = np.random.default_rng([share.seed, share.before, share.index])
    return self_play(game, net.evaluate, share.games, share.search, rng, move_count(grid))


def shares(games: int, workers: int) -> list[int]:
    """``games`` split among ``workers`` as evenly as they go, the first taking the rest."""
    return [games // workers + (1 if i < games % workers else 0) for i in range(workers)]


class SelfPlayPool:
    """``workers`` processes playing a chunk's games between them."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = spawn_pool(workers, _start)
        # Ended when the learner lets it go, or at exit, whichever comes first.
        self._end = weakref.finalize(self, self._pool.terminate)

    def play(
        self,
        spec: str,
        net: PolicyValueNet,
        games: int,
        search: SearchSettings,
        seed: int,
        before: int,
    ) -> tuple[Samples, list[float]]:
        """A chunk of ``games`` games, each worker playing its share: their positions in the
        shares' order, and their results."""
        work = [
            Share(spec, net.channels, net.blocks, net.weights, search, seed, before, i, n)
            for i, n in enumerate(shares(games, self.workers))
            if n > 0
        ]
        found = self._pool.map(play_share, work, chunksize=1)
        parts = [samples for samples, _results in found]
        results = [r for _samples, part in found for r in part]
        joined = Samples(
            np.concatenate([p.boards for p in parts]),
            np.concatenate([p.movers for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
        )
        return joined, results

    def close(self) -> None:
        """End the workers now."""
        self._end()


__all__ = ["SelfPlayPool", "Share", "play_share", "shares"]
