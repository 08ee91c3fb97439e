"""The gradebook: one SQLite database per class, written as results arrive.

Tables:

- ``runs``: one row per ``grader batch`` / ``grader regrade``: when, how
  (executor, workers), the grader version, the fixtures digest and the
  policy digest, and whether it finished or was interrupted;
- ``submissions``: one row per student key: the identity, the content hash
  and the packed files (so a later regrade needs no source);
- ``similarity_files``, ``similarity_pairs`` and ``similarity_prints``: the
  files of each exercise already compared with every other (by content hash
  and the comparison's settings), the pairs among them that were flagged,
  and each file's fingerprints (:mod:`grader.batch.copies`);
- ``results``: every grading outcome ever produced, with its run, the full
  JSON result, the grader version and the fixtures digest; exactly one row
  per submission is ``current``.  ``status`` is ``graded``, ``ungradable``
  (the submission cannot be graded: an unreadable archive, no exercise file;
  a verdict about the submission) or ``error`` (the grader failed; retried
  by ``--resume``).

The database is in WAL mode with full synchronisation, and every result is
committed in its own transaction the moment it arrives, so a killed batch
loses only the submissions being graded at that moment.  Only the batch's
own (parent) process writes; a lock file keeps a second batch out.
"""
import fcntl
import json
import sqlite3
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from grader import __version__
from grader.batch.identity import Identity
from grader.batch.similarity import Match, Prints
from grader.errors import UserError

FILE_NAME = 'gradebook.sqlite'
SCHEMA_VERSION = '1'

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,                 -- batch | resume | regrade
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,               -- running | finished | interrupted
    source TEXT NOT NULL DEFAULT '',
    executor TEXT NOT NULL DEFAULT '',
    workers INTEGER,
    grader_version TEXT NOT NULL,
    fixtures_digest TEXT NOT NULL DEFAULT '',
    policy_digest TEXT NOT NULL DEFAULT '',
    fresh_since INTEGER);               -- results older than this run are stale (regrade)
CREATE TABLE IF NOT EXISTS submissions (
    key TEXT PRIMARY KEY,
    student_id TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    participant TEXT NOT NULL DEFAULT '',
    submitted_at TEXT NOT NULL DEFAULT '',
    origin TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',
    archive BLOB,
    problem TEXT NOT NULL DEFAULT '',
    seen_run INTEGER REFERENCES runs(id));
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission_key TEXT NOT NULL REFERENCES submissions(key),
    run_id INTEGER NOT NULL REFERENCES runs(id),
    current INTEGER NOT NULL DEFAULT 1,
    status TEXT NOT NULL,               -- graded | ungradable | error
    reason TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    submitted_at TEXT NOT NULL DEFAULT '',
    score REAL,
    max_score REAL,
    grader_version TEXT NOT NULL,
    fixtures_digest TEXT NOT NULL DEFAULT '',
    graded_at TEXT NOT NULL,
    seconds REAL,
    worker TEXT NOT NULL DEFAULT '',
    result_json TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS one_current_result ON results(submission_key) WHERE current = 1;
CREATE TABLE IF NOT EXISTS similarity_files (
    exercise TEXT NOT NULL,
    digest TEXT NOT NULL,               -- the comparison's settings and template
    file_hash TEXT NOT NULL,            -- SHA-256 of the file compared with every other
    PRIMARY KEY (exercise, digest, file_hash));
CREATE TABLE IF NOT EXISTS similarity_pairs (
    exercise TEXT NOT NULL,
    digest TEXT NOT NULL,
    hash_a TEXT NOT NULL,               -- hash_a <= hash_b
    hash_b TEXT NOT NULL,
    match_json TEXT NOT NULL,           -- shares, matched tokens and spans (a flagged pair)
    PRIMARY KEY (exercise, digest, hash_a, hash_b));
CREATE TABLE IF NOT EXISTS similarity_prints (
    digest TEXT NOT NULL,
    file_hash TEXT NOT NULL,
    prints_json TEXT NOT NULL,          -- the file's fingerprints
    PRIMARY KEY (digest, file_hash));
"""

IDENTITY_FIELDS = ('key', 'student_id', 'name', 'email', 'participant', 'submitted_at', 'origin')


def now():
    return datetime.now(timezone.utc).isoformat(timespec='milliseconds')


@dataclass
class Record:
    """A submission with its current result, as the outputs read it."""

    identity: Identity
    content_hash: str
    status: str          # graded | ungradable | error | pending
    reason: str = ''
    score: float = None
    max_score: float = None
    result: dict = None
    run_id: int = None
    graded_at: str = ''
    fixtures_digest: str = ''
    grader_version: str = ''


class Gradebook:
    """An open gradebook in ``folder`` (created when ``create``)."""

    def __init__(self, folder, create=False):
        self.folder = Path(folder)
        self.path = self.folder / FILE_NAME
        if not self.path.is_file() and not create:
            raise UserError(f'no gradebook here ({FILE_NAME} not found); run `grader batch '
                            'SOURCE --out DIR` first', self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.folder / '.gradebook.lock', 'w')
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise UserError('another grader batch is writing this gradebook; wait for it '
                            'or stop it first', self.path) from None
        existed = self.path.is_file()
        try:
            self._open(check=existed)
        except sqlite3.DatabaseError as error:
            self._lock.close()
            raise UserError(f'not a readable gradebook ({error}); it was damaged, e.g. cut '
                            'short while being written: restore it from a backup, or grade '
                            'the class again into a new folder', self.path) from None
        except UserError:
            self._lock.close()
            raise

    def _open(self, check):
        """Connect, check an existing file whole, and create the tables if missing."""
        self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        if check:
            problems = [r[0] for r in self.db.execute('PRAGMA quick_check')]
            if problems != ['ok']:
                self.db.close()
                raise sqlite3.DatabaseError('; '.join(problems[:3]))
        self.db.execute('PRAGMA journal_mode=WAL')
        self.db.execute('PRAGMA synchronous=FULL')
        self.db.execute('PRAGMA foreign_keys=ON')
        for statement in SCHEMA.split(';'):
            if statement.strip():
                self.db.execute(statement)
        with self.transaction():
            # We hold the lock: a run still marked running was killed.
            self.db.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'running'")
        version = self.meta('schema_version')
        if version is None:
            self.set_meta('schema_version', SCHEMA_VERSION)
        elif version != SCHEMA_VERSION:
            raise UserError(f'gradebook schema version {version}; this grader reads '
                            f'{SCHEMA_VERSION}', self.path)

    def close(self):
        self.db.close()
        self._lock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def transaction(self):
        return _Transaction(self.db)

    # -- meta -----------------------------------------------------------------
    def meta(self, key):
        row = self.db.execute('SELECT value FROM meta WHERE key = ?', (key,)).fetchone()
        return row['value'] if row else None

    def set_meta(self, key, value):
        with self.transaction():
            self.db.execute('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) '
                            'DO UPDATE SET value = excluded.value', (key, value))

    # -- runs -----------------------------------------------------------------
    def start_run(self, kind, *, source='', executor='', workers=None, grader_version='',
                  fixtures_digest='', policy_digest='', fresh_since=None):
        with self.transaction():
            cursor = self.db.execute(
                'INSERT INTO runs(kind, started_at, status, source, executor, workers, '
                'grader_version, fixtures_digest, policy_digest, fresh_since) '
                'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
                (kind, now(), 'running', str(source), executor, workers, grader_version,
                 fixtures_digest, policy_digest, fresh_since))
        run_id = cursor.lastrowid
        if fresh_since == 0:
            with self.transaction():
                self.db.execute('UPDATE runs SET fresh_since = ? WHERE id = ?', (run_id, run_id))
        return run_id

    def finish_run(self, run_id, status='finished'):
        with self.transaction():
            self.db.execute('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?',
                            (status, now(), run_id))

    def runs(self):
        return [dict(r) for r in self.db.execute('SELECT * FROM runs ORDER BY id')]

    def unfinished_regrade(self):
        """``fresh_since`` of the last run when it was an unfinished regrade, else None."""
        row = self.db.execute('SELECT status, fresh_since FROM runs ORDER BY id DESC LIMIT 1'
                              ).fetchone()
        if row and row['status'] != 'finished' and row['fresh_since']:
            return row['fresh_since']
        return None

    # -- submissions ----------------------------------------------------------
    def put_submission(self, who, content_hash, archive, problem, run_id):
        """Store (or update) one submission's identity and packed files."""
        values = [getattr(who, f) or '' for f in IDENTITY_FIELDS]
        with self.transaction():
            self.db.execute(
                'INSERT INTO submissions(key, student_id, name, email, participant, '
                'submitted_at, origin, content_hash, archive, problem, seen_run) '
                'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET '
                'student_id = excluded.student_id, name = excluded.name, '
                'email = excluded.email, participant = excluded.participant, '
                'submitted_at = excluded.submitted_at, origin = excluded.origin, '
                'content_hash = excluded.content_hash, archive = excluded.archive, '
                'problem = excluded.problem, seen_run = excluded.seen_run',
                (*values, content_hash, archive, problem, run_id))

    def submission(self, key):
        row = self.db.execute('SELECT * FROM submissions WHERE key = ?', (key,)).fetchone()
        return dict(row) if row else None

    def keys(self):
        return [r['key'] for r in self.db.execute('SELECT key FROM submissions ORDER BY key')]

    def archive(self, key):
        row = self.db.execute('SELECT archive FROM submissions WHERE key = ?', (key,)).fetchone()
        return bytes(row['archive']) if row and row['archive'] is not None else None

    # -- results --------------------------------------------------------------
    def record(self, key, run_id, status, *, content_hash, submitted_at='', result=None,
               reason='', seconds=None, worker=''):
        """Store one outcome as the submission's current result (one transaction)."""
        score = max_score = None
        version = digest = ''
        if result is not None:
            score, max_score = result['score'], result['max_score']
            version, digest = result['grader_version'], result['fixtures_digest']
        if not version:
            version = __version__
        with self.transaction():
            self.db.execute('UPDATE results SET current = 0 WHERE submission_key = ? '
                            'AND current = 1', (key,))
            cursor = self.db.execute(
                'INSERT INTO results(submission_key, run_id, current, status, reason, '
                'content_hash, submitted_at, score, max_score, grader_version, fixtures_digest, '
                'graded_at, seconds, worker, result_json) '
                'VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
                (key, run_id, status, reason, content_hash, submitted_at or '', score, max_score,
                 version, digest, now(), seconds, worker,
                 json.dumps(result, sort_keys=True) if result is not None else None))
        return cursor.lastrowid

    def current(self, key):
        row = self.db.execute('SELECT * FROM results WHERE submission_key = ? AND current = 1',
                              (key,)).fetchone()
        return dict(row) if row else None

    def history(self, key):
        return [dict(r) for r in self.db.execute(
            'SELECT * FROM results WHERE submission_key = ? ORDER BY id', (key,))]

    def pending(self, fresh_since=None):
        """Keys whose current result is missing, failed, stale or for other content."""
        rows = self.db.execute(
            'SELECT s.key, s.content_hash, s.submitted_at, s.problem, r.status, '
            'r.content_hash AS graded_hash, r.submitted_at AS graded_at_time, r.run_id '
            'FROM submissions s LEFT JOIN results r ON r.submission_key = s.key AND r.current = 1 '
            'ORDER BY s.key')
        keys = []
        for row in rows:
            if row['problem']:
                continue
            if (row['status'] is None or row['status'] == 'error'
                    or row['graded_hash'] != row['content_hash']
                    or (row['graded_at_time'] or '') != (row['submitted_at'] or '')
                    or (fresh_since and row['run_id'] < fresh_since)):
                keys.append(row['key'])
        return keys

    def records(self):
        """Every submission with its current result, by key."""
        out = []
        for row in self.db.execute(
                'SELECT s.*, r.status, r.reason, r.score, r.max_score, r.result_json, r.run_id, '
                'r.graded_at, r.fixtures_digest, r.grader_version, '
                'r.content_hash AS graded_hash '
                'FROM submissions s LEFT JOIN results r ON r.submission_key = s.key '
                'AND r.current = 1 ORDER BY s.key'):
            who = Identity(**{f: row[f] for f in IDENTITY_FIELDS})
            status = row['status'] or 'pending'
            reason = row['reason'] or ''
            if row['problem']:
                status, reason = 'ungradable', row['problem']
            out.append(Record(
                identity=who, content_hash=row['content_hash'], status=status, reason=reason,
                score=row['score'], max_score=row['max_score'],
                result=json.loads(row['result_json']) if row['result_json'] else None,
                run_id=row['run_id'], graded_at=row['graded_at'] or '',
                fixtures_digest=row['fixtures_digest'] or '',
                grader_version=row['grader_version'] or ''))
        return out

    # -- similarity ------------------------------------------------------------
    def compared_files(self, exercise, digest):
        """Content hashes of the files of ``exercise`` compared with every other already."""
        return {r['file_hash'] for r in self.db.execute(
            'SELECT file_hash FROM similarity_files WHERE exercise = ? AND digest = ?',
            (exercise, digest))}

    def similar_pairs(self, exercise, digest):
        """``{(hash_a, hash_b): Match}`` of the flagged pairs among the files compared."""
        return {(r['hash_a'], r['hash_b']): Match(**json.loads(r['match_json']))
                for r in self.db.execute(
                    'SELECT hash_a, hash_b, match_json FROM similarity_pairs '
                    'WHERE exercise = ? AND digest = ?', (exercise, digest))}

    def stored_prints(self, digest, hashes):
        """``{file hash: Prints}`` stored for the files of ``hashes``."""
        found = {}
        for row in self.db.execute('SELECT file_hash, prints_json FROM similarity_prints '
                                   'WHERE digest = ?', (digest,)):
            if row['file_hash'] in hashes:
                found[row['file_hash']] = Prints.from_json(row['prints_json'])
        return found

    def keep_comparisons(self, exercise, digest, matches, files, prints=None):
        """Store the flagged ``matches`` ``{(hash_a, hash_b): Match}``, mark ``files``
        compared with every other and store their ``prints`` ``{hash: Prints}``, in one
        transaction."""
        with self.transaction():
            self.db.executemany('INSERT OR REPLACE INTO similarity_prints VALUES (?, ?, ?)',
                                [(digest, h, p.to_json()) for h, p in (prints or {}).items()])
            self.db.executemany(
                'INSERT OR REPLACE INTO similarity_pairs VALUES (?, ?, ?, ?, ?)',
                [(exercise, digest, a, b, json.dumps(asdict(m))) for (a, b), m in matches.items()])
            self.db.executemany('INSERT OR IGNORE INTO similarity_files VALUES (?, ?, ?)',
                                [(exercise, digest, f) for f in sorted(files)])


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception)."""

    def __init__(self, db):
        self.db = db

    def __enter__(self):
        for attempt in range(50):
            try:
                self.db.execute('BEGIN IMMEDIATE')
                return self.db
            except sqlite3.OperationalError as error:
                if 'locked' not in str(error) or attempt == 49:
                    raise
                time.sleep(0.1)

    def __exit__(self, kind, value, traceback):
        self.db.execute('COMMIT' if kind is None else 'ROLLBACK')
        return False


def exists(folder):
    return (Path(folder) / FILE_NAME).is_file()
