"""The class on one page: ``index.html`` and ``students/<key>.html`` in the output folder.

``index.html`` holds the grade table (sortable; late and problem rows
marked), each check's pass rate with the class's most common failure
message, the score histogram (inline SVG), and the pairs of similar code
with links to their side-by-side views.  A student's page holds the same
feedback as their feedback file (every check; each failed position once,
cause by cause, its board drawn with what came back, what was expected and
everything it costs; hidden cases never show the answer), or why the
submission could not be graded, and the exercise files they handed in.
Everything comes from the gradebook's current results; nothing is
recomputed (see :mod:`grader.batch.pages`).
"""
import statistics
from collections import Counter
from pathlib import Path

from grader import model
from grader.batch import copies, exports, overview, pages
from grader.report import PUBLIC_ONLY_NOTE, exercise_label, fact_texts, hidden_line, paragraphs
from grader.report.files import write_text
from grader.scoring import fmt


# -- the grade table ------------------------------------------------------------------
def _number(value):
    return {'text': '' if value is None else fmt(value),
            'sort': '' if value is None else repr(float(value))}


def grade_table(records, policy):
    """``(columns, rows)`` of the grade table (rows as the index page draws them)."""
    names = exports.exercise_names(records)
    columns = ['Key', 'Name', 'Status', 'Score', 'Max'] + names + ['Late', 'Reason']
    out = []
    for row in exports.grade_rows(records, policy):
        tags = []
        if row['status'] != 'graded' or row['late'] is None:
            tags.append('problem')
        if row['late']:
            tags.append('late')
        late = {True: f"yes ({row['days_late']} d)", False: 'no', None: ''}[row['late']]
        out.append({'key': row['key'], 'name': row['name'], 'status': row['status'],
                    'tags': tags, 'css': ' '.join(tags), 'late': late, 'reason': row['reason'],
                    'numbers': [_number(row[c]) for c in ['score', 'max_score'] + names]})
    return columns, out


# -- checks -----------------------------------------------------------------------------
def failure_messages(records):
    """``{(exercise, check): Counter(message: submissions failing with it)}``."""
    out = {}
    for record in records:
        if record.status != 'graded':
            continue
        for exercise in record.result['exercises']:
            for check in exercise.get('checks', []):
                said = {f['message'] for f in check['failures'] if f.get('message')}
                out.setdefault((exercise['name'], check['name']), Counter()).update(said)
    return out


def check_rows(view, records):
    messages = failure_messages(records)
    rows = []
    for rate in view.checks:
        common = messages.get((rate.exercise, rate.check), Counter())
        # ties broken by the message: the same results always give the same page
        message, count = min(common.items(), key=lambda i: (-i[1], i[0]), default=('', 0))
        rows.append({'exercise': rate.exercise, 'check': rate.check, 'points': fmt(rate.points),
                     'passed': rate.passed, 'total': rate.total, 'rate': f'{rate.rate:.4f}',
                     'percent': f'{rate.rate:.0%}', 'flagged': rate.flagged,
                     'message': message, 'message_count': count})
    return rows


# -- the histogram -------------------------------------------------------------------
def histogram_svg(view, width=640, height=220):
    """The score histogram as inline SVG markup (numbers only: nothing to escape)."""
    from markupsafe import Markup  # with Jinja2
    if not view.bins:
        return ''
    top = max(n for *_, n in view.bins) or 1
    left, bottom, inner_w, inner_h = 40, 30, width - 50, height - 45
    bar = inner_w / len(view.bins)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'role="img" aria-label="score histogram">',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" '
             f'y2="{height - bottom}" stroke="#444"/>']
    for i, (low, high, n) in enumerate(view.bins):
        h = inner_h * n / top
        x = left + i * bar
        parts.append(f'<rect x="{x + 1:.1f}" y="{height - bottom - h:.1f}" width="{bar - 2:.1f}" '
                     f'height="{h:.1f}" fill="#4c72b0"><title>[{fmt(low)}, {fmt(high)}'
                     f'{"]" if i == len(view.bins) - 1 else ")"}: {n}</title></rect>')
        if n:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - bottom - h - 3:.1f}" '
                         f'font-size="11" text-anchor="middle">{n}</text>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 14}" font-size="11" '
                     f'text-anchor="middle">{fmt(low)}</text>')
    parts.append(f'<text x="{width - 10}" y="{height - bottom + 14}" font-size="11" '
                 f'text-anchor="end">{fmt(view.max_score)}</text>')
    parts.append(f'<text x="{left - 6}" y="{height - bottom - inner_h + 4}" font-size="11" '
                 f'text-anchor="end">{top}</text></svg>')
    return Markup(''.join(parts))


# -- the pages -----------------------------------------------------------------------------
def _summary(view):
    total = sum(view.counts.values())
    text = f'{total} submissions: {view.counts.get("graded", 0)} graded' + ''.join(
        f', {n} {status}' for status, n in sorted(view.counts.items()) if status != 'graded')
    scores = ''
    if view.scores:
        scores = (f'Scores out of {fmt(view.max_score)}: mean {fmt(statistics.mean(view.scores))}'
                  f', median {fmt(statistics.median(view.scores))}, min {fmt(view.scores[0])}, '
                  f'max {fmt(view.scores[-1])}.')
    return text + '.', scores


def pair_rows(report):
    if report is None:
        return []
    return [{'exercise': p.exercise, 'a': p.a.name, 'b': p.b.name, 'known': p.b.known,
             'share_a': f'{p.match.share_a:.0%}', 'share_b': f'{p.match.share_b:.0%}',
             'tokens': p.match.tokens, 'view': copies.view_name(p)} for p in report.pairs]


def index_page(records, policy, report=None, title='Class results'):
    """The text of ``index.html``."""
    view = overview.build(records)
    columns, rows = grade_table(records, policy)
    summary, scores = _summary(view)
    return pages.render('index', title, script=pages.SORT_SCRIPT, summary=summary,
                        scores=scores, grade_columns=columns, grade_rows=rows,
                        checks=check_rows(view, records), histogram=histogram_svg(view),
                        similarity=report, pairs=pair_rows(report))


def _check_rows(result):
    """The rows of a student's check table, as their Markdown feedback has them."""
    rows = []
    for exercise in result.exercises:
        name = exercise.file or exercise.name
        if not exercise.submitted:
            rows.append({'cells': [name, '', '', f'0 / {fmt(exercise.max_score)}',
                                   'not submitted'], 'bold': False})
            continue
        for check in exercise.checks:
            cases = f'{check.cases_passed}/{check.cases_total}' if check.cases_total else ''
            if check.max_score == 0:
                mark = 'info: ' + ('yes' if check.passed else 'no')
            else:
                mark = 'passed' if check.passed else 'lost points'
            rows.append({'cells': [name, check.name, cases,
                                   f'{fmt(check.score)} / {fmt(check.max_score)}', mark],
                         'bold': False})
        rows.append({'cells': [name, 'subtotal', '', f'{fmt(exercise.score)} / '
                               f'{fmt(exercise.max_score)}',
                               'counted' if exercise.counted else 'not counted'], 'bold': True})
    return rows


def _failures(result):
    """The failed public cases as the Markdown feedback gives them: each position drawn
    once, cause by cause (:func:`grader.report.paragraphs.paragraphs`)."""
    out = []
    for exercise in result.exercises:
        if not exercise.submitted:
            continue
        for paragraph in paragraphs.paragraphs(exercise):
            out.append({'label': exercise_label(exercise), 'message': paragraph.title,
                        'feedback': '\n'.join(paragraph.drawing), 'notes': paragraph.notes})
        out += [{'label': f'{exercise_label(exercise)} / {check.name}',
                 'message': hidden_line(check), 'feedback': '', 'notes': []}
                for check in exercise.checks if hidden_line(check)]
    return out


def student_page(record, files=()):
    """The text of ``students/<key>.html``; ``files``: ``[(name, text)]`` handed in."""
    who = record.identity
    title = f'Feedback for {who.name or who.student_id or who.key}'
    if record.status != 'graded':
        sentence = ('We could not grade your submission: ' + (record.reason or 'unknown reason')
                    + '. Please contact the course staff.')
        return pages.render('student', title, sentence=sentence, files=files)
    result = model.from_dict(record.result)
    return pages.render(
        'student', title, sentence='', result=result, fmt=fmt, public_note=PUBLIC_ONLY_NOTE,
        check_rows=_check_rows(result), files=files,
        measured=[(e.file or e.name, t) for e in result.exercises for t in fact_texts(e)],
        problems=[(e.name, w) for e in result.exercises for w in e.warnings]
        + [(e.name, e.error) for e in result.exercises if e.submitted and e.error],
        failures=_failures(result))


def handed_in(book, policy, key):
    """``[(file name, text)]`` of the exercise files of a stored hand-in."""
    files = copies.stored_files(book, key)
    paths = [copies.exercise_path(files, s.files) for s in policy.exercises.values()]
    return [(path, copies.exercise_file(files, [path])) for path in paths if path]


def write(book, records, policy, out, report=None):
    """Write ``index.html`` and a page per student into ``out``; the paths written."""
    out = Path(out)
    write_text(out / 'index.html', index_page(records, policy, report))
    for record in records:
        if record.status == 'pending':
            continue
        write_text(out / 'students' / f'{record.identity.key}.html',
                   student_page(record, handed_in(book, policy, record.identity.key)))
    return [out / 'index.html', out / 'students']
