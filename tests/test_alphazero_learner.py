"""The AlphaZero learner as a learner kind (``--learner alphazero``): trained, saved, resumed,
played and judged through the command line, the Python API and the web, its greedy policy and
``mcts:N:FILE`` judged against the solver (tic-tac-toe, every position known)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import qarena
from qarena.cli import run
from qarena.errors import QarenaError, TooLargeError
from qarena.exact import oracle
from qarena.games import parse_spec
from qarena.learn import learners
from qarena.learn.alphazero.files import load_net
from qarena.learn.alphazero.learner import AlphaZeroLearner

SMALL = {"channels": 8, "blocks": 1, "simulations": 8, "opening": 0}


def _exact_share(player: object, spec: str = "tictactoe") -> float:
    """The share of every decision position of ``spec`` where ``player`` keeps the value:
    the solver's tables, every position judged (as ``qarena eval FILE``)."""
    found = qarena.judge(player, spec, games=2)  # type: ignore[arg-type]
    return float(found.optimality.share)


def test_it_trains_saves_and_resumes_with_its_buffer(tmp_path: Path) -> None:
    net = qarena.train("tictactoe", "alphazero", 64, seed=3, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    assert net.episodes == 64 and net.seconds > 0
    path = tmp_path / "az.npz"
    net.save(path)
    back = learners.load_learner(path)
    assert isinstance(back, AlphaZeroLearner)
    assert np.array_equal(back.net.weights, net.net.weights)
    assert back.config == net.config and back.episodes == 64
    # The replay buffer travels with it: each game of tic-tac-toe leaves 5 to 9 positions.
    kept = back.kept["value"].shape[0]
    assert 64 * 5 <= kept <= 64 * 9
    # Resumed, it learns on from its weights and its buffer, 32 games more.
    more = qarena.train("tictactoe", "alphazero", 32, resume=back)
    assert more.episodes == 96
    assert isinstance(more, AlphaZeroLearner) and more.loop()._filled > kept
    # A resumed network keeps its shape and seed.
    with pytest.raises(QarenaError, match="a resumed network keeps its own"):
        qarena.train("tictactoe", "alphazero", 32, resume=more, channels=16)


def test_a_run_resumed_from_its_file_learns_what_one_run_learns(tmp_path: Path) -> None:
    """Weights, the replay buffer and Adam's moments and steps all travel in the file: 64
    games, saved, read back and resumed for 64 more, end with the network 128 games in one
    run learn (the same seed, one worker). Without Adam's state they did not."""
    once = qarena.train("tictactoe", "alphazero", 128, seed=5, workers=1, **SMALL)
    half = qarena.train("tictactoe", "alphazero", 64, seed=5, workers=1, **SMALL)
    path = tmp_path / "half.npz"
    half.save(path)
    back = learners.load_learner(path)
    assert isinstance(back, AlphaZeroLearner) and back.moments_kept is not None
    assert back.moments_kept.steps > 0
    resumed = qarena.train("tictactoe", "alphazero", 64, resume=back, workers=1)
    assert isinstance(once, AlphaZeroLearner) and isinstance(resumed, AlphaZeroLearner)
    np.testing.assert_allclose(resumed.net.weights, once.net.weights, rtol=0, atol=1e-5)
    # A file from before Adam's state was kept still reads, its moments starting afresh.
    from qarena.learn.alphazero.files import load_net, save_net

    old = tmp_path / "old.npz"
    save_net(old, half.game, half.net, {"settings": half.config.to_dict(), "games": 64})
    assert load_net(old).moments is None


def test_a_time_budget_ends_its_run_and_its_workers() -> None:
    """``minutes`` ends a run of a million games within a chunk of games of the budget, the
    games it learned counted, and its worker processes end with the run."""
    t0 = time.monotonic()
    net = qarena.train("tictactoe", "alphazero", 10**6, seed=1, workers=2, minutes=0.15, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    assert 0 < net.games < 10**6
    assert time.monotonic() - t0 < 60  # a million games would take hours
    assert net._pool is None
    with pytest.raises(QarenaError, match=r"^minutes must be a number of minutes above 0"):
        qarena.train("tictactoe", "alphazero", 8, minutes=-1, **SMALL)


@pytest.fixture(scope="module")
def trained() -> AlphaZeroLearner:
    """A network after a short run: 320 games of self-play on tic-tac-toe (about 10 s)."""
    net = qarena.train("tictactoe", "alphazero", 320, seed=0, channels=32, blocks=2)
    assert isinstance(net, AlphaZeroLearner)
    return net


def test_a_short_run_improves_on_random_play_exactly(trained: AlphaZeroLearner) -> None:
    """A few hundred games of self-play through its search: its greedy policy keeps the
    value in more of tic-tac-toe's decision positions than random play does (both judged by
    the solver over every position)."""
    net = trained
    random_share = _exact_share("random")
    share = _exact_share(net)
    assert share >= random_share + 0.15, (random_share, share)


def test_its_search_converges_to_perfect_play_as_simulations_grow(
    trained: AlphaZeroLearner, tmp_path: Path
) -> None:
    """``mcts:N:FILE`` searches with the network's priors and values: on the same sampled
    positions, each judged exactly, more simulations keep the value more often, and 400
    nearly always."""
    net = trained
    path = tmp_path / "az.npz"
    net.save(path)
    shares = []
    for n in (1, 400):
        found = qarena.judge(f"mcts:{n}:{path}", "tictactoe", sample=150, seed=0, games=2)
        shares.append(float(found.optimality.share))
    assert shares[1] >= 0.95 and shares[1] > shares[0] + 0.2, shares


def test_its_priors_guide_the_search() -> None:
    """With ``priors_value``, the search reads the network's own priors and value head: on
    a position where the mover wins at once, 200 simulations find the win."""
    net = qarena.train("tictactoe", "alphazero", 32, seed=2, **SMALL)
    game = parse_spec("tictactoe")
    position = game.parse_position("xx./oo./...")
    priors, value = net.priors_value(position)
    assert set(priors) == set(game.legal_moves(position))
    assert abs(sum(priors.values()) - 1) < 1e-5 and -1 <= value <= 1
    from qarena.agents.mcts import MCTSPlayer
    from qarena.agents.thinking import Budget

    searcher = MCTSPlayer(game, Budget(count=200), net, seed=0)
    move = searcher.act(position)
    assert oracle(game).value_of(game.apply(position, move)) == -1  # x has won


def test_the_command_line_trains_plays_and_judges_it(tmp_path: Path) -> None:
    out = tmp_path / "az.npz"
    argv = ["train", "tictactoe", "--learner", "alphazero", "--episodes", "32"]
    assert run([*argv, "--channels", "8", "--blocks", "1", "--simulations", "8",
                "--out", str(out)]) == 0  # fmt: skip
    assert run(["train", "tictactoe", "--learner", "alphazero", "--resume", str(out),
                "--episodes", "32",
                "--out", str(tmp_path / "more.npz")]) == 0  # fmt: skip
    assert learners.load_learner(tmp_path / "more.npz").episodes == 64
    assert run(["eval", str(out)]) == 0
    assert run(["compete", str(out), "random", "--games", "4"]) == 0
    assert run(["eval", f"mcts:20:{out}", "--game", "tictactoe", "--sample", "20"]) == 0


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--learner", "alphazero", "--tuples", "4"], "--tuples applies to --learner ntuple only"),
        (["--learner", "ntuple", "--channels", "4"],
         "--channels applies to --learner alphazero only"),
        (["--learner", "alphazero", "--channels", "300"], "--channels must be at most 256"),
        (["--learner", "alphazero", "--opponent", "random"],
         "--opponent does not apply to the alphazero learner"),
        (["--learner", "q", "--workers", "2"],
         "--workers applies to --learner ntuple or alphazero only"),
        (["--learner", "alphazero", "--epsilon", "0.1"],
         "--epsilon does not apply to the alphazero learner"),
    ],
)  # fmt: skip
def test_what_it_has_no_use_for_is_refused_in_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["train", "tictactoe", *argv, "--episodes", "8"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_game_without_a_board_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["train", "nim:3,5", "--learner", "alphazero"]) == 2
    assert "plays board games" in capsys.readouterr().err


def test_a_network_too_large_for_the_machine_is_refused_before_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import qarena.learn.alphazero.learner as az

    monkeypatch.setattr(az, "memory_budget", lambda: 10 * 2**20)
    with pytest.raises(TooLargeError, match=r"needs .* to learn, more than this machine"):
        qarena.train("tictactoe", "alphazero", 8, channels=256, blocks=20)


def test_a_file_claiming_a_huge_buffer_is_refused_before_reading(tmp_path: Path) -> None:
    from qarena.policyfile import read_meta, save_policy

    net = qarena.train("tictactoe", "alphazero", 8, seed=0, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    path = tmp_path / "az.npz"
    net.save(path)
    meta = {k: v for k, v in read_meta(path).items() if k != "sha256"}
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files if name != "meta"}
    save_policy(str(tmp_path / "huge.npz"), arrays, {**meta, "buffer": 10**9})
    with pytest.raises(QarenaError, match="replay buffer's size"):
        load_net(tmp_path / "huge.npz")
    save_policy(str(tmp_path / "short.npz"), arrays, {**meta, "buffer": 3})
    with pytest.raises(QarenaError, match=r"short\.npz"):
        load_net(tmp_path / "short.npz")


def test_the_web_trains_stores_and_plays_it(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from qarena.web.app import create_app

    with TestClient(create_app(tmp_path)) as client:
        r = client.post(
            "/api/train",
            json={"game": "tictactoe", "learner": "alphazero", "episodes": 32, "seed": 2,
                  **SMALL},
        )  # fmt: skip
        assert r.status_code == 202, r.text
        t0 = time.monotonic()
        while (snap := client.get(f"/api/train/{r.json()['job']}").json())["state"] in (
            "queued",
            "running",
        ):
            assert time.monotonic() - t0 < 60
            time.sleep(0.1)
        assert snap["state"] == "done" and snap["episodes"] == 32, snap
        row = client.get(f"/api/policies/{snap['policy']}").json()
        assert (row["learner"], row["episodes"]) == ("alphazero", 32)
        r = client.post("/api/games", json={"policy": snap["policy"], "first": "ai", "seed": 1})
        assert r.status_code == 200, r.text
        state = r.json()
        while state["result"] is None:
            r = client.post(
                f"/api/games/{state['id']}/moves", json={"move": state["legal_moves"][0]}
            )
            assert r.status_code == 200, r.text
            state = r.json()
        page = client.get(f"/policies/{snap['policy']}/inspect")
        assert page.status_code == 200 and "AlphaZero" in page.text
        played = client.get(f"/policies/{snap['policy']}/play")
        assert played.status_code == 200, played.text
        form = client.get("/train").text
        assert 'name="channels"' in form and 'name="simulations"' in form
        bad = client.post(
            "/api/train", json={"game": "tictactoe", "learner": "alphazero", "channels": 0}
        )
        assert bad.status_code in (400, 422) and "channels" in bad.text


def test_two_workers_play_its_games_and_a_seed_learns_the_same_network() -> None:
    """On two worker processes (each playing half of a chunk's games with the latest
    weights), the same seed learns the same network, and the workers end with the run."""
    found = []
    for _ in range(2):
        net = qarena.train("tictactoe", "alphazero", 64, seed=4, workers=2, **SMALL)
        assert isinstance(net, AlphaZeroLearner) and net.episodes == 64
        assert net._pool is None  # the run is over: its workers ended with it
        found.append(net.net.weights)
    assert np.array_equal(found[0], found[1])
    alone = qarena.train("tictactoe", "alphazero", 64, seed=4, workers=1, **SMALL)
    assert isinstance(alone, AlphaZeroLearner)
    assert not np.array_equal(alone.net.weights, found[0])  # other shares, other games


@pytest.mark.slow  # a local Ray instance: 10 to 50 s to start
def test_on_ray_actors_it_learns_the_network_it_learns_on_local_workers(tmp_path: Path) -> None:
    """``--backend ray``: the chunk's shares played by two Ray actors on a local Ray instance
    give the same network, from the same seed, as two local worker processes."""
    common = ["train", "tictactoe", "--learner", "alphazero", "--episodes", "64",
              "--seed", "4", "--channels", "8", "--blocks", "1", "--simulations", "8",
              "--workers", "2"]  # fmt: skip
    assert run([*common, "--backend", "ray", "--out", str(tmp_path / "ray.npz")]) == 0
    assert run([*common, "--out", str(tmp_path / "local.npz")]) == 0
    on_ray = learners.load_learner(tmp_path / "ray.npz")
    local = learners.load_learner(tmp_path / "local.npz")
    assert isinstance(on_ray, AlphaZeroLearner) and isinstance(local, AlphaZeroLearner)
    assert on_ray.episodes == local.episodes == 64
    assert np.array_equal(on_ray.net.weights, local.net.weights)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--learner", "q", "--backend", "ray"], "--backend ray applies to --learner alphazero"),
        (["--learner", "alphazero", "--backend", "spark"], "unknown backend 'spark'"),
        (["--learner", "alphazero", "--ray-address", "x:1"],
         "--ray-address applies to --backend ray"),
    ],
)  # fmt: skip
def test_a_backend_it_cannot_use_is_refused_in_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["train", "tictactoe", *argv, "--episodes", "8"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_ray_not_installed_is_said_in_one_line_before_anything_is_trained(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else found(name, *a)
    )
    out = tmp_path / "az.npz"
    argv = ["train", "tictactoe", "--learner", "alphazero", "--backend", "ray"]
    assert run([*argv, "--episodes", "8", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "needs Ray" in err and "qarena[ray]" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_a_ray_address_nobody_answers_at_is_said_in_one_line_within_seconds(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Ray retries such an address for minutes, logging all the while; qarena tries it
    first (processes.CONNECT_SECONDS) and says so in one line, for sweeps too."""
    pytest.importorskip("ray")
    out = tmp_path / "az.npz"
    argv = ["train", "tictactoe", "--learner", "alphazero", "--backend", "ray"]
    started = time.monotonic()
    assert run([*argv, "--ray-address", address, "--episodes", "8", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot reach a Ray cluster at {address}" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    folder = tmp_path / "sweep"
    sweep = ["sweep", "nim:1,2", "--alpha", "0.5", "--backend", "ray", "--ray-address", address]
    assert run([*sweep, "--out", str(folder)]) == 2
    assert "cannot reach a Ray cluster" in capsys.readouterr().err
    assert time.monotonic() - started < 60


def test_a_file_with_a_broken_optimizer_state_is_refused_in_one_line(tmp_path: Path) -> None:
    """Adam's state is checked as the rest of the file is: its count of steps from the
    metadata before any array is read, its second moments not negative."""
    from qarena.learn.alphazero.files import load_net
    from qarena.learn.alphazero.net import Moments
    from qarena.policyfile import save_policy

    net = qarena.train("tictactoe", "alphazero", 32, seed=1, workers=1, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    good = tmp_path / "good.npz"
    net.save(good)
    loaded = load_net(good)
    assert loaded.moments is not None and loaded.moments.steps > 0
    size = net.net.weights.size
    # Numbers as learned ones are (noise), not constants: those deflate far more than any
    # learned array, and the file is refused for that first.
    rng = np.random.default_rng(0)
    for name, steps, second in (
        ("steps.npz", -1, np.zeros(size, np.float32)),
        ("negative.npz", 3, -rng.uniform(0.5, 1, size).astype(np.float32)),
    ):
        path = tmp_path / name
        meta = {**loaded.meta, "adam_steps": steps, "buffer": 0}
        arrays = {"weights": net.net.weights}
        if steps > 0:
            first = rng.normal(0, 1e-3, size).astype(np.float32)
            arrays.update(adam_first=first, adam_second=second)
        save_policy(str(path), arrays, meta)
        with pytest.raises(QarenaError, match="optimizer"):
            load_net(path)
    assert Moments  # the type a loaded file's state comes back as


class _StopAfter:
    """A stop that comes after ``calls`` looks at it: a Ctrl-C at a chosen moment."""

    def __init__(self, calls: int) -> None:
        self.calls, self.seen = calls, 0

    def __call__(self) -> bool:
        self.seen += 1
        return self.seen > self.calls


def _loop(spec: str = "tictactoe", **shape: int) -> tuple[object, object]:
    from qarena.learn.alphazero.learner import LearningSettings, SelfPlayLearning
    from qarena.learn.alphazero.net import PolicyValueNet
    from qarena.learn.alphazero.search import SearchSettings

    game = parse_spec(spec)
    assert game.grid is not None
    net = PolicyValueNet.new(game.grid, shape.get("channels", 8), shape.get("blocks", 1), 0)
    loop = SelfPlayLearning(game, net, SearchSettings(simulations=8), LearningSettings(seed=1))
    return loop, net


def test_a_stop_during_its_games_drops_them_and_changes_nothing() -> None:
    """A stop reached while a chunk's games are searched (each simulation step looks) ends
    them at once: nothing counted, the buffer and the weights as they were."""
    from qarena import threads
    from qarena.learn.alphazero.learner import SelfPlayLearning

    loop, _net = _loop()
    assert isinstance(loop, SelfPlayLearning)
    loop.play_and_learn(8)
    weights, filled = loop.net.weights.copy(), loop._filled
    stop = _StopAfter(3)
    with threads.limit(should_stop=stop), pytest.raises(threads.Stopped):
        loop.play_and_learn(8)
    assert stop.seen == 4  # the fourth look stopped it, within the first move's search
    assert loop.games == 8 and loop._filled == filled
    assert np.array_equal(loop.net.weights, weights)


def test_a_stop_during_learning_keeps_the_games_and_the_steps_taken() -> None:
    """A stop reached between learning steps ends the chunk there: its games are counted and
    in the buffer, the steps taken before the stop are kept, no more are taken."""
    from qarena import threads
    from qarena.learn.alphazero.learner import SelfPlayLearning

    loop, _net = _loop()
    assert isinstance(loop, SelfPlayLearning)
    loop.play_and_learn(32)
    # The same chunk counted: each simulation step of its games looks once, then each step.
    counting = _StopAfter(10**9)
    with threads.limit(should_stop=counting):
        second = loop.play_and_learn(32)
    assert second.steps > 2
    searched = counting.seen - second.steps
    # A network and loop made alike play that chunk alike; stopped after two steps.
    again, _ = _loop()
    assert isinstance(again, SelfPlayLearning)
    again.play_and_learn(32)
    steps_before = again.trainer.moments().steps
    with threads.limit(should_stop=_StopAfter(searched + 2)):
        report = again.play_and_learn(32)
    assert report.steps == 2 and report.games == 32 and report.positions == second.positions
    assert again.games == 64
    assert again.trainer.moments().steps == steps_before + 2


def test_a_stop_inside_a_large_networks_step_takes_no_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large network learns a batch in pieces, looking at a stop between them; a stop there
    leaves the weights and Adam's state as they were (no half step)."""
    from qarena import threads
    from qarena.learn.alphazero import net as az_net

    game = parse_spec("tictactoe")
    assert game.grid is not None
    net = az_net.PolicyValueNet.new(game.grid, 8, 1, 0)
    # Pieces of about 10 boards: a batch of 64 is learned in 7.
    monkeypatch.setattr(az_net, "PIECE_MACS", 30 * az_net.forward_macs(game.grid, 8, 1))
    assert az_net.piece_size(game.grid, 8, 1, passes=3) == 10
    trainer = az_net.Trainer(net, 1e-2, 1e-4)
    rng = np.random.default_rng(0)
    boards = rng.integers(0, 3, (64, 9)).astype(np.int8)
    movers = rng.integers(0, 2, 64).astype(np.int8)
    policy = np.full((64, 9), 1 / 9, np.float32)
    value = rng.uniform(-1, 1, 64).astype(np.float32)
    trainer.step(boards, movers, policy, value, rng)
    trainer.done()
    before, moments = net.weights.copy(), trainer.moments()
    with threads.limit(should_stop=_StopAfter(3)), pytest.raises(threads.Stopped):
        trainer.step(boards, movers, policy, value, rng)
    trainer.done()
    assert np.array_equal(net.weights, before)
    after = trainer.moments()
    assert after.steps == moments.steps == 1
    assert np.array_equal(after.first, moments.first)
    # Without a stop the pieces make one step whose losses are the batch's means.
    v, p = trainer.step(boards, movers, policy, value, rng)
    assert trainer.moments().steps == 2 and 0 < v < 4 and p > 0


def test_a_stop_ends_its_worker_processes_mid_chunk() -> None:
    """With worker processes, the wait for a chunk's games looks at the stop every 0.1 s and
    the workers are ended: a run of 64 games at 4,000 simulations a move (minutes a chunk)
    stopped after a second ends with nothing counted and its workers gone."""
    net = qarena.train("tictactoe", "alphazero", 8, seed=1, **SMALL)
    assert isinstance(net, AlphaZeroLearner)
    net.config = type(net.config)(**{**net.config.to_dict(), "simulations": 4000})
    deadline = time.monotonic() + 1.0
    moves = net.train_chunk(64, 64, workers=2, should_stop=lambda: time.monotonic() > deadline)
    assert moves == 0 and net.games == 8
    assert net._pool is None


def test_it_is_asked_at_positions_in_batches_as_one_by_one(trained: AlphaZeroLearner) -> None:
    """``choices_at`` (the batched asking a uniform sample uses at images of its rows) picks
    what ``choices`` picks at each position on its own."""
    from qarena.exact.space import game_tables

    game = trained.game
    tables = game_tables(game, canonical=False)
    positions = [tables.position(int(r)) for r in np.flatnonzero(tables.live)[::7]]
    batched = trained.choices_at(positions)
    for i, position in enumerate(positions):
        assert np.flatnonzero(batched[i]).tolist() == trained.choices(position)
