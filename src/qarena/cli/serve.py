"""qarena serve: the web app, to play and train in a browser."""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from qarena.budget import memory_budget
from qarena.cli.common import app, out
from qarena.errors import QarenaError
from qarena.fileio import folder_lock
from qarena.i18n import _

if TYPE_CHECKING:
    from fastapi import FastAPI

#: Connections served at once; more are answered 503 (a descriptor each: the system's limit is
#: often 1,024).
MAX_CONNECTIONS = 500


def _check_port(host: str, port: int) -> None:
    """Refuse, with one line, a port that is taken or a host that cannot be bound."""
    if not 0 < port < 65536:
        raise QarenaError(_("--port must be from 1 to 65535, not {port}").format(port=port))
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise QarenaError(
            _("cannot serve on host {host!r}: {problem}").format(host=host, problem=e.strerror)
        ) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise QarenaError(
                    _("port {port} on {host} is in use; pick another with --port").format(
                        port=port, host=host
                    )
                ) from None
            raise QarenaError(
                _("cannot serve on {host}:{port}: {problem}").format(
                    host=host, port=port, problem=e.strerror or e
                )
            ) from None


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Where trained policies are kept (default: $XDG_DATA_HOME/qarena, "
            "else ~/.local/share/qarena).",
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Also answer requests to this host name (repeatable; '*': any). IP addresses "
            "and localhost are always answered; other names are refused, so that no web page "
            "can reach the app by rebinding its own name to this machine.",
        ),
    ] = None,
) -> int:
    """Serve the web app: play against agents and watch them learn, in a browser."""
    from qarena.web import create_app
    from qarena.web.store import default_data_dir

    _check_port(host, port)  # first: a bad port must not create the data folder
    memory_budget()  # a QARENA_MEMORY_LIMIT that is no number is refused now, not per request
    names = [*(allow_host or []), host]  # the name it listens on, when --host names one
    for name in names:
        if not name.strip() or len(name) > 253 or any(c.isspace() for c in name):
            raise QarenaError(
                _("--allow-host takes a host name like example.local, not {name!r}").format(
                    name=name
                )
            )
    folder = data_dir if data_dir is not None else default_data_dir()
    with contextlib.suppress(OSError):  # else create_app says what is wrong with it
        folder.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as held:
        if folder.is_dir():
            # One server per data folder: two would each keep the index in step with the
            # files as they saw them, and undo each other's work.
            held.enter_context(
                folder_lock(
                    folder, "qarena serve", _("stop it first, or give this one another --data-dir")
                )
            )
        return _serve(create_app(folder, allowed_hosts=names), host, port)


def _serve(web: FastAPI, host: str, port: int) -> int:
    """Run ``web`` until SIGTERM or Ctrl-C."""
    import uvicorn

    from qarena.web.app import SHUTDOWN_SECONDS

    shown = f"[{host}]" if ":" in host else host
    out.print(
        _("qarena is serving at {url} — open it in a browser; Ctrl-C stops.").format(
            url=f"http://{shown}:{port}"
        ),
        soft_wrap=True,
        markup=False,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            web,
            host=host,
            port=port,
            log_level="warning",
            # Bounded: idle connections close after 5 s, at most 500 at once (more are answered
            # 503), and a stop waits at most this long for open connections (a slow upload)
            # once running training has saved.
            timeout_keep_alive=5,
            limit_concurrency=MAX_CONNECTIONS,
            timeout_graceful_shutdown=int(SHUTDOWN_SECONDS) + 5,
        )
    )
    # Open progress streams end as soon as the server is asked to stop.
    web.state.web.stopping = lambda: bool(server.should_exit)
    # On SIGTERM uvicorn shuts down (the app's shutdown saves running training) and then raises
    # the signal again with the handler it found; with this one, that ends in a clean exit 0.
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    server.run()
    return 0
