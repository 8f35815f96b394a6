"""The files of positions ``qarena eval --positions`` judges on and ``qarena compete
--openings`` plays from: read a piece at a time within the budget of a sample, one position a
line, blank lines and ``#`` comments skipped."""

from __future__ import annotations

import codecs
from pathlib import Path

from qarena.budget import format_bytes
from qarena.errors import QarenaError
from qarena.fileio import open_to_read
from qarena.i18n import _
from qarena.judging.sampled import MAX_SAMPLE

#: Longest line a --positions file may have, in bytes: a position of the largest board
#: (12x12, 155 characters), with room for spaces.
MAX_LINE_BYTES = 4_096


#: Largest --positions file: room for MAX_SAMPLE positions of the largest board, with room.
MAX_POSITIONS_BYTES = 256 * 1_000_000


#: Bytes a --positions file is read in at a time.
READ_CHUNK = 1 << 16


def read_positions(path: Path) -> list[str]:
    """The lines of a --positions file (blank ones and ``#`` comments skipped), read within
    the budget of a sample: a piece at a time, so that a line longer than any position
    (a file of one 2 GB line, /dev/zero) is refused once it is that long, not read whole;
    a UTF-8 byte-order mark, as some editors write, is skipped."""
    lines: list[str] = []
    held = b""  # the start of a line whose end has not been read yet
    read = 0
    try:
        # Not a named pipe: it would wait for a writer for ever.
        with open_to_read(path) as f:
            while chunk := f.read(READ_CHUNK):
                if read == 0 and chunk.startswith(codecs.BOM_UTF8):
                    chunk = chunk[len(codecs.BOM_UTF8) :]
                read += len(chunk)
                if read > MAX_POSITIONS_BYTES:
                    raise QarenaError(
                        _("{file} is larger than any list of positions ({most})").format(
                            file=path, most=format_bytes(MAX_POSITIONS_BYTES)
                        )
                    )
                *whole, held = (held + chunk).split(b"\n")
                for raw in whole:
                    _keep(path, raw, lines)
                if len(held) > MAX_LINE_BYTES:
                    _keep(path, held, lines)  # refuses it: longer than any position
            _keep(path, held, lines)
    except OSError as e:
        raise QarenaError(
            _("cannot read positions from {file}: {reason}").format(
                file=path, reason=e.strerror or e
            )
        ) from e
    if not lines:
        raise QarenaError(_("{file} holds no positions").format(file=path))
    return lines


def _keep(path: Path, raw: bytes, lines: list[str]) -> None:
    """One line of a --positions file, added to ``lines`` unless blank or a comment; a
    trailing ``# comment`` is dropped."""
    if len(raw) > MAX_LINE_BYTES:
        raise QarenaError(_("{file} has a line longer than any position").format(file=path))
    try:
        line = raw.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise QarenaError(
            _("cannot read positions from {file}: {reason}").format(file=path, reason=e)
        ) from e
    # A trailing " # comment" (a judging set's move values) is not part of the position: no
    # game's text form has a '#'.
    line = line.split("#", 1)[0].strip()
    if line:
        lines.append(line)
        if len(lines) > MAX_SAMPLE:
            raise QarenaError(
                _("{file} has more than {most:,} positions").format(file=path, most=MAX_SAMPLE)
            )
