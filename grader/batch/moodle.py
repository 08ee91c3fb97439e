"""Moodle's grading worksheet, read and written back as Moodle writes it.

The worksheet (assignment: *View all submissions -> Grading action ->
Download grading worksheet*) is a CSV file in the language of the teacher
who downloaded it: the column names, the ``Participant 12345`` identifiers,
the dates ("Friday, 27 March 2026, 10:00 AM", "perjantai, 27.
maaliskuuta 2026, 10.00") and the decimal separator of the grades
("100,00") all follow the site's language.

Moodle writes its columns in a fixed order: identifier, full name, the
identity fields shown on the site (e-mail, ID number...), status, grade,
maximum grade, "grade can be changed", last modified (submission), the
submission plugins' columns, last modified (grade), the feedback columns.
Columns are found by their English names, and otherwise by that order and
their content (the two date columns, the identifier first), so a worksheet
in another language is read the same way.

Dates are parsed with ``dateparser`` (English, Finnish and Swedish month
and weekday names, Moodle's ``10.00`` times); a date that cannot be read
is an error naming the file and line, never a silently lost late penalty.
Moodle reads the uploaded worksheet back by the same column names, so the
worksheet is written with its own header and decimal separator.
"""
import csv
import io
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from grader.errors import UserError
from grader.scoring import fmt

ENGLISH = {'id': 'Identifier', 'name': 'Full name', 'email': 'Email address',
           'idnumber': 'ID number', 'status': 'Status', 'grade': 'Grade', 'max': 'Maximum Grade',
           'changeable': 'Grade can be changed', 'submitted': 'Last modified (submission)',
           'graded': 'Last modified (grade)', 'feedback': 'Feedback comments'}
"""Column roles and the names Moodle gives them in English."""

LANGUAGES = ('en', 'fi', 'sv')
"""Languages whose month and weekday names a worksheet date may use."""

PARTICIPANT = re.compile(r'^\s*\S.*?\s(\d+)\s*$')
NO_TIME = ('', '-')


@lru_cache(maxsize=4096)
def parse_time(text):
    """ISO 8601 text of a date written by Moodle (or ISO 8601 itself); '' for none.

    Raises :class:`ValueError` when ``text`` is not a date.  Times without a
    zone stay without one: the late penalty reads them in the deadline's zone.
    """
    text = unicodedata.normalize('NFKC', (text or '')).strip()
    if text in NO_TIME:
        return ''
    try:
        return datetime.fromisoformat(text.replace('Z', '+00:00')).isoformat()
    except ValueError:
        pass
    import dateparser  # optional and slow to import: only for dates no format here reads
    when = dateparser.parse(text, languages=list(LANGUAGES),
                            settings={'PARSERS': ['absolute-time'],   # never "tomorrow"
                                      'STRICT_PARSING': True, 'DATE_ORDER': 'DMY',
                                      'RETURN_AS_TIMEZONE_AWARE': False,
                                      'PREFER_LOCALE_DATE_ORDER': False})
    if when is None:
        raise ValueError(f'not a date: {text!r}')
    return when.isoformat()


def _is_time(text):
    try:
        parse_time(text)
    except ValueError:
        return False
    return True


def _number(text):
    """A grade as Moodle writes it ('2.50', '2,50', '1 000,00') as a float, or None."""
    text = (text or '').replace('\u00a0', '').replace(' ', '').strip()
    if not text:
        return None
    if re.fullmatch(r'-?\d+(,\d+)?', text):
        text = text.replace(',', '.')
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class Worksheet:
    """A worksheet read from Moodle: its columns, rows and what each column holds."""

    source: str
    header: list
    rows: list
    """``[(line number, {column: text})]``."""
    roles: dict = field(default_factory=dict)
    """``{role: column name}`` for the roles of :data:`ENGLISH` found."""
    decimal: str = '.'
    """The site's decimal separator, as written in the maximum grades."""

    def cell(self, row, role):
        column = self.roles.get(role)
        return (row.get(column) or '').strip() if column else ''

    def participant(self, row):
        match = PARTICIPANT.match(self.cell(row, 'id'))
        return match.group(1) if match else None

    def people(self):
        """``{participant id: {name, email, idnumber, submitted_at}}``; times checked."""
        found = {}
        for line, row in self.rows:
            participant = self.participant(row)
            if not participant:
                continue
            raw = self.cell(row, 'submitted')
            try:
                when = parse_time(raw)
            except ValueError:
                raise UserError(f'cannot read the submission time {raw!r} (column '
                                f'"{self.roles["submitted"]}"); write it as Moodle does '
                                '("Friday, 27 March 2026, 10:00 AM") or in ISO 8601',
                                self.source, line) from None
            found[participant] = {'name': self.cell(row, 'name'),
                                  'email': self.cell(row, 'email'),
                                  'idnumber': self.cell(row, 'idnumber'),
                                  'submitted_at': when}
        return found

    def format_grade(self, value):
        text = fmt(value)
        return text.replace('.', ',') if self.decimal == ',' else text

    def maximum(self, row):
        return _number(self.cell(row, 'max'))


def read(path, text=None):
    """The worksheet at ``path`` (or its ``text``), columns found; :class:`UserError` if not one."""
    source = str(path)
    if text is None:
        try:
            with open(path, 'rb') as stream:
                text = stream.read().decode('utf-8-sig')
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(f'cannot read the worksheet: {error}', path) from None
    text = text.lstrip('\ufeff')
    reader = csv.reader(io.StringIO(text, newline=''))
    rows = []
    try:
        header = next(reader, [])
        for record in reader:
            if any(cell.strip() for cell in record):
                rows.append((reader.line_num, dict(zip(header, record))))
    except csv.Error as error:
        raise UserError(f'not a readable CSV file: {error}', path, reader.line_num) from None
    if not header:
        raise UserError('the worksheet is empty; download it again from Moodle', path)
    sheet = Worksheet(source, header, rows)
    sheet.roles = _roles(header, [r for _, r in rows])
    if 'id' not in sheet.roles:
        raise UserError('not a Moodle grading worksheet: no identifier column ("Participant '
                        '12345"); download it from the assignment: View all submissions -> '
                        'Grading action -> Download grading worksheet', path)
    maxima = [sheet.cell(r, 'max') for _, r in rows]
    if any(re.fullmatch(r'\d+,\d+', m.replace(' ', '').replace('\u00a0', '')) for m in maxima):
        sheet.decimal = ','
    return sheet


def _roles(header, rows):
    """``{role: column}``: by English name, else by Moodle's column order and content."""
    roles = {role: name for role, name in ENGLISH.items() if name in header}
    if 'id' in roles and 'submitted' in roles:
        return roles
    values = {c: [(r.get(c) or '').strip() for r in rows] for c in header}
    if 'id' not in roles and header and values[header[0]] and all(
            PARTICIPANT.match(v) for v in values[header[0]] if v):
        roles['id'] = header[0]
        if len(header) > 1:
            roles.setdefault('name', header[1])
    _date_roles(roles, header, values)
    for i, column in enumerate(header[2:], 2):
        if 'email' not in roles and values[column] and all('@' in v for v in values[column] if v) \
                and any(values[column]):
            roles['email'] = column
    return roles


def _date_roles(roles, header, values):
    """Add the roles found by the date columns: submitted, grade, max, graded, feedback.

    A date column is mostly dates (a value that does not parse is reported
    when read, never taken for "no time"), or only Moodle's "-".
    """
    dates, real = [], []
    for i, column in enumerate(header):
        cells = [v for v in values[column] if v]
        written = [v for v in cells if v not in NO_TIME]
        parsed = sum(1 for v in written if _is_time(v))
        if i >= 2 and cells and (not written or 2 * parsed >= len(written) > 0):
            dates.append(i)
            if parsed:
                real.append(i)
    if real:
        dates = [i for i in dates if i >= real[0]]
    if not dates:
        return
    submitted = dates[0]
    roles.setdefault('submitted', header[submitted])
    if submitted >= 4:
        roles.setdefault('grade', header[submitted - 3])
        roles.setdefault('max', header[submitted - 2])
    if len(dates) > 1:
        roles.setdefault('graded', header[dates[-1]])
        if dates[-1] + 1 < len(header):
            roles.setdefault('feedback', header[dates[-1] + 1])


def filled(sheet, records):
    """``(header, rows)`` of the worksheet to upload, with grades and comments filled in.

    Every row is kept as Moodle wrote it.  A graded participant gets the grade,
    scaled to the row's maximum grade, in the site's decimal notation; the
    feedback comment is filled where it is empty: the score and what counted,
    or, for a submission that could not be graded, why.  Ungraded
    submissions keep an empty grade, never a silent zero.
    """
    by_participant = {r.identity.participant: r for r in records if r.identity.participant}
    out = []
    for _, row in sheet.rows:
        row = dict(row)
        record = by_participant.get(sheet.participant(row))
        if record is not None:
            grade, comment = grade_and_comment(record, sheet.maximum(row))
            if grade is not None and sheet.roles.get('grade'):
                row[sheet.roles['grade']] = sheet.format_grade(grade)
            feedback = sheet.roles.get('feedback')
            if feedback and not (row.get(feedback) or '').strip():
                row[feedback] = comment
        out.append([row.get(c, '') for c in sheet.header])
    return sheet.header, out


def grade_and_comment(record, maximum=None):
    """``(grade scaled to maximum or None, feedback comment)`` of one record."""
    if record.status != 'graded':
        reason = record.reason or 'not graded yet'
        return None, (f'Not graded automatically: {reason}. The course staff will look '
                      'at this submission.')
    scale = 1.0
    if maximum and record.max_score:
        scale = maximum / record.max_score
    comment = (f'Automated grade {fmt(record.score)} / {fmt(record.max_score)}. '
               + ' '.join(record.result.get('explanation', [])))
    return round(record.score * scale, 4), comment.strip()


def made(records):
    """``(header, rows)`` of a worksheet made from the participant ids (no Moodle one given)."""
    header = [ENGLISH[k] for k in ('id', 'name', 'email', 'status', 'grade', 'max',
                                   'changeable', 'submitted', 'graded', 'feedback')]
    rows = []
    by_participant = {r.identity.participant: r for r in records if r.identity.participant}
    for participant, record in sorted(by_participant.items(), key=lambda i: int(i[0])):
        grade, comment = grade_and_comment(record)
        rows.append([f'Participant {participant}', record.identity.name, record.identity.email,
                     'Submitted for grading', '' if grade is None else fmt(grade),
                     fmt(record.max_score) if record.max_score else '', 'Yes',
                     record.identity.submitted_at or '-', '-', comment])
    return header, rows
