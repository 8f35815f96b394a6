"""How far qarena's structure is from "one door per kind" (issue 57), counted from the source:

- kind branches outside ``learn/`` and ``agents/``: a line that asks what kind an agent is —
  ``isinstance`` on a learner or player class, a learner's class-level trait read
  (``.judging_family ==``, ``self_play_only``, ``threaded``, ``thinks``, ``keeps_table``) or a
  kind compared by name (``kind == "..."``);
- source files over 600 lines;
- ``qarena.train``'s explicit parameters;
- imports placed inside functions, per package.

Run: ``python benchmarks/structure.py`` (``--list`` prints every kind branch)."""

from __future__ import annotations

import argparse
import ast
import re
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "qarena"


def kind_classes() -> set[str]:
    """The classes whose ``isinstance`` asks an agent's kind: every player class (a subclass
    of the player protocol's defaults) and every learner class of agents/ and learn/, found
    by importing them, so a new kind's classes are counted without being listed here."""
    import importlib
    import inspect
    import pkgutil

    import qarena.agents
    import qarena.learn
    from qarena.games.picking import PlayerDefaults
    from qarena.learn.family import Trainable

    names = {"PlayerDefaults", "ChoosingPlayer", "Trainable", "Learner"}
    for package in (qarena.agents, qarena.learn):
        # Every module, those of subpackages too (learn/tables/, learn/ntuple/, learn/alphazero/).
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except ImportError:  # an extra that is not installed (PyTorch)
                continue
            for _name, cls in inspect.getmembers(module, inspect.isclass):
                if issubclass(cls, PlayerDefaults | Trainable):
                    names.add(cls.__name__)
    return names


#: The learner and player traits a caller branches on.
TRAITS = ("self_play_only", "threaded", "thinks", "keeps_table")

ISINSTANCE = re.compile(r"isinstance\([^,]+,\s*\(?([A-Za-z_][\w.| ,]*)")
# The learner's judging family, under its name and the one it had before.
JUDGING = re.compile(r"\.judging(?:_family)?\s*[!=]=")
KIND_NAME = re.compile(r"""\bkind\s*(?:[!=]=|in)\s*\(?\s*["']([\w-]+)["']""")
# A player reading its own trait is not a caller asking its kind.
TRAIT = re.compile(r"(?<!self)\.(" + "|".join(TRAITS) + r")\b")


def kind_branches() -> list[tuple[str, int, str]]:
    """Every line outside learn/ and agents/ that branches on an agent's kind."""
    from qarena.agents.spec_players import SPEC_KINDS
    from qarena.agents.thinking import KINDS
    from qarena.learn.learners import LEARNERS

    kinds = {*LEARNERS, *KINDS, *SPEC_KINDS}
    classes = kind_classes()
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(("learn/", "agents/")):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            hit = False
            for m in ISINSTANCE.finditer(code):
                names = re.split(r"[|, ]+", m.group(1))
                hit = hit or any(n.split(".")[-1] in classes for n in names if n)
            named = KIND_NAME.search(code)
            hit = hit or bool(JUDGING.search(code)) or bool(named and named.group(1) in kinds)
            hit = hit or bool(TRAIT.search(code))
            if hit:
                found.append((rel, number, line.strip()))
    return found


def long_files(limit: int = 600) -> list[tuple[str, int]]:
    """Source files over ``limit`` lines, longest first."""
    sizes = [
        (p.relative_to(SRC).as_posix(), len(p.read_text().splitlines())) for p in SRC.rglob("*.py")
    ]
    return sorted(((f, n) for f, n in sizes if n > limit), key=lambda x: -x[1])


def train_parameters() -> int:
    """The explicit parameters of ``qarena.train`` (``**`` not counted)."""
    tree = ast.parse((SRC / "api" / "training.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "train":
            a = node.args
            return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
    raise SystemExit("qarena.train not found in api.py")


def inner_imports() -> Counter[str]:
    """Imports placed inside functions, per top-level package of qarena."""
    counts: Counter[str] = Counter()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        package = rel.parts[0] if len(rel.parts) > 1 else "(top)"
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        counts[package] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every kind branch")
    args = parser.parse_args()
    branches = kind_branches()
    files = Counter(f for f, _n, _l in branches)
    print(f"kind branches outside learn/ and agents/: {len(branches)} in {len(files)} files")
    for f, n in files.most_common():
        print(f"  {f}: {n}")
    if args.list:
        for f, n, line in branches:
            print(f"    {f}:{n}: {line}")
    long = long_files()
    print(f"source files over 600 lines: {len(long)}")
    for f, n in long:
        print(f"  {f}: {n}")
    print(f"qarena.train's explicit parameters: {train_parameters()}")
    inner = inner_imports()
    print(f"imports inside functions: {sum(inner.values())}")
    for package, n in inner.most_common():
        print(f"  {package}: {n}")


if __name__ == "__main__":
    main()
