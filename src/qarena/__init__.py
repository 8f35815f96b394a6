"""qarena: tabular reinforcement learning for small games, judged by exact solutions."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("qarena")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
