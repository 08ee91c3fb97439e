"""Writers: one per output format, all reading the same :class:`grader.model.Result`.

A writer formats; it never recomputes a score, and it never shows the
feedback of a hidden case (the scoring already blanks it; writers check
``failure['hidden']`` again).

- :mod:`terminal` -- the table ``grader check`` prints;
- :mod:`jsonout` -- ``--json``, the documented result contract;
- :mod:`gradescope` -- ``--gradescope``, Gradescope's results.json;
- :mod:`junit` -- ``--junit``, one testcase per check;
- :mod:`markdown` -- ``--markdown`` and the GitHub Actions job summary;
- :mod:`prairielearn` -- ``--prairielearn``, PrairieLearn's external-grader results.json;
- :mod:`csvfile` -- every CSV file the grader writes (formula cells neutralised).
"""
from grader.scoring import fmt

PUBLIC_ONLY_NOTE = ('Public checks only; the official grade also checks hidden cases and '
                    'positions drawn at grading time, which your code has never seen.')


def shown_failures(check):
    """The failures a student may see in full: ``[(failure, feedback)]``."""
    return [(f, '' if f.get('hidden') else f.get('feedback', '')) for f in check.failures]


def fact_texts(exercise):
    """The exercise's facts in words, as their plug-ins word them: the facts line (the
    facts not said apart, joined by ``; ``), then each fact said on a line of its own."""
    lines = ['; '.join(f['text'] for f in exercise.fact_lines if not f['own_line'])]
    lines += [f['text'] for f in exercise.fact_lines if f['own_line']]
    return [line for line in lines if line]


def exercise_label(exercise):
    return exercise.title or exercise.name


def check_parts(result, max_feedback=5):
    """The tests a course platform shows: one per check of every submitted exercise.

    A check graded on hidden cases becomes two parts, the public one and the
    hidden one (``(hidden cases)``), each with its own points and visibility.
    Each part is a dict: ``name``, ``number``, ``tags``, ``score``,
    ``max_score``, ``passed``, ``visibility``, ``hidden`` and ``output`` (the
    tally, then the failed cases of that part; at most ``max_feedback`` drawn
    in full).  Nothing is recomputed: every figure is the Result's.
    """
    parts = []
    for number, exercise in enumerate((e for e in result.exercises if e.submitted), 1):
        tags = [exercise.name, 'counted' if exercise.counted else 'not counted']
        label = exercise_label(exercise) + ('' if exercise.counted else ' (not counted)')
        for sub, check in enumerate(exercise.checks, 1):
            base = {'name': f'{label}: {check.name}', 'number': f'{number}.{sub}',
                    'tags': tags, 'hidden': False}
            if not check.split:
                parts.append(dict(base, score=check.score, max_score=check.max_score,
                                  passed=check.passed, visibility=check.visibility,
                                  output=check_text(exercise, check, None, None, max_feedback)))
                continue
            public, hidden = check.split['public'], check.split['hidden']
            parts.append(dict(base, score=public['score'], max_score=public['max_score'],
                              passed=public['passed'], visibility=public['visibility'],
                              output=check_text(exercise, check, False, public, max_feedback)))
            parts.append(dict(base, name=f'{label}: {check.name} (hidden cases)',
                              number=f'{number}.{sub}h', tags=tags + ['hidden'], hidden=True,
                              score=hidden['score'], max_score=hidden['max_score'],
                              passed=hidden['passed'], visibility=hidden['visibility'],
                              output=check_text(exercise, check, True, hidden, max_feedback)))
    return parts


def check_text(exercise, check, hidden=None, part=None, max_feedback=5):
    """A check's (or one part's) text: the tally, then its failed cases."""
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
        if feedback and i < max_feedback:
            lines.append(feedback)
    return '\n'.join(lines)


def summary_lines(result):
    """The lines about the whole submission: score, public-only note, what counted, errors."""
    lines = [f'{result.assignment}: {fmt(result.score)} / {fmt(result.max_score)}']
    if result.hidden_checks_pending:
        lines.append(PUBLIC_ONLY_NOTE)
    lines += result.explanation
    for exercise in result.exercises:
        if exercise.error and exercise.submitted:
            lines.append(f'{exercise.name}: {exercise.error}')
        lines += [f'{exercise.name}: warning: {w}' for w in exercise.warnings]
    return lines
