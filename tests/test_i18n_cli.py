"""The command line in German: with ``--lang de`` or ``QARENA_LANG=de`` every text a person
reads comes from the German catalog (tables, status lines, errors, typer's own words, the game's
rules and theory), while ``--json``, the game's data and the English output stay as they were."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from qarena.cli import run
from qarena.cli.app import app, click_message
from qarena.errors import SpecError
from qarena.games import DRAW, LOSS, WIN, parse_spec, value_name, value_word
from qarena.i18n import _ as translated
from qarena.i18n import speaking
from qarena.learn.learners import load_learner
from qarena.show.figures import PlotRun, describe

QARENA = Path(sys.executable).parent / "qarena"
# The first run may compile the numba kernels (cached on disk afterwards).
FIRST_TIMEOUT = 120
#: Table borders, rules and line breaks: a phrase a narrow table wraps is found across them.
_LAYOUT = re.compile(r"[\s│┃║─━═┌┐└┘├┤┬┴┼┏┓┗┛┡┩╇┣┫┳┻╋╭╮╯╰]+")


def _flat(text: str) -> str:
    return _LAYOUT.sub(" ", text)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _absent(text: str, *words: str) -> None:
    for word in words:
        assert word not in text, f"{word!r} is left in English:\n{text}"


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A perfect nim agent with a learning curve (trained in English; the file is data)."""
    path = tmp_path_factory.mktemp("german") / "nim.npz"
    args = ["train", "nim", "-o", str(path), "--episodes", "3000", "--seed", "1", "--curve"]
    assert run(args) == 0
    return path


def test_solve_speaks_german(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--lang", "de", "solve", "nim")
    assert code == 0 and err == ""
    text = _flat(out)
    assert "Nim 3-5-7 (Misère)" in text
    assert "Stellung 3 5 7" in text
    assert "Wert gewonnen für den Spieler am Zug, in 14 Halbzügen bei bestem Spiel" in text
    assert "optimale Züge 1:1 2:1 3:1" in text
    assert "Stellungen 192 vom Start aus erreichbar" in text
    _absent(text, "position", "value", "for the player to move", "plies", "reachable", "misère)")


def test_solve_a_position_speaks_german(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "solve", "tictactoe", "--position", "xx./oo./...", "--lang", "de")
    assert code == 0
    text = _flat(out)
    assert "Tic-Tac-Toe 3×3, 3 in einer Reihe" in text
    assert "am Zug x" in text
    # One ply is singular in German (English keeps its "1 plies").
    assert "gewonnen für den Spieler am Zug, in 1 Halbzug bei bestem Spiel" in text
    code, out, _ = _run(capsys, "--lang=de", "solve", "tictactoe", "-p", "xxx/oo./...")
    assert code == 0
    assert "verloren (das Spiel ist vorbei)" in _flat(out)
    _absent(out, "to move", "the game is over", "loss")


def test_json_stays_english_and_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "de", "solve", "nim", "--json")
    assert code == 0
    assert json.loads(out)["value"] == "win"
    code, out, _ = _run(capsys, "--lang", "de", "explain", "nim", "--json")
    record = json.loads(out)
    assert record["value"] == "win" and record["rule"] == "bouton"
    assert record["explanation"][1].startswith("The nim-sum is 1, not 0: win for the player")


def test_train_table_speaks_german(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "agent.npz"
    code, out, _ = _run(
        capsys,
        "--lang",
        "de",
        "train",
        "nim",
        "-o",
        str(out_file),
        "--episodes",
        "3000",
        "--seed",
        "1",
        "--until-perfect",
        "--curve",
    )
    assert code == 0 and out_file.exists()
    text = _flat(out)
    assert "auf Nim 3-5-7 (Misère)" in text
    assert "Gegner self" in text
    assert "Episoden" in text and "Züge/s" in text
    assert "Entscheidungsstellungen" in text
    assert re.search(r"perfektes Spiel nach \d{1,3}(\.\d{3})* Episoden", text)
    assert re.search(r"Lernkurve [\d.]+ Punkte, einer je [\d.]+ Episoden", text)
    # Numbers as German writes them: a comma before the decimals, a dot between thousands.
    assert re.search(r"Optimalität 1,0000 \(164 von 164", text)
    assert re.search(r"Episoden \d{1,3}\.\d{3}\b", text)
    assert "nim:3,5,7" in text  # the spec stays as it is typed
    assert "gespeichert in " in text  # the path itself may be cut by the table
    _absent(text, "opponent", "episodes", "moves/s", "decision positions", "saved to", " on Nim")


def test_eval_speaks_german(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "de", "eval", str(policy), "--games", "50", "--lengths")
    assert code == 0
    text = _flat(out)
    assert "3.000 Episoden" in text
    assert "Optimalität 1,0000: hält den Wert in 164 von 164 Entscheidungsstellungen" in text
    assert "Sieg/Remis/Niederlage über 50 Spiele auf jedem Platz" in text
    assert "Gegner Agent zieht zuerst Agent zieht als Zweiter" in text
    assert "Spiele nach Länge in Halbzügen, beide Plätze" in text
    for word in ("Mittel", "Agent zuerst", "Agent als Zweiter", "kürzestes", "längstes"):
        assert word in text
    _absent(text, "win/draw/loss", "agent moves first", "games by length", "shortest")
    code, out, _ = _run(capsys, "--lang", "de", "eval", "poles", "--game", "nim", "--games", "10")
    assert code == 0
    assert "Der Spieler „poles“ auf Nim 3-5-7 (Misère)" in _flat(out)


def test_table_and_compete_speak_german(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "de", "table", str(policy))
    assert code == 0
    text = _flat(out)
    assert "Stellung 3 5 7: gewonnen für den Spieler am Zug" in text
    assert "Zug" in text and "Solver" in text
    assert "hält den Sieg ← Wahl des Agenten" in text
    assert "✗ verschenkt den Sieg (verloren)" in text
    _absent(text, "keeps the win", "gives the win away", "agent's choice")
    code, out, _ = _run(capsys, "--lang", "de", "compete", str(policy), "random", "--games", "20")
    assert code == 0
    text = _flat(out)
    assert "20 Spiele in jeder Reihenfolge" in text
    assert "B: random (eingebauter Spieler)" in text
    for word in ("Reihenfolge", "A gewinnt", "Remis", "B gewinnt", "A zuerst", "beide"):
        assert word in text


def test_explain_speaks_german(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "de", "explain", "nim")
    assert code == 0
    text = _flat(out)
    assert "Stellung 3 5 7: gewonnen für den Spieler am Zug" in text
    assert "Haufen 1 3 011" in text and "Nim-Summe 1 001" in text
    assert "folgt Misère der Regel von Bouton" in text
    assert "gewinnende Züge: 1:1 1 von Haufen 1 nehmen, übrig bleibt 2 5 7" in text
    _absent(text, "nim-sum", "pile", "winning moves", "Bouton's rule")
    code, out, _ = _run(capsys, "--lang", "de", "explain", "tictactoe", "-p", "xx./oo./...")
    text = _flat(out)
    assert "gewonnen für x, in 1 Halbzug bei bestem Spiel" in text
    assert "x hat 3 in einer Reihe (a1 b1 c1)" in text
    assert "Keine geschlossene Regel: der Solver hat jede Stellung durchsucht." in text
    code, out, _ = _run(capsys, "--lang", "de", "explain", "nim:2,2", "--losing")
    text = _flat(out)
    assert "von 9 Stellungen sind für den Spieler am Zug verloren" in text
    assert "verloren in" in text and "Halbzug" in text


def test_watch_speaks_german(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "--lang",
        "de",
        "watch",
        "random",
        "perfect",
        "--game",
        "tictactoe",
        "-n",
        "1",
        "--delay",
        "0",
    )
    assert code == 0
    text = _flat(out)
    assert "B: perfect" in text
    assert "Spiel 1 von 1: A zieht zuerst" in text
    assert re.search(r"A \(x\) spielt [a-c][1-3]", text)
    assert "1 Spiel" in text
    for word in ("Spieler", "Siege", "Niederlagen", "Züge", "Wert gehalten"):
        assert word in text
    _absent(text, "Game 1 of 1", "moves first", "kept the value")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["solve", "foo"], "Fehler: unbekanntes Spiel 'foo' in 'foo'; erwartet wird nim[:HAUFEN"),
        (["solve", "nim:0"], "Fehler: 'nim:0': jeder Haufen muss eine ganze Zahl von 1 bis"),
        (["solve", "nim", "-p", "1 2"], "Fehler: Stellung '1 2' hat 2 Haufen, aber nim:3,5,7"),
        (["eval", "x", "--games", "0"], "Fehler: --games muss mindestens 1 sein, nicht 0"),
        (["solve", "nim", "--bogus"], "Fehler: Unbekannte Option: --bogus (siehe 'qarena solve"),
        (["solve"], "Fehler: Argument 'SPEC' fehlt. (siehe 'qarena solve --help')"),
        (["train", "nim", "--out"], "Fehler: Option '--out' braucht einen Wert."),
        (["solve", "nim", "extra"], "Fehler: Unerwartete zusätzliche Argumente (extra)"),
        (["solve", "nim", "-p"], "Fehler: Option '-p' braucht einen Wert."),
        (
            ["eval", "x", "--games", "abc"],
            "Fehler: Ungültiger Wert für '--games' / '-n': die Eingabe muss eine ganze Zahl sein",
        ),
        (["solv", "nim"], "Fehler: Unbekannter Befehl 'solv'. Meinten Sie 'solve'?"),
    ],
)
def test_errors_are_one_german_line(
    capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    code, out, err = _run(capsys, "--lang", "de", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(line), err
    _absent(err, "error:", "No such", "Missing", "Invalid value", "expected")


def test_click_lines_stay_english_in_english() -> None:
    lines = [
        "No such option: --bogus",
        "No such option: --gmes (Possible options: --games)",
        "Missing argument 'SPEC'.",
        "Missing option '--out' / '-o'.",
        "Invalid value for '--games' / '-n': Input should be a valid integer, unable to parse "
        "string as an integer",
        "Invalid value for '--alpha': Input should be a valid number, unable to parse string as "
        "a number",
        "Invalid value for '--x': 'z' is not one of 'a', 'b'.",
        "Got unexpected extra argument(s) (extra)",
        "Got unexpected extra arguments (a b)",
        "Option '-p' requires an argument.",
        "Option '--json' does not take a value.",
        "No such command 'solv'. Did you mean 'solve'?",
        "something click says that qarena does not know",
    ]
    with speaking("en"):
        for line in lines:
            assert click_message(line) == line
    with speaking("de"):
        assert click_message(lines[0]) == "Unbekannte Option: --bogus"
        assert click_message(lines[-1]) == lines[-1]


def test_help_speaks_german_and_english_again(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "de", "solve", "--help")
    assert code == 0
    text = _flat(out)
    for word in ("Aufruf:", "Argumente", "Optionen", "Diese Hilfe zeigen und beenden."):
        assert word in text
    assert "Wert und optimale Züge der Startstellung" in text
    assert "[erforderlich]" in text
    _absent(text, "Usage:", "Options", "Arguments", "Show this message", "[required]")
    # The same process, English again: typer's words follow each run's language.
    code, out, _ = _run(capsys, "solve", "--help")
    assert code == 0
    assert "Usage:" in out and "Options" in out and "Show this message and exit." in out
    _absent(out, "Optionen", "Aufruf")


def test_qarena_lang_chooses_german(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QARENA_LANG", "de")
    code, out, _ = _run(capsys, "solve", "nim")
    assert code == 0 and "Stellungen 192 vom Start aus erreichbar" in _flat(out)
    code, out, _ = _run(capsys, "solve", "nim", "--lang", "en")  # --lang wins
    assert code == 0 and "192 reachable from the start" in _flat(out)
    code, _, err = _run(capsys, "solve", "nim", "--lang")
    assert code == 2 and err == "Fehler: --lang braucht eine Sprache, etwa --lang de\n"
    code, _, err = _run(capsys, "--lang", "xx", "solve", "nim")
    assert code == 2 and err.startswith("Fehler: unbekannte Sprache 'xx'; qarena spricht")


def test_words_of_games_and_figures_follow_the_language(policy: Path) -> None:
    game = parse_spec("subtraction")
    assert game.title == "Subtraction game, heap 12, take 1..3 (misère)"
    with speaking("de"):
        assert game.title == "Subtraktionsspiel, Haufen 12, 1..3 nehmen (Misère)"
        assert "Wer das letzte Streichholz nimmt, verliert." in game.rules_text()
        assert value_word(WIN) == "gewonnen" and value_word(DRAW) == "remis"
        assert value_word(LOSS) == "verloren"
        assert value_name(WIN) == "win"  # data stays English
        with pytest.raises(SpecError, match="unbekanntes Spiel 'schach'"):
            parse_spec("schach")
        texts = describe([PlotRun("nim", load_learner(policy))])
        assert "3.000 Episoden" in texts.subtitle
        assert " auf Nim 3-5-7 (Misère)" in texts.title
    assert value_word(WIN) == "win"


def test_play_speaks_german() -> None:
    # TERM=dumb: rich prints plain text, so a style never splits a phrase the test looks for.
    env = {**os.environ, "TERM": "dumb", "QARENA_LANG": "de"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        str(QARENA),
        ["play", "nim:1,2", "--seed", "1"],
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 120),
        env=env,
    )
    log = io.StringIO()
    child.logfile_read = log
    move = "Ihr Zug: "
    child.expect(r"Trainiere einen Agenten \(.+\) für nim:1,2 im Selbstspiel…", FIRST_TIMEOUT)
    child.expect("perfektes Spiel nach")
    child.expect(r"Wer das letzte\s+Streichholz nimmt,\s+verliert\.")  # lines wrap at 80
    child.expect("Sie ziehen zuerst.")
    child.expect(r"Haufen 1 \(1\)  \|\r\n")
    child.expect(r"Haufen 2 \(2\)  \| \|\r\n")
    child.expect("Sie sind am Zug.")
    child.expect(r"2:2\s+\+\d,\d+\s+← das würde die KI spielen")  # German: decimal comma
    child.expect(move)
    for typed, answer in [
        ("hallo", r"Zug 'hallo' hat nicht die Form HAUFEN:ANZAHL"),
        ("9:9", r"Es gibt keinen Haufen 9; die Haufen sind 1\.\.2\."),
        ("1:5", r"\d+ können nicht von Haufen 1 genommen werden"),
        ("", r"Einen Zug eingeben, etwa 1:1, oder \? für Hilfe\."),
        ("?", r"Züge: HAUFEN:ANZAHL nimmt ANZAHL Streichhölzer.*Befehle: u nimmt"),
    ]:
        child.sendline(typed)
        child.expect(answer)
        child.expect(move)
    child.sendline("2:1")
    child.expect(r"Die KI nimmt 1 von Haufen \d \((1|2):1\)\.")
    child.expect(move)
    child.sendline("u")
    child.expect(r"Ihr Zug 2:1 und die Antwort der KI (1|2):1 wurden zurückgenommen\.")
    child.expect(move)
    child.sendline("2:2")
    child.expect(r"Die KI nimmt 1 von Haufen 1 \(1:1\)\.")  # its only move
    child.expect("Stand: Sie 1 – KI 0 – Remis 0")
    child.expect(r"Noch einmal spielen\? \[j/n\] ")
    child.sendline("vielleicht")
    child.expect("Bitte mit j oder n antworten.")
    child.sendline("n")
    child.expect("Auf Wiedersehen.")
    child.expect(pexpect.EOF)
    child.close()
    text = log.getvalue()
    assert child.exitstatus == 0, text
    assert "Traceback" not in text
    _absent(text, "Your move", "Your turn", "You move first", "Pile 1", "Goodbye", "Score:")


@pytest.mark.parametrize(
    ("answer", "again"),
    [("n", False), ("N", False), ("nein", False), ("j", True), ("J", True), ("y", True)],
)
def test_play_again_takes_german_and_latin_letters(answer: str, again: bool) -> None:
    """The German prompt shows [j/n]; j, n and the English y take, in any case."""
    with speaking("de"):
        result = CliRunner().invoke(
            app, ["play", "nim:1,2", "--seed", "1"], input=f"2:2\n{answer}\n"
        )
        prompt = translated("Play again? [y/n] ")
        unclear, move = translated("Please answer y or n."), translated("Your move: ")
    assert result.exit_code == 0, result.output
    assert prompt in result.output and unclear not in result.output
    assert (move in result.output.split(prompt, 1)[1]) is again
