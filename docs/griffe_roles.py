"""A griffe extension for the documentation site (mkdocs.yml loads it): Sphinx roles in the
docstrings, such as ``:func:`evaluate``` or ``:meth:`Learner.train```, become plain code
spans, since Markdown has no roles and would show the role's name as text."""

from __future__ import annotations

import re
from typing import Any

import griffe

#: ``:role:`target``` or ``:domain:role:`target```, with an optional ``~`` before the target.
ROLE = re.compile(r":(?:py:)?(?:func|meth|class|attr|data|mod|exc|obj|const):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring once the object tree is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"``\1``", obj.docstring.value)
