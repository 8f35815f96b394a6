"""The pages a person's browser shows: the home form, games (htmx swaps the panel on a click),
watched duels, training runs and stored policies, each area's routes in a module of its own and
all of them in ``router``, in the order they are matched. Their errors are pages too (see
``PageRoute``)."""

from __future__ import annotations

from fastapi import APIRouter

from qarena.web.errors import PageRoute
from qarena.web.routes.pages import games, home, policies, training, watching

router = APIRouter(route_class=PageRoute, include_in_schema=False)
for _area in (home, games, watching, training, policies):
    router.include_router(_area.router)
