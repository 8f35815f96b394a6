"""The policy-value network of the AlphaZero learner: a small residual network that reads a
board's planes from the view of the player to move and gives a prior over the moves and a
value for that player.

Its layout (every tensor's name and shape, :func:`layout`) is computed here without PyTorch,
so a file's size is checked before anything is imported or read; the module itself is built
in PyTorch, imported when first needed (the ``qarena[deep]`` extra). Its weights travel as one
flat float32 array in :func:`layout`'s order (files, and later self-play workers), never
pickled."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qarena import threads
from qarena.budget import check_count
from qarena.errors import QarenaError
from qarena.games.base import BoardGrid, mixed_radix_arrays
from qarena.i18n import _
from qarena.optional import need

#: What pip takes to install what the network needs.
INSTALL = "'qarena[deep]'"
#: The widest and deepest network a file or a setting may ask for.
MAX_CHANNELS = 256
MAX_BLOCKS = 20
#: Units of the value head's hidden layer (OpenSpiel's and AlphaGo Zero's heads have one).
VALUE_HIDDEN = 64
#: The policy head's 1×1 convolution's channels (AlphaGo Zero's two).
POLICY_CHANNELS = 2
#: What a batch-norm layer keeps, in PyTorch's order (its step count is left out: the
#: layers use a fixed momentum, so it is never read).
_NORM = ("weight", "bias", "running_mean", "running_var")


def plane_count(grid: BoardGrid) -> int:
    """Planes a board is read as: the mover's stones, the other's, a plane of ones (so the
    convolutions see the board's edge) and, where pieces drop, the cells a move can fill."""
    return 4 if grid.gravity else 3


def move_count(grid: BoardGrid) -> int:
    """Moves the policy head scores: a column each where pieces drop, else a cell each."""
    return grid.cols if grid.gravity else grid.cells


def layout(grid: BoardGrid, channels: int, blocks: int) -> list[tuple[str, tuple[int, ...]]]:
    """Every tensor of the network, name and shape, in the order the flat weights hold them:
    the stem, ``blocks`` residual blocks of ``channels``, the policy head, the value head."""
    cells = grid.cells
    out: list[tuple[str, tuple[int, ...]]] = []

    def conv(name: str, c_in: int, c_out: int, size: int) -> None:
        out.append((f"{name}.weight", (c_out, c_in, size, size)))

    def norm(name: str, c: int) -> None:
        out.extend((f"{name}.{part}", (c,)) for part in _NORM)

    def dense(name: str, n_in: int, n_out: int) -> None:
        out.extend(((f"{name}.weight", (n_out, n_in)), (f"{name}.bias", (n_out,))))

    conv("stem", plane_count(grid), channels, 3)
    norm("stem_norm", channels)
    for b in range(blocks):
        conv(f"blocks.{b}.conv1", channels, channels, 3)
        norm(f"blocks.{b}.norm1", channels)
        conv(f"blocks.{b}.conv2", channels, channels, 3)
        norm(f"blocks.{b}.norm2", channels)
    conv("policy_conv", channels, POLICY_CHANNELS, 1)
    norm("policy_norm", POLICY_CHANNELS)
    dense("policy", POLICY_CHANNELS * cells, move_count(grid))
    conv("value_conv", channels, 1, 1)
    norm("value_norm", 1)
    dense("value_hidden", cells, VALUE_HIDDEN)
    dense("value", VALUE_HIDDEN, 1)
    return out


def forward_macs(grid: BoardGrid, channels: int, blocks: int) -> int:
    """Multiply-adds one board's forward pass takes (the convolutions and dense layers): what
    sizes the pieces a large network's work is cut into."""
    per_cell = 9 * channels * (plane_count(grid) + 2 * blocks * channels)
    heads = (POLICY_CHANNELS + 1) * channels
    dense = POLICY_CHANNELS * move_count(grid) + VALUE_HIDDEN + 1
    return grid.cells * (per_cell + heads + dense)


#: Multiply-adds of network work done between two looks at a stop (a board's forward pass
#: counted once, its learning three times): about a quarter of a second on one core here, so
#: a stop is seen within a second however large the network (a learning step of 128 positions
#: of 256 channels × 20 blocks on Connect Four is 380 billion, 8 s). The default network's
#: whole step and batches are below it, so it learns exactly as before.
PIECE_MACS = 8 * 10**9


def piece_size(grid: BoardGrid, channels: int, blocks: int, passes: int = 1) -> int:
    """Boards evaluated (``passes`` 1) or learned from (3) between two looks at a stop."""
    return max(1, PIECE_MACS // (passes * forward_macs(grid, channels, blocks)))


def param_count(grid: BoardGrid, channels: int, blocks: int) -> int:
    """The numbers the flat weights hold (batch norms' running statistics included)."""
    return sum(math.prod(shape) for _name, shape in layout(grid, channels, blocks))


def check_shape(channels: object, blocks: object) -> tuple[int, int]:
    """``channels`` and ``blocks`` as a network may have them, or a one-line refusal."""
    check_count("channels", channels, MAX_CHANNELS)  # type: ignore[arg-type]
    check_count("blocks", blocks, MAX_BLOCKS, 0)  # type: ignore[arg-type]
    assert isinstance(channels, int) and isinstance(blocks, int)
    return channels, blocks


@functools.cache
def torch_module() -> Any:
    """PyTorch, imported once (or one line saying how to install it), on one thread: the
    networks are small, and on two cores a second intra-op thread only fights self-play
    (BENCHMARKS.md, "Which library: PyTorch or JAX")."""
    torch = need("torch", INSTALL)
    torch.set_num_threads(1)
    # Already set, or parallel work already ran: keep what it is.
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)
    return torch


@functools.cache
def _network_class() -> Any:
    torch = torch_module()
    nn = torch.nn
    functional = torch.nn.functional

    def norm(c: int) -> Any:
        return nn.BatchNorm2d(c, momentum=0.1)

    class Block(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.norm1 = norm(channels)
            self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.norm2 = norm(channels)

        def forward(self, x: Any) -> Any:
            y = functional.relu(self.norm1(self.conv1(x)))
            return functional.relu(x + self.norm2(self.conv2(y)))

    class Network(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, grid: BoardGrid, channels: int, blocks: int) -> None:
            super().__init__()
            cells = grid.cells
            self.stem = nn.Conv2d(plane_count(grid), channels, 3, padding=1, bias=False)
            self.stem_norm = norm(channels)
            self.blocks = nn.ModuleList(Block(channels) for _ in range(blocks))
            self.policy_conv = nn.Conv2d(channels, POLICY_CHANNELS, 1, bias=False)
            self.policy_norm = norm(POLICY_CHANNELS)
            self.policy = nn.Linear(POLICY_CHANNELS * cells, move_count(grid))
            self.value_conv = nn.Conv2d(channels, 1, 1, bias=False)
            self.value_norm = norm(1)
            self.value_hidden = nn.Linear(cells, VALUE_HIDDEN)
            self.value = nn.Linear(VALUE_HIDDEN, 1)

        def forward(self, x: Any) -> tuple[Any, Any]:
            x = functional.relu(self.stem_norm(self.stem(x)))
            for block in self.blocks:
                x = block(x)
            p = functional.relu(self.policy_norm(self.policy_conv(x)))
            logits = self.policy(p.flatten(1))
            v = functional.relu(self.value_norm(self.value_conv(x)))
            value = torch.tanh(self.value(functional.relu(self.value_hidden(v.flatten(1)))))
            return logits, value.squeeze(1)

    return Network


def planes(grid: BoardGrid, boards: np.ndarray, movers: np.ndarray) -> np.ndarray:
    """Boards (``(N, cells)``: 0 empty, 1 the first player's, 2 the second's) as the
    network's input, ``(N, planes, rows, cols)`` float32, each from the view of its player to
    move (``movers``: 0 the first, 1 the second)."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, grid.cells)
    own = (np.asarray(movers, dtype=np.int8) + 1).reshape(-1, 1)
    n = boards.shape[0]
    out = np.zeros((n, plane_count(grid), grid.cells), dtype=np.float32)
    out[:, 0] = boards == own
    out[:, 1] = (boards != 0) & (boards != own)
    out[:, 2] = 1.0
    if grid.gravity:
        empty = boards == 0
        below = np.ones_like(empty)  # the bottom row stands on the floor
        below[:, : -grid.cols] = ~empty[:, grid.cols :]
        out[:, 3] = empty & below
    return out.reshape(n, -1, grid.rows, grid.cols)


def legal_mask(grid: BoardGrid, boards: np.ndarray) -> np.ndarray:
    """``(N, moves)`` bool: the moves open on each board (a column whose top cell is empty
    where pieces drop, else an empty cell)."""
    boards = np.asarray(boards, dtype=np.int8).reshape(-1, grid.cells)
    open_cells: np.ndarray = boards[:, : grid.cols] == 0 if grid.gravity else boards == 0
    return open_cells


@dataclass
class PolicyValueNet:
    """A policy-value network for ``grid``: its shape and its weights as one flat float32
    array in :func:`layout`'s order. The PyTorch module is built from them when first asked
    (:meth:`module`), so a network is read, checked and kept without PyTorch."""

    grid: BoardGrid
    channels: int
    blocks: int
    weights: np.ndarray
    _module: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_shape(self.channels, self.blocks)
        want = param_count(self.grid, self.channels, self.blocks)
        if self.weights.dtype != np.float32 or self.weights.shape != (want,):
            raise QarenaError(
                _("a network of this shape has {want:,} weights, not {got}").format(
                    want=want, got=self.weights.shape
                )
            )

    @classmethod
    def new(cls, grid: BoardGrid, channels: int, blocks: int, seed: int = 0) -> PolicyValueNet:
        """A network as PyTorch initialises it, from ``seed`` (the same seed, the same
        weights)."""
        check_shape(channels, blocks)
        torch = torch_module()
        generator_state = torch.random.get_rng_state()
        try:
            torch.manual_seed(seed)
            module = _network_class()(grid, channels, blocks)
        finally:
            torch.random.set_rng_state(generator_state)
        net = cls(grid, channels, blocks, _flatten(module, grid, channels, blocks))
        net._module = module
        module.eval()
        return net

    def module(self) -> Any:
        """The PyTorch module with these weights (built once; :meth:`sync` after the flat
        weights change)."""
        if self._module is None:
            self._module = _network_class()(self.grid, self.channels, self.blocks)
            self.sync()
            self._module.eval()
        return self._module

    def sync(self) -> None:
        """Copy the flat weights into the module."""
        torch = torch_module()
        state = self.module().state_dict()
        at = 0
        with torch.no_grad():
            for name, shape in layout(self.grid, self.channels, self.blocks):
                size = math.prod(shape)
                part = self.weights[at : at + size].reshape(shape)
                state[name].copy_(torch.from_numpy(part.copy()))
                at += size

    def refresh(self) -> None:
        """Copy the module's weights (after learning) into the flat array."""
        self.weights = _flatten(self.module(), self.grid, self.channels, self.blocks)

    def evaluate(self, boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each board's prior over the moves (``(N, moves)``, 0 on a move not open, the rest
        summing to 1) and its value for the player to move (``(N,)``, −1 to +1). A large
        network's batch is evaluated in pieces, the caller's stop (:func:`threads.check`)
        looked at between them."""
        torch = torch_module()
        module = self.module()
        x = torch.from_numpy(planes(self.grid, boards, movers))
        piece = piece_size(self.grid, self.channels, self.blocks)
        parts = []
        with torch.inference_mode():
            for first in range(0, max(1, x.shape[0]), piece):
                if first > 0:
                    threads.check()
                parts.append(module(x[first : first + piece]))
        if len(parts) == 1:
            logits, value = parts[0]
        else:
            logits = torch.cat([p[0] for p in parts])
            value = torch.cat([p[1] for p in parts])
        raw = logits.numpy().astype(np.float64)
        legal = legal_mask(self.grid, boards)
        raw = np.where(legal, raw, -np.inf)
        top = raw.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        e = np.exp(raw - top)
        total = e.sum(axis=1, keepdims=True)
        priors = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        return priors, value.numpy().astype(np.float64)


def table_priors(
    net: PolicyValueNet, codes: np.ndarray, movers: np.ndarray, radix: tuple[int, ...]
) -> np.ndarray:
    """The network's priors ``(N, moves)`` float32 for positions given as their codes
    (mixed radix over ``radix``, as a game's tables hold them) and their movers, in batches
    of :data:`BATCH`: every position of a small board judged in minutes, not hours."""
    base, weight = mixed_radix_arrays(radix)
    out = np.zeros((codes.shape[0], move_count(net.grid)), dtype=np.float32)
    for first in range(0, codes.shape[0], BATCH):
        threads.check()  # a run's stop reaches a curve point being judged
        part = codes[first : first + BATCH].astype(np.int64)
        boards = ((part[:, None] // weight[None, :]) % base[None, :]).astype(np.int8)
        priors, _values = net.evaluate(boards, movers[first : first + BATCH])
        out[first : first + BATCH] = priors
    return out


#: Positions a network evaluates at once when it judges many.
BATCH = 4096


def move_images(grid: BoardGrid) -> np.ndarray:
    """``(symmetries, moves)``: where each of the board's symmetries takes each move (a
    column goes where its top cell goes; a cell where it goes)."""
    images = np.array(grid.symmetries, dtype=np.int64)
    return images[:, : grid.cols] % grid.cols if grid.gravity else images


@dataclass(frozen=True)
class Moments:
    """Adam's state for a network: its first and second moments, each as long as the flat
    weights, and the steps it has taken."""

    first: np.ndarray
    second: np.ndarray
    steps: int


class Trainer:
    """Learning for a network: Adam with step size ``alpha`` and L2 ``weight_decay`` on the
    loss AlphaZero learns by, the value's squared error plus the cross-entropy between the
    search's visit shares and the policy, each batch seen under a random symmetry of the
    board. Its moments live as long as it does (a learner keeps one), and travel in the
    network's file (:meth:`moments`, ``moments`` given), so that a resumed run goes on with
    them."""

    def __init__(
        self,
        net: PolicyValueNet,
        alpha: float,
        weight_decay: float,
        moments: Moments | None = None,
    ) -> None:
        torch = torch_module()
        self.net = net
        self.optimizer = torch.optim.Adam(
            net.module().parameters(), lr=alpha, weight_decay=weight_decay
        )
        self._cells = np.array(net.grid.symmetries, dtype=np.int64)
        self._moves = move_images(net.grid)
        if moments is not None and moments.steps > 0:
            self._restore(moments)

    def _parts(self) -> Iterator[tuple[Any, slice, tuple[int, ...]]]:
        """Each parameter the optimizer learns, with its place in the flat weights."""
        named = dict(self.net.module().named_parameters())
        at = 0
        for name, shape in layout(self.net.grid, self.net.channels, self.net.blocks):
            size = math.prod(shape)
            if name in named:
                yield named[name], slice(at, at + size), shape
            at += size

    def moments(self) -> Moments:
        """Adam's state now: its two moments in the flat weights' layout (0 where a number is
        not learned by it, as a batch norm's running statistics are), and its steps."""
        size = self.net.weights.size
        first, second = np.zeros(size, np.float32), np.zeros(size, np.float32)
        steps = 0
        for param, place, _shape in self._parts():
            state = self.optimizer.state.get(param)
            if state:
                first[place] = state["exp_avg"].detach().reshape(-1).numpy()
                second[place] = state["exp_avg_sq"].detach().reshape(-1).numpy()
                steps = int(state["step"])
        return Moments(first, second, steps)

    def _restore(self, moments: Moments) -> None:
        torch = torch_module()
        for param, place, shape in self._parts():
            self.optimizer.state[param] = {
                "step": torch.tensor(float(moments.steps)),
                "exp_avg": torch.from_numpy(moments.first[place].reshape(shape).copy()),
                "exp_avg_sq": torch.from_numpy(moments.second[place].reshape(shape).copy()),
            }

    def step(
        self,
        boards: np.ndarray,
        movers: np.ndarray,
        policy: np.ndarray,
        value: np.ndarray,
        rng: np.random.Generator,
    ) -> tuple[float, float]:
        """One step on a batch; returns its value loss and policy loss.

        A large network learns the batch in pieces (:func:`piece_size`), their gradients
        added up to the batch's (each piece's batch norm over its own boards, as "ghost"
        batch norm does), the caller's stop looked at between them: a stop there raises
        :class:`threads.Stopped` with the step not taken, the weights and Adam's state as
        they were (the batch norms' running statistics too)."""
        torch = torch_module()
        grid, net = self.net.grid, self.net
        s = int(rng.integers(self._cells.shape[0]))
        seen = np.empty_like(boards)
        seen[:, self._cells[s]] = boards
        target = np.empty_like(policy)
        target[:, self._moves[s]] = policy
        module = net.module()
        x = torch.from_numpy(planes(grid, seen, movers))
        legal = torch.from_numpy(legal_mask(grid, seen))
        pi = torch.from_numpy(target)
        z = torch.from_numpy(value.astype(np.float32))
        n = x.shape[0]
        piece = piece_size(grid, net.channels, net.blocks, passes=3)
        self.optimizer.zero_grad(set_to_none=True)
        value_loss = policy_loss = 0.0
        # A piece's forward pass moves the batch norms' running statistics: kept to put back.
        kept = [b.clone() for b in module.buffers()] if piece < n else []
        module.train()
        try:
            for first in range(0, n, piece):
                if first > 0:
                    threads.check()
                part = slice(first, first + piece)
                logits, v = module(x[part])
                logits = logits.masked_fill(~legal[part], -1e9)
                each = -(pi[part] * torch.log_softmax(logits, dim=1)).sum(dim=1)
                squared = (v - z[part]) ** 2
                if piece >= n:  # one piece: the batch's means, as they always were
                    p_loss, v_loss = each.mean(), torch.mean(squared)
                else:  # sums over the piece, divided by the batch: they add up to the means
                    p_loss, v_loss = each.sum() / n, squared.sum() / n
                (v_loss + p_loss).backward()
                value_loss += float(v_loss.detach())
                policy_loss += float(p_loss.detach())
        except threads.Stopped:
            self.optimizer.zero_grad(set_to_none=True)
            with torch.no_grad():
                for buffer, was in zip(module.buffers(), kept, strict=True):
                    buffer.copy_(was)
            raise
        finally:
            module.eval()
        self.optimizer.step()
        return value_loss, policy_loss

    def done(self) -> None:
        """Bring the flat weights up to date after the steps."""
        self.net.refresh()


def _flatten(module: Any, grid: BoardGrid, channels: int, blocks: int) -> np.ndarray:
    state = module.state_dict()
    parts = [
        state[name].detach().reshape(-1).to(dtype=torch_module().float32).numpy()
        for name, _shape in layout(grid, channels, blocks)
    ]
    return np.concatenate(parts).astype(np.float32, copy=False)


__all__ = [
    "INSTALL",
    "MAX_BLOCKS",
    "MAX_CHANNELS",
    "Moments",
    "PolicyValueNet",
    "check_shape",
    "layout",
    "legal_mask",
    "move_count",
    "param_count",
    "piece_size",
    "plane_count",
    "planes",
    "torch_module",
]
