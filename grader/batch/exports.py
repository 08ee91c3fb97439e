"""What the instructor hands back: the CSV gradebook, Moodle's worksheet,
one feedback file per student, and the list of what could not be graded.

Every file is written whole and atomically (a reader never sees half a
file), from the gradebook's current results; none recomputes a score.
"""
import html

from grader import model
from grader.batch import moodle
from grader.report import csvfile
from grader.report.files import write_text
from grader.scoring import fmt

GRADE_COLUMNS = ('key', 'student_id', 'name', 'email', 'status', 'score', 'max_score')
TAIL_COLUMNS = ('late', 'days_late', 'submitted_at', 'isolation', 'reason')
TEXT_COLUMNS = ('key', 'student_id', 'name', 'email', 'status', 'submitted_at', 'isolation',
                'reason')
FORMULA_START = csvfile.FORMULA_START
"""Every CSV cell starting with one of these is neutralised (:mod:`grader.report.csvfile`)."""
NO_TIME = 'no submission time, so the late penalty could not be applied'


def exercise_names(records):
    """The exercise columns: every exercise seen in a result, in first-seen order."""
    names = []
    for record in records:
        for exercise in (record.result or {}).get('exercises', []):
            if exercise['name'] not in names:
                names.append(exercise['name'])
    return names


def untimed(records, policy=None):
    """Graded records of an assignment with a late penalty that carry no submission time."""
    if policy is None:
        return []
    penalised = {name for name, a in policy.assignments.items() if a.late_penalty}
    return [r for r in records if r.status == 'graded' and r.result['assignment'] in penalised
            and not (r.result.get('late') or {}).get('submitted_at')]


def grade_rows(records, policy=None):
    """One typed row per submission (what :func:`read_grades` gives back).

    ``late`` is empty (unknown) for a submission that has no time although its
    assignment has a late penalty; its ``reason`` says so.
    """
    names = exercise_names(records)
    no_time = {id(r) for r in untimed(records, policy)}
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
        row['late'] = bool(late.get('late')) if result and id(record) not in no_time else None
        row['days_late'] = late.get('days_late') if late.get('late') else None
        row['submitted_at'] = who.submitted_at
        row['isolation'] = result['isolation']['level'] if result else ''
        row['reason'] = NO_TIME if id(record) in no_time else record.reason
        rows.append(row)
    return rows


def _cell(column, value):
    if column in TEXT_COLUMNS:
        return '' if value is None else str(value)
    if value is None:
        return ''
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    return repr(value) if isinstance(value, float) else str(value)


def write_grades(records, path, policy=None):
    rows = grade_rows(records, policy)
    columns = list(rows[0]) if rows else list(GRADE_COLUMNS + TAIL_COLUMNS)
    csvfile.write(path, columns, ([_cell(c, row[c]) for c in columns] for row in rows))


def read_grades(path):
    """The rows of a grades CSV, typed as :func:`grade_rows` makes them."""
    _, rows = csvfile.read(path)
    out = []
    for raw in rows:
        row = {}
        for column, value in raw.items():
            if column in TEXT_COLUMNS:
                row[column] = value
            elif column == 'late':
                row[column] = {'yes': True, 'no': False}.get(value)
            elif column == 'days_late':
                row[column] = int(value) if value else None
            else:
                row[column] = float(value) if value else None
        out.append(row)
    return out


# -- Moodle ---------------------------------------------------------------------
def moodle_rows(records, worksheet_text='', source='the stored Moodle worksheet'):
    """``(header, rows)`` of the Moodle grading worksheet to upload.

    With the worksheet Moodle exported, every row is kept as it was and the
    grade of each graded participant filled in, scaled to the worksheet's
    maximum grade in the site's decimal notation; feedback comments are
    filled only where empty, for ungraded submissions with the reason.
    Without it, a worksheet is made for the submissions that came with a
    Moodle participant id.  Ungraded submissions keep an empty grade.
    """
    if worksheet_text:
        return moodle.filled(moodle.read(source, worksheet_text), records)
    return moodle.made(records)


def write_moodle(records, path, worksheet_text=''):
    """Write the worksheet; False (nothing written) without any Moodle participant."""
    header, rows = moodle_rows(records, worksheet_text)
    if not rows:
        return False
    csvfile.write(path, header, rows)
    return True


# -- problems --------------------------------------------------------------------
def problems(records):
    return [r for r in records if r.status != 'graded']


def write_problems(records, path, policy=None):
    """Every submission without a grade, and every graded one whose late penalty
    could not be applied (no submission time), with the reason."""
    rows = [(r.identity.key, r.identity.student_id, r.identity.name, r.status,
             r.reason or 'not graded yet', r.identity.origin) for r in problems(records)]
    rows += [(r.identity.key, r.identity.student_id, r.identity.name, r.status, NO_TIME,
              r.identity.origin) for r in untimed(records, policy)]
    csvfile.write(path, ['key', 'student_id', 'name', 'status', 'reason', 'origin'], rows)


# -- feedback for the student ----------------------------------------------------------
def feedback_text(record, style='md'):
    """The student's feedback file: the report of ``grader check``, for every check, each
    failed position drawn once, cause by cause, as ``grader check`` draws them."""
    from grader.report import terminal  # the report writers load only when feedback is written
    who = record.identity
    title = f'Feedback for {who.name or who.student_id}'
    if record.status != 'graded':
        sentence = ('We could not grade your submission: ' + (record.reason or 'unknown reason')
                    + '. Please contact the course staff.')
        if style == 'html':
            return _page(title, f'<p>{html.escape(sentence)}</p>')
        return f'# {title}\n\n{sentence}\n'
    result = model.from_dict(record.result)
    text = terminal.render(result, colour=False)
    if style == 'html':
        return _page(title, f'<p><strong>Score: {fmt(result.score)} / {fmt(result.max_score)}'
                            f'</strong></p>\n<pre>{html.escape(text)}</pre>')
    try:
        from grader.report import markdown  # the report writers load only when feedback is written
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
