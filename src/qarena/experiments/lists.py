"""The command line's comma-separated lists of a sweep's values (``--alpha 0.1,0.5``,
``--episodes 1000,10000``, ``--rewards 1,0,-1;100,0,-100``, a list of names), each read into
a tuple of distinct values, or refused in one line naming the option."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import TypeVar

from qarena.budget import check_count
from qarena.errors import QarenaError
from qarena.i18n import _
from qarena.learn.tables.base import read_rewards

__all__ = [
    "distinct",
    "parse_floats",
    "parse_ints",
    "parse_names",
    "parse_rewards",
    "split_list",
]

T = TypeVar("T")


def split_list(flag_name: str, text: str) -> list[str]:
    """``a,b,c`` as a list of non-empty items."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise QarenaError(
            _("{flag} takes a comma-separated list like a,b, not {text!r}").format(
                flag=flag_name, text=text
            )
        )
    return items


def parse_floats(flag_name: str, text: str) -> tuple[float, ...]:
    values = []
    for item in split_list(flag_name, text):
        try:
            x = float(item)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            raise QarenaError(
                _("{flag} takes numbers like 0.1,0.5, not {item!r}").format(
                    flag=flag_name, item=item
                )
            )
        values.append(x)
    return distinct(values)


def parse_ints(flag_name: str, text: str, most: int) -> tuple[int, ...]:
    values = []
    for item in split_list(flag_name, text):
        if not re.fullmatch(r"[0-9_]{1,40}", item):
            raise QarenaError(
                _("{flag} takes whole numbers like 1000,10000, not {item!r}").format(
                    flag=flag_name, item=item
                )
            )
        value = int(item)
        check_count(flag_name, value, most)
        values.append(value)
    return distinct(values)


def parse_rewards(texts: Sequence[str]) -> tuple[tuple[float, float, float], ...]:
    """Reward triples, one per ``--rewards`` or separated by ``;``: ``1,0,-1;100,0,-100``."""
    triples = []
    for text in texts:
        for part in text.split(";"):
            values = read_rewards(part)
            if values is None:
                raise QarenaError(
                    _(
                        "--rewards takes triples WIN,DRAW,LOSS like 1,0,-1 (several separated "
                        "by ';' or given as more --rewards), not {part!r}"
                    ).format(part=part)
                )
            triples.append(values)
    return distinct(triples)


def parse_names(flag_name: str, text: str, known: Iterable[str] | None = None) -> tuple[str, ...]:
    items = split_list(flag_name, text)
    if known is not None:
        allowed = tuple(known)
        for item in items:
            if item not in allowed:
                raise QarenaError(
                    _("{flag}: unknown {item!r}; expected {names}").format(
                        flag=flag_name, item=item, names=", ".join(allowed)
                    )
                )
    return distinct(items)


def distinct(values: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(values))
