"""PrairieLearn's external-grader ``results.json`` (``--prairielearn FILE``).

PrairieLearn's external grading reads ``/grade/results/results.json``:
``gradable`` (false: the submission could not be graded at all, and the
student is told why without it counting as an attempt), ``score`` (the
share of the points earned, 0 to 1), ``message`` (shown above the tests),
``output`` (shown folded), and ``tests``, each with ``name``, ``points``,
``max_points``, ``message`` and ``output``.

One test per check of every submitted exercise, a check graded on hidden
cases split into its public and hidden parts, as for Gradescope (see
:func:`grader.report.check_parts`): a failed public case is drawn once, in
the test of the first check it costs, and named in the others.  PrairieLearn shows every test to the
student; the Result already holds no board or answer of a hidden case.

PrairieLearn heads the tests with the sum of their points, so the tests add
up to the score: the tests of an exercise that does not count (best 2 of 3)
carry no points (0 of 0, "not counted"), and whatever else the course's
rules change (a place left empty, a late penalty, a deduction) is one more
test, "Score", holding the difference and the sentences that explain it.
"""
import json

from grader.report import check_parts, summary_lines
from grader.report.files import write_text


def document(result):
    """The results.json document as a dict."""
    tests = []
    for part in check_parts(result):
        first = part['output'].split('\n', 1)[0]
        counted = 'not counted' not in part['tags']
        tests.append({'name': part['name'], 'description': ', '.join(part['tags']),
                      'points': part['score'] if counted else 0,
                      'max_points': part['max_score'] if counted else 0,
                      'message': first if counted else f'not counted: {first}',
                      'output': part['output']})
    adjustment = _adjustment(result, tests)
    if adjustment:
        tests.append(adjustment)
    lines = summary_lines(result)
    share = result.score / result.max_score if result.max_score else 0.0
    return {'gradable': True, 'score': round(min(1.0, max(0.0, share)), 6),
            'message': lines[0], 'output': '\n'.join(lines), 'tests': tests}


def _adjustment(result, tests):
    """The test that makes the tests add up to the score, or None when they do."""
    points = round(result.score - sum(t['points'] for t in tests), 4)
    max_points = round(result.max_score - sum(t['max_points'] for t in tests), 4)
    if not points and not max_points:
        return None
    text = '\n'.join(result.explanation) or 'the course rules'
    return {'name': 'Score', 'description': 'the course rules',
            'points': points, 'max_points': max_points,
            'message': text.split('\n', 1)[0], 'output': text}


def ungradable(message):
    """The document for a submission that cannot be graded (e.g. no exercise file)."""
    return {'gradable': False, 'score': 0.0, 'message': message, 'output': message,
            'tests': []}


def render(result):
    return json.dumps(document(result), indent=2) + '\n'


def write(result, path):
    write_text(path, render(result))


def write_ungradable(path, message):
    write_text(path, json.dumps(ungradable(message), indent=2) + '\n')
