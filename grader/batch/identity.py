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
import re
from dataclasses import asdict, dataclass, replace
from datetime import datetime

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
    """``text`` reduced to letters, digits, ``.``, ``_`` and ``-`` (never empty)."""
    key = re.sub(r'[^A-Za-z0-9._-]+', '-', text.strip()).strip('.-')
    return key or 'unnamed'


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
        return Identity(key=participant, student_id=participant, name=full,
                        participant=participant, origin=origin)
    stem = name[:-4] if name.lower().endswith('.zip') else name
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
MOODLE_TIME_FORMATS = ('%A, %d %B %Y, %I:%M %p', '%A, %d %B %Y, %H:%M', '%d %B %Y, %I:%M %p',
                       '%d.%m.%Y %H:%M', '%Y-%m-%d %H:%M:%S', '%Y-%m-%d %H:%M')


def iso_time(text):
    """An ISO 8601 string for a time written by a person or a platform, or ''.

    Times without a zone stay without one: the late penalty reads them in the
    deadline's zone.
    """
    text = (text or '').strip()
    if not text or text == '-':
        return ''
    try:
        return datetime.fromisoformat(text.replace('Z', '+00:00')).isoformat()
    except ValueError:
        pass
    for fmt in MOODLE_TIME_FORMATS:
        try:
            return datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    return ''


# -- rosters ------------------------------------------------------------------
def read_table(path):
    """Rows of a CSV file (UTF-8, with or without BOM) as dicts."""
    try:
        with open(path, newline='', encoding='utf-8-sig') as stream:
            return list(csv.DictReader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise UserError(f'cannot read the table: {error}', path) from None


def moodle_worksheet(path):
    """``{participant id: row}`` from a Moodle grading worksheet CSV."""
    rows = read_table(path)
    if rows and 'Identifier' not in rows[0]:
        raise UserError('not a Moodle grading worksheet: no "Identifier" column '
                        '(download it from the assignment: View all submissions -> '
                        'Grading action -> Download grading worksheet)', path)
    found = {}
    for row in rows:
        match = re.search(r'(\d+)\s*$', row.get('Identifier') or '')
        if match:
            found[match.group(1)] = row
    return found


def roster(path):
    """``{student id: row}`` from a roster CSV (``student_id`` plus optional
    ``name``, ``email``, ``submitted_at``)."""
    rows = read_table(path)
    if rows and 'student_id' not in rows[0]:
        raise UserError('a roster needs a "student_id" column (optional: name, email, '
                        'submitted_at)', path)
    return {row['student_id'].strip(): row for row in rows if row.get('student_id')}


def enrich(identity, worksheet=None, students=None):
    """``identity`` completed from a Moodle worksheet and a roster (they win when set)."""
    changes = {}
    row = (worksheet or {}).get(identity.participant)
    if row:
        changes['name'] = (row.get('Full name') or identity.name).strip()
        changes['email'] = (row.get('Email address') or '').strip()
        if (row.get('ID number') or '').strip():
            changes['student_id'] = row['ID number'].strip()
        when = iso_time(row.get('Last modified (submission)'))
        if when:
            changes['submitted_at'] = when
    identity = replace(identity, **changes)
    row = (students or {}).get(identity.student_id)
    if row:
        changes = {k: row[k].strip() for k in ('name', 'email') if (row.get(k) or '').strip()}
        when = iso_time(row.get('submitted_at'))
        if when:
            changes['submitted_at'] = when
        identity = replace(identity, **changes)
    return identity
