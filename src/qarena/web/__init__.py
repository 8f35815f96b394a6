"""The web app: play against trained agents in a browser, and watch agents learn."""

from qarena.web.app import create_app

__all__ = ["create_app"]
