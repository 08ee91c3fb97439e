"""Markdown summary (``--markdown FILE``), sized for a GitHub Actions job summary.

A heading with the score, the public-checks note when it applies, one table
with a row per check (and a subtotal row per exercise), the explanation of
what counted, the facts measured (in their plug-in's words), and the failed
cases folded under ``<details>``: each position once, cause by cause, drawn in a
code block (:mod:`grader.report.grouping`, as the terminal report).
``grader check`` appends the same text to ``$GITHUB_STEP_SUMMARY`` when that
variable is set.
"""
from grader.report import PUBLIC_ONLY_NOTE, exercise_label, fact_texts, hidden_line, paragraphs
from grader.report.files import write_text
from grader.scoring import fmt


def cell(text):
    """Table-cell text: pipes escaped, line breaks flattened."""
    return ' '.join(str(text).split()).replace('|', '\\|')


def render(result, verbose=False):
    """The summary; ``verbose`` draws every failed public case (as ``--verbose`` does).
    """
    out = [f'### {cell(result.assignment)}: {fmt(result.score)} / {fmt(result.max_score)}', '']
    if result.hidden_checks_pending:
        out += [f'> **{PUBLIC_ONLY_NOTE}**', '']
    out += ['| Exercise | Check | Cases | Points | Result |',
            '| --- | --- | ---: | ---: | --- |']
    for exercise in result.exercises:
        name = cell(exercise.file or exercise.name)
        if not exercise.submitted:
            out.append(f'| {name} | | | 0 / {fmt(exercise.max_score)} | not submitted |')
            continue
        for check in exercise.checks:
            cases = f'{check.cases_passed}/{check.cases_total}' if check.cases_total else ''
            if check.max_score == 0:
                mark = 'info: ' + ('yes' if check.passed else 'no')
            else:
                mark = 'passed' if check.passed else 'lost points'
            out.append(f'| {name} | {cell(check.name)} | {cases} | '
                       f'{fmt(check.score)} / {fmt(check.max_score)} | {mark} |')
        counted = 'counted' if exercise.counted else 'not counted'
        out.append(f'| **{name}** | **subtotal** | | **{fmt(exercise.score)} / '
                   f'{fmt(exercise.max_score)}** | {counted} |')
    out += ['', f'**Score: {fmt(result.score)} / {fmt(result.max_score)}**', '']
    out += [f'- {cell(line)}' for line in result.explanation]
    measured = [(e, text) for e in result.exercises for text in fact_texts(e)]
    if measured:
        out += ['', '**Measured**', '']
        out += [f'- {cell(e.file or e.name)}: {cell(text)}' for e, text in measured]
    problems = [(e, w) for e in result.exercises for w in e.warnings]
    problems += [(e, e.error) for e in result.exercises if e.submitted and e.error]
    if problems:
        out.append('')
        out += [f'- **{cell(e.name)}**: {cell(text)}' for e, text in problems]
    details = _failures(result, verbose)
    if details:
        out += ['', '<details><summary>Failed cases</summary>', ''] + details + ['</details>']
    return '\n'.join(out) + '\n'


def _failures(result, verbose=False):
    """Each exercise's failed public cases, each position once, cause by cause
    (:func:`grader.report.paragraphs.paragraphs`): the title in bold, the drawing in a
    code block, the notes as a list; then what each check says of its hidden cases."""
    out = []
    for exercise in result.exercises:
        if not exercise.submitted:
            continue
        label = cell(exercise_label(exercise))
        for paragraph in paragraphs.paragraphs(exercise, verbose):
            title = f': {cell(paragraph.title)}' if paragraph.title else ''
            out += [f'**{label}**{title}', '']
            if paragraph.drawing:
                text = '\n'.join(paragraph.drawing)
                fence = '````' if '```' in text else '```'
                out += [f'{fence}text', text, fence, '']
            notes = [f'- {cell(note)}' for note in paragraph.notes]
            out += notes + [''] if notes else []
        for check in exercise.checks:
            if hidden_line(check):
                out += [f'**{label} / {cell(check.name)}**: {cell(hidden_line(check))}', '']
    return out


def write(result, path, verbose=False):
    write_text(path, render(result, verbose))
