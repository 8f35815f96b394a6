"""The policy store: a folder of policy files and a SQLite index of them.

A policy file is written first (atomically, by ``save_learner``) and its index row inserted
after; a delete removes the row first and the file after. So the index never names a missing
file for long, and a crash leaves at worst an unlisted file (or a writer's temp file), which
:meth:`PolicyStore.tidy` puts right when the web app starts. A policy file the store cannot read
(written by a newer qarena, unreadable to this user, damaged) is never removed: only qarena's
own temp files are. It is listed as unreadable, with the reason, until it changes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict

from qarena.agents.players import load_file
from qarena.budget import memory_budget
from qarena.errors import QarenaError, TooLargeError
from qarena.fileio import atomic_open, remove_stale_temps
from qarena.games import Game, parse_spec
from qarena.i18n import _
from qarena.judging.family import exact_share, family_of
from qarena.learn.family import Trainable
from qarena.learn.learners import LEARNERS, load_learner, save_learner
from qarena.policyfile import read_meta
from qarena.web.exceptions import NotFound

log = logging.getLogger("qarena.web")

#: The most memory the server lets one n-tuple network take, checked from its file's sizes
#: before any of its arrays is read (an upload, a file in the folder): 1,000 tuples of 8
#: cells (524 MB) fit, the shipped classic Connect Four network (105 MB) five times over;
#: bigger ones play on the command line.
MAX_NETWORK_BYTES = 600_000_000

_ID = re.compile(r"[0-9a-f]{12}")
_FILE = re.compile(r"([0-9a-f]{12})\.npz")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS policies (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    learner TEXT NOT NULL,
    episodes INTEGER NOT NULL,
    optimality REAL,
    created TEXT NOT NULL
)
"""


def _allow_no_optimality(db: sqlite3.Connection) -> None:
    """An index made before n-tuple networks were stored holds optimality NOT NULL: its rows
    move to a table that allows none (a network's)."""
    columns = db.execute("PRAGMA table_info(policies)").fetchall()
    if any(name == "optimality" and notnull for _cid, name, _t, notnull, *_ in columns):
        db.execute("ALTER TABLE policies RENAME TO policies_before")
        db.execute(_SCHEMA)
        db.execute("INSERT INTO policies SELECT * FROM policies_before")
        db.execute("DROP TABLE policies_before")


def is_policy_id(text: str) -> bool:
    """Whether ``text`` has the form of a stored policy's id (12 hex digits)."""
    return _ID.fullmatch(text) is not None


#: What a training run here records in its policy file's metadata (under "training"), by type.
TRAINING_KEYS = {"opponent": str, "seat": str, "until_perfect": bool}


def training_of(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """How a run here trained a policy, as its file's metadata says (the keys and types this
    app writes, nothing else); None for files trained elsewhere, which do not say."""
    given = meta.get("training")
    if not isinstance(given, dict):
        return None
    return {k: v for k, v in given.items() if isinstance(v, TRAINING_KEYS.get(k, ()))}


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/qarena``, else ``~/.local/share/qarena``."""
    base = os.environ.get("XDG_DATA_HOME")
    return Path(base) / "qarena" if base else Path.home() / ".local" / "share" / "qarena"


@dataclass(frozen=True)
class Tidied:
    """What :meth:`PolicyStore.tidy` did."""

    temps: int = 0  # temp files of dead writers removed
    indexed: int = 0  # policy files without a row, indexed
    unreadable: int = 0  # files without a row that do not load as policies, left alone
    skipped: int = 0  # files without a row for games too big to load here, left alone
    dropped: int = 0  # rows whose file is missing, deleted

    def __bool__(self) -> bool:
        return any((self.temps, self.indexed, self.unreadable, self.skipped, self.dropped))


class PolicyRow(BaseModel):
    """A stored policy's index row (also the API's view of it, less its download link)."""

    model_config = ConfigDict(frozen=True)

    id: str
    game: str
    learner: str
    episodes: int  # games, for an n-tuple network
    #: The exact share of decision positions where it keeps the value; None for an n-tuple
    #: network, which ``qarena eval`` judges (by samples on a board too big to enumerate).
    optimality: float | None
    created: str

    @property
    def tables(self) -> bool:
        """Whether its learner keeps a table of every position (a table learner's policy,
        judged exactly), not a model judged along play (an n-tuple network's file)."""
        cls = LEARNERS.get(self.learner)
        return cls is None or family_of(cls).tables

    @property
    def filename(self) -> str:
        """The name a download offers, e.g. ``nim-3-5-7-q-1a2b3c4d5e6f.npz``."""
        game = re.sub(r"[^a-z0-9]+", "-", self.game.lower()).strip("-")
        return f"{game}-{self.learner}-{self.id}.npz"

    @classmethod
    def of(cls, values: Sequence[Any]) -> PolicyRow:
        """The row from the index's columns, in order."""
        return cls(**dict(zip(cls.model_fields, values, strict=True)))


class PolicyStore:
    """Policies under ``data_dir``: ``policies/<id>.npz`` and ``index.sqlite3``."""

    def __init__(self, data_dir: Path, network_bytes: int = MAX_NETWORK_BYTES) -> None:
        self.data_dir = data_dir
        self.network_bytes = network_bytes
        self.folder = data_dir / "policies"
        self.index = data_dir / "index.sqlite3"
        self._lock = threading.Lock()
        #: Files of the folder that do not load as policies: by id, the file's size and time
        #: when it was tried (so it is tried again only once it changes), and why.
        self._unreadable: dict[str, tuple[tuple[int, int], str]] = {}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            # Can we create files there? An anonymous temp file answers without leaving one.
            with tempfile.TemporaryFile(dir=self.folder):
                pass
            with self._db() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
                _allow_no_optimality(db)
        except (OSError, sqlite3.Error) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise QarenaError(
                _("cannot use the data folder {folder}: {reason}").format(
                    folder=data_dir, reason=reason
                )
            ) from None

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection for one operation, committed at the end (one at a time per process)."""
        with self._lock:
            db = sqlite3.connect(self.index, timeout=10)
            try:
                with db:
                    yield db
            finally:
                db.close()

    def path(self, policy_id: str) -> Path:
        if not is_policy_id(policy_id):
            raise NotFound(_("no policy {id!r}").format(id=policy_id))
        return self.folder / f"{policy_id}.npz"

    def fresh_path(self) -> Path:
        """A path in the folder under a new policy id, free now: where a file put in by hand
        is indexed (the folder takes only ids as names)."""
        while True:
            path = self.folder / f"{secrets.token_hex(6)}.npz"
            if not path.exists():
                return path

    def add(self, learner: Trainable, extra: Mapping[str, Any] | None = None) -> PolicyRow:
        """Save the learner's file (``extra`` keys in its metadata), then index it."""
        policy_id = secrets.token_hex(6)
        save_learner(self.path(policy_id), learner, extra=extra)
        return self._index(policy_id, learner, datetime.now(UTC))

    def network_budget(self) -> int:
        """The most one network may take here: this server's limit, or less when the
        machine's budget (QARENA_MEMORY_LIMIT) is lower."""
        return min(self.network_bytes, memory_budget())

    def receive(self, refuse: Callable[[Game], str | None] | None = None) -> Receiving:
        """A policy file to receive from elsewhere (an upload), written as it arrives;
        ``refuse`` says why its game is not taken (None: it is), checked from its metadata
        before any table is built."""
        return Receiving(self, refuse)

    def meta(self, policy_id: str) -> dict[str, Any]:
        """A stored policy's metadata, read without its tables (NotFound when there is none;
        QarenaError naming the policy, not the server's path, when it cannot be read)."""
        self.get(policy_id)
        path = os.fspath(self.path(policy_id))
        try:
            return read_meta(path)
        except QarenaError as e:
            raise QarenaError(str(e).replace(path, _("policy {id}").format(id=policy_id))) from None

    def _index(self, policy_id: str, learner: Trainable, created: datetime) -> PolicyRow:
        # A learner judged over every position (a table learner) is judged as it is stored;
        # one judged along play (a network) is not here: ``qarena eval`` judges it.
        kind, count = learner.kind, learner.episodes
        share = exact_share(learner)
        row = PolicyRow(
            id=policy_id,
            game=learner.game.spec,
            learner=kind,
            episodes=count,
            optimality=share,
            created=created.isoformat(timespec="seconds"),
        )
        with self._db() as db:
            # OR REPLACE: another server starting on this folder may have indexed the file
            # between our save and this insert; the rows are the same.
            db.execute(
                "INSERT OR REPLACE INTO policies VALUES (?, ?, ?, ?, ?, ?)",
                (row.id, row.game, row.learner, row.episodes, row.optimality, row.created),
            )
        return row

    def tidy(self) -> Tidied:
        """Put right what killed writers left: remove their temp files; delete rows whose file
        is gone; and :meth:`refresh`."""
        temps = remove_stale_temps(self.folder)
        with self._db() as db:
            rows = {r[0] for r in db.execute("SELECT id FROM policies")}
        files = self._files()
        gone = sorted(rows - files)
        if gone:
            with self._db() as db:
                db.executemany("DELETE FROM policies WHERE id = ?", [(i,) for i in gone])
        indexed, unreadable, skipped = self._index_new(files)
        return Tidied(temps, indexed, unreadable, skipped, len(gone))

    def refresh(self) -> int:
        """Index policy files put in the folder since (trained on the command line with
        ``--out`` there); returns how many."""
        return self._index_new()[0]

    def _files(self) -> set[str]:
        files = set()
        with os.scandir(self.folder) as entries:
            for entry in entries:
                found = _FILE.fullmatch(entry.name)
                if found and entry.is_file(follow_symlinks=False):
                    files.add(found.group(1))
        return files

    def _index_new(self, files: set[str] | None = None) -> tuple[int, int, int]:
        """Index the policy files (``files``, else the folder's) that have no row, if they load;
        leave the others alone: those that do not load are listed by :meth:`unreadable` (and
        tried again once they change), those too big to load here are skipped. Returns the
        counts: indexed, unreadable, skipped."""
        with self._db() as db:
            rows = {r[0] for r in db.execute("SELECT id FROM policies")}
        indexed = unreadable = skipped = 0
        for policy_id in sorted((self._files() if files is None else files) - rows):
            path = self.path(policy_id)
            try:
                info = path.stat()
            except OSError:
                continue  # gone since the folder was listed
            key = (info.st_size, info.st_mtime_ns)
            known = self._unreadable.get(policy_id)
            if known is not None and known[0] == key:
                unreadable += 1
                continue
            try:
                learner = load_file(path, budget=self.network_budget())
                modified = datetime.fromtimestamp(info.st_mtime, UTC)
                self._index(policy_id, learner, modified)
                self._unreadable.pop(policy_id, None)
                indexed += 1
            except TooLargeError as e:
                log.warning("left %s alone: %s", path, e)
                skipped += 1
            except QarenaError as e:
                # Not ours to delete: a newer qarena's file, one this user may not read.
                log.warning("left %s alone: it cannot be read as a policy file (%s)", path, e)
                self._unreadable[policy_id] = (key, str(e))
                unreadable += 1
            except Exception:  # not the file's fault, as far as we know: keep it
                log.exception("could not check %s; left it alone", path)
                skipped += 1
        return indexed, unreadable, skipped

    def unreadable(self) -> list[tuple[str, str]]:
        """The files of the folder that did not load as policies, and why, by file name."""
        files = self._files()
        return sorted(
            (f"{i}.npz", reason) for i, (_key, reason) in self._unreadable.items() if i in files
        )

    def get(self, policy_id: str) -> PolicyRow:
        """The row; NotFound when there is none."""
        with self._db() as db:
            found = db.execute("SELECT * FROM policies WHERE id = ?", (policy_id,)).fetchone()
        if found is None:
            raise NotFound(_("no policy {id!r}").format(id=policy_id))
        return PolicyRow.of(found)

    def list(self, game: str | None = None) -> list[PolicyRow]:
        """Newest first; only ``game``'s when given."""
        query = "SELECT * FROM policies"
        args: tuple[str, ...] = ()
        if game is not None:
            query += " WHERE game = ?"
            args = (game,)
        with self._db() as db:
            rows = db.execute(query + " ORDER BY created DESC, rowid DESC", args).fetchall()
        return [PolicyRow.of(r) for r in rows]

    def best_for(self, game: str) -> PolicyRow | None:
        """The game's policy of highest optimality (the newest among equals), if any."""
        with self._db() as db:
            found = db.execute(
                "SELECT * FROM policies WHERE game = ? AND optimality IS NOT NULL "
                "ORDER BY optimality DESC, created DESC, rowid DESC LIMIT 1",
                (game,),
            ).fetchone()
        return PolicyRow.of(found) if found else None

    def open(self, policy_id: str) -> tuple[PolicyRow, IO[bytes]]:
        """The row and its file, opened for reading; NotFound when there is no such policy, or
        when its file is gone (its row is then dropped: the index named a missing file)."""
        row = self.get(policy_id)
        try:
            return row, self.path(policy_id).open("rb")
        except FileNotFoundError:
            with self._db() as db:
                db.execute("DELETE FROM policies WHERE id = ?", (policy_id,))
            raise NotFound(_("no policy {id!r}").format(id=policy_id)) from None

    def load(self, policy_id: str) -> Trainable:
        """The stored learner, of any kind (NotFound when there is none)."""
        self.get(policy_id)
        path = os.fspath(self.path(policy_id))
        try:
            return load_learner(path, budget=self.network_budget())
        except QarenaError as e:
            # A refusal names the file (one too large to load now): the policy, as meta()
            # names it, not the server's path.
            named = str(e).replace(path, _("policy {id}").format(id=policy_id))
            raise type(e)(named) from None

    def delete(self, policy_id: str) -> None:
        """Remove the row, then the file; NotFound when there is no such policy."""
        with self._db() as db:
            gone = db.execute("DELETE FROM policies WHERE id = ?", (policy_id,)).rowcount
        if not gone:
            raise NotFound(_("no policy {id!r}").format(id=policy_id))
        with contextlib.suppress(FileNotFoundError):
            self.path(policy_id).unlink()


class Receiving:
    """A policy file arriving from elsewhere, a part at a time: written into a temp file in the
    store's folder by the safe writer (locked, so a crash leaves nothing that tidy does not
    remove), then loaded in full as any policy file is, and only then given its id's name and
    indexed; or dropped, leaving nothing behind. The parts may come from different threads
    (an upload's are written as they reach the server), never two at once."""

    def __init__(
        self, store: PolicyStore, refuse: Callable[[Game], str | None] | None = None
    ) -> None:
        self.store = store
        self.refuse = refuse
        self.id = secrets.token_hex(6)
        self.name = _("the file")
        self._stack = contextlib.ExitStack()
        self._file: IO[bytes] | None = None
        self._loaded: Trainable | None = None

    def open(self) -> None:
        try:
            self._file = self._stack.enter_context(
                atomic_open(self.store.path(self.id), verify=self._verify)
            )
        except OSError as e:
            raise QarenaError(
                _("cannot store the file: {reason}").format(reason=e.strerror or e)
            ) from None

    def write(self, data: bytes) -> None:
        assert self._file is not None, "open() first"
        try:
            self._file.write(data)
        except OSError as e:
            self.abort()
            raise QarenaError(
                _("cannot store the file: {reason}").format(reason=e.strerror or e)
            ) from None

    def _verify(self, tmp: str) -> None:
        try:
            if self.refuse is not None:
                # The game first, from the metadata alone: checking a table learner's file
                # builds the game's tables, which for a big game takes what training it
                # would. A kind that keeps no table (a network) is held to its own budget by
                # its loader, so any board it plays is taken.
                try:
                    meta = read_meta(tmp)
                    game = parse_spec(str(meta.get("game")))
                except QarenaError as e:  # named as the loaders name it
                    problem = _("its game is not readable ({problem})").format(problem=e)
                    raise QarenaError(f"{tmp}: {problem}") from None
                kind = LEARNERS.get(Trainable.file_kind(meta) or "")
                why = self.refuse(game) if kind is None or family_of(kind).tables else None
                if why is not None:
                    raise QarenaError(why)
            self._loaded = load_file(tmp, budget=self.store.network_budget())
        except QarenaError as e:
            # Named as the person named it: the server's paths are not theirs to see.
            raise type(e)(str(e).replace(tmp, self.name)) from None

    def finish(self, name: str) -> PolicyRow:
        """Check the file (refused with one line that calls it ``name``), store and index it."""
        self.name = name
        try:
            self._stack.close()
        except OSError as e:
            raise QarenaError(
                _("cannot store {file}: {reason}").format(file=name, reason=e.strerror or e)
            ) from None
        assert self._loaded is not None
        return self.store._index(self.id, self._loaded, datetime.now(UTC))

    def abort(self) -> None:
        """Drop what was written (quick: no check, no sync)."""
        dropped = QarenaError("the upload was dropped")
        with contextlib.suppress(QarenaError, OSError):
            self._stack.__exit__(QarenaError, dropped, None)
