"""The packages form layers: each imports only from its own layer and the ones below, so there
is no package-level import cycle. Read from the source with ast; imports made only for type
checking (under ``if TYPE_CHECKING:``) do not count, since they never run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "qarena"

ARCHITECTURE = SRC.parents[1] / "ARCHITECTURE.md"


def _layers() -> list[set[str]]:
    """The layers, bottom to top, as ARCHITECTURE.md's table gives them: a row per layer,
    ``| N | `pkg`, `pkg` | what lives there |``. Top-level modules count as packages of their
    own; ``qarena`` is the package's ``__init__.py``."""
    rows: dict[int, set[str]] = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| (\d+) \| ([^|]*) \|", line)
        if found:
            rows[int(found.group(1))] = set(re.findall(r"`([\w]+)`", found.group(2)))
    assert sorted(rows) == list(range(len(rows))), "ARCHITECTURE.md's layers are 0, 1, 2, …"
    return [rows[i] for i in range(len(rows))]


LAYERS = _layers()
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _package(module: str) -> str:
    parts = module.split(".")
    assert parts[0] == "qarena", module
    return parts[1] if len(parts) > 1 else "qarena"


def _module_of(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for sub in node.body for n in ast.walk(sub))
    if path == SRC / "__init__.py":
        # The package's face hands the API on when a name of it is first asked for (PEP 562's
        # module __getattr__): ``qarena.train`` loads qarena.api then, from the top layer.
        # That one lazy import is the face's, not layer 0's; nothing else is let through.
        lazy = next(
            n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"
        )
        lazy_imports = [n for n in ast.walk(lazy) if isinstance(n, ast.Import | ast.ImportFrom)]
        assert [ast.unparse(n) for n in lazy_imports] == ["from qarena import api"]
        skipped.update(id(n) for n in lazy_imports)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("qarena"))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.startswith("qarena")
        ):
            # ``from qarena import training`` imports the package qarena.training, not the
            # top layer's __init__: a name that is a module counts as that module.
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if _is_module(sub) else node.module)
    return found


def _is_module(name: str) -> bool:
    """Whether ``name`` (``qarena.a.b``) is a module or package of the source tree."""
    path = SRC.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        here = _package(_module_of(path))
        for target in _runtime_imports(path):
            there = _package(target)
            if there != here:
                edges.setdefault((here, there), []).append(str(path.relative_to(SRC)))
    return edges


def test_every_package_has_a_layer() -> None:
    packages = {_package(_module_of(p)) for p in SRC.rglob("*.py")}
    assert packages <= set(LAYER), f"put {sorted(packages - set(LAYER))} in a layer"


def test_imports_only_go_down() -> None:
    upward = [
        f"{a} (layer {LAYER[a]}) imports {b} (layer {LAYER[b]}) in {files}"
        for (a, b), files in _edges().items()
        if LAYER[b] > LAYER[a]
    ]
    assert not upward, "\n".join(upward)


def test_no_package_level_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for a, b in _edges():
        graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])


def _module_imports(path: Path, modules: set[str]) -> set[str]:
    """The modules ``path`` imports when it is imported (its top-level statements, not the
    imports inside functions, nor those for type checking): ``from qarena.a import b`` is
    module ``qarena.a.b`` when there is one, else ``qarena.a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test):
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in modules else node.module)
    return found & modules


def test_no_module_level_import_cycle() -> None:
    paths = {_module_of(p): p for p in SRC.rglob("*.py")}
    graph = {m: _module_imports(p, set(paths)) - {m} for m, p in paths.items()}
    # Depth-first search; a module met again while still on the path closes a cycle.
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append([*path[path.index(n) :], n])
            elif n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def _game_classes() -> set[str]:
    """The names of the concrete games' classes (the interface ``Game`` is not one)."""
    import inspect

    from qarena import games

    return {
        name
        for name, obj in vars(games).items()
        if inspect.isclass(obj) and issubclass(obj, games.Game) and obj is not games.Game
    }


def test_only_games_ask_for_a_game_class() -> None:
    """Outside ``games/`` a game is known by what it brings (its layout, its ``grid``...),
    never by its class: a new game then works everywhere without touching other packages."""
    classes = _game_classes()
    assert {"TicTacToe", "ConnectFour", "Nim"} <= classes  # the scan looks for something
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.parent.name == "games":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2
            ):
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                names |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
                if names & classes:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not found, found


def test_a_submodule_imported_from_the_package_counts_as_that_submodule(tmp_path: Path) -> None:
    """``from qarena import training`` inside games/ would be an import from layer 8; read as
    the package's face (layer 0) it passed unseen. A name that is no module is the face's."""
    source = tmp_path / "example.py"
    source.write_text(
        "from qarena import training, __version__\nfrom qarena.exact import search, oracle\n",
        encoding="utf-8",
    )
    assert _runtime_imports(source) == {
        "qarena.training",
        "qarena",
        "qarena.exact.search",
        "qarena.exact",
    }
    assert {_package(m) for m in _runtime_imports(source)} == {"training", "qarena", "exact"}


def test_only_games_name_a_game_class() -> None:
    """Nor is a game class imported outside ``games/`` (search, networks and drawings read
    the game's ``grid``), and the base class names none of its subclasses."""
    classes = _game_classes() - {"Game"}
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.parent.name == "games" and path.name != "base.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and {a.name for a in node.names} & classes:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
            if isinstance(node, ast.Name) and node.id in classes:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not found, found


def _data_flow() -> str:
    """The picture under ARCHITECTURE.md's "Data flow" heading (its first code block)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    after = text.split("## Data flow", 1)[1]
    return after.split("```", 2)[1]


def test_the_data_flow_picture_names_what_the_code_holds() -> None:
    """Every dotted name in ARCHITECTURE.md's data-flow picture (``exact.game_tables``,
    ``learn.learners.save_learner``) is a module or a name defined in one, and every class
    it names (``GameTables``, ``Learner``) is defined in the package: the picture is checked
    against the code, not only drawn."""
    import importlib

    picture = _data_flow()
    # Names of the package's modules, not file names (results.csv) or outside libraries.
    dotted = {
        name
        for name in re.findall(r"\b[a-z_]+(?:\.[A-Za-z_]+)+\b", picture)
        if name.split(".")[0] in LAYER
    }
    assert {"exact.game_tables", "learn.learners.save_learner"} <= dotted  # the scan finds them
    missing = []
    for name in sorted(dotted):
        parts = name.split(".")
        if parts[0] == "qarena":  # qarena.train: the package's own name
            parts = parts[1:]
        for cut in range(len(parts), -1, -1):
            try:
                obj: object = importlib.import_module(".".join(["qarena", *parts[:cut]]))
            except ModuleNotFoundError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                missing.append(name)
            break
        else:
            missing.append(name)
    defined = {
        m.group(1)
        for path in SRC.rglob("*.py")
        for m in re.finditer(r"^class (\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    classes = set(re.findall(r"\b([A-Z][a-z]+(?:[A-Z][a-z]*)+|[A-Z][a-z]{3,})\b", picture))
    # The libraries it names as such: the web's, and the environments' ecosystems.
    classes -= {"FastAPI", "Jinja", "Gymnasium", "OpenSpiel", "PettingZoo"}
    missing += sorted(c for c in classes if c not in defined)
    assert not missing, f"ARCHITECTURE.md's data flow names what the code does not: {missing}"
