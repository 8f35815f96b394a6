"""The web app in German, through FastAPI's TestClient: the browser's Accept-Language chooses,
the language switcher's cookie wins over it, and pages, htmx panels and the API's error texts
follow, while data (JSON keys, enumerations, moves, positions) stays as it is. English stays
English. ``test_web_browser.py`` clicks the switcher in Chromium."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from qarena.exact import solve
from qarena.games import WIN, parse_spec
from qarena.web import create_app
from qarena.web.language import COOKIE, local_path

DE = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
HX = {"HX-Request": "true"}
HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path_factory.mktemp("web-de"))) as c:
        yield c


def html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', page)
    assert found, "no <html lang>"
    return found.group(1)


def new_game(client: TestClient, spec: str, headers: dict[str, str] = DE) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": spec, "seed": 0}, headers=headers)
    assert r.status_code == 200, r.text
    state: dict[str, Any] = r.json()
    return state


def test_the_home_page_speaks_the_browsers_language(client: TestClient) -> None:
    r = client.get("/", headers=DE)
    page = r.text
    assert html_lang(page) == "de"
    # Caches keep one answer per language.
    assert r.headers["vary"] == "Accept-Language, Cookie"
    assert "Spielen Sie ein kleines Spiel gegen eine lernende Maschine" in page
    assert ">Trainieren</a>" in page and ">Zuschauen</a>" in page
    assert "Wer beginnt" in page and ">Nochmal spielen<" not in page
    # The form's values are data: the same in every language.
    assert 'value="human"' in page and 'value="misere"' in page
    # The switcher names each language in itself, the current one marked.
    assert re.search(r'<a href="/language/de\?next=/"[^>]*aria-current="true">Deutsch</a>', page)


def test_english_stays_english(client: TestClient) -> None:
    for headers in ({}, EN, {"Accept-Language": "fr-FR,fr;q=0.9"}):
        page = client.get("/", headers=headers).text
        assert html_lang(page) == "en"
        assert "Play a small game against a learning machine" in page
        assert "Spielen Sie" not in page


def test_a_nim_game_in_german(client: TestClient) -> None:
    state = new_game(client, "nim:3,5,7")
    gid = state["id"]
    page = client.get(f"/games/{gid}", headers=DE).text
    assert html_lang(page) == "de"
    assert '<p class="turn">Sie sind am Zug.</p>' in page
    assert "Werte der KI" in page and "Tipp (Solver)" in page and ">Zurücknehmen</button>" in page
    legend = re.search(r'<p id="value-legend"[^>]*>(.*?)</p>', page, re.S)
    assert legend, "no value legend"
    assert legend.group(1).startswith(
        "Die Werte gelten für den Spieler, der den Zug macht: +1 ein sicherer Sieg, 0 ein Remis, "
        "−1 eine sichere Niederlage. Ein fernerer Sieg ist weniger wert, γ = 0,9 pro Zug"
    )
    assert "Stand:" in page and "Agent:" in page
    # A refused move is said in German, in the htmx panel too.
    panel = client.post(f"/games/{gid}/undo", headers={**DE, **HX})
    assert panel.status_code == 409 and "<html" not in panel.text
    assert "Nichts zurückzunehmen: Sie haben noch nicht gezogen." in panel.text
    # Play it out with the solver's winning moves: the AI answers in German, the end too.
    game = parse_spec("nim:3,5,7")
    solution = solve(game)
    while state["result"] is None:
        position = game.parse_position(state["position"])
        move = next(m for m, v in solution.move_values(position).items() if v == WIN)
        panel = client.post(
            f"/games/{gid}/move", data={"move": game.format_move(move)}, headers={**DE, **HX}
        )
        assert panel.status_code == 200, panel.text
        state = client.get(f"/api/games/{gid}").json()
        if state["result"] is None:
            assert re.search(r'<p id="ai-move" class="ai-move">Die KI [^<]+\.</p>', panel.text)
    assert state["result"] == "human"
    assert re.search(r'<p id="result"[^>]*>[^<]* Sie gewinnen!</p>', panel.text)
    assert ">Nochmal spielen</a>" in panel.text
    assert ">Seitenwechsel: KI beginnt</a>" in panel.text
    assert "Stand:" in panel.text and "Sie 1" in panel.text
    # With the solver's verdicts shown, the sentence and the table are German; classes are not.
    hint = client.post(f"/games/{new_game(client, 'nim:3,5,7')['id']}/toggle/hint", headers=DE)
    assert "Solver: bei bestem Spiel ab hier" in hint.text
    assert 'class="verdict verdict-win"' in hint.text


def test_an_error_page_in_german(client: TestClient) -> None:
    r = client.get("/nothing-here", headers={**DE, **HTML})
    assert r.status_code == 404
    assert html_lang(r.text) == "de"
    assert "Etwas stimmt nicht" in r.text and "Zurück zum Anfang" in r.text
    assert "Unter /nothing-here gibt es nichts." in r.text
    # A form's refusal is German, and shown at the field it is about.
    r = client.post("/train", data={"game": "nim:2,3", "learner": "q", "alpha": "2"}, headers=DE)
    assert r.status_code == 422
    assert re.search(r'<input name="alpha"[^>]*aria-invalid="true"', r.text)
    assert "Alpha muss in (0, 1] liegen, nicht 2,0." in r.text
    assert "α Lernrate" in r.text and "Weitere Optionen" in r.text


def test_the_switcher_sets_a_cookie_that_beats_accept_language(client: TestClient) -> None:
    fresh = TestClient(client.app)
    r = fresh.get("/language/de?next=/train", headers=EN, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/train"
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(f"{COOKIE}=de;")
    assert "path=/" in cookie and "samesite=lax" in cookie and "max-age=31536000" in cookie
    page = fresh.get("/train", headers=EN).text  # the cookie goes along
    assert html_lang(page) == "de" and "Einen Agenten trainieren" in page
    # And back: English wins over a German browser.
    fresh.get("/language/en?next=/", headers=DE, follow_redirects=False)
    page = fresh.get("/", headers=DE).text
    assert html_lang(page) == "en" and "Play a small game" in page
    # A cookie naming a language we do not speak is ignored.
    other = TestClient(client.app, cookies={COOKIE: "xx"})
    assert html_lang(other.get("/", headers=DE).text) == "de"
    # An unknown language is refused with a page, and no cookie.
    r = fresh.get("/language/xx", headers={**DE, **HTML}, follow_redirects=False)
    assert r.status_code == 422 and "set-cookie" not in r.headers


def test_a_shared_links_lang_chooses_the_language_and_keeps_it(client: TestClient) -> None:
    """``?lang=de`` in a link someone shared: the page is German whatever the browser asks for
    or the cookie says, and the choice is kept as the switcher keeps it (issue 54: it was
    ignored)."""
    fresh = TestClient(client.app, cookies={COOKIE: "en"})
    r = fresh.get("/compare?lang=de", headers=EN)
    assert r.status_code == 200 and html_lang(r.text) == "de"
    assert "Lernkurven vergleichen" in r.text
    cookie = r.headers["set-cookie"].lower()
    assert cookie.startswith(f"{COOKIE}=de;")
    assert "path=/" in cookie and "samesite=lax" in cookie and "max-age=31536000" in cookie
    assert "httponly" in cookie
    # The pages after it, without the parameter, stay German.
    assert html_lang(fresh.get("/train", headers=EN).text) == "de"
    # The switcher on that page comes back without ?lang=, which would undo its choice.
    page = fresh.get("/compare?metric=random&lang=de", headers=EN).text
    assert 'href="/language/ru?next=/compare%3Fmetric%3Drandom"' in page
    # Russian too, and the API's errors follow it.
    r = TestClient(client.app).get("/api/policies/nothere?lang=ru", headers=DE)
    assert r.status_code == 404 and re.search("[а-я]", r.json()["detail"]), r.text
    # A language not spoken here is no choice: the browser's language stands, nothing kept.
    r = TestClient(client.app).get("/?lang=xx", headers=DE)
    assert html_lang(r.text) == "de" and "set-cookie" not in r.headers
    r = TestClient(client.app).get("/?lang=", headers=EN)
    assert html_lang(r.text) == "en" and "set-cookie" not in r.headers


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/",
        "https://evil.example/",
        "http:/evil.example",
        "/\\evil.example",
        "/\t/evil.example",
        "\n//evil.example",
        "javascript:alert(1)",
        "evil.example",
        "",
    ],
)
def test_the_switcher_never_sends_you_to_another_site(client: TestClient, target: str) -> None:
    r = TestClient(client.app).get("/language/de", params={"next": target}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert local_path(target) == "/"


def test_the_switcher_comes_back_to_the_page(client: TestClient) -> None:
    assert local_path("/compare?game=nim:2,3&metric=random") == (
        "/compare?game=nim:2,3&metric=random"
    )
    page = client.get("/compare?metric=random", headers=DE).text
    assert 'href="/language/en?next=/compare%3Fmetric%3Drandom"' in page
    r = TestClient(client.app).get(
        "/language/en", params={"next": "/compare?metric=random"}, follow_redirects=False
    )
    assert r.headers["location"] == "/compare?metric=random"


def test_the_api_keeps_its_keys_and_words_its_errors(client: TestClient) -> None:
    english = new_game(client, "nim:2,3", EN)
    german = new_game(client, "nim:2,3", DE)
    assert set(german) == set(english)
    assert german["to_move"] == "human" and german["first"] == "human"
    assert german["legal_moves"] == english["legal_moves"]
    gid = german["id"]
    r = client.post(f"/api/games/{gid}/moves", json={"move": "2:3"}, headers=DE)
    assert r.status_code == 200 and set(r.json()) == set(english)
    # Errors are read by people: their detail follows the language.
    r = client.post(f"/api/games/{english['id']}/undo", headers=DE)
    assert r.status_code == 409
    assert r.json() == {"detail": "Nichts zurückzunehmen: Sie haben noch nicht gezogen."}
    r = client.post(f"/api/games/{english['id']}/undo", headers=EN)
    assert r.json() == {"detail": "Nothing to undo: you have not moved yet."}
    r = client.get("/api/games/nope", headers=DE)
    assert r.status_code == 404 and r.json()["detail"].startswith("kein Spiel 'nope'")
    r = client.post("/api/train", json={"game": "nim:2,3", "alpha": 2}, headers=DE)
    assert r.status_code == 422
    assert r.json() == {"detail": "alpha muss in (0, 1] liegen, nicht 2,0"}


def test_a_runs_texts_are_in_the_language_of_whoever_asks(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A run is watched in many languages: its place in line and why it ended are translated
    when asked for, in the API, on its page and in its server-sent events."""
    app = create_app(tmp_path_factory.mktemp("web-queue"), max_training=0)
    with TestClient(app) as c:
        job = c.post("/api/train", json={"game": "nim:2,3", "episodes": 100}, headers=DE).json()
        assert job["state"] == "queued"
        assert job["waiting"] == "an 1. Stelle in der Warteschlange"
        assert c.get(f"/api/train/{job['job']}", headers=EN).json()["waiting"] == "1st in line"
        page = c.get(f"/train/{job['job']}", headers=DE).text
        assert "Wartet (an 1. Stelle in der Warteschlange)" in page
        assert "Aus der Warteschlange nehmen" in page
        assert 'data-running="Trainiere {learner} auf {game}: {episodes} von {total}' in page
        c.delete(f"/api/train/{job['job']}")
        deadline = time.monotonic() + 10
        while c.get(f"/api/train/{job['job']}").json()["state"] != "cancelled":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        german = c.get(f"/api/train/{job['job']}", headers=DE).json()
        english = c.get(f"/api/train/{job['job']}", headers=EN).json()
        assert german["error"] == (
            "der Lauf wurde in der Warteschlange gestoppt, bevor er etwas gelernt hat"
        )
        assert english["error"] == (
            "it was stopped while waiting in line, before it learned anything"
        )
        events = c.get(f"/train/{job['job']}/events", headers=DE).text
        assert "event: cancelled" in events and "Warteschlange gestoppt" in events
        page = c.get(f"/train/{job['job']}", headers=DE).text
        assert "Training angehalten: der Lauf wurde in der Warteschlange gestoppt" in page


def test_the_api_document_speaks_the_readers_language(tmp_path: Path) -> None:
    """/openapi.json, which /docs and /redoc show, in German for a German reader: its
    summaries and descriptions translated, its paths, names, schemas and enums as they are."""
    from qarena.web.app import OPENAPI_TEXTS

    def without_texts(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: without_texts(v) for k, v in node.items() if k not in OPENAPI_TEXTS}
        if isinstance(node, list):
            return [without_texts(v) for v in node]
        return node

    with TestClient(create_app(tmp_path)) as client:
        english = client.get("/openapi.json").json()
        german = client.get("/openapi.json", headers={"Accept-Language": "de"}).json()
        client.cookies.set("qarena_lang", "de")
        again = client.get("/openapi.json").json()
    assert german == again
    assert without_texts(german) == without_texts(english)
    stop = german["paths"]["/api/train/{job_id}"]["delete"]
    assert stop["summary"] == "Trainingslauf stoppen"
    assert stop["description"].startswith("Einen Lauf zwischen zwei Abschnitten stoppen")
    assert english["paths"]["/api/train/{job_id}"]["delete"]["summary"] == "Api Stop Job"
    assert german["info"]["description"].startswith("Kleine kombinatorische Spiele")
