"""A batch from start to end: take in the source, grade what is missing, write outputs.

1. *Intake*: every entry of the source is read (safely), packed and stored
   in the gradebook with its identity and content hash; entries that cannot
   be read are stored with the reason.
2. *Plan*: a submission is graded when it has no current result, when its
   current result is a grader error, or when its content or submission time
   changed; with ``--regrade`` (or when resuming an interrupted regrade)
   also when its result is older than the regrade.  An unchanged
   resubmission keeps its result.
3. *Grade*: the executor grades the planned submissions; each outcome is
   committed the moment it arrives.
4. *Outputs*: CSV gradebook, Moodle worksheet, feedback files, overview,
   problems; all rewritten from the gradebook.
"""
import hashlib
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader import __version__, instruments
from grader.batch import (
    archives,
    classpage,
    compare,
    copies,
    course,
    exports,
    identity,
    overview,
    sources,
)
from grader.batch.gradebook import Gradebook, exists
from grader.batch.progress import Progress
from grader.errors import UserError


@dataclass
class Settings:
    out: Path
    executor: object = None
    limits: archives.Limits = field(default_factory=archives.Limits)
    assignment: str = None
    feedback: str = 'md'
    progress: bool = None
    worksheet: Path = None
    roster: Path = None
    kind: str = None


@dataclass
class Summary:
    run_id: int = None
    submissions: int = 0
    unreadable: int = 0
    """Entries of the source that could not be read (recorded as ungradable)."""
    planned: int = 0
    graded: int = 0
    ungradable: int = 0
    errors: int = 0
    seconds: float = 0.0
    stale: int = 0
    problems: int = 0
    """Submissions without a graded result once the run ended (see problems.csv)."""
    written: list = field(default_factory=list)
    changes: list = field(default_factory=list)
    """For regrades: ``[(record, new status, new result, [sentences])]``."""
    look_alike: list = field(default_factory=list)
    """Groups of keys whose names reduce to the same text (see :func:`sources.look_alike`)."""
    untimed: int = 0
    """Graded submissions of an assignment with a late penalty but without a submission time."""
    similarity: object = None
    """The :class:`grader.batch.copies.Report` (None without ``similarity`` in grading.yaml)."""

    @property
    def kept(self):
        """Submissions whose result in the gradebook was kept as it was."""
        return self.submissions - self.unreadable - self.planned


# -- digests -----------------------------------------------------------------------
def policy_digest(policy):
    return 'sha256:' + hashlib.sha256(Path(policy.path).read_bytes()).hexdigest()


def fixtures_digest(policy, assignment=None):
    """The digest a result graded now would carry (all exercises without an assignment)."""
    if assignment is not None and assignment in policy.assignments:
        names = policy.assignments[assignment].exercises
    else:
        names = list(policy.exercises)
    return course.digest(policy, names)


def stale(policy, records):
    """Graded records whose grader version or fixtures differ from today's.

    A result's digest covers the fixtures of the exercises it graded, so it
    is compared with today's digest of those same exercises.
    """
    digests, out = {}, []
    for record in records:
        if record.status != 'graded':
            continue
        names = tuple(course.graded_exercises(record.result))
        if names not in digests:
            digests[names] = course.digest(policy, names)
        if (record.fixtures_digest != digests[names]
                or record.grader_version != __version__):
            out.append(record)
    return out


# -- the batch ---------------------------------------------------------------------
def check_out(out, mode):
    """Refuse an output folder that cannot be used, before anything is written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError('--out must be a folder, and this is a file: give a folder name', out)
    if mode == 'new' and exists(out):
        raise UserError('this folder already holds a gradebook: pass --resume to grade what is '
                        'missing, or --regrade to grade everything again', out)


def _read(path):
    try:
        with open(path, 'rb') as stream:
            return stream.read().decode('utf-8-sig')
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f'cannot read it: {error}', path) from None


def _given_or_stored(path, book, key, what):
    """``(text, where from)`` of the file at ``path``, else the one an earlier run stored in
    the gradebook under ``key``, else ``(None, None)``."""
    if path:
        return _read(path), path
    if book is not None and book.meta(key):
        return book.meta(key), f'{book.path} ({what} stored by an earlier run)'
    return None, None


def batch(policy, source, settings, mode='new'):
    """Grade a class from ``source`` into ``settings.out``: a :class:`Summary`.

    ``mode`` is ``new`` (the folder must not hold a gradebook yet), ``resume``
    (grade what is missing) or ``regrade`` (grade everything again).

    Everything that can be refused is checked before the output folder is
    touched: the course (grading.yaml and every fixture), the folder, the
    source, the worksheet and roster, and the class itself (not empty).  A
    refused batch leaves no folder behind, and an earlier run's outputs as
    they were.  Without ``--moodle-worksheet`` or ``--roster`` a resumed
    batch reuses the ones stored in the gradebook, so the submission times
    (and late penalties) stay as they were.
    """
    out = Path(settings.out)
    instruments.require_counter()       # an official grade, never without its counter
    course.validate(policy)
    check_out(out, mode)
    kind = sources.check(source, settings.kind)
    made = not out.exists()
    book = Gradebook(out) if exists(out) else None
    try:
        sheet_text, sheet_from = _given_or_stored(settings.worksheet, book, 'moodle_worksheet',
                                                  'the Moodle worksheet')
        worksheet = identity.moodle_worksheet(sheet_from, sheet_text) if sheet_text else None
        roster_text, roster_from = _given_or_stored(settings.roster, book, 'roster',
                                                    'the roster')
        students = identity.roster(roster_from, roster_text) if roster_text else None
        entries = sources.scan(source, settings.limits, kind=kind, clones=out / 'repos',
                               refresh=mode != 'resume', worksheet=worksheet, students=students)
        if book is None:
            book = Gradebook(out, create=True)
    except BaseException:
        if book is not None:
            book.close()
        if made:
            shutil.rmtree(out, ignore_errors=True)
        raise
    with book:
        fresh_since = book.unfinished_regrade() if mode == 'resume' else None
        summary = Summary()
        summary.run_id = book.start_run(
            mode if mode != 'new' else 'batch', source=Path(source).resolve(),
            executor=settings.executor.name, workers=settings.executor.workers,
            grader_version=__version__, fixtures_digest=fixtures_digest(policy),
            policy_digest=policy_digest(policy),
            fresh_since=0 if mode == 'regrade' else fresh_since)
        if mode == 'regrade':
            fresh_since = summary.run_id
        if settings.worksheet:
            book.set_meta('moodle_worksheet', sheet_text)
        if settings.roster:
            book.set_meta('roster', roster_text)
        try:
            intake(book, entries, summary.run_id)
            summary.submissions = len(entries)
            summary.unreadable = sum(1 for e in entries if e.problem)
            summary.look_alike = sources.look_alike([e.identity for e in entries])
            keys = book.pending(fresh_since)
            _grade(book, keys, summary, settings, policy)
        except KeyboardInterrupt:
            book.finish_run(summary.run_id, 'interrupted')
            raise
        except instruments.MissingInstrument:
            book.finish_run(summary.run_id, 'refused')
            raise
        book.finish_run(summary.run_id)
        summary.written, summary.similarity = export(book, policy, settings)
        _totals(summary, policy, book.records())
    return summary


def _totals(summary, policy, records):
    summary.stale = len(stale(policy, records))
    summary.problems = len(exports.problems(records))
    summary.untimed = len(exports.untimed(records, policy))


def intake(book, entries, run_id):
    """Store every entry; an unreadable one gets its ``ungradable`` result now.

    A submission whose content is unchanged keeps the submission time stored
    for it when the source no longer gives one.
    """
    for entry in entries:
        who = entry.identity
        stored = book.submission(who.key)
        if (not who.submitted_at and stored and stored['submitted_at'] and entry.files
                and stored['content_hash'] == archives.content_hash(entry.files)):
            who = entry.identity = replace(who, submitted_at=stored['submitted_at'])
        if entry.problem:
            book.put_submission(who, '', None, entry.problem, run_id)
            current = book.current(who.key)
            if (not current or current['status'] != 'ungradable'
                    or current['reason'] != entry.problem):
                book.record(who.key, run_id, 'ungradable', content_hash='',
                            submitted_at=who.submitted_at, reason=entry.problem)
            continue
        book.put_submission(who, archives.content_hash(entry.files), archives.pack(entry.files),
                            '', run_id)


def jobs(book, keys, assignment=None):
    """The jobs for ``keys``, read from the gradebook one at a time."""
    for key in keys:
        row = book.submission(key)
        yield {'key': key, 'student_id': row['student_id'], 'name': row['name'],
               'content_hash': row['content_hash'], 'submitted_at': row['submitted_at'],
               'assignment': assignment, 'archive': book.archive(key)}


def _grade(book, keys, summary, settings, policy):
    summary.planned = len(keys)
    started = time.monotonic()
    with Progress(len(keys), settings.progress) as bar:
        for job, outcome in settings.executor.grade(jobs(book, keys, settings.assignment)):
            refused(outcome)
            book.record(job['key'], summary.run_id, outcome['status'],
                        content_hash=job['content_hash'], submitted_at=job['submitted_at'],
                        result=outcome.get('result'), reason=outcome.get('reason', ''),
                        seconds=outcome.get('seconds'), worker=outcome.get('worker', ''))
            _count(summary, outcome['status'])
            bar.update(failed=outcome['status'] != 'graded')
    summary.seconds = time.monotonic() - started


def refused(outcome):
    """Stop the batch, recording nothing, when a worker refused to grade for want of an
    instrument (:class:`~grader.instruments.MissingInstrument`: a Dask worker's machine
    without the search counter)."""
    if outcome['status'] == 'refused':
        raise instruments.MissingInstrument(
            f"a worker ({outcome.get('worker') or 'unknown'}) refused: {outcome['reason']}")


def _count(summary, status):
    if status == 'graded':
        summary.graded += 1
    elif status == 'ungradable':
        summary.ungradable += 1
    else:
        summary.errors += 1


# -- regrading a gradebook ------------------------------------------------------------
def regrade(policy, settings, diff=False, resume=False, only=None):
    """Grade a gradebook's stored submissions again with today's policy and fixtures.

    With ``diff`` nothing is written: the summary's ``changes`` say whose
    result would change.  Otherwise the fresh results replace the current
    ones (the old ones stay in the history) and the outputs are rewritten.
    """
    instruments.require_counter()
    course.validate(policy)
    check_out(settings.out, 'regrade')
    with Gradebook(settings.out) as book:
        records = {r.identity.key: r for r in book.records()}
        if only:
            unknown = sorted(set(only) - set(records))
            if unknown:
                raise UserError(f'no submission {", ".join(unknown)} in this gradebook',
                                book.path)
        fresh_since = book.unfinished_regrade() if resume else None
        summary = Summary(submissions=len(records))
        if not diff:
            summary.run_id = book.start_run(
                'regrade', source=str(book.path), executor=settings.executor.name,
                workers=settings.executor.workers, grader_version=__version__,
                fixtures_digest=fixtures_digest(policy), policy_digest=policy_digest(policy),
                fresh_since=fresh_since or 0)
            fresh_since = fresh_since or summary.run_id
        gradable = [k for k, r in records.items() if not book.submission(k)['problem']]
        keys = book.pending(fresh_since) if fresh_since else gradable
        keys = [k for k in keys if k in gradable and (not only or k in only)]
        summary.planned = len(keys)
        started = time.monotonic()
        try:
            with Progress(len(keys), settings.progress, desc='regrading') as bar:
                for job, outcome in settings.executor.grade(jobs(book, keys, settings.assignment)):
                    refused(outcome)
                    record = records[job['key']]
                    said = compare.changes(record.status, record.result, outcome['status'],
                                           outcome.get('result'))
                    if said:
                        summary.changes.append((record, outcome['status'],
                                                outcome.get('result'), said))
                    if not diff:
                        book.record(job['key'], summary.run_id, outcome['status'],
                                    content_hash=job['content_hash'],
                                    submitted_at=job['submitted_at'],
                                    result=outcome.get('result'), reason=outcome.get('reason', ''),
                                    seconds=outcome.get('seconds'),
                                    worker=outcome.get('worker', ''))
                    _count(summary, outcome['status'])
                    bar.update(failed=outcome['status'] != 'graded')
        except (KeyboardInterrupt, instruments.MissingInstrument) as stop:
            if summary.run_id:
                book.finish_run(summary.run_id, 'interrupted' if isinstance(
                    stop, KeyboardInterrupt) else 'refused')
            raise
        summary.seconds = time.monotonic() - started
        summary.changes.sort(key=lambda c: c[0].identity.key)
        if not diff:
            book.finish_run(summary.run_id)
            summary.written, summary.similarity = export(book, policy, settings)
            _totals(summary, policy, book.records())
    return summary


# -- outputs ------------------------------------------------------------------------
def export(book, policy, settings):
    """Rewrite every output file from the gradebook: ``(the paths written, the similarity
    report or None)``.  The comparison of the hand-ins runs here, where the batch runs,
    whatever executor graded them."""
    out = Path(settings.out)
    records = book.records()
    written = [out / 'grades.csv', out / 'problems.csv', out / 'overview.md',
               out / 'overview.png']
    exports.write_grades(records, out / 'grades.csv', policy)
    exports.write_problems(records, out / 'problems.csv', policy)
    overview.write(records, out, policy)
    if exports.write_moodle(records, out / 'moodle-worksheet.csv',
                            book.meta('moodle_worksheet') or ''):
        written.append(out / 'moodle-worksheet.csv')
    if settings.feedback != 'none':
        exports.write_feedback(records, out / 'feedback', settings.feedback)
        written.append(out / 'feedback')
    report = copies.run(book, policy)
    if report is not None:
        written += copies.write(report, out)
    written += classpage.write(book, records, policy, out, report)
    return written, report
