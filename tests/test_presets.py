"""Presets: each reads back as its write-up's numbers, and a run keeps the preset it started
from and what was given over it (train, eval, the API, sweeps).

The write-ups' figures are written here as constants, each with where the write-up gives it:
CI has no copy of the write-ups, so nothing is read from them."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

import qarena
from qarena.cli.app import run
from qarena.errors import QarenaError
from qarena.learn.learners import TABLE_LEARNERS as LEARNERS
from qarena.learn.learners import load_learner
from qarena.learn.presets import BY_NAME, PRESETS, preset
from qarena.learn.settings import NAMES
from qarena.learn.tables.base import LearnConfig
from qarena.policyfile import read_meta

# Seed 000, the term paper "Advanced Nim" (German). Its NimAI's constructor:
# "def __init__(self, learningrate=0.1, discount=0.8, epsilon=0.1)"; the rewards are set in
# train(): "player.update(state, action, new_state, -100)" and "... new_state, 100"; "Gibt
# Q-Value ... falls vorhanden, sonst 0"; "def train(n, startboard=[3,5,7])" and the run
# "ai = train(100000, startboard)"; "Verloren hat der Spieler, der das letzte Streichholz
# aufnimmt" (misère). One table for both players, the mover's value: qarena's seat-q.
PAPER_ALPHA, PAPER_GAMMA, PAPER_EPSILON = 0.1, 0.8, 0.1
PAPER_REWARDS = (100.0, 0.0, -100.0)
PAPER_GAMES = 100_000

# Seed 001, "Nimm-Spiel" (German): "Auf einen Haufen liegen zwölf Hölzchen ... ein bis drei
# Hölzchen ... Der Spieler, der das letzte Hölzchen nimmt, hat verloren"; "fängt die KI immer
# mit dem ersten Zug an"; first version "nimmt immer nur den letzten Zug ... raus, wenn sie
# verloren hat ... wählt sie einfach einen zufälligen Zug" (no exploration rate: ε 0); the
# better one "markiert zusätzlich, wenn alle Züge verlierend sind, auch den letzten Zug";
# trained "mit random_move" (the first of its four combinations). No number of games given.
NIMM_GAME, NIMM_SEAT, NIMM_OPPONENT = "subtraction:12:3", "first", "random"

# Seed 002, the course notebook (English): "def __init__(self, alpha=0.5, epsilon=0.1)";
# "old_q + self.alpha * (reward + future_rewards - old_q)" (no discount); rewards -1 and 1
# in train(); get_q_value "return 0"; "def __init__(self, initial=[1, 3, 5, 7])" and its move()
# makes the player who did not take the last object the winner (misère); "After training the
# AI for 10000 games".
NOTEBOOK_ALPHA, NOTEBOOK_EPSILON, NOTEBOOK_GAMMA = 0.5, 0.1, 1.0
NOTEBOOK_REWARDS = (1.0, 0.0, -1.0)
NOTEBOOK_GAMES = 10_000

# Seed 003, the tic-tac-toe blog (German): initialize_q writes "1 – Gewonnen, 0.5 –
# Unentschieden, 0 – Verloren, 0.25 Gewinner steht noch nicht fest"; update_q:
# "td_error = 0.1 * (self.q[states[i + 1]] - self.q[state])" then "self.q[state] +=
# self.alpha * td_error" (no discount); train(): "KI(name='ki1', symbol=1, step_size=0.99,
# epsilon=0.5)", "KI(name='ki2', symbol=-1, step_size=0.8, epsilon=0.2)"; "train(50000)".
BLOG_STEP_FIRST = 0.1 * 0.99  # 0.099
BLOG_STEP_SECOND = 0.1 * 0.8  # 0.08
BLOG_EPSILON_FIRST, BLOG_EPSILON_SECOND = 0.5, 0.2
BLOG_REWARDS, BLOG_INITIAL, BLOG_GAMMA = (1.0, 0.5, 0.0), 0.25, 1.0
BLOG_GAMES = 50_000

# Seed 004, the CS50 solution (Russian): "def __init__(self, alpha=0.5, epsilon=0.1)";
# "new_value_estimate = reward + future_rewards" (no discount); rewards -1 and 1 in train();
# ".get() возвращает 0"; "def __init__(self, initial=[1, 3, 5, 7])"; "Тот, кто уберет
# последний объект, проигрывает" (misère). It gives no number of training games.
CS50_ALPHA, CS50_EPSILON, CS50_GAMMA, CS50_REWARDS = 0.5, 0.1, 1.0, (1.0, 0.0, -1.0)


def _record(name: str, overridden: list[str]) -> dict[str, Any]:
    """A run's preset record: the preset's name, every value it gave, what was given over it."""
    return {"name": name, "settings": preset(name).record_values(), "overridden": overridden}


def _config(name: str) -> LearnConfig:
    """What a fresh learner of the preset is given: the learner's defaults under the preset."""
    p = preset(name)
    cls = LEARNERS[p.learner]
    return cls.build_config(p.values)


def test_the_presets_are_one_per_write_up_method() -> None:
    assert [p.name for p in PRESETS] == [
        "advanced-nim",
        "nimm12-first",
        "nimm12-better",
        "course-notebook",
        "tictactoe-blog",
        "cs50-nim",
    ]
    assert [p.source for p in PRESETS] == ["000", "001", "001", "002", "003", "004"]
    for p in PRESETS:
        assert set(p.values) <= set(NAMES)
        # Every setting it names, its learner reads: nothing is silently ignored.
        assert set(p.values) <= set(LEARNERS[p.learner].hyperparameters), p.name


def test_advanced_nim_is_the_term_papers_settings() -> None:
    p, c = preset("advanced-nim"), _config("advanced-nim")
    assert (p.game, p.learner, p.opponent, p.episodes) == ("nim:3,5,7", "seat-q", "self", 100_000)
    assert (c.alpha, c.gamma, c.epsilon) == (PAPER_ALPHA, PAPER_GAMMA, PAPER_EPSILON)
    assert c.schedule == "constant" and c.rewards == PAPER_REWARDS and c.initial == 0.0
    assert p.episodes == PAPER_GAMES and c.starts == 0.0


@pytest.mark.parametrize(("name", "learner"), [("nimm12-first", "elimination"),
                                               ("nimm12-better", "chain-elimination")])  # fmt: skip
def test_the_12_stick_presets_are_the_write_ups_two_versions(name: str, learner: str) -> None:
    p, c = preset(name), _config(name)
    assert (p.game, p.learner, p.seat, p.opponent) == (NIMM_GAME, learner, NIMM_SEAT, NIMM_OPPONENT)
    assert (c.epsilon, c.schedule, c.starts) == (0.0, "constant", 0.0)
    assert p.episodes is None  # the write-up gives none


def test_course_notebook_and_cs50_are_their_write_ups_settings() -> None:
    for name, alpha, eps, gamma, rewards in (
        ("course-notebook", NOTEBOOK_ALPHA, NOTEBOOK_EPSILON, NOTEBOOK_GAMMA, NOTEBOOK_REWARDS),
        ("cs50-nim", CS50_ALPHA, CS50_EPSILON, CS50_GAMMA, CS50_REWARDS),
    ):
        p, c = preset(name), _config(name)
        assert (p.game, p.learner, p.opponent) == ("nim:1,3,5,7", "seat-q", "self")
        assert (c.alpha, c.epsilon, c.gamma, c.rewards) == (alpha, eps, gamma, rewards)
        assert (c.schedule, c.initial, c.starts) == ("constant", 0.0, 0.0)
    assert preset("course-notebook").episodes == NOTEBOOK_GAMES
    assert preset("cs50-nim").episodes is None  # seed 004 never says how many games


def test_tictactoe_blog_is_the_blogs_two_agents() -> None:
    p, c = preset("tictactoe-blog"), _config("tictactoe-blog")
    assert (p.game, p.opponent, p.episodes) == ("tictactoe:3x3:3", "self", BLOG_GAMES)
    assert c.alpha == pytest.approx(BLOG_STEP_FIRST) and c.alpha_second == pytest.approx(
        BLOG_STEP_SECOND
    )
    assert (c.epsilon, c.epsilon_second) == (BLOG_EPSILON_FIRST, BLOG_EPSILON_SECOND)
    assert c.schedule == "constant"
    assert (c.rewards, c.initial, c.gamma, c.starts) == (BLOG_REWARDS, BLOG_INITIAL, BLOG_GAMMA, 0)


def test_an_unknown_preset_is_one_line_listing_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["train", "nim", "--preset", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nope" in err
    assert all(name in err for name in BY_NAME)
    with pytest.raises(QarenaError, match="unknown preset 'nope'"):
        qarena.train("nim", preset="nope")
    # Issue 54: a preset of 100,000 characters came back whole; at most 80 of them now.
    assert run(["train", "nim", "--preset", "p" * 100_000]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "p" * 79 + "…" in err and "p" * 81 not in err
    assert len(err) < 400


def test_a_preset_refuses_another_game_and_takes_other_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["train", "tictactoe", "--preset", "advanced-nim"]) == 2
    assert "advanced-nim is for nim:3,5,7, not tictactoe:3x3:3" in capsys.readouterr().err
    # The term paper plays any piles: its boards 1-2-3-4-5 take the preset too.
    agent = qarena.train("nim:1,2,3,4,5", preset="advanced-nim", episodes=100)
    assert agent.kind == "seat-q" and agent.config.gamma == PAPER_GAMMA
    assert agent.preset == _record("advanced-nim", ["episodes"])


def test_train_help_lists_the_presets_with_their_source(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    assert run(["train", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())
    for p in PRESETS:
        assert f"{p.name} (write-up {p.source}, " in shown


def test_options_override_a_preset_and_the_record_keeps_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.npz"
    argv = ["train", "nim:1,3,5,7", "--preset", "course-notebook", "--alpha", "0.2"]
    argv += ["--epsilon", "0.1", "--episodes", "500", "--out", str(out), "--json"]
    assert run(argv) == 0
    record = json.loads(capsys.readouterr().out)
    # --epsilon 0.1 is the preset's own value: not an override.
    assert record["preset"] == _record("course-notebook", ["episodes", "alpha"])
    meta = read_meta(out)
    assert meta["preset"] == record["preset"]
    assert meta["hyperparameters"]["alpha"] == 0.2
    assert meta["hyperparameters"]["gamma"] == NOTEBOOK_GAMMA  # the preset's, not seat-q's
    assert meta["learner"] == "seat-q" and meta["episodes"] == 500
    assert load_learner(out).preset == record["preset"]
    assert run(["eval", str(out), "--games", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["preset"] == record["preset"]
    assert run(["eval", str(out), "--games", "10"]) == 0
    assert "preset: course-notebook (overridden: episodes, alpha)" in capsys.readouterr().out


def test_self_play_over_a_preset_that_plays_first_takes_both_seats() -> None:
    agent = qarena.train("subtraction", preset="nimm12-better", opponent="self", episodes=200)
    assert agent.kind == "chain-elimination" and agent.episodes == 200
    assert agent.preset == _record("nimm12-better", ["opponent", "episodes"])


def test_another_learner_over_a_preset_drops_what_it_does_not_read() -> None:
    agent = qarena.train("subtraction", preset="nimm12-first", learner="q", episodes=200)
    assert agent.kind == "q" and agent.config.epsilon == 0.0
    assert agent.preset == _record("nimm12-first", ["learner", "episodes"])
    matchbox = qarena.train("nim", preset="advanced-nim", learner="matchbox", episodes=200)
    assert matchbox.kind == "matchbox" and matchbox.config.epsilon == PAPER_EPSILON


def test_a_sweep_over_a_preset_records_it_in_each_row(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    result = qarena.sweep(
        "subtraction", out, preset="nimm12-better", opponent=["random", "self"], games=20
    )
    rows = {r.opponent: r for r in result.rows}
    assert set(rows) == {"random", "self"}
    assert (rows["random"].preset, rows["random"].overridden) == ("nimm12-better", ())
    assert (rows["self"].preset, rows["self"].overridden) == ("nimm12-better", ("opponent",))
    assert rows["random"].learner == "chain-elimination" and rows["random"].seat == NIMM_SEAT
    with (out / "results.csv").open(encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert sorted((r["preset"], r["overridden"]) for r in table) == [
        ("nimm12-better", ""),
        ("nimm12-better", "opponent"),
    ]
    run_file = next((out / "runs").glob("*vs=random*.npz"))
    assert read_meta(run_file)["preset"] == _record("nimm12-better", [])


def test_the_web_trains_by_a_preset_and_shows_it(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from qarena.web import create_app
    from tests.test_web_api import wait_job

    with TestClient(create_app(tmp_path)) as client:
        page = client.get("/train").text
        assert '<select name="preset"' in page
        assert all(f'value="{p.name}"' in page for p in PRESETS)
        # The JSON API: the preset fills what the request leaves out.
        body = {"game": "subtraction", "preset": "nimm12-better", "episodes": 300}
        r = client.post("/api/train", json=body)
        assert r.status_code == 202, r.text
        done = wait_job(client, r.json()["job"])
        assert done["state"] == "done", done
        detail = client.get(f"/api/policies/{done['policy']}").json()
        assert detail["learner"] == "chain-elimination"
        assert detail["preset"] == _record("nimm12-better", ["episodes"])
        assert detail["training"]["opponent"] == NIMM_OPPONENT
        assert detail["training"]["seat"] == NIMM_SEAT
        assert detail["hyperparameters"]["canonical"] is False  # the write-up's own table
        # Issue 56: canonical sent over a preset is an override, the record keeps it.
        body = {"game": "nim:1,3,5,7", "preset": "course-notebook", "episodes": 100}
        r = client.post("/api/train", json={**body, "canonical": True})
        assert r.status_code == 202, r.text
        merged = client.get(f"/api/policies/{wait_job(client, r.json()['job'])['policy']}").json()
        assert merged["hyperparameters"]["canonical"] is True
        assert merged["preset"] == _record("course-notebook", ["episodes", "canonical"])
        bad = client.post("/api/train", json={"game": "nim", "preset": "nope"})
        assert bad.status_code in (400, 422) and "unknown preset" in bad.json()["detail"]
        # The form: its selects left at their defaults are the preset's; a field typed wins.
        form = {"game": "nim:1,3,5,7", "preset": "course-notebook", "learner": "q"}
        form |= {"opponent": "self", "seat": "both", "episodes": "200", "alpha": "0.3"}
        r = client.post("/train", data=form, follow_redirects=False)
        assert r.status_code == 303, r.text
        done = wait_job(client, r.headers["location"].split("/")[-1])
        detail = client.get(f"/api/policies/{done['policy']}").json()
        assert detail["learner"] == "seat-q" and detail["hyperparameters"]["alpha"] == 0.3
        assert detail["hyperparameters"]["gamma"] == NOTEBOOK_GAMMA
        # The form's table select left at its default: the preset's own table.
        assert detail["hyperparameters"]["canonical"] is False
        assert detail["preset"] == _record("course-notebook", ["episodes", "alpha"])
        shown = client.get(f"/policies/{done['policy']}/inspect").text
        assert "course-notebook (overridden: episodes, alpha)" in shown


def test_the_training_guide_lists_every_preset_as_declared() -> None:
    from qarena.learn.presets import markdown_table

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "training.md"
    table = markdown_table()
    assert table in page.read_text(encoding="utf-8"), "run: python tools/settings_table.py"
    # The table says each preset's own options: the term paper's, as train takes them.
    assert "--alpha 0.1 --gamma 0.8 --epsilon 0.1" in table and "--rewards 100,0,-100" in table


# Issue 56: a preset trains the write-up's own kind of table. Each write-up keys its table by
# the position as it lies: 000 by the piles in their order (it weighs sorting them, which would
# merge their orders, and keeps them: "realitätsgetreu"), 002 and 004 by "tuple(state)" (004's
# task text: the pile sizes "по порядку", in order), 003 by one number per board (mirror images
# apart); 001 plays one heap, which has no symmetry. Tic-tac-toe has 5,478 legal positions in
# 765 classes under the board's 8 symmetries; nim 1-3-5-7 has 2·4·6·8 = 384 positions.
TICTACTOE_POSITIONS, TICTACTOE_CLASSES = 5_478, 765
NIM_1357_POSITIONS = 2 * 4 * 6 * 8
# The term paper's preset as its record keeps it, every value from the constants above.
PAPER_RECORD = {
    "learner": "seat-q",
    "opponent": "self",
    "seat": "both",
    "episodes": PAPER_GAMES,
    "canonical": False,
    "alpha": PAPER_ALPHA,
    "gamma": PAPER_GAMMA,
    "epsilon": PAPER_EPSILON,
    "epsilon_end": PAPER_EPSILON,
    "schedule": "constant",
    "rewards": list(PAPER_REWARDS),
    "initial": 0.0,
    "starts": 0.0,
}
# Where the write-ups are, beside this repository's clone (absent on CI's clean clone).
SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _nim_classes(piles: tuple[int, ...]) -> int:
    """Positions of nim up to the order of heaps: sorted heap sizes that fit under the sorted
    starting heaps (the j-th smallest at most the j-th smallest start)."""
    import itertools

    bound = sorted(piles)
    return sum(
        1
        for sizes in itertools.product(*(range(b + 1) for b in bound))
        if list(sizes) == sorted(sizes)
    )


def test_no_write_up_merged_symmetric_positions() -> None:
    assert [p.canonical for p in PRESETS] == [False] * len(PRESETS)


@pytest.mark.parametrize(
    ("spec", "name", "positions", "classes"),
    [
        ("tictactoe", "tictactoe-blog", TICTACTOE_POSITIONS, TICTACTOE_CLASSES),
        ("nim:1,3,5,7", "course-notebook", NIM_1357_POSITIONS, _nim_classes((1, 3, 5, 7))),
        ("nim:1,3,5,7", "cs50-nim", NIM_1357_POSITIONS, _nim_classes((1, 3, 5, 7))),
    ],
)
def test_a_preset_trains_one_entry_per_position_unless_asked(
    spec: str, name: str, positions: int, classes: int
) -> None:
    own = qarena.train(spec, preset=name, episodes=50)
    assert not own.config.canonical and own.tables.rows == positions
    assert own.preset is not None and "canonical" not in own.preset["overridden"]
    merged = qarena.train(spec, preset=name, episodes=50, canonical=True)
    assert merged.config.canonical and merged.tables.rows == classes < positions
    assert merged.preset is not None and merged.preset["overridden"] == ["episodes", "canonical"]
    # Without a preset, qarena's merged table, as before.
    assert qarena.train(spec, episodes=50).tables.rows == classes


def test_canonical_over_a_preset_is_an_override_the_record_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "merged.npz"
    argv = ["train", "nim:3,5,7", "--preset", "advanced-nim", "--episodes", "200", "--canonical"]
    assert run([*argv, "--out", str(out), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["preset"]
    assert record == {
        "name": "advanced-nim",
        "settings": PAPER_RECORD,
        "overridden": ["episodes", "canonical"],
    }
    meta = read_meta(out)
    assert meta["preset"] == record and meta["hyperparameters"]["canonical"] is True
    # --no-canonical is the preset's own table: given, it is no override.
    own = tmp_path / "own.npz"
    argv[-1] = "--no-canonical"
    assert run([*argv, "--out", str(own), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["preset"]["overridden"] == ["episodes"]
    assert read_meta(own)["rows"] == 4 * 6 * 8  # every position of 3-5-7
    # What shows a policy shows every value and every override.
    assert run(["eval", str(out), "--games", "10"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "advanced-nim (overridden: episodes, canonical): --learner seat-q --alpha 0.1" in shown
    assert "--rewards 100,0,-100" in shown and "--episodes 100000 --no-canonical" in shown
    # Resumed under the preset, the file keeps its merged table (not an error), said as an
    # override; asking for the preset's own table over it is refused in one line.
    more = tmp_path / "more.npz"
    again = ["train", "nim:3,5,7", "--preset", "advanced-nim", "--episodes", "100"]
    assert run([*again, "--resume", str(out), "--out", str(more), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)["preset"]
    assert resumed["overridden"] == ["episodes", "canonical"]
    assert read_meta(more)["hyperparameters"]["canonical"] is True
    assert run([*again, "--resume", str(out), "--no-canonical", "--out", str(more)]) == 2
    assert "--no-canonical cannot change that" in capsys.readouterr().err


def test_a_record_from_before_the_values_were_kept_still_reads() -> None:
    from qarena.learn.presets import record_text
    from qarena.learn.tables.files import read_preset_record

    old = {"name": "course-notebook", "overridden": ["alpha"]}
    assert read_preset_record(old) == old
    assert record_text(old) == "course-notebook (overridden: alpha)"
    new = {"name": "advanced-nim", "settings": PAPER_RECORD, "overridden": []}
    assert read_preset_record(new) == new
    assert record_text(new).startswith("advanced-nim: --learner seat-q --alpha 0.1 --gamma 0.8")
    for bad in (
        {"name": "x", "settings": [], "overridden": []},
        {"name": "x", "settings": {"alpha": {"nested": 1}}, "overridden": []},
        {"name": "x", "settings": {}, "overridden": [], "more": 1},
    ):
        with pytest.raises(QarenaError, match="its preset record is malformed"):
            read_preset_record(bad)


def test_a_sweep_over_a_preset_learns_every_position_and_records_canonical(
    tmp_path: Path,
) -> None:
    from qarena.experiments.grid import Fixed, sweep_command, with_preset
    from qarena.games import parse_spec

    own = qarena.sweep("nim:1,3,5,7", tmp_path / "own", preset="course-notebook", episodes=50,
                       games=20)  # fmt: skip
    (row,) = own.rows
    assert row.canonical is False and row.overridden == ("episodes",)
    run_file = next((tmp_path / "own" / "runs").glob("*.npz"))
    assert read_meta(run_file)["rows"] == NIM_1357_POSITIONS
    merged = qarena.sweep("nim:1,3,5,7", tmp_path / "merged", preset="course-notebook",
                          episodes=50, games=20, canonical=True)  # fmt: skip
    (row,) = merged.rows
    assert row.canonical is True and row.overridden == ("episodes", "canonical")
    run_file = next((tmp_path / "merged" / "runs").glob("*.npz"))
    assert read_meta(run_file)["preset"]["overridden"] == ["episodes", "canonical"]
    # The commands that give them again say the merged table over the preset.
    game = parse_spec("nim:1,3,5,7")
    grid = with_preset("course-notebook", game, None, {}, None, None, (50,), (0,))
    assert "--canonical" in sweep_command(grid, Fixed(game.spec, canonical=True), "d").split()
    assert "--canonical" not in sweep_command(grid, Fixed(game.spec, canonical=False), "d")
    (setting,) = grid.settings(game)
    assert setting.command(game.spec, "x.npz", canonical=True).endswith("--canonical")


def test_presets_lists_each_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["presets", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["presets"]
    assert [p["name"] for p in listed] == [p.name for p in PRESETS]
    paper = listed[0]
    assert (paper["source"], paper["game"], paper["learner"]) == ("000", "nim:3,5,7", "seat-q")
    assert (paper["opponent"], paper["episodes"], paper["canonical"]) == (
        "self",
        PAPER_GAMES,
        False,
    )
    assert listed[1]["opponent"] == NIMM_OPPONENT and listed[1]["seat"] == NIMM_SEAT
    assert run(["presets"]) == 0
    shown = capsys.readouterr().out
    for p in PRESETS:
        assert p.name in shown and p.learner in shown


def test_presets_name_gives_each_value_with_its_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["presets", "advanced-nim", "--json"]) == 0
    detail = json.loads(capsys.readouterr().out)
    rows = {r["setting"]: r for r in detail["sources"]}
    assert rows["alpha"]["option"] == "--alpha 0.1" and rows["alpha"]["where"] == "000 line 290"
    assert rows["episodes"] == {"setting": "episodes", "option": "--episodes 100000",
                                "lines": [486], "where": "000 line 486", "note": ""}  # fmt: skip
    assert rows["canonical"]["option"] == "--no-canonical" and rows["canonical"]["note"]
    assert rows["rewards"]["option"] == "--rewards 100,0,-100"
    assert detail["settings"]["rewards"] == list(PAPER_REWARDS)
    # The blog's step is a reading: its note says so.
    assert run(["presets", "tictactoe-blog", "--json"]) == 0
    blog = {r["setting"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert (
        blog["alpha"]["where"] == "003 lines 199, 235, 360" and "step_size" in blog["alpha"]["note"]
    )
    # A write-up that gives no number of games: no line, and a note saying so.
    assert run(["presets", "cs50-nim"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "the write-up gives no number of games" in shown and "004 line 81" in shown
    assert run(["presets", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "unknown preset 'nope'" in err


def test_every_value_of_a_preset_names_its_source() -> None:
    for p in PRESETS:
        named = [s.setting for s in p.sources]
        assert len(named) == len(set(named)), p.name
        needed = {"game", "learner", "opponent", "episodes", "canonical", *p.values}
        if p.opponent != "self":
            needed.add("seat")
        assert set(named) == needed, p.name
        for s in p.sources:
            # A value without a line is one the write-up does not give, and says so.
            assert bool(s.lines) == bool(s.written), (p.name, s.setting)
            assert s.lines or (s.setting == "episodes" and p.episodes is None and s.note)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the write-ups are not beside this clone")
def test_each_cited_line_holds_the_value_as_its_write_up_writes_it() -> None:
    for p in PRESETS:
        (path,) = SEEDS.glob(f"{p.source}_*.txt")
        lines = path.read_text(encoding="utf-8").split("\n")
        for s in p.sources:
            cited = [lines[n - 1] for n in s.lines]
            for n, text in zip(s.lines, cited, strict=True):
                assert any(w in text for w in s.written), (p.name, s.setting, n)
            for w in s.written:
                assert any(w in text for text in cited), (p.name, s.setting, w)
    # The values themselves, as the write-ups write them, on the lines cited.
    paper = (SEEDS / next(SEEDS.glob("000_*.txt")).name).read_text(encoding="utf-8").split("\n")
    assert "learningrate=0.1, discount=0.8, epsilon=0.1" in paper[290 - 1]
    assert "train(100000," in paper[486 - 1]
    blog = next(SEEDS.glob("003_*.txt")).read_text(encoding="utf-8").split("\n")
    assert "step_size=0.99, epsilon=0.5" in blog[360 - 1]
    assert "step_size=0.8, epsilon=0.2" in blog[361 - 1]
    assert "train(50000)" in blog[431 - 1] and "0.25" in blog[193 - 1]


def test_a_network_beside_a_preset_s_own_table_is_not_refused(tmp_path: Path) -> None:
    # The preset's table (every position) is its table learners'; the network reads the board
    # as it is, and was never asked for --no-canonical.
    result = qarena.sweep("tictactoe", tmp_path / "s", ["game-backup", "ntuple"],
                          preset="tictactoe-blog", episodes=100, games=10)  # fmt: skip
    rows = {r.learner: r for r in result.rows}
    assert rows["game-backup"].canonical is False and rows["ntuple"].canonical is None
    assert "canonical" not in rows["game-backup"].overridden
