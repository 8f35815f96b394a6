"""Policy files uploaded from the Policies page: the form's multipart body is read as it
arrives and the file's bytes go straight into the store's temp file, counted against a cap, so
no upload is ever held whole in memory or written anywhere but the store's folder."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from fastapi import Request
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from qarena.errors import QarenaError
from qarena.games import Game
from qarena.i18n import _, ngettext, number
from qarena.web.exceptions import BodyTooLarge
from qarena.web.store import PolicyRow, PolicyStore

#: The largest policy file the app takes: far above what any game trained here needs (the
#: biggest, at the app's training budget, makes files of a few MB), and what a server can
#: check in a few seconds.
MAX_UPLOAD = 64 * 1024 * 1024
#: What a form adds around the file: boundaries and part headers (a long file name).
ENVELOPE = 64 * 1024
#: Where the Policies page sends its file, and the form field that holds it.
UPLOAD_PATH = "/policies/upload"
FIELD = "file"
#: Longest file name repeated back to the person (it names nothing on the server).
_NAME_CHARS = 80


def size_text(n: int) -> str:
    """A size in binary units as people read them: "64 MB", "195 KB"."""
    if n >= 2**20:
        return _("{size} MB").format(size=number(n / 2**20, ".3g"))
    if n >= 2**10:
        return _("{size} KB").format(size=number(n / 2**10, ".3g"))
    return ngettext("{count} byte", "{count} bytes", n).format(count=n)


def too_big(limit: int) -> str:
    return _(
        "the file is over {size}, the most this server takes; to use a bigger one, put it in "
        "the server's policy folder"
    ).format(size=size_text(limit))


def shown_name(raw: bytes) -> str:
    """The uploaded file's name as the page repeats it: its last part, printable characters
    only, shortened. It is never used as a path."""
    text = raw.decode("utf-8", "replace").replace("\\", "/").rsplit("/", 1)[-1]
    text = "".join(c for c in text if unicodedata.category(c)[0] not in "CZ" or c == " ")
    text = text.strip()
    if len(text) > _NAME_CHARS:
        text = text[: _NAME_CHARS - 1] + "…"
    return text or _("the uploaded file")


class _Form:
    """Callbacks for python-multipart's parser: the bytes of the one file field gather in
    ``data`` (a chunk's worth at a time), counted; other fields are skipped (the middleware
    bounds the whole body)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.name: str | None = None
        self.data = bytearray()
        self._field = b""
        self._value = b""
        self._disposition = b""
        self._in_file = False

    def on_part_begin(self) -> None:
        self._disposition, self._in_file = b"", False

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        if self._field.lower() == b"content-disposition":
            self._disposition = self._value
        self._field = self._value = b""

    def on_headers_finished(self) -> None:
        _type, options = parse_options_header(self._disposition)
        if options.get(b"name") != FIELD.encode() or b"filename" not in options:
            return
        if self.name is not None:
            raise QarenaError(_("send one policy file at a time"))
        self.name = shown_name(options[b"filename"])
        self._in_file = True

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if not self._in_file:
            return
        self.size += end - start
        if self.size > self.limit:
            raise BodyTooLarge(too_big(self.limit))
        self.data += data[start:end]


async def receive_policy(
    request: Request,
    store: PolicyStore,
    limit: int,
    refuse: Callable[[Game], str | None] | None = None,
) -> PolicyRow:
    """Store the policy file a form posts (field ``file``), checked in full as any policy
    file is; QarenaError with one line when it is refused (BodyTooLarge over ``limit``
    bytes, by the request's Content-Length before any of it is read), leaving the store as
    it was; ``refuse`` says why a game is not taken (see ``PolicyStore.receive``). The body is
    read here, in the event loop, as it arrives; only writing and the check take a worker
    thread, so slow uploads hold none while they wait."""
    kind, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise QarenaError(
            _(
                "send the policy file as a form upload (multipart/form-data, field {field!r})"
            ).format(field=FIELD)
        )
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit + ENVELOPE:
        raise BodyTooLarge(too_big(limit))
    form = _Form(limit)
    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": form.on_part_begin,
            "on_header_field": form.on_header_field,
            "on_header_value": form.on_header_value,
            "on_header_end": form.on_header_end,
            "on_headers_finished": form.on_headers_finished,
            "on_part_data": form.on_part_data,
        },
    )
    incoming = store.receive(refuse)
    await run_in_threadpool(incoming.open)
    try:
        try:
            async for chunk in request.stream():
                parser.write(chunk)
                if form.data:
                    data, form.data = bytes(form.data), bytearray()
                    await run_in_threadpool(incoming.write, data)
            parser.finalize()
        except FormParserError:
            raise QarenaError(_("the upload is not a well-formed form; send it again")) from None
        except ClientDisconnect:
            raise QarenaError(_("the upload was cut off before its end")) from None
        except BodyTooLarge:
            raise BodyTooLarge(too_big(limit)) from None  # in the file's terms, not the body's
        if form.name is None:
            raise QarenaError(_("choose a policy file (.npz) to upload"))
        if form.size == 0:
            raise QarenaError(_("{file} is empty").format(file=form.name))
        return await run_in_threadpool(incoming.finish, form.name)
    except BaseException:
        incoming.abort()  # at once, in this thread: a cancelled request must leave nothing
        raise
