"""Which library serves the AlphaZero learner's small network better on this machine's two CPU
cores: PyTorch (what ``qarena.learn.alphazero.net`` uses) or JAX, with DeepMind's ``mctx`` for the
batched search. The network is the learner's own (``az_net``'s residual network: a 3×3 stem,
``--blocks`` residual blocks of ``--channels``, a policy and a value head) for Connect Four
4×5 (4 planes of 4×5, 5 moves); in JAX it is written here with ``jax.lax`` (the same weights
give the same outputs: the ``check`` line compares them).

Each library runs on 1 and on 2 threads, each configuration in a subprocess of its own
(PyTorch: ``torch.set_num_threads``; JAX: ``XLA_FLAGS`` with one intra-op thread and no
multi-threaded Eigen for 1, XLA's default for 2), after warm-up; JAX's compile time (its first
call) is reported apart. XLA's CPU runtime does not keep every operation on one thread under
those flags (a large matrix product still uses both cores), so ``--pin`` adds a 1-thread run of
each library held to one core by ``sched_setaffinity``. Measured:

1. forward evaluations per second (positions/s) at batches of 1, 16, 32, 128 and 1024
   (inference: batch norms use their running statistics; random Connect Four positions, the
   outputs brought back to NumPy as a search would read them);
2. training steps per second on batches of 128 (value MSE plus the cross-entropy of the
   policy logits, masked to the open columns, against a target distribution; Adam, step 1e-3,
   L2 weight decay 1e-4; batch norms on batch statistics);
3. with ``mctx``: ``mctx.muzero_policy`` over 32 games at once, 32 simulations, its
   ``recurrent_fn`` dropping the piece on a ``jnp`` board, detecting wins and full boards and
   evaluating the JAX network on the 32 leaves, all inside one jitted call: seconds per call
   and network evaluations per second (games × simulations / time), beside PyTorch's
   positions/s at batch 32 (the project's PUCT search evaluates its 32 leaves as one batch per
   simulation step; its Python tree work is not measured here). A second line runs the same
   search with the network replaced by a uniform prior and zero value: mctx's own tree cost.

Each configuration also gives the CPU seconds it used per wall second ("cpu": how many cores
it really kept busy) and its peak RSS; the installed size of each library (its distribution
with what it requires, NumPy left out) is summed from the packages' file lists.

Run (PyTorch alone, the project's venv; the JAX part is skipped with one line):
    .venv/bin/python benchmarks/az_library.py [--channels 32] [--blocks 3] [--seconds 2]
        [--threads 1,2] [--libraries torch,jax] [--pin] [--json]
Run (both libraries: a separate venv with jax, jaxlib, mctx, torch==2.13.0 and qarena):
    python3 -m venv /work/jaxvenv
    /work/jaxvenv/bin/pip install jax jaxlib mctx numpy torch==2.13.0 && \
        /work/jaxvenv/bin/pip install -e .
    PYTHONPATH=src /work/jaxvenv/bin/python benchmarks/az_library.py [--channels 32]
        [--blocks 3] [--seconds 2] [--threads 1,2] [--libraries torch,jax] [--pin] [--json]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from qarena.games import parse_spec
from qarena.games.base import BoardGrid
from qarena.learn.alphazero import net as az_net

GAME = "connect4:4x5"
BATCHES = (1, 16, 32, 128, 1024)
TRAIN_BATCH = 128
SEARCH_GAMES = 32
SEARCH_SIMULATIONS = 32
ALPHA = 1e-3
WEIGHT_DECAY = 1e-4
#: PyTorch's defaults for BatchNorm2d and Adam, which the JAX version copies.
NORM_MOMENTUM = 0.1
NORM_EPS = 1e-5
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
#: XLA on one thread (the brief's setting; XLA's default uses every core).
ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
#: What each library's installed size counts (with what they require, NumPy left out).
LIBRARIES = {"torch": ("torch",), "jax": ("jax", "jaxlib", "mctx")}
SHARED = {"numpy"}
Result = dict[str, Any]


# ----------------------------------------------------------------------------- common parts


def game_grid() -> BoardGrid:
    """Connect Four 4×5's board."""
    grid = parse_spec(GAME).grid
    assert grid is not None
    return grid


def random_positions(grid: BoardGrid, n: int, rng: np.random.Generator) -> tuple[Any, Any]:
    """``n`` boards ``(n, cells)`` int8 reached by random drops (0 to cells−1 of them; wins
    are not looked for) and their movers (0 the first player, 1 the second)."""
    boards = np.zeros((n, grid.cells), dtype=np.int8)
    plies = rng.integers(0, grid.cells, size=n)
    for i in range(n):
        height = np.zeros(grid.cols, dtype=np.int64)
        for ply in range(int(plies[i])):
            column = int(rng.choice(np.flatnonzero(height < grid.rows)))
            row = grid.rows - 1 - int(height[column])
            boards[i, row * grid.cols + column] = ply % 2 + 1
            height[column] += 1
    return boards, (plies % 2).astype(np.int8)


def training_batches(grid: BoardGrid, count: int, rng: np.random.Generator) -> list[Any]:
    """``count`` batches of :data:`TRAIN_BATCH`: planes, legal columns, a target distribution
    over the open columns and a target value."""
    out = []
    for _ in range(count):
        boards, movers = random_positions(grid, TRAIN_BATCH, rng)
        legal = az_net.legal_mask(grid, boards)
        target = rng.random((TRAIN_BATCH, grid.cols)).astype(np.float32) * legal
        target /= np.maximum(target.sum(axis=1, keepdims=True), 1e-9)
        value = rng.uniform(-1, 1, TRAIN_BATCH).astype(np.float32)
        out.append((az_net.planes(grid, boards, movers), legal, target, value))
    return out


def timed(call: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Calls per second of ``call`` (at least 3 calls, over at least ``seconds``), and the
    CPU seconds the process used per wall second meanwhile."""
    calls = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while True:
        call()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and calls >= 3:
            break
    return calls / elapsed, (time.process_time() - cpu) / elapsed


def first_call(call: Callable[[], object]) -> float:
    """Seconds of ``call``'s first run (JAX: tracing and compiling)."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def os_threads() -> int:
    """The threads this process has (Linux), 0 where that cannot be read."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


# ---------------------------------------------------------------------------------- PyTorch


def torch_worker(threads: int, channels: int, blocks: int, seconds: float) -> Result:
    """PyTorch's forward rates and training steps, on ``threads`` threads."""
    torch = az_net.torch_module()  # sets one thread; then the count asked for
    torch.set_num_threads(threads)
    grid = game_grid()
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    module = az_net._network_class()(grid, channels, blocks)
    module.eval()
    forward: dict[int, Result] = {}
    for batch in BATCHES:
        boards, movers = random_positions(grid, batch, rng)
        x = torch.from_numpy(az_net.planes(grid, boards, movers))

        def evaluate(x: Any = x) -> None:
            with torch.inference_mode():
                logits, value = module(x)
            logits.numpy()
            value.numpy()

        first = first_call(evaluate)
        for _ in range(5):
            evaluate()
        calls, cpu = timed(evaluate, seconds)
        forward[batch] = {"first_s": first, "calls_per_s": calls, "cpu": cpu}

    optimizer = torch.optim.Adam(
        module.parameters(), lr=ALPHA, betas=ADAM_BETAS, eps=ADAM_EPS, weight_decay=WEIGHT_DECAY
    )
    batches = [
        tuple(torch.from_numpy(part) for part in batch) for batch in training_batches(grid, 8, rng)
    ]
    at = [0]

    def step() -> None:
        x, legal, target, value = batches[at[0] % len(batches)]
        at[0] += 1
        module.train()
        logits, v = module(x)
        logits = logits.masked_fill(~legal, -1e9)
        policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        value_loss = torch.mean((v - value) ** 2)
        optimizer.zero_grad(set_to_none=True)
        (value_loss + policy_loss).backward()
        optimizer.step()
        module.eval()
        float(value_loss.detach())
        float(policy_loss.detach())

    first = first_call(step)
    for _ in range(5):
        step()
    steps, cpu = timed(step, seconds)
    return {
        "library": "torch",
        "version": torch.__version__,
        "threads": threads,
        "forward": forward,
        "train": {"first_s": first, "steps_per_s": steps, "cpu": cpu},
        "peak_rss_mib": peak_rss_mib(),
        "os_threads": os_threads(),
    }


# -------------------------------------------------------------------------------------- JAX


def numpy_weights(grid: BoardGrid, channels: int, blocks: int, seed: int) -> dict[str, Any]:
    """Weights in ``az_net.layout``'s names and PyTorch's shapes, drawn as PyTorch's default
    initialisation draws them (uniform within ±1/√fan-in; batch norms at 1, 0, 0, 1)."""
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, shape in az_net.layout(grid, channels, blocks):
        part = name.rsplit(".", 1)[1]
        if len(shape) > 1:
            bound = 1 / np.sqrt(np.prod(shape[1:]))
            out[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
        elif part in {"weight", "running_var"}:
            out[name] = np.ones(shape, np.float32)
        else:
            out[name] = np.zeros(shape, np.float32)
    return out


def split_weights(weights: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """PyTorch-shaped weights as the JAX network's learned parameters (convolutions as HWIO)
    and its batch norms' running statistics."""
    params: dict[str, Any] = {}
    stats: dict[str, Any] = {}
    for name, array in weights.items():
        if name.endswith(("running_mean", "running_var")):
            stats[name] = array
        elif array.ndim == 4:
            params[name] = np.ascontiguousarray(array.transpose(2, 3, 1, 0))
        else:
            params[name] = array
    return params, stats


def jax_network(blocks: int) -> Callable[..., Any]:
    """The network as a pure function ``(params, stats, x NCHW, train) -> ((logits, value),
    new stats)``; it computes in NHWC, the layout XLA's CPU convolutions prefer."""
    import jax
    import jax.numpy as jnp

    relu = jax.nn.relu

    def conv(x: Any, w: Any) -> Any:
        return jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    def flat(x: Any) -> Any:  # PyTorch's flatten order: channel, row, column
        return jnp.transpose(x, (0, 3, 1, 2)).reshape(x.shape[0], -1)

    def dense(params: dict[str, Any], name: str, x: Any) -> Any:
        return x @ params[f"{name}.weight"].T + params[f"{name}.bias"]

    def forward(params: dict[str, Any], stats: dict[str, Any], x: Any, train: bool) -> Any:
        new_stats: dict[str, Any] = {}

        def norm(name: str, h: Any) -> Any:
            mean_key, var_key = f"{name}.running_mean", f"{name}.running_var"
            if train:
                mean = h.mean(axis=(0, 1, 2))
                var = h.var(axis=(0, 1, 2))
                n = h.size // h.shape[-1]
                new_stats[mean_key] = (1 - NORM_MOMENTUM) * stats[mean_key] + (NORM_MOMENTUM * mean)
                new_stats[var_key] = (1 - NORM_MOMENTUM) * stats[var_key] + (
                    NORM_MOMENTUM * var * n / (n - 1)
                )
            else:
                mean, var = stats[mean_key], stats[var_key]
            scaled = (h - mean) * jax.lax.rsqrt(var + NORM_EPS)
            return scaled * params[f"{name}.weight"] + params[f"{name}.bias"]

        h = jnp.transpose(x, (0, 2, 3, 1))
        h = relu(norm("stem_norm", conv(h, params["stem.weight"])))
        for b in range(blocks):
            y = relu(norm(f"blocks.{b}.norm1", conv(h, params[f"blocks.{b}.conv1.weight"])))
            h = relu(h + norm(f"blocks.{b}.norm2", conv(y, params[f"blocks.{b}.conv2.weight"])))
        p = relu(norm("policy_norm", conv(h, params["policy_conv.weight"])))
        logits = dense(params, "policy", flat(p))
        v = relu(norm("value_norm", conv(h, params["value_conv.weight"])))
        v = relu(dense(params, "value_hidden", flat(v)))
        value = jnp.tanh(dense(params, "value", v))[:, 0]
        return (logits, value), new_stats

    return forward


def jax_train_step(forward: Callable[..., Any]) -> Callable[..., Any]:
    """One jitted Adam step (L2 weight decay added to the gradient, as PyTorch's Adam does)
    on the AlphaZero loss: ``(params, stats, adam, batch) -> (params, stats, adam, value
    loss, policy loss)``."""
    import jax
    import jax.numpy as jnp

    tree = jax.tree_util.tree_map
    beta1, beta2 = ADAM_BETAS

    def loss(params: Any, stats: Any, x: Any, legal: Any, target: Any, value: Any) -> Any:
        (logits, v), new_stats = forward(params, stats, x, True)
        logits = jnp.where(legal, logits, -1e9)
        policy_loss = -(target * jax.nn.log_softmax(logits, axis=1)).sum(axis=1).mean()
        value_loss = jnp.mean((v - value) ** 2)
        return value_loss + policy_loss, (new_stats, value_loss, policy_loss)

    def step(params: Any, stats: Any, adam: Any, batch: Any) -> Any:
        grads, (new_stats, value_loss, policy_loss) = jax.grad(loss, has_aux=True)(
            params, stats, *batch
        )
        grads = tree(lambda g, p: g + WEIGHT_DECAY * p, grads, params)
        count = adam["count"] + 1
        m = tree(lambda m, g: beta1 * m + (1 - beta1) * g, adam["m"], grads)
        v = tree(lambda v, g: beta2 * v + (1 - beta2) * g * g, adam["v"], grads)
        fix1 = 1 - beta1**count
        fix2 = jnp.sqrt(1 - beta2**count)
        params = tree(
            lambda p, m, v: p - ALPHA / fix1 * m / (jnp.sqrt(v) / fix2 + ADAM_EPS), params, m, v
        )
        return params, new_stats, {"count": count, "m": m, "v": v}, value_loss, policy_loss

    jitted: Callable[..., Any] = jax.jit(step)
    return jitted


def jax_search(
    grid: BoardGrid, forward: Callable[..., Any], with_network: bool
) -> Callable[..., Any]:
    """``mctx.muzero_policy`` over a batch of Connect Four boards, jitted: ``(params, stats,
    key, boards, movers) -> visit shares``. Moves drop a piece in their column; a win, a full
    board or a move into a full column (a loss for its mover) ends the game."""
    import jax
    import jax.numpy as jnp
    import mctx

    rows, cols, cells = grid.rows, grid.cols, grid.cells
    lines = jnp.asarray(np.array(grid.lines, dtype=np.int32))

    def planes(boards: Any, movers: Any) -> Any:  # az_net.planes, in jnp
        own = (movers + 1)[:, None].astype(boards.dtype)
        empty = boards == 0
        below = jnp.concatenate([~empty[:, cols:], jnp.ones((boards.shape[0], cols), bool)], 1)
        stack = [boards == own, ~empty & (boards != own), jnp.ones_like(empty), empty & below]
        return jnp.stack(stack, axis=1).astype(jnp.float32).reshape(-1, 4, rows, cols)

    def evaluate(net: Any, boards: Any, movers: Any) -> tuple[Any, Any]:
        open_columns = boards[:, :cols] == 0
        if with_network:
            (logits, value), _ = forward(net[0], net[1], planes(boards, movers), False)
        else:
            logits = jnp.zeros(open_columns.shape, jnp.float32)
            value = jnp.zeros(boards.shape[0], jnp.float32)
        return jnp.where(open_columns, logits, -1e9), value

    def recurrent_fn(net: Any, _key: Any, action: Any, state: Any) -> Any:
        boards, movers, done = state["boards"], state["movers"], state["done"]
        n = boards.shape[0]
        column = boards.reshape(n, rows, cols)[jnp.arange(n), :, action]
        legal = column[:, 0] == 0
        row = (column == 0).sum(axis=1) - 1
        piece = (movers + 1).astype(boards.dtype)
        play = legal & ~done
        hit = jnp.arange(cells)[None, :] == (row * cols + action)[:, None]
        boards = jnp.where(hit & play[:, None], piece[:, None], boards)
        won = play & jnp.any(jnp.all(boards[:, lines] == piece[:, None, None], axis=2), axis=1)
        over = done | won | ~legal | jnp.all(boards != 0, axis=1)
        reward = jnp.where(done, 0.0, jnp.where(~legal, -1.0, jnp.where(won, 1.0, 0.0)))
        movers = 1 - movers
        logits, value = evaluate(net, boards, movers)
        out = mctx.RecurrentFnOutput(
            reward=reward,
            discount=jnp.where(over, 0.0, -1.0),
            prior_logits=logits,
            value=jnp.where(over, 0.0, value),
        )
        return out, {"boards": boards, "movers": movers, "done": over}

    def search(params: Any, stats: Any, key: Any, boards: Any, movers: Any) -> Any:
        logits, value = evaluate((params, stats), boards, movers)
        state = {"boards": boards, "movers": movers, "done": jnp.zeros(boards.shape[0], bool)}
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.muzero_policy(
            (params, stats),
            key,
            root,
            recurrent_fn,
            num_simulations=SEARCH_SIMULATIONS,
            invalid_actions=boards[:, :cols] != 0,
        )
        return out.action_weights

    jitted: Callable[..., Any] = jax.jit(search)
    return jitted


def jax_worker(threads: int, channels: int, blocks: int, seconds: float) -> Result:
    """JAX's forward rates, training steps and (with mctx) batched search."""
    import jax
    import jax.numpy as jnp

    grid = game_grid()
    rng = np.random.default_rng(0)
    params_np, stats_np = split_weights(numpy_weights(grid, channels, blocks, 0))
    params = {k: jnp.asarray(v) for k, v in params_np.items()}
    stats = {k: jnp.asarray(v) for k, v in stats_np.items()}
    forward = jax_network(blocks)
    infer = jax.jit(lambda params, stats, x: forward(params, stats, x, False)[0])
    results: dict[int, Result] = {}
    for batch in BATCHES:
        boards, movers = random_positions(grid, batch, rng)
        x = az_net.planes(grid, boards, movers)

        def evaluate(x: Any = x) -> None:
            logits, value = infer(params, stats, x)
            np.asarray(logits)
            np.asarray(value)

        first = first_call(evaluate)
        for _ in range(5):
            evaluate()
        calls, cpu = timed(evaluate, seconds)
        results[batch] = {"first_s": first, "calls_per_s": calls, "cpu": cpu}

    step = jax_train_step(forward)
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state: list[Any] = [params, stats, {"count": jnp.zeros((), jnp.int32), "m": zeros, "v": zeros}]
    batches = training_batches(grid, 8, rng)
    at = [0]

    def train() -> None:
        batch = batches[at[0] % len(batches)]
        at[0] += 1
        new_params, new_stats, adam, value_loss, policy_loss = step(*state, batch)
        state[:] = [new_params, new_stats, adam]
        float(value_loss)
        float(policy_loss)

    first = first_call(train)
    for _ in range(5):
        train()
    steps, cpu = timed(train, seconds)
    out: Result = {
        "library": "jax",
        "version": jax.__version__,
        "threads": threads,
        "forward": results,
        "train": {"first_s": first, "steps_per_s": steps, "cpu": cpu},
    }
    if importlib.util.find_spec("mctx") is None:
        out["search"] = None
    else:
        out["search"] = {
            kind: search_rates(
                grid, jax_search(grid, forward, kind == "network"), (params, stats), seconds
            )
            for kind in ("network", "no network")
        }
    out["peak_rss_mib"] = peak_rss_mib()
    out["os_threads"] = os_threads()
    return out


def search_rates(
    grid: BoardGrid, search: Callable[..., Any], net: tuple[Any, Any], seconds: float
) -> Result:
    """Seconds per call of a jitted search over :data:`SEARCH_GAMES` random positions."""
    import jax

    params, stats = net
    boards, movers = random_positions(grid, SEARCH_GAMES, np.random.default_rng(1))
    keys = [jax.random.key(0)]

    def run() -> None:
        keys[0], key = jax.random.split(keys[0])
        np.asarray(search(params, stats, key, boards, movers))

    first = first_call(run)
    for _ in range(2):
        run()
    calls, cpu = timed(run, seconds)
    return {
        "first_s": first,
        "seconds_per_call": 1 / calls,
        "evals_per_s": calls * SEARCH_GAMES * SEARCH_SIMULATIONS,
        "cpu": cpu,
    }


def check_worker(channels: int, blocks: int) -> Result:
    """The JAX network against PyTorch's on the same weights: the largest difference of the
    logits and values, in inference and (batch statistics) in training mode."""
    import jax.numpy as jnp

    torch = az_net.torch_module()
    grid = game_grid()
    torch.manual_seed(0)
    module = az_net._network_class()(grid, channels, blocks)
    # Running statistics away from 0 and 1, so that inference really reads them.
    with torch.no_grad():
        for name, tensor in module.state_dict().items():
            if name.endswith("running_mean"):
                tensor.uniform_(-0.5, 0.5)
            elif name.endswith("running_var"):
                tensor.uniform_(0.5, 2.0)
    weights = {
        k: v.numpy().copy() for k, v in module.state_dict().items() if "num_batches" not in k
    }
    params, stats = split_weights(weights)
    forward = jax_network(blocks)
    boards, movers = random_positions(grid, 64, np.random.default_rng(2))
    x = az_net.planes(grid, boards, movers)
    out: Result = {"library": "check"}
    for train in (False, True):
        module.train(train)
        with torch.no_grad():
            logits, value = module(torch.from_numpy(x))
        (j_logits, j_value), _ = forward(
            {k: jnp.asarray(v) for k, v in params.items()},
            {k: jnp.asarray(v) for k, v in stats.items()},
            jnp.asarray(x),
            train,
        )
        diff = max(
            float(np.abs(np.asarray(j_logits) - logits.numpy()).max()),
            float(np.abs(np.asarray(j_value) - value.numpy()).max()),
        )
        out["train" if train else "inference"] = diff
    return out


# ------------------------------------------------------------------------------ the driver


def installed_mib(roots: tuple[str, ...]) -> float | None:
    """Installed MiB of the distributions ``roots`` and everything they require (extras and
    NumPy left out), or None when one is not installed."""
    seen: set[str] = set()
    todo = list(roots)
    total = 0
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen or name in SHARED:
            continue
        seen.add(name)
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if name in roots:
                return None
            continue
        paths = (os.fspath(f.locate()) for f in dist.files or ())
        total += sum(os.path.getsize(path) for path in paths if os.path.isfile(path))
        for requirement in dist.requires or ():
            if "extra ==" not in requirement:
                match = re.match(r"[A-Za-z0-9._-]+", requirement)
                if match:
                    todo.append(match.group())
    return total / 2**20


def run_worker(
    kind: str, threads: int, args: argparse.Namespace, pin: bool = False
) -> Result | None:
    """One configuration in a subprocess of its own (so thread settings take effect)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    if kind == "jax" and threads == 1:
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {ONE_THREAD_XLA}".strip()
    command = [
        sys.executable,
        os.path.abspath(__file__),
        f"--worker={kind}",
        f"--worker-threads={threads}",
        f"--channels={args.channels}",
        f"--blocks={args.blocks}",
        f"--seconds={args.seconds}",
        *(["--worker-pin"] if pin else []),
    ]
    load = os.getloadavg()[0]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"{kind} on {threads} thread(s) failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    result: Result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_before"] = load
    result["load_after"] = os.getloadavg()[0]
    return result


def label(result: Result) -> str:
    pinned = " pin" if result.get("pinned") else ""
    return f"{result['library']:<6}{result['threads']}t{pinned}"


def print_tables(results: list[Result], check: Result | None, sizes: Result) -> None:
    """The results as tables people read."""
    print("\nForward: positions/s (µs per call, CPU s per wall s); first call in s")
    print(f"{'':12}" + "".join(f"{f'batch {b}':>26}" for b in BATCHES))
    for r in results:
        cells = []
        for b in BATCHES:
            f = r["forward"][str(b)]
            rate, micros = f["calls_per_s"] * b, 1e6 / f["calls_per_s"]
            cells.append(f"{rate:>10,.0f} ({micros:>6,.0f}, {f['cpu']:.2f})")
        print(f"{label(r):12}" + "".join(f"{c:>26}" for c in cells))
    print("first call, s")
    for r in results:
        firsts = (r["forward"][str(b)]["first_s"] for b in BATCHES)
        print(f"{label(r):12}" + "".join(f"{first:>26.3f}" for first in firsts))

    print(f"\nTraining, batch {TRAIN_BATCH}, Adam (step + loss read back)")
    print(f"{'':12}{'steps/s':>10}{'ms/step':>10}{'cpu':>7}{'first call s':>14}")
    for r in results:
        t = r["train"]
        print(
            f"{label(r):12}{t['steps_per_s']:>10.1f}{1e3 / t['steps_per_s']:>10.2f}"
            f"{t['cpu']:>7.2f}{t['first_s']:>14.3f}"
        )

    torch_32 = {
        (r["threads"], r.get("pinned")): r["forward"]["32"]["calls_per_s"] * 32
        for r in results
        if r["library"] == "torch"
    }
    searches = [r for r in results if r["library"] == "jax"]
    if searches and searches[0].get("search") is None:
        print("\nmctx is not installed: no batched search measured")
    elif searches:
        print(
            f"\nmctx.muzero_policy, {SEARCH_GAMES} games × {SEARCH_SIMULATIONS} simulations "
            "in one jitted call"
        )
        print(
            f"{'':13}{'':11}{'ms/call':>10}{'evals/s':>10}{'cpu':>7}{'compile s':>11}"
            f"{'torch b32 pos/s':>17}"
        )
        for r in searches:
            for kind, s in r["search"].items():
                ref = torch_32.get((r["threads"], r.get("pinned")))
                print(
                    f"{label(r):13}{kind:<11}{s['seconds_per_call'] * 1e3:>10.1f}"
                    f"{s['evals_per_s']:>10,.0f}{s['cpu']:>7.2f}{s['first_s']:>11.2f}"
                    f"{(f'{ref:,.0f}' if ref and kind == 'network' else ''):>17}"
                )

    print("\nPeak RSS (MiB), OS threads at the end, 1-minute load average before/after")
    for r in results:
        print(
            f"{label(r):12}{r['peak_rss_mib']:>8.0f}{r['os_threads']:>5}   "
            f"load {r['load_before']:.2f} -> {r['load_after']:.2f}   "
            f"({r['library']} {r['version']})"
        )
    if check is not None:
        print(
            f"\nJAX vs PyTorch, same weights, largest |difference| of logits and values: "
            f"inference {check['inference']:.2e}, training mode {check['train']:.2e}"
        )
    print("\nInstalled size, with required packages (NumPy left out):")
    for name, mib in sizes.items():
        print(f"  {name:<6}{'not installed' if mib is None else f'{mib:,.0f} MiB'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--libraries", default="torch,jax", help="comma-separated")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="also hold the 1-thread runs to one core (XLA's flags leave some work on two)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON lines")
    parser.add_argument("--worker", choices=("torch", "jax", "check"), help=argparse.SUPPRESS)
    parser.add_argument("--worker-threads", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--worker-pin", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker is not None:
        if args.worker_pin:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        shape = (args.worker_threads, args.channels, args.blocks, args.seconds)
        result: Result | None
        if args.worker == "check":
            result = check_worker(args.channels, args.blocks)
        else:
            result = (torch_worker if args.worker == "torch" else jax_worker)(*shape)
        if result is not None and args.worker != "check":
            result["pinned"] = args.worker_pin
        print(json.dumps(result))
        return 0

    grid = game_grid()
    weights = az_net.param_count(grid, args.channels, args.blocks)
    threads = [int(t) for t in args.threads.split(",")]
    have = {name: importlib.util.find_spec(name) is not None for name in ("torch", "jax")}
    print(
        f"{GAME}: {az_net.plane_count(grid)} planes, {args.channels} channels, "
        f"{args.blocks} blocks, {weights:,} numbers (running statistics included); "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {args.seconds:g} s a measurement"
    )
    for name, ok in have.items():
        if not ok:
            print(f"{name} is not importable in {sys.executable}: its rows are skipped")
    runs = [(n, False) for n in threads]
    if args.pin and 1 in threads:
        runs.insert(1, (1, True))
    results = [
        result
        for library in args.libraries.split(",")
        if have.get(library)
        for n, pin in runs
        if (result := run_worker(library, n, args, pin)) is not None
    ]
    both = all(have.values()) and {"torch", "jax"} <= set(args.libraries.split(","))
    check = run_worker("check", 1, args) if both else None
    sizes = {name: installed_mib(roots) for name, roots in LIBRARIES.items()}
    if args.json:
        for result in results:
            print(json.dumps(result))
        if check is not None:
            print(json.dumps(check))
        print(json.dumps({"installed_mib": sizes}))
    else:
        print_tables(results, check, sizes)
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
