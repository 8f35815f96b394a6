"""Optional dependencies (pandas, IPython's kernel…): imported when first needed, or one line
saying how to install them."""

from __future__ import annotations

import importlib
from typing import Any

from qarena.errors import QarenaError
from qarena.i18n import _


def need(module: str, install: str) -> Any:
    """The optional module ``module``, imported; or one line saying how to install it
    (``install``: what pip takes, e.g. ``pandas`` or ``'qarena[env]'``)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise QarenaError(
            _("this needs {module}; install it with: pip install {install}").format(
                module=module, install=install
            )
        ) from None


__all__ = ["need"]
