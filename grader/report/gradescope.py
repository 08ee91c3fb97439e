"""Gradescope's ``results.json`` (``--gradescope FILE``).

Follows Gradescope's autograder specification (schema:
``grader/schemas/gradescope.schema.json``).  One test per check of every
submitted exercise; a check graded on hidden cases becomes two tests, the
public part with the check's visibility and the hidden part with its
``hidden_visibility`` (``after_published`` unless grading.yaml says
otherwise), whose output never shows an expected answer.  The top-level
``score`` is the assignment's score, so exercises that do not count (best 2
of 3) are shown without adding to it.
"""
import json

from grader.report import PUBLIC_ONLY_NOTE, exercise_label, shown_failures
from grader.report.files import write_text
from grader.scoring import fmt

MAX_FEEDBACK = 5
"""Failed cases drawn in full per test; the rest are listed by name."""


def document(result):
    """The results.json document as a dict."""
    tests = []
    for number, exercise in enumerate((e for e in result.exercises if e.submitted), 1):
        tags = [exercise.name, 'counted' if exercise.counted else 'not counted']
        label = exercise_label(exercise) + ('' if exercise.counted else ' (not counted)')
        for sub, check in enumerate(exercise.checks, 1):
            base = {'name': f'{label}: {check.name}', 'number': f'{number}.{sub}', 'tags': tags}
            if not check.split:
                tests.append(dict(base, score=check.score, max_score=check.max_score,
                                  status='passed' if check.passed else 'failed',
                                  output=_output(exercise, check, hidden=None),
                                  visibility=check.visibility))
                continue
            public, hidden = check.split['public'], check.split['hidden']
            tests.append(dict(base, score=public['score'], max_score=public['max_score'],
                              status='passed' if public['passed'] else 'failed',
                              output=_output(exercise, check, hidden=False, part=public),
                              visibility=public['visibility']))
            tests.append(dict(base, name=f'{label}: {check.name} (hidden cases)',
                              number=f'{number}.{sub}h', tags=tags + ['hidden'],
                              score=hidden['score'], max_score=hidden['max_score'],
                              status='passed' if hidden['passed'] else 'failed',
                              output=_output(exercise, check, hidden=True, part=hidden),
                              visibility=hidden['visibility']))
    return {
        'score': result.score,
        'execution_time': result.duration_seconds,
        'output': _summary(result),
        'output_format': 'text',
        'test_output_format': 'text',
        'test_name_format': 'text',
        'stdout_visibility': 'hidden',
        'tests': tests,
        'extra_data': {'assignment': result.assignment, 'max_score': result.max_score,
                       'grader_version': result.grader_version,
                       'fixtures_digest': result.fixtures_digest,
                       'counted': [e.name for e in result.exercises if e.counted],
                       'late': result.late},
    }


def _summary(result):
    lines = [f'{result.assignment}: {fmt(result.score)} / {fmt(result.max_score)}']
    if result.hidden_checks_pending:
        lines.append(PUBLIC_ONLY_NOTE)
    lines += result.explanation
    for exercise in result.exercises:
        if exercise.error and exercise.submitted:
            lines.append(f'{exercise.name}: {exercise.error}')
        lines += [f'{exercise.name}: warning: {w}' for w in exercise.warnings]
    return '\n'.join(lines)


def _output(exercise, check, hidden, part=None):
    """A test's text: the tally, then the failed cases of this part."""
    if part is None:
        tally = f'{check.cases_passed}/{check.cases_total} cases passed'
    else:
        kind = 'hidden cases' if hidden else 'cases'
        tally = f"{part['cases_passed']}/{part['cases_total']} {kind} passed"
    if check.cases_total == 0:
        tally = check.message
    lines = [tally + f' -- {fmt(part["score"] if part else check.score)} of '
                     f'{fmt(part["max_score"] if part else check.max_score)} points']
    if exercise.error:
        lines.append(exercise.error)
    failures = [(f, fb) for f, fb in shown_failures(check)
                if hidden is None or bool(f.get('hidden')) == hidden]
    for i, (failure, feedback) in enumerate(failures):
        label = ' (hidden case)' if failure.get('hidden') else ''
        lines.append('')
        lines.append(f"{failure['case']}{label}: {failure['message']}")
        if feedback and i < MAX_FEEDBACK:
            lines.append(feedback)
    return '\n'.join(lines)


def render(result):
    return json.dumps(document(result), indent=2) + '\n'


def write(result, path):
    write_text(path, render(result))
