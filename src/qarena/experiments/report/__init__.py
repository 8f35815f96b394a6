"""``qarena report``: the write-ups' questions, each answered by a fixed experiment.

Every section states its question, runs its sweeps (normal sweep folders under the report's
runs folder, so a second report reuses them and each can be plotted or extended by hand), and
gives its figure, its numbers and the ``qarena`` commands that reproduce them. Nothing here
prints or writes the page: :func:`build_report` returns the sections, :func:`render_html` the
page's bytes. The experiments are in ``questions/`` (a module per question or two), the
write-ups' claims checked in ``claims/``, the page in ``page.py``; ``lab.py`` is what they
share.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from qarena.experiments.report.claims import writeups
from qarena.experiments.report.lab import Lab, Section
from qarena.experiments.report.page import render_html
from qarena.experiments.report.questions import (
    alpha_epsilon,
    alphazero_judged,
    discounting,
    learners_compared,
    pole_positions,
    tictactoe,
    whom_to_learn_from,
)

SECTIONS: tuple[Callable[[Lab], Section], ...] = (
    writeups,
    discounting,
    whom_to_learn_from,
    alpha_epsilon,
    tictactoe,
    pole_positions,
    learners_compared,
    alphazero_judged,
)


def build_report(lab: Lab) -> list[Section]:
    sections = []
    for make in SECTIONS:
        t0 = time.monotonic()
        section = make(lab)
        section.seconds = time.monotonic() - t0
        sections.append(section)
    return sections


__all__ = ["SECTIONS", "Lab", "Section", "build_report", "render_html"]
