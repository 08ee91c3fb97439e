"""Writers: one per output format, all reading the same :class:`grader.model.Result`.

A writer formats; it never recomputes a score.  Of hidden and generated
cases it shows what the Result holds: per check, how many passed, in the
check's own words (``split['hidden']``); no case of them is listed (the
scoring lists none; writers leave out a failure marked ``hidden`` too, as a
result stored by an earlier version may hold).

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
    """The failures a student may see, the public cases': ``[(failure, feedback)]``."""
    return [(f, f.get('feedback', '')) for f in check.failures if not f.get('hidden')]


def hidden_line(check):
    """What a check says of its hidden and generated cases when some failed, else ''."""
    hidden = check.split.get('hidden') if check.split else None
    if not hidden or hidden.get('passed'):
        return ''
    return hidden.get('message') or (f"{hidden['cases_passed']} of {hidden['cases_total']} "
                                     'hidden cases passed')


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
    tally, then the failed cases of a public part, at most ``max_feedback``
    drawn in full; of a hidden part, the check's sentence on its hidden
    cases).  Nothing is recomputed: every figure is the Result's.
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
    if hidden is not False and hidden_line(check):
        lines += ['', hidden_line(check)]
    if hidden:
        return '\n'.join(lines)
    for i, (failure, feedback) in enumerate(shown_failures(check)):
        lines.append('')
        lines.append(f"{failure['case']}: {failure['message']}")
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
