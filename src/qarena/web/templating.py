"""The pages' Jinja2 templates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from qarena import __version__
from qarena.agents.opponents import OPPONENTS
from qarena.games.registry import names
from qarena.learn.learners import LEARNERS
from qarena.web.describe import learner_title, when

HERE = Path(__file__).parent

templates = Jinja2Templates(directory=HERE / "templates")
templates.env.globals["version"] = __version__
#: Training opponents by name: what `qarena train --opponent` takes, but policy files.
templates.env.globals["opponents"] = list(OPPONENTS)
#: The forms of every registered game's spec, for the home page's "any game" field.
templates.env.globals["spec_forms"] = lambda: ", ".join(f"{n}[:…]" for n in names())
templates.env.globals["spec_example"] = "nim:3,5,7"
#: Learners by their title ("Q-learning"), as pages name them.
templates.env.globals["learner_titles"] = {k: learner_title(k) for k in LEARNERS}
#: Stored times as people read them: ``{{ row.created|when }}``.
templates.env.filters["when"] = when


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status)
