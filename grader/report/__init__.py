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

The human views (terminal, Markdown, the platforms' test outputs, the class's
feedback) show the failed public cases grouped the one way
:mod:`grouping` groups them and :mod:`paragraphs` words them: each position
once with every check it costs, cause by cause.  JSON, JUnit and the check
results keep one outcome per check and case.
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


def check_parts(result, verbose=False):
    """The tests a course platform shows: one per check of every submitted exercise.

    A check graded on hidden cases becomes two parts, the public one and the
    hidden one (``(hidden cases)``), each with its own points and visibility.
    Each part is a dict: ``name``, ``number``, ``tags``, ``score``,
    ``max_score``, ``passed``, ``visibility``, ``hidden`` and ``output`` (the
    tally, then of a public part its failed cases: each position drawn once in
    all the exercise's tests, in the test of the first check it costs, cause by
    cause as the terminal report draws them (:mod:`grader.report.paragraphs`),
    and every failed case of the check named; of a hidden part, the check's
    sentence on its hidden cases).  Nothing is recomputed: every figure is the
    Result's.
    """
    from grader.report import paragraphs  # (it imports this package)
    parts = []
    for number, exercise in enumerate((e for e in result.exercises if e.submitted), 1):
        tags = [exercise.name, 'counted' if exercise.counted else 'not counted']
        label = exercise_label(exercise) + ('' if exercise.counted else ' (not counted)')
        drawn = paragraphs.paragraphs(exercise, verbose, max_named=None, hints=False)
        for sub, check in enumerate(exercise.checks, 1):
            base = {'name': f'{label}: {check.name}', 'number': f'{number}.{sub}',
                    'tags': tags, 'hidden': False}
            own = [p for p in drawn if p.checks and p.checks[0] == check.name]
            if not check.split:
                parts.append(dict(base, score=check.score, max_score=check.max_score,
                                  passed=check.passed, visibility=check.visibility,
                                  output=check_text(exercise, check, None, None, own)))
                continue
            public, hidden = check.split['public'], check.split['hidden']
            parts.append(dict(base, score=public['score'], max_score=public['max_score'],
                              passed=public['passed'], visibility=public['visibility'],
                              output=check_text(exercise, check, False, public, own)))
            parts.append(dict(base, name=f'{label}: {check.name} (hidden cases)',
                              number=f'{number}.{sub}h', tags=tags + ['hidden'], hidden=True,
                              score=hidden['score'], max_score=hidden['max_score'],
                              passed=hidden['passed'], visibility=hidden['visibility'],
                              output=check_text(exercise, check, True, hidden)))
    return parts


def check_text(exercise, check, hidden=None, part=None, drawn=()):
    """A check's (or one part's) text: the tally, then the paragraphs ``drawn`` under it
    and a line naming the check's other failed cases, those alike together."""
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
    for paragraph in drawn:
        lines.append('')
        lines += [paragraph.title] if paragraph.title else []
        lines += paragraph.drawing + paragraph.notes
    said = {case for paragraph in drawn for case in paragraph.cases}
    failed = [f for f, _ in shown_failures(check) if f['case'] not in said]
    if failed:
        lines += ['', f'Failed in {check.name}: ' + '; '.join(_alike(failed)) + '.']
    return '\n'.join(lines)


def _alike(failures):
    """``case: message``, those with the same message together: ``message (a, b, c)``."""
    cases = {}
    for failure in failures:
        cases.setdefault(failure['message'], []).append(failure['case'])
    return [f'{names[0]}: {message}' if len(names) == 1 else
            f'{message} ({", ".join(names)})' for message, names in cases.items()]


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
