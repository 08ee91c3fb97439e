"""Who a submission belongs to: identities normalised from every input layout.

- Moodle's "Download all submissions" names each folder (or, without
  folders, each file) ``Full Name_12345_assignsubmission_file_[filename]``:
  the number is the participant id that Moodle's grading worksheet calls
  ``Participant 12345``.
- GitHub Classroom names repositories ``<assignment>-<github user>``: the
  common prefix is removed to leave the user.
- Anything else is known by its folder, archive or repository name.

The ``key`` is what the gradebook and the output files use: unique in a
class and safe as a file name.
"""
import csv
import hashlib
import io
import re
import unicodedata
from dataclasses import asdict, dataclass, replace

from grader.batch import moodle as worksheets  # this module has a function named moodle
from grader.errors import UserError

MOODLE = re.compile(r'^(?P<name>.+?)_(?P<participant>\d+)_assign(?:submission|feedback)_'
                    r'(?P<plugin>[a-z]+)_?(?P<file>.*)$', re.DOTALL)


@dataclass
class Identity:
    key: str
    student_id: str
    name: str = ''
    email: str = ''
    participant: str = ''
    """Moodle's participant id (``Participant 12345`` in its worksheet)."""
    submitted_at: str = ''
    """ISO 8601, or empty when unknown."""
    origin: str = ''
    """Where in the source it was found."""

    def to_dict(self):
        return asdict(self)


def safe_key(text):
    """``text`` reduced to letters, digits, ``.``, ``_`` and ``-`` (never empty).

    Accents are folded (``Åsa`` -> ``Asa``).  A name that had to change to
    become safe gets a suffix made from the name itself, so two names that
    reduce to the same text (``alice_smith`` and ``!alice_smith``) never share
    a key, and a name keeps its key from run to run.
    """
    text = unicodedata.normalize('NFC', text).strip()
    folded = unicodedata.normalize('NFKD', text).encode('ascii', 'ignore').decode()
    key = re.sub(r'[^A-Za-z0-9._-]+', '-', folded).strip('.-')
    if key == text and key:
        return key
    suffix = hashlib.sha256(text.encode()).hexdigest()[:6]
    return f'{key or "unnamed"}-{suffix}'


def base_key(key):
    """The readable part of a key made by :func:`safe_key` (its suffix removed)."""
    return re.sub(r'-[0-9a-f]{6}$', '', key)


def moodle(name):
    """``(full name, participant id, file name)`` from a Moodle download name, or None."""
    match = MOODLE.match(name)
    if not match:
        return None
    return match['name'].strip(), match['participant'], match['file']


def from_name(name, origin):
    """The identity a folder, archive or file name carries."""
    parsed = moodle(name)
    if parsed:
        full, participant, _ = parsed
        return Identity(key=participant, student_id=participant,
                        name=unicodedata.normalize('NFC', full), participant=participant,
                        origin=origin)
    stem = name[:-4] if name.lower().endswith('.zip') else name
    stem = unicodedata.normalize('NFC', stem)
    return Identity(key=safe_key(stem), student_id=stem, origin=origin)


def classroom_users(repo_names):
    """Repository names with GitHub Classroom's common ``<assignment>-`` prefix removed."""
    if len(repo_names) < 2:
        return list(repo_names)
    prefix = repo_names[0]
    for name in repo_names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix[:prefix.rfind('-') + 1] if '-' in prefix else ''
    users = [name[len(prefix):] for name in repo_names]
    return users if all(users) else list(repo_names)


# -- times --------------------------------------------------------------------
def iso_time(text, where=None, line=None):
    """An ISO 8601 string for a time written by a person or a platform; '' for none.

    Moodle's own formats in English, Finnish or Swedish are read (see
    :func:`grader.batch.moodle.parse_time`).  A time that cannot be read is a
    :class:`UserError` naming ``where`` and ``line``: a late penalty is never
    lost in silence.
    """
    try:
        return worksheets.parse_time(text)
    except ValueError:
        raise UserError(f'cannot read the time {text!r}; write it in ISO 8601 '
                        '(2026-03-27T10:00+02:00)', where, line) from None


# -- rosters ------------------------------------------------------------------
def read_table(path, text=None):
    """Rows of a CSV file (UTF-8, with or without BOM), or of its ``text``, as dicts."""
    try:
        if text is not None:
            return list(csv.DictReader(io.StringIO(text.lstrip('\ufeff'), newline='')))
        with open(path, newline='', encoding='utf-8-sig') as stream:
            return list(csv.DictReader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UserError(f'cannot read the table: {error}', path) from None


def moodle_worksheet(path, text=None):
    """``{participant id: person}`` from a Moodle grading worksheet (see :mod:`moodle`)."""
    return worksheets.read(path, text).people()


def roster(path, text=None):
    """``{student id: row}`` from a roster CSV (``student_id`` plus optional
    ``name``, ``email``, ``submitted_at``), read from ``path`` or its ``text``."""
    rows = read_table(path, text)
    if rows and 'student_id' not in rows[0]:
        raise UserError('a roster needs a "student_id" column (optional: name, email, '
                        'submitted_at)', path)
    found = {}
    for line, row in enumerate(rows, 2):
        if row.get('student_id'):
            row = dict(row, submitted_at=iso_time(row.get('submitted_at'), path, line))
            found[row['student_id'].strip()] = row
    return found


def enrich(identity, worksheet=None, students=None):
    """``identity`` completed from a Moodle worksheet and a roster (they win when set)."""
    changes = {}
    person = (worksheet or {}).get(identity.participant)
    if person:
        changes['name'] = person['name'] or identity.name
        changes['email'] = person['email']
        if person['idnumber']:
            changes['student_id'] = person['idnumber']
        if person['submitted_at']:
            changes['submitted_at'] = person['submitted_at']
    identity = replace(identity, **changes)
    row = (students or {}).get(identity.student_id)
    if row:
        changes = {k: row[k].strip() for k in ('name', 'email') if (row.get(k) or '').strip()}
        if row.get('submitted_at'):
            changes['submitted_at'] = row['submitted_at']
        identity = replace(identity, **changes)
    return identity
