"""Russian, the third language: the checks German passes (tests/test_i18n_cli.py,
tests/test_i18n_web.py), in Russian. Expected lines are the catalog's own texts, formatted as
the program formats them; what is checked is that every text reaches the reader in Russian,
with numbers written the Russian way, no English left in between, and data unchanged."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from babel.units import format_unit
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from qarena.budget import format_bytes
from qarena.cli import run
from qarena.cli.app import app
from qarena.exact import solve
from qarena.games import WIN, parse_spec, value_word
from qarena.i18n import _, ngettext, seconds, speaking
from qarena.web import create_app
from qarena.web.language import COOKIE
from qarena.web.upload import size_text

QARENA = Path(sys.executable).parent / "qarena"
FIRST_TIMEOUT = 120
_LAYOUT = re.compile(r"[\s│┃║─━═┌┐└┘├┤┬┴┼┏┓┗┛┡┩╇┣┫┳┻╋╭╮╯╰]+")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
RU = {"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"}


def _flat(text: str) -> str:
    return _LAYOUT.sub(" ", text)


def ru(msgid: str, **values: Any) -> str:
    """``msgid`` as the Russian catalog has it, formatted as the program formats it."""
    with speaking("ru"):
        text = _(msgid)
        return _LAYOUT.sub(" ", text.format(**values) if values else text)


def ru_count(singular: str, plural: str, count: int, **values: Any) -> str:
    """A message with a count, in the Russian plural form the count takes."""
    with speaking("ru"):
        return _LAYOUT.sub(" ", ngettext(singular, plural, count).format(count=count, **values))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _absent(text: str, *words: str) -> None:
    for word in words:
        assert word not in text, f"{word!r} is left in English:\n{text}"


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("russian") / "nim.npz"
    args = ["train", "nim", "-o", str(path), "--episodes", "3000", "--seed", "1", "--curve"]
    assert run(args) == 0
    return path


def test_the_catalog_translates(capsys: pytest.CaptureFixture[str]) -> None:
    # Not the English text: the catalog is loaded and holds Russian.
    for message in ("optimality", "Usage: ", "error: {message}", "perfect play"):
        assert CYRILLIC.search(ru(message)), message


def test_solve_speaks_russian(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--lang", "ru", "solve", "nim")
    assert code == 0 and err == ""
    text = _flat(out)
    assert ru("Nim {piles} (misère)", piles="3-5-7") in text
    assert "nim:3,5,7" in text and "1:1 2:1 3:1" in text
    assert value_word(WIN) == "win"
    with speaking("ru"):
        assert value_word(WIN) in text
    _absent(text, "position", "value", "for the player to move", "plies", "reachable", "misère)")


def test_json_stays_english_and_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "ru", "solve", "nim", "--json")
    assert code == 0 and json.loads(out)["value"] == "win"
    code, out, _ = _run(capsys, "--lang", "ru", "explain", "nim", "--json")
    assert json.loads(out)["explanation"][1].startswith("The nim-sum is 1, not 0")


def test_train_speaks_russian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "agent.npz"
    code, out, _ = _run(
        capsys, "--lang", "ru", "train", "nim", "-o", str(out_file), "--episodes", "3000",
        "--seed", "1", "--until-perfect", "--curve",
    )  # fmt: skip
    assert code == 0 and out_file.exists()
    text = _flat(out)
    assert CYRILLIC.search(text)
    # Numbers as Russian writes them: a comma before the decimals, a space between thousands.
    assert re.search(r"1,0000 \(164 ", text)
    assert re.search(r"\b\d{1,3} \d{3}\b", text)
    assert "nim:3,5,7" in text
    _absent(text, "opponent", "episodes", "moves/s", "decision positions", "saved to", " on Nim")


def test_eval_speaks_russian(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "ru", "eval", str(policy), "--games", "50", "--lengths")
    assert code == 0
    text = _flat(out)
    shown = ru_count(
        "win/draw/loss over {games:,} games in each seat",
        "win/draw/loss over {games:,} games in each seat",
        50,
        games=50,
    )
    assert shown in text
    assert ru("agent moves first") in text and ru("agent moves second") in text
    _absent(text, "optimality", "keeps the value", "agent moves", "over 50 games", "shortest")


def test_table_compete_and_explain_speak_russian(
    policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ["table", str(policy)],
        ["compete", str(policy), "random", "--games", "20"],
        ["explain", "nim"],
        ["explain", "tictactoe", "-p", "xx./oo./..."],
        ["watch", "random", "perfect", "--game", "tictactoe", "-n", "1", "--delay", "0"],
    ):
        code, out, _ = _run(capsys, "--lang", "ru", *args)
        assert code == 0, args
        text = _flat(out)
        assert CYRILLIC.search(text), args
        _absent(text, "the player to move", "moves first", "kept the value", "Bouton's rule")


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "foo"],
        ["solve", "nim:0"],
        ["solve", "nim", "-p", "1 2"],
        ["eval", "x", "--games", "0"],
        ["solve", "nim", "--bogus"],
        ["solve"],
        ["train", "nim", "--out"],  # --out without its value (without --out, train names a file)
        ["solve", "nim", "extra"],
        ["solve", "nim", "-p"],
        ["eval", "x", "--games", "abc"],
        ["solv", "nim"],
        ["train", "nim", "--alpha-second", "0.5", "-o", "x.npz"],
    ],
)
def test_errors_are_one_russian_line(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, out, err = _run(capsys, "--lang", "ru", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(ru("error: {message}", message="")), err
    assert CYRILLIC.search(err.removeprefix(ru("error: {message}", message=""))), err
    _absent(err, "error:", "No such", "Missing", "Invalid value", "expected", "must be")


def test_help_speaks_russian_and_english_again(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--lang", "ru", "solve", "--help")
    assert code == 0
    text = _flat(out)
    for message in ("Usage: ", "Show this message and exit.", "[required]"):
        assert ru(message).strip() in text, message
    _absent(text, "Usage:", "Options", "Arguments", "Show this message", "[required]")
    code, out, _ = _run(capsys, "solve", "--help")
    assert code == 0 and "Usage:" in out and not CYRILLIC.search(out)


def test_qarena_lang_chooses_russian(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QARENA_LANG", "ru")
    code, out, _ = _run(capsys, "solve", "nim")
    assert code == 0 and CYRILLIC.search(out)
    code, out, _ = _run(capsys, "solve", "nim", "--lang", "en")  # --lang wins
    assert code == 0 and "192 reachable from the start" in _flat(out)
    code, _, err = _run(capsys, "--lang", "xx", "solve", "nim")
    assert code == 2 and "Русский" in err and CYRILLIC.search(err.split("'xx'")[0])


def test_play_speaks_russian() -> None:
    """The interactive game: prompts in Russian, and «н» answers its last question."""
    env = {**os.environ, "TERM": "dumb", "QARENA_LANG": "ru"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        str(QARENA),
        ["play", "nim:1,2", "--seed", "1"],
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 120),
        env=env,
    )
    move = re.escape(ru("Your move: "))
    child.expect(move, FIRST_TIMEOUT)
    child.sendline("2:2")  # leaves the AI the last match: it must take it and lose
    child.expect(re.escape(ru("Play again? [y/n] ")))
    child.sendline("может быть")
    child.expect(re.escape(ru("Please answer y or n.")))
    child.sendline("н")
    child.expect(re.escape(ru("Goodbye.")))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# --- the browser's pages ------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path_factory.mktemp("web-ru"))) as c:
        yield c


def _html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found
    return found.group(1)


def test_the_home_page_speaks_russian(client: TestClient) -> None:
    r = client.get("/", headers=RU)
    assert _html_lang(r.text) == "ru"
    assert r.headers["vary"] == "Accept-Language, Cookie"
    assert ru("Train") in r.text and ru("Watch") in r.text
    assert 'value="human"' in r.text and 'value="misere"' in r.text  # data stays data
    assert re.search(r'<a href="/language/ru\?next=/"[^>]*aria-current="true">Русский</a>', r.text)


def test_the_switcher_sets_russian(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path)) as other:
        r = other.get("/language/ru?next=/", follow_redirects=False)
        assert r.status_code in (302, 303) and r.cookies.get(COOKIE) == "ru"
        page = other.get("/", headers={"Accept-Language": "de"}).text
        assert _html_lang(page) == "ru"  # the choice wins over the browser's language


def test_a_game_and_an_error_in_russian(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "nim", "seed": 0}, headers=RU)
    assert r.status_code == 200
    state = r.json()
    assert state["game"] == "nim:3,5,7"  # keys and data stay English
    solution = solve(parse_spec("nim"))
    assert solution.value_of(parse_spec("nim").start()) == WIN
    bad = client.post("/api/games", json={"game": "chess", "seed": 0}, headers=RU)
    assert bad.status_code in (400, 422)
    assert CYRILLIC.search(json.dumps(bad.json(), ensure_ascii=False))
    page = client.get("/no/such/page", headers={**RU, "Accept": "text/html"})
    assert page.status_code == 404 and _html_lang(page.text) == "ru"


def test_the_api_document_speaks_russian(client: TestClient) -> None:
    english = client.get("/openapi.json", headers={"Accept-Language": "en"}).json()
    russian = client.get("/openapi.json", headers=RU).json()
    assert english["paths"].keys() == russian["paths"].keys()
    summaries = [op.get("summary", "") for p in russian["paths"].values() for op in p.values()]
    assert summaries and all(CYRILLIC.search(s) for s in summaries if s)


# --- "Play again? [д/н]" and the seconds of training on the spot ----------------------------


@pytest.mark.parametrize(
    ("answer", "again"),
    [
        *[("n", False), ("N", False), ("н", False), ("Н", False), ("нет", False)],
        *[("д", True), ("Д", True), ("y", True), ("Y", True), ("да", True)],
    ],
)
def test_play_again_takes_russian_and_latin_letters(answer: str, again: bool) -> None:
    """The Russian prompt shows [д/н]; д/н, y/n and the words take in any case. A yes plays
    another game (its move prompt comes again); a no says goodbye at once."""
    with speaking("ru"):
        result = CliRunner().invoke(
            app, ["play", "nim:1,2", "--seed", "1"], input=f"2:2\n{answer}\n"
        )
    assert result.exit_code == 0, result.output
    text = result.output
    assert ru("Play again? [y/n] ").strip() in text
    assert ru("Please answer y or n.") not in text  # the answer was understood
    tail = text.split(ru("Play again? [y/n] "), 1)[1]
    assert (ru("Your move: ") in tail) is again
    assert (ru("Final score: {score}", score="") in tail) is again  # a quit after a 2nd game


def test_a_duration_is_written_the_russian_way() -> None:
    """Seconds in Russian: a decimal comma, then Babel's short unit word «с» (its locale data's
    own word for a second) after a no-break space, so the unit never starts a line; English
    keeps «0.05 s»."""
    babel_number, babel_unit = format_unit(
        0.05, "duration-second", length="short", locale="ru"
    ).split()
    with speaking("ru"):
        assert seconds(0.05, ".2f") == f"{babel_number}\u00a0{babel_unit}" == "0,05\u00a0с"
    assert seconds(0.05, ".2f") == "0.05 s"


def test_training_on_the_spot_says_seconds_in_russian() -> None:
    with speaking("ru"):
        result = CliRunner().invoke(app, ["play", "nim:1,2", "--seed", "1"], input="")
    line = result.output.splitlines()[0]
    assert "\u00a0с)." in line, line
    assert " s)" not in line
    assert re.search(r"\(\d+,\d\d\u00a0с\)\.$", line), line
    # The learner's name stays in the nominative, in parentheses.
    with speaking("ru"):
        assert f"({_('Q-learning')})" in line


def test_sizes_are_written_the_russian_way() -> None:
    """Byte units come from the catalog: «МБ», «ГБ» after a no-break space, a decimal comma;
    English keeps «1.2 GB» and «64 MB»."""
    with speaking("ru"):
        assert format_bytes(1_234_567_890) == "1,2\u00a0ГБ"
        assert format_bytes(512) == "512\u00a0Б"
        assert size_text(64 * 2**20) == "64\u00a0МБ"
    assert format_bytes(1_234_567_890) == "1.2 GB"
    assert size_text(64 * 2**20) == "64 MB"


def test_the_api_s_refusals_of_a_request_s_shape_speak_russian(tmp_path: Path) -> None:
    # pydantic words its refusals in English: the reader's own language, here, as in the rest.
    with TestClient(create_app(tmp_path)) as client:
        game = client.post("/api/games", json={"game": "nim:3,5,7"}, headers=RU).json()
        r = client.post(f"/api/games/{game['id']}/moves", json={"mv": "1:1"}, headers=RU)
        assert r.status_code == 422
        assert r.json()["detail"] == "move: " + _ru("required")
        r = client.post("/api/games", json={"game": 7}, headers=RU)
        assert r.status_code == 422 and r.json()["detail"] == "game: " + _ru("expected text")
        r = client.post("/api/games", json={"game": "nim:3,5,7"}, headers={"Accept-Language": "en"})
        assert r.status_code == 200


def _ru(message: str) -> str:
    with speaking("ru"):
        text = _(message)
    assert text != message  # translated, not English passed through
    return text
