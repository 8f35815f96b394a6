"""A MkDocs hook: the 404 page's links relative to the site's root, so that they open from disk.

MkDocs writes an error page's links from the server's root (``/assets/…``, ``/index.html``):
a web server may show that page at any depth. From disk (``file://``) such a link points at the
file system's root. This site is built to browse from disk, so ``404.html``, which sits at the
site's root, links relative to itself; served by a web server, it is right for a missing page at
the top level, and its links miss for a missing page in a subfolder.
"""

from __future__ import annotations

from typing import Any

from mkdocs.utils import normalize_url


def on_template_context(context: dict[str, Any], template_name: str, config: Any) -> dict[str, Any]:
    if template_name != "404.html":
        return context
    # The page-less `url` filter joins each link to `base_url`.
    context["base_url"] = "."
    context["extra_css"] = [normalize_url(path, None, ".") for path in config.extra_css]
    context["extra_javascript"] = [
        normalize_url(str(script), None, ".") for script in config.extra_javascript
    ]
    return context
