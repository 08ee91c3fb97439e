"""What the instructor hands back: the CSV gradebook, Moodle's worksheet,
one feedback file per student, and the list of what could not be graded.

Every file is written whole and atomically (a reader never sees half a
file), from the gradebook's current results; none recomputes a score.
"""
import csv
import html
import io

from grader.report.files import write_text
from grader.scoring import fmt

GRADE_COLUMNS = ('key', 'student_id', 'name', 'email', 'status', 'score', 'max_score')
TAIL_COLUMNS = ('late', 'days_late', 'submitted_at', 'isolation', 'reason')
TEXT_COLUMNS = ('key', 'student_id', 'name', 'email', 'status', 'submitted_at', 'isolation',
                'reason')
FORMULA_START = ('=', '+', '-', '@', '\t', '\r', "'")
"""A text cell starting with one of these gets a leading apostrophe, so that a
spreadsheet never runs it as a formula; :func:`read_grades` removes it."""

MOODLE_COLUMNS = ('Identifier', 'Full name', 'Email address', 'Status', 'Grade', 'Maximum Grade',
                  'Grade can be changed', 'Last modified (submission)',
                  'Last modified (grade)', 'Feedback comments')


def exercise_names(records):
    """The exercise columns: every exercise seen in a result, in first-seen order."""
    names = []
    for record in records:
        for exercise in (record.result or {}).get('exercises', []):
            if exercise['name'] not in names:
                names.append(exercise['name'])
    return names


def grade_rows(records):
    """One typed row per submission (what :func:`read_grades` gives back)."""
    names = exercise_names(records)
    rows = []
    for record in records:
        result = record.result if record.status == 'graded' else None
        who = record.identity
        row = {'key': who.key, 'student_id': who.student_id, 'name': who.name,
               'email': who.email, 'status': record.status,
               'score': result['score'] if result else None,
               'max_score': result['max_score'] if result else None}
        scores = {e['name']: e['score'] for e in result['exercises']} if result else {}
        for name in names:
            row[name] = scores.get(name)
        late = (result or {}).get('late') or {}
        row['late'] = bool(late.get('late')) if result else None
        row['days_late'] = late.get('days_late') if late.get('late') else None
        row['submitted_at'] = who.submitted_at
        row['isolation'] = result['isolation']['level'] if result else ''
        row['reason'] = record.reason
        rows.append(row)
    return rows


def _text(value):
    value = '' if value is None else str(value)
    return "'" + value if value.startswith(FORMULA_START) else value


def _cell(column, value):
    if column in TEXT_COLUMNS:
        return _text(value)
    if value is None:
        return ''
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    return repr(value) if isinstance(value, float) else str(value)


def render_grades(rows):
    columns = list(rows[0]) if rows else list(GRADE_COLUMNS + TAIL_COLUMNS)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(c, row[c]) for c in columns])
    return out.getvalue()


def write_grades(records, path):
    write_text(path, render_grades(grade_rows(records)))


def read_grades(path):
    """The rows of a grades CSV, typed as :func:`grade_rows` makes them."""
    with open(path, newline='', encoding='utf-8') as stream:
        rows = list(csv.DictReader(stream))
    out = []
    for raw in rows:
        row = {}
        for column, value in raw.items():
            if column in TEXT_COLUMNS:
                row[column] = value[1:] if value.startswith("'") else value
            elif column == 'late':
                row[column] = {'yes': True, 'no': False}.get(value)
            elif column == 'days_late':
                row[column] = int(value) if value else None
            else:
                row[column] = float(value) if value else None
        out.append(row)
    return out


# -- Moodle ---------------------------------------------------------------------
def moodle_rows(records, worksheet_text=''):
    """Rows of a Moodle grading worksheet to upload.

    With the worksheet Moodle exported, every row is kept as it was and the
    grade of each graded participant filled in, scaled to the worksheet's
    maximum grade; feedback comments are filled only where empty.  Without
    it, a worksheet is made for the submissions that came with a Moodle
    participant id.  Ungraded submissions keep an empty grade.
    """
    by_participant = {r.identity.participant: r for r in records if r.identity.participant}
    if worksheet_text:
        reader = csv.DictReader(io.StringIO(worksheet_text))
        columns, rows = list(reader.fieldnames or MOODLE_COLUMNS), list(reader)
    else:
        columns, rows = list(MOODLE_COLUMNS), []
        for participant, record in sorted(by_participant.items(), key=lambda i: int(i[0])):
            rows.append({'Identifier': f'Participant {participant}',
                         'Full name': record.identity.name,
                         'Email address': record.identity.email,
                         'Status': 'Submitted for grading', 'Grade': '',
                         'Maximum Grade': fmt(record.max_score) if record.max_score else '',
                         'Grade can be changed': 'Yes',
                         'Last modified (submission)': record.identity.submitted_at or '-',
                         'Last modified (grade)': '-', 'Feedback comments': ''})
    for row in rows:
        participant = (row.get('Identifier') or '').rsplit(' ', 1)[-1]
        record = by_participant.get(participant)
        if record is None or record.status != 'graded':
            continue
        try:
            scale = float(row.get('Maximum Grade') or record.max_score) / record.max_score
        except (ValueError, ZeroDivisionError):
            scale = 1.0
        row['Grade'] = fmt(record.score * scale)
        if 'Feedback comments' in row and not row['Feedback comments']:
            row['Feedback comments'] = (f'Automated grade {fmt(record.score)} / '
                                        f'{fmt(record.max_score)}. '
                                        + ' '.join(record.result.get('explanation', [])))
    return columns, rows


def write_moodle(records, path, worksheet_text=''):
    """Write the worksheet; False (nothing written) without any Moodle participant."""
    columns, rows = moodle_rows(records, worksheet_text)
    if not rows:
        return False
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator='\n', extrasaction='ignore')
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, out.getvalue())
    return True


# -- problems --------------------------------------------------------------------
def problems(records):
    return [r for r in records if r.status != 'graded']


def write_problems(records, path):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(['key', 'student_id', 'name', 'status', 'reason', 'origin'])
    for record in problems(records):
        who = record.identity
        writer.writerow([_text(v) for v in (who.key, who.student_id, who.name, record.status,
                                            record.reason or 'not graded yet', who.origin)])
    write_text(path, out.getvalue())


# -- feedback for the student ----------------------------------------------------------
def feedback_text(record, style='md'):
    """The student's feedback file: the report of ``grader check``, for every check."""
    from grader import model
    from grader.report import terminal
    who = record.identity
    title = f'Feedback for {who.name or who.student_id}'
    if record.status != 'graded':
        sentence = ('We could not grade your submission: ' + (record.reason or 'unknown reason')
                    + '. Please contact the course staff.')
        if style == 'html':
            return _page(title, f'<p>{html.escape(sentence)}</p>')
        return f'# {title}\n\n{sentence}\n'
    result = model.from_dict(record.result)
    text = terminal.render(result, verbose=True, colour=False)
    if style == 'html':
        return _page(title, f'<p><strong>Score: {fmt(result.score)} / {fmt(result.max_score)}'
                            f'</strong></p>\n<pre>{html.escape(text)}</pre>')
    try:
        from grader.report import markdown
    except ImportError:
        fence = '````' if '```' in text else '```'
        return f'# {title}\n\n{fence}text\n{text}{fence}\n'
    return f'# {title}\n\n{markdown.render(result)}'


def _page(title, body):
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<title>{html.escape(title)}</title></head>\n<body>\n'
            f'<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n')


def write_feedback(records, folder, style='md'):
    """One file per submission in ``folder``; returns how many were written."""
    count = 0
    for record in records:
        if record.status == 'pending':
            continue
        write_text(folder / f'{record.identity.key}.{style}', feedback_text(record, style))
        count += 1
    return count
