"""Command line: typer for parsing, rich for drawing."""

from qarena.cli.app import app, main, run

__all__ = ["app", "main", "run"]
