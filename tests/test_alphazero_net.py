"""The AlphaZero learner's foundations (issue 41): the policy-value network, its files, and
self-play through batched PUCT; judged against the exact solver on tic-tac-toe."""

from __future__ import annotations

import math
import sys
import zipfile

import numpy as np
import pytest

from qarena.errors import QarenaError, TooLargeError
from qarena.games import parse_spec
from qarena.judging.policy import judge_asked
from qarena.learn.alphazero import net as az_net
from qarena.learn.alphazero.files import load_net, net_bytes, save_net
from qarena.learn.alphazero.learner import LearningSettings, SelfPlayLearning
from qarena.learn.alphazero.search import Evaluate, SearchSettings

SPECS = ("tictactoe", "connect4:4x5", "connect4", "tictactoe:4x4:4")


@pytest.mark.parametrize("spec", SPECS)
def test_layout_is_the_modules_own(spec: str) -> None:
    """The layout computed without PyTorch names every tensor PyTorch's module holds, in
    its order and shapes, so a file's size is known before torch is imported."""
    grid = parse_spec(spec).grid
    assert grid is not None
    for channels, blocks in ((8, 0), (16, 2)):
        net = az_net.PolicyValueNet.new(grid, channels, blocks, seed=0)
        state = [
            (name, tuple(t.shape))
            for name, t in net.module().state_dict().items()
            if not name.endswith("num_batches_tracked")
        ]
        assert state == az_net.layout(grid, channels, blocks)
        assert az_net.param_count(grid, channels, blocks) == sum(
            math.prod(shape) for _name, shape in state
        )
        trainable = sum(p.numel() for p in net.module().parameters())
        # What is not trained is the batch norms' running means and variances.
        norms = sum(shape[0] for name, shape in state if name.endswith(("_mean", "_var")))
        assert trainable + norms == net.weights.size


def test_a_seed_makes_the_same_network() -> None:
    grid = parse_spec("connect4:4x5").grid
    assert grid is not None
    a = az_net.PolicyValueNet.new(grid, 16, 1, seed=3)
    b = az_net.PolicyValueNet.new(grid, 16, 1, seed=3)
    c = az_net.PolicyValueNet.new(grid, 16, 1, seed=4)
    assert np.array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, c.weights)


def test_planes_and_moves_follow_the_rules() -> None:
    """The playable plane and the open moves are the game's own, on positions of random
    play; the mover's stones are the first plane whoever moves."""
    rng = np.random.default_rng(1)
    for spec in ("connect4:4x5", "connect4", "tictactoe"):
        game = parse_spec(spec)
        grid = game.grid
        assert grid is not None
        for _ in range(30):
            position = game.start()
            for _ply in range(int(rng.integers(0, grid.cells))):
                if game.is_terminal(position):
                    break
                moves = game.legal_moves(position)
                position = game.apply(position, moves[int(rng.integers(len(moves)))])
            board = np.asarray(position, dtype=np.int8)[None]
            mover = game.to_move(position) or 0
            legal = az_net.legal_mask(grid, board)[0]
            open_moves = [] if game.is_terminal(position) else game.legal_moves(position)
            if not game.is_terminal(position):
                assert list(np.flatnonzero(legal)) == open_moves
            x = az_net.planes(grid, board, np.array([mover])).reshape(-1, grid.cells)
            assert list(np.flatnonzero(x[0])) == [
                c for c in range(grid.cells) if position[c] == mover + 1
            ]
            assert list(np.flatnonzero(x[1])) == [
                c for c in range(grid.cells) if position[c] not in (0, mover + 1)
            ]
            if grid.gravity and open_moves:
                # Each open column's landing cell: where the move puts its piece.
                landing = sorted(
                    next(c for c in range(grid.cells) if game.apply(position, m)[c] != position[c])
                    for m in open_moves
                )
                assert list(np.flatnonzero(x[3])) == landing


def test_weights_of_another_shape_or_board_are_refused_in_one_line() -> None:
    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    with pytest.raises(QarenaError, match="a network of this shape has 2,376 weights"):
        az_net.PolicyValueNet(grid, 8, 1, np.zeros(10, dtype=np.float32))
    other = parse_spec("connect4:4x5").grid
    assert other is not None
    with pytest.raises(QarenaError, match="the network was made for another board"):
        SelfPlayLearning(game, az_net.PolicyValueNet.new(other, 8, 0, seed=0))
    with pytest.raises(QarenaError, match="blocks must be at most 20"):
        az_net.PolicyValueNet.new(grid, 8, 21)


def test_priors_cover_the_open_moves_only() -> None:
    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    net = az_net.PolicyValueNet.new(grid, 8, 1, seed=0)
    boards = np.zeros((3, 9), dtype=np.int8)
    boards[1, [0, 4]] = [1, 2]
    boards[2, :8] = [1, 2, 1, 2, 1, 2, 2, 1]
    priors, values = net.evaluate(boards, np.array([0, 0, 0]))
    assert np.allclose(priors.sum(axis=1), 1.0)
    assert (priors[boards != 0] == 0).all()
    assert priors[2, 8] == pytest.approx(1.0)
    assert ((values >= -1) & (values <= 1)).all()


def test_file_round_trip_and_checks(tmp_path: pytest.TempPathFactory) -> None:
    game = parse_spec("connect4:4x5")
    grid = game.grid
    assert grid is not None
    net = az_net.PolicyValueNet.new(grid, 8, 1, seed=0)
    path = tmp_path / "az.npz"  # type: ignore[operator]
    save_net(path, game, net, {"games": 5})
    back = load_net(path)
    assert back.game.spec == game.spec
    assert (back.net.channels, back.net.blocks) == (8, 1)
    assert np.array_equal(back.net.weights, net.weights)
    assert back.meta["games"] == 5
    assert net_bytes(game, net, {"games": 5}) == path.read_bytes()
    with pytest.raises(QarenaError, match="plays connect4:4x5:4, not tictactoe"):
        load_net(path, parse_spec("tictactoe"))
    # A byte of the weights changed: the checksum says so.
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    raw = bytearray(members["weights.npy"])
    raw[-3] ^= 0x40
    members["weights.npy"] = bytes(raw)
    bad = tmp_path / "bad.npz"  # type: ignore[operator]
    with zipfile.ZipFile(bad, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with pytest.raises(QarenaError, match="checksum does not match"):
        load_net(bad)


def _rewrite_meta(path: object, out: object, **changes: object) -> None:
    """A well-formed file (its checksum right) whose metadata claims ``changes``."""
    from qarena.policyfile import read_meta, save_policy

    meta = {k: v for k, v in read_meta(path).items() if k != "sha256"}  # type: ignore[arg-type]
    with np.load(path) as data:  # type: ignore[arg-type]
        weights = data["weights"]
    save_policy(out, {"weights": weights}, {**meta, **changes})  # type: ignore[arg-type]


def test_sizes_are_refused_before_reading_or_importing_torch(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file's shape and its memory are checked from its metadata alone: with PyTorch
    unimportable, a too-large or malformed claim is still refused in one line."""
    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    net = az_net.PolicyValueNet.new(grid, 8, 1, seed=0)
    path = tmp_path / "az.npz"  # type: ignore[operator]
    save_net(path, game, net)
    monkeypatch.setitem(sys.modules, "torch", None)
    az_net.torch_module.cache_clear()
    try:
        with pytest.raises(TooLargeError, match="loading it needs"):
            load_net(path, budget=1000)
        wide = tmp_path / "wide.npz"  # type: ignore[operator]
        _rewrite_meta(path, wide, channels=100_000)
        with pytest.raises(QarenaError, match="channels must be at most 256, not 100,000"):
            load_net(wide)
        lying = tmp_path / "lying.npz"  # type: ignore[operator]
        _rewrite_meta(path, lying, weights=10)
        with pytest.raises(QarenaError, match="count of weights does not match"):
            load_net(lying)
        # Read back, the weights are there without torch; playing them asks for it.
        back = load_net(path)
        with pytest.raises(QarenaError, match=r"pip install 'qarena\[deep\]'"):
            back.net.evaluate(np.zeros((1, 9), dtype=np.int8), np.zeros(1, dtype=np.int8))
    finally:
        az_net.torch_module.cache_clear()


def _uniform(moves: int) -> Evaluate:
    def evaluate(boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = boards.shape[0]
        return np.full((n, moves), 1.0 / moves), np.zeros(n)

    return evaluate


def test_search_alone_finds_what_the_solver_knows() -> None:
    """With an evaluator that knows nothing (uniform priors, value 0), PUCT's visits come
    from the games' ends alone: on tic-tac-toe positions where the mover wins at once, or
    must block a win at once, the search's most visited move keeps the solver's value."""
    from qarena.exact import oracle
    from qarena.learn.alphazero.search import _node, search

    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    solution = oracle(game)
    rng = np.random.default_rng(0)
    positions = [
        game.parse_position(text)
        for text in ("xx./oo./...", "xo./xo./...", "x.o/.o./x..", "xx./o../o..")
    ]
    roots = [_node(game, p) for p in positions]
    search(game, grid, roots, _uniform(9), SearchSettings(simulations=400), rng, noise=False)
    for position, root in zip(positions, roots, strict=True):
        move = root.moves[int(np.argmax(root.visits))]
        best = solution.value_of(game.apply(position, move))
        assert -best == solution.value_of(position), game.format_position(position)


def test_self_play_learns_toward_perfect_play() -> None:
    """A few hundred games of self-play on tic-tac-toe: the network's greedy policy, judged
    exactly over every decision position (each asked on its own), keeps the value far more
    often than before; every position learned from is one its games passed through."""
    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    net = az_net.PolicyValueNet.new(grid, 32, 2, seed=0)

    def ask(position: tuple[int, ...]) -> dict[int, float]:
        priors, _v = net.evaluate(
            np.asarray(position, dtype=np.int8)[None], np.array([game.to_move(position) or 0])
        )
        return {m: float(priors[0, m]) for m in game.legal_moves(position)}

    before = judge_asked(game, ask).share
    run = SelfPlayLearning(game, net, SearchSettings(simulations=32, temperature_moves=3))
    for _chunk in range(10):
        done = run.play_and_learn(32)
        assert done.games == 32 and len(done.results) == 32
        assert set(done.results) <= {-1.0, 0.0, 1.0}
    filled = run._filled
    assert filled > 320 * 5  # every game adds its positions (tic-tac-toe lasts 5 to 9)
    policy, boards = run._policy[:filled], run._boards[:filled]
    assert np.allclose(policy.sum(axis=1), 1.0)
    assert (policy[boards != 0] == 0).all()  # visits only to open cells
    assert run.games == 320
    after = judge_asked(game, ask).share
    assert after >= before + 0.2, (before, after)


def test_a_seed_learns_the_same_network() -> None:
    game = parse_spec("tictactoe")
    grid = game.grid
    assert grid is not None
    found = []
    for _ in range(2):
        net = az_net.PolicyValueNet.new(grid, 8, 1, seed=2)
        run = SelfPlayLearning(game, net, SearchSettings(simulations=8), LearningSettings(seed=5))
        run.play_and_learn(8)
        run.play_and_learn(8)
        found.append(net.weights.copy())
    assert np.array_equal(found[0], found[1])


def test_priors_over_tables_are_the_positions_own() -> None:
    """A small board's positions judged in batches from their codes: the same priors as the
    network gives each position asked on its own."""
    from qarena.exact.space import game_tables

    for spec in ("tictactoe", "connect4:4x4"):
        game = parse_spec(spec)
        grid = game.grid
        assert grid is not None
        net = az_net.PolicyValueNet.new(grid, 8, 1, seed=0)
        tables = game_tables(game)
        rows = np.flatnonzero(tables.live)[:: max(1, int(tables.live.sum()) // 300)]
        movers = np.maximum(tables.mover[rows], 0).astype(np.int8)
        batched = az_net.table_priors(net, tables.codes[rows], movers, game.radix)
        for i, row in enumerate(rows.tolist()):
            position = tables.position(row)
            own, _v = net.evaluate(
                np.asarray(position, dtype=np.int8)[None], np.array([game.to_move(position)])
            )
            assert np.allclose(batched[i], own[0], atol=1e-6), game.format_position(position)
