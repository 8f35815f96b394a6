"""A sweep's folder::

    sweep.json     what every run shares: the game, canonical or not, curves, games per match
    runs/*.npz     one normal policy file per run, named by its settings; its metadata carries
                   the run's row of results under "sweep"
    results.csv    one row per run, rebuilt from the run files

The run files are the record: a run counts as finished when its file is there, so a sweep
resumes by being run again. A run's row (:class:`RunRow`) is typed; its form in results.csv
and in a run file, its columns and its cells are made and read back here alone."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from qarena.errors import QarenaError
from qarena.experiments.grid import (
    ALPHAZERO_AXES,
    AXES,
    FIXED,
    HYPER_AXES,
    NETWORK_AXES,
    REGISTERED_AXES,
    SWEEP_FORMAT,
    Fixed,
    Setting,
)
from qarena.fileio import LOCK_NAME, folder_lock, is_dir, is_file, write_atomic
from qarena.i18n import _, option
from qarena.learn.settings import Declared
from qarena.learn.tables.base import SEAT_SETTINGS
from qarena.policyfile import read_meta

#: The opponents each run is measured against.
MEASURED = ("random", "perfect")


#: The columns of a run's preset and what the run overrode (learn/presets.py), last: tables
#: written before presets lack them.
PRESET_COLUMNS = ("preset", "overridden")
#: Whether the strongest opponent who knows the run's moves cannot beat it from the start,
#: moving first and moving second (``judging.best_reply``; blank where the game is solved by
#: search, or in a table written before they were measured).
BEST_REPLY_COLUMNS = ("unbeaten_first", "unbeaten_second")


def _columns() -> tuple[str, ...]:
    return (
        "run",
        "game",
        "learner",
        *HYPER_AXES,
        *NETWORK_AXES,
        "canonical",
        "opponent",
        "seat",
        "seed",
        "episodes",
        "train_seconds",
        "steps",
        "optimality",
        "perfect_at",
        *BEST_REPLY_COLUMNS,
        *(f"{name}_{outcome}" for name in MEASURED for outcome in ("win", "draw", "loss")),
        *PRESET_COLUMNS,
    )


#: The columns of results.csv (read when used: a learner kind registered after import has
#: its own settings' columns, after the built-in kinds').
COLUMNS: Sequence[str] = Declared(_columns)


#: The columns that tell runs apart.
SETTING_COLUMNS: Sequence[str] = Declared(lambda: ("learner", *AXES, "opponent", "seat", "seed"))


#: Columns a results table or run file written before a sweep could train networks lacks.
LATER_COLUMNS: Sequence[str] = Declared(
    lambda: (*SEAT_SETTINGS, *NETWORK_AXES, *PRESET_COLUMNS, *BEST_REPLY_COLUMNS)
)


def cell(x: Any) -> str:
    """A value in results.csv: floats exactly (``repr``), rewards as ``1.0,0.0,-1.0``."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, tuple | list):
        return ",".join(cell(v) for v in x)
    return str(x)


class Shares(NamedTuple):
    """A run's results against one opponent: the shares of its games won, drawn and lost, both
    seats together."""

    win: float
    draw: float
    loss: float


def _flag(text: str) -> bool | None:
    """A yes/no cell back (blank: not measured); raises ValueError for anything else."""
    found = {"true": True, "false": False, "": None}.get(text, "?")
    if found == "?":
        raise ValueError(f"not a yes/no cell: {text!r}")
    return found  # type: ignore[return-value]


@dataclass(frozen=True)
class RunRow:
    """One run of a sweep and its results: the row of results.csv, typed.

    ``settings`` holds the run's value of each axis as results.csv writes it ("" for a setting
    its learner lacks): text that labels and groups runs. Everything measured is a number."""

    run: str
    game: str
    learner: str
    settings: Mapping[str, str]
    canonical: bool | None  # None: a network, which reads the board as it is
    opponent: str
    seat: str | None  # None: self-play
    seed: int
    episodes: int
    train_seconds: float
    steps: int
    optimality: float
    perfect_at: int | None
    against: Mapping[str, Shares]  # by name in MEASURED
    preset: str = ""  # the write-up's preset the run started from ("" none)
    overridden: tuple[str, ...] = ()  # the preset's values the run's own replaced
    #: Unbeaten from the start moving first, and moving second (None: not measured).
    unbeaten: tuple[bool | None, bool | None] = (None, None)

    def column(self, name: str) -> str:
        """The cell of column ``name``, as results.csv holds it."""
        return self.cells()[name]

    def cells(self) -> dict[str, str]:
        """The row as results.csv holds it: a cell for every column, in their order."""
        cells = {"run": self.run, "game": self.game, "learner": self.learner}
        cells |= {axis: self.settings.get(axis, "") for axis in AXES}
        cells["canonical"] = cell(self.canonical)
        cells["opponent"] = self.opponent
        cells["seat"] = self.seat or ""
        cells["seed"] = str(self.seed)
        cells["episodes"] = str(self.episodes)
        cells["train_seconds"] = f"{self.train_seconds:.6f}"
        cells["steps"] = str(self.steps)
        cells["optimality"] = cell(self.optimality)
        cells["perfect_at"] = cell(self.perfect_at)
        for column, unbeaten in zip(BEST_REPLY_COLUMNS, self.unbeaten, strict=True):
            cells[column] = cell(unbeaten)
        for name in MEASURED:
            for outcome, share in self.against[name]._asdict().items():
                cells[f"{name}_{outcome}"] = cell(share)
        cells["preset"] = self.preset
        cells["overridden"] = " ".join(self.overridden)
        return {c: cells[c] for c in COLUMNS}

    @classmethod
    def from_cells(cls, cells: Mapping[str, str]) -> RunRow:
        """A row back from its cells (a column written before it existed may be missing: its
        setting was not set). Raises ValueError for a cell that is not what its column holds."""
        try:
            canonical = {"true": True, "false": False, "": None}[cells["canonical"]]
            return cls(
                run=cells["run"],
                game=cells["game"],
                learner=cells["learner"],
                settings={axis: cells.get(axis, "") for axis in AXES},
                canonical=canonical,
                opponent=cells["opponent"],
                seat=cells["seat"] or None,
                seed=int(cells["seed"]),
                episodes=int(cells["episodes"]),
                train_seconds=float(cells["train_seconds"]),
                steps=int(cells["steps"]),
                optimality=float(cells["optimality"]),
                perfect_at=int(cells["perfect_at"]) if cells["perfect_at"] else None,
                against={
                    name: Shares(*(float(cells[f"{name}_{o}"]) for o in ("win", "draw", "loss")))
                    for name in MEASURED
                },
                preset=cells.get("preset", ""),
                overridden=tuple(cells.get("overridden", "").split()),
                unbeaten=(_flag(cells.get("unbeaten_first", "")),
                          _flag(cells.get("unbeaten_second", ""))),
            )  # fmt: skip
        except KeyError as e:
            raise ValueError(f"no cell for column {e}") from None


@dataclass(frozen=True)
class RunOutput:
    name: str
    policy: bytes  # the run's policy file
    row: RunRow


class SweepFolder:
    """A sweep's folder: its fixed settings, its finished runs, its results table."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs = root / "runs"
        self.results = root / "results.csv"
        self.settings_file = root / "sweep.json"

    def fixed(self) -> Fixed | None:
        """The folder's fixed settings; None when there is no sweep here yet."""
        if not self.settings_file.exists():
            return None
        where = str(self.settings_file)
        if not is_file(where):
            raise QarenaError(_("{file} is not a regular file").format(file=where))
        try:
            raw = self.settings_file.read_bytes()
            data = json.loads(raw[:100_000]) if len(raw) <= 100_000 else None
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("format") != SWEEP_FORMAT:
            raise QarenaError(_("{file} is not a qarena sweep's settings").format(file=where))
        try:
            fixed = Fixed(**{k: data[k] for k in FIXED if k in data})
            assert isinstance(fixed.game, str) and isinstance(fixed.canonical, bool)
            assert isinstance(fixed.curve, bool) and isinstance(fixed.games, int)
            assert fixed.every is None or isinstance(fixed.every, int)
            assert isinstance(fixed.until_perfect, bool)
            assert fixed.ties is None or isinstance(fixed.ties, str)
        except (TypeError, AssertionError):
            raise QarenaError(
                _("{file} is not a qarena sweep's settings").format(file=where)
            ) from None
        return fixed

    def open(self, fixed: Fixed) -> None:
        """Make the folder for ``fixed``, or check that the sweep in it shares them."""
        root = str(self.root)
        old = self.fixed()
        if old is None:
            self._check_no_other_files()
        if old is not None and old != fixed:
            diffs = [
                _("{setting} {old!r}, not {new!r}").format(
                    setting=k, old=getattr(old, k), new=getattr(fixed, k)
                )
                for k in FIXED
                if getattr(old, k) != getattr(fixed, k)
            ]
            raise QarenaError(
                _(
                    "{folder} holds a sweep with {differences}: resume it with the same game and "
                    "options, or give another {out}"
                ).format(folder=root, differences="; ".join(diffs), out=option("--out"))
            )
        try:
            self.runs.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QarenaError(
                _("cannot make the folder {folder}: {problem}").format(
                    folder=self.runs, problem=e.strerror or e
                )
            ) from None
        if not is_dir(str(self.runs)):
            raise QarenaError(_("{folder} is not a folder").format(folder=self.runs))
        if old is None:
            text = json.dumps(fixed.to_json(), indent=2) + "\n"
            write_atomic(self.settings_file, text.encode())

    def _check_no_other_files(self) -> None:
        """A folder with no sweep in it yet must hold nothing of anyone else's: the sweep
        writes results.csv and sweep.json there, over whatever has those names."""
        try:
            entries = sorted(os.listdir(self.root))
        except FileNotFoundError:
            return
        others = [e for e in entries if e != LOCK_NAME and not (e == "runs" and self._empty_runs())]
        if others:
            names = ", ".join(others[:3]) + ("…" if len(others) > 3 else "")
            raise QarenaError(
                _(
                    "{folder} holds files but no sweep ({names}); give {out} a new or empty "
                    "folder, or the folder of a sweep to resume"
                ).format(folder=self.root, names=names, out=option("--out"))
            )

    def _empty_runs(self) -> bool:
        return is_dir(str(self.runs)) and not any(os.scandir(self.runs))

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The folder (made if new) held by this sweep while the block runs: a second sweep
        into it is refused until this one ends. A folder this sweep made is removed again if
        the sweep fails before a run is finished (a refused backend, say), so a refusal leaves
        nothing behind."""
        root = str(self.root)
        if os.path.lexists(root) and not is_dir(root):
            raise QarenaError(
                _("{out} {folder} is not a folder").format(out=option("--out"), folder=root)
            )
        made = not os.path.lexists(root)
        if not made and not self.settings_file.exists():
            self._check_no_other_files()  # before the lock file, too, is put there
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QarenaError(
                _("cannot make the folder {folder}: {problem}").format(
                    folder=root, problem=e.strerror or e
                )
            ) from None
        try:
            with folder_lock(root, "sweep"):
                yield
        except BaseException:
            if made:
                self._unmake()
            raise

    def _unmake(self) -> None:
        """Remove the folder this sweep made, if it holds no finished run: only the files a
        sweep writes, and only empty folders."""
        if self.runs.is_dir() and any(self.runs.iterdir()):
            return
        for path in (self.settings_file, self.results, self.root / LOCK_NAME):
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in (self.runs, self.root):
            with contextlib.suppress(OSError):
                folder.rmdir()

    def path(self, name: str) -> Path:
        return self.runs / f"{name}.npz"

    def finished(self) -> dict[str, RunRow]:
        """The row of every finished run, by name: each run file's own record. A file that is
        not a finished run of this sweep (damaged, or of another game) is left out, so the run
        is trained again."""
        rows: dict[str, RunRow] = {}
        if not self.runs.is_dir():
            return rows
        for path in sorted(self.runs.glob("*.npz")):
            try:
                meta = read_meta(path)
            except QarenaError:
                continue
            sweep = meta.get("sweep")
            row = sweep.get("row") if isinstance(sweep, dict) else None
            # Runs written before some settings existed lack their columns: not set.
            if (
                isinstance(row, dict)
                and set(COLUMNS) - set(LATER_COLUMNS) <= set(row) <= set(COLUMNS)
                and all(isinstance(v, str) for v in row.values())
                and row["run"] == path.stem
                and meta.get("game") == row["game"]
            ):
                with contextlib.suppress(ValueError):
                    rows[path.stem] = RunRow.from_cells(row)
        return rows

    def save(self, output: RunOutput) -> None:
        write_atomic(self.path(output.name), output.policy)

    def write_results(self, rows: Iterable[RunRow]) -> None:
        write_atomic(self.results, results_csv(rows))


def run_meta(setting: Setting, row: RunRow) -> dict[str, Any]:
    """What a run file's metadata carries of its sweep: its setting and its row."""
    return {"sweep": {"setting": setting.to_json(), "row": row.cells()}}


def results_csv(rows: Iterable[RunRow]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.cells())
    return buffer.getvalue().encode()


def read_results(path: Path) -> list[RunRow]:
    """results.csv back as rows (for plots and reports), checked to be one."""
    where = str(path)
    if not is_file(where):
        raise QarenaError(
            _("no results table at {file}; is it a sweep folder (qarena sweep)?").format(file=where)
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise QarenaError(
            _("cannot read {file}: {problem}").format(file=where, problem=e)
        ) from None
    reader = csv.DictReader(io.StringIO(text))
    header = tuple(reader.fieldnames or ())
    # A table written before some settings existed lacks their columns: they were not set.
    known = {
        tuple(c for c in COLUMNS if c not in {*network, *az, *own, *preset, *reply})
        for network in ((), NETWORK_AXES)
        for az in ((), ALPHAZERO_AXES)
        for own in ((), REGISTERED_AXES)
        for preset in ((), PRESET_COLUMNS)
        for reply in ((), BEST_REPLY_COLUMNS)
    }
    if header not in known:
        raise QarenaError(_("{file} is not a qarena sweep's results table").format(file=where))
    rows = list(reader)
    if any(None in row or any(v is None for v in row.values()) for row in rows):
        raise QarenaError(
            _("{file} is damaged: a row has the wrong number of cells").format(file=where)
        )
    try:
        return [RunRow.from_cells(row) for row in rows]
    except ValueError:
        raise QarenaError(
            _("{file} is damaged: a cell is not what its column holds").format(file=where)
        ) from None


def ordered_rows(finished: Mapping[str, RunRow], settings: Sequence[Setting]) -> list[RunRow]:
    """The rows of the finished runs: this sweep's in grid order, then the folder's others (an
    earlier sweep into the same folder) by name."""
    names = [s.name for s in settings]
    ours = set(names)
    rows = [finished[n] for n in names if n in finished]
    rows += [finished[n] for n in sorted(finished) if n not in ours]
    return rows
