"""The report as one self-contained HTML page: its sections, figures inlined, tables, commands
and how it was made."""

from __future__ import annotations

import base64
import html
import platform
from collections.abc import Sequence

from qarena import __version__
from qarena.experiments.backends import cores
from qarena.experiments.report.lab import Lab, Section, TableData
from qarena.i18n import _, language

# --- the page -------------------------------------------------------------------------------

_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 72rem; margin: 2rem auto;
  padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.8rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
caption { caption-side: bottom; text-align: left; color: #555; font-size: 0.85rem; }
pre { background: #f4f4f6; padding: 0.7rem; overflow-x: auto; font-size: 0.85rem; }
table.words th, table.words td { text-align: left; vertical-align: top; }
table.words code { font-size: 0.75rem; word-break: break-all; }
table.words td:nth-child(2) { min-width: 12rem; }
.question { font-style: italic; } .finding { font-weight: 600; }
nav ol { columns: 2; } .meta { color: #555; font-size: 0.9rem; }
"""


def _table(t: TableData) -> str:
    head = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in t.header)

    def cell(i: int, c: str) -> str:
        if i == t.code_column:
            return f"<td><code>{html.escape(c)}</code></td>"
        return f"<td>{html.escape(c)}</td>"

    body = "".join(
        "<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>" for row in t.rows
    )
    caption = f"<caption>{html.escape(t.caption)}</caption>" if t.caption else ""
    kind = " class='words'" if t.words else ""
    return f"<table{kind}>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(sections: Sequence[Section], lab: Lab, seconds: float) -> bytes:
    """One self-contained page: styles and figures inline, no request leaves it."""
    esc = html.escape
    if lab.quick:
        about = _(
            "qarena {version}, quick report, {seconds:.0f} s on {cores} core(s) ({python}, "
            "{machine}). Every run is a sweep folder under {runs}; the commands under each "
            "section reproduce its numbers and figures, and running the report again reuses the "
            "finished runs."
        )
    else:
        about = _(
            "qarena {version}, full report, {seconds:.0f} s on {cores} core(s) ({python}, "
            "{machine}). Every run is a sweep folder under {runs}; the commands under each "
            "section reproduce its numbers and figures, and running the report again reuses the "
            "finished runs."
        )
    # The text is escaped first; the folder goes in as code.
    about = esc(about).format(
        version=esc(__version__),
        seconds=seconds,
        cores=cores(),
        python=esc(platform.python_version()),
        machine=esc(platform.machine()),
        runs=f"<code>{esc(str(lab.runs))}</code>",
    )
    title = esc(_("qarena report"))
    heading = esc(_("qarena report: questions about learning to play, measured"))
    reproduce = esc(_("Reproduce:"))
    parts = [
        "<!doctype html>",
        f"<html lang='{esc(language())}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{title}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{heading}</h1>",
        f"<p class='meta'>{about}</p>",
        "<nav><ol>",
        *(f"<li><a href='#{s.key}'>{esc(s.title)}</a></li>" for s in sections),
        "</ol></nav>",
    ]
    for s in sections:
        parts += [
            f"<section id='{s.key}'><h2>{esc(s.title)}</h2>",
            f"<p class='question'>{esc(s.question)}</p>",
            f"<p class='finding'>{esc(s.finding)}</p>",
        ]
        for f in s.figures:
            data = base64.b64encode(f.png).decode("ascii")
            parts.append(
                f"<figure><img alt='{esc(f.alt)}' src='data:image/png;base64,{data}'>"
                f"<figcaption>{esc(f.alt)}</figcaption></figure>"
            )
        parts += [_table(t) for t in s.tables]
        parts.append(f"<p>{reproduce}</p><pre>" + esc("\n".join(s.commands)) + "</pre>")
        parts.append(f"<p class='meta'>{s.seconds:.1f} s</p></section>")
    parts.append("</body></html>\n")
    return "\n".join(parts).encode("utf-8")
