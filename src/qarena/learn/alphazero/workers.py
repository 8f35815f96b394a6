"""The AlphaZero learner's games of self-play on several cores: workers (spawned processes
here, each with PyTorch on one thread, or Ray actors on a cluster) play shares of a chunk's
games with the network's latest weights and hand back what the games leave to learn from;
the learner learns in its own process between chunks (the synchronous rhythm of
``learner.py``). A share's randomness comes from the seed, the games before the chunk and
the share's place, so a seed learns the same network on the same number of workers, here or
on Ray."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from qarena import threads
from qarena.games import parse_spec
from qarena.learn.alphazero.net import PolicyValueNet, move_count, torch_module
from qarena.learn.alphazero.search import Samples, SearchSettings, self_play
from qarena.processes import quiet_worker, spawn_pool, start_ray

#: Seconds between two looks at a stop while the workers play.
WAIT_SECONDS = 0.1

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


def _chunk(
    spec: str,
    net: PolicyValueNet,
    games: int,
    workers: int,
    search: SearchSettings,
    seed: int,
    before: int,
) -> list[Share]:
    """A chunk of ``games`` games as the workers' shares."""
    return [
        Share(spec, net.channels, net.blocks, net.weights, search, seed, before, i, n)
        for i, n in enumerate(shares(games, workers))
        if n > 0
    ]


def _joined(found: list[tuple[Samples, list[float]]]) -> tuple[Samples, list[float]]:
    """The shares' positions, in the shares' order, and their results."""
    parts = [samples for samples, _results in found]
    results = [r for _samples, part in found for r in part]
    joined = Samples(
        np.concatenate([p.boards for p in parts]),
        np.concatenate([p.movers for p in parts]),
        np.concatenate([p.policy for p in parts]),
        np.concatenate([p.value for p in parts]),
    )
    return joined, results


class Workers(Protocol):
    """Where a chunk's games are played: :class:`SelfPlayPool` or :class:`RaySelfPlay`."""

    workers: int

    def play(
        self,
        spec: str,
        net: PolicyValueNet,
        games: int,
        search: SearchSettings,
        seed: int,
        before: int,
    ) -> tuple[Samples, list[float]]: ...

    def close(self) -> None: ...


class _Shares:
    """What both kinds of workers share: a chunk split into shares, played, and joined."""

    workers: int

    def _played(self, work: list[Share]) -> list[tuple[Samples, list[float]]]:
        raise NotImplementedError

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
        return _joined(self._played(_chunk(spec, net, games, self.workers, search, seed, before)))


class SelfPlayPool(_Shares):
    """``workers`` processes playing a chunk's games between them."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = spawn_pool(workers, _start)
        # Ended when the learner lets it go, or at exit, whichever comes first.
        self._end = weakref.finalize(self, self._pool.terminate)

    def _played(self, work: list[Share]) -> list[tuple[Samples, list[float]]]:
        pending = self._pool.map_async(play_share, work, chunksize=1)
        # Waited for in short looks, so that a stop is seen at once: the caller then ends
        # the workers (``close``), whatever they were doing.
        while not pending.ready():
            pending.wait(WAIT_SECONDS)
            threads.check()
        return pending.get()

    def close(self) -> None:
        """End the workers now."""
        self._end()


class _Actor:
    """A Ray actor playing shares (its network kept between chunks, as a worker's is)."""

    def __init__(self) -> None:
        torch_module()

    def play(self, share: Share) -> tuple[Samples, list[float]]:
        return play_share(share)


class RaySelfPlay(_Shares):
    """``workers`` Ray actors of one CPU each playing a chunk's games between them: on the
    cluster at ``address``, or on a local Ray instance of ``workers`` CPUs. Every node needs
    qarena and PyTorch installed."""

    def __init__(self, workers: int, address: str | None = None) -> None:
        self.workers = workers
        self._ray: Any = start_ray(address, workers, "--backend ray")
        actor = self._ray.remote(num_cpus=1, max_restarts=0)(_Actor)
        self._actors: list[Any] = [actor.remote() for _ in range(workers)]

    def _played(self, work: list[Share]) -> list[tuple[Samples, list[float]]]:
        # The weights go to every actor once, in its share.
        refs = [a.play.remote(share) for a, share in zip(self._actors, work, strict=False)]
        waiting = list(refs)
        while waiting:  # short looks, as the local pool's: a stop ends the actors (close)
            _done, waiting = self._ray.wait(waiting, num_returns=len(waiting), timeout=WAIT_SECONDS)
            if waiting:
                threads.check()
        found: list[tuple[Samples, list[float]]] = self._ray.get(refs)
        return found

    def close(self) -> None:
        """End the actors and the Ray instance this process joined."""
        if self._actors:
            self._actors = []
            self._ray.shutdown()


__all__ = ["RaySelfPlay", "SelfPlayPool", "Share", "Workers", "play_share", "shares"]
