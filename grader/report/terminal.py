"""The terminal report of ``grader check`` / ``grader grade``.

A compact table per exercise, then the failed public cases as a teaching
assistant writes them (:mod:`grader.report.paragraphs`): each position once
(its board, what was returned, what was expected, the likely cause, then a
line of every check it costs), up to three causes drawn and the other
positions named, ``--verbose`` drawing each; then the total, and which
exercises counted.  Colour only on a terminal.
"""
import os
import sys

from grader.report import PUBLIC_ONLY_NOTE, fact_texts, hidden_line, paragraphs


class Style:
    def __init__(self, enabled):
        self.enabled = enabled

    def __call__(self, text, code):
        return f'\033[{code}m{text}\033[0m' if self.enabled else text

    def good(self, text):
        return self(text, '32')

    def bad(self, text):
        return self(text, '31')

    def dim(self, text):
        return self(text, '2')

    def bold(self, text):
        return self(text, '1')


def use_colour(stream, choice='auto'):
    """Colour on a terminal only: ``always``/``never`` decide, NO_COLOR and
    FORCE_COLOR are honoured, otherwise colour iff the stream is a terminal."""
    if choice in ('always', 'never'):
        return choice == 'always'
    if os.environ.get('NO_COLOR'):
        return False
    if os.environ.get('FORCE_COLOR'):
        return True
    return hasattr(stream, 'isatty') and stream.isatty()


def points(score, max_score):
    return f'{score:5.2f} / {max_score:4.2f}'


def render(result, verbose=False, colour=False, public_only_note=False, show_failures=True):
    """The report as text; ``show_failures=False`` leaves out the drawn failed cases."""
    s = Style(colour)
    out = [s.bold(f'grader {result.grader_version}') +
           f' -- assignment {result.assignment} (isolation: {result.isolation["level"]})']
    if public_only_note or result.hidden_checks_pending:
        out.append(s.bold(PUBLIC_ONLY_NOTE))
    for exercise in result.exercises:
        out.append('')
        out += exercise_lines(exercise, s, verbose, show_failures)
    out.append('')
    out.append(s.bold(f'Score: {result.score:.2f} / {result.max_score:.2f}'))
    out.extend(f'  {line}' for line in result.explanation)
    return '\n'.join(out) + '\n'


def exercise_lines(exercise, s, verbose=False, show_failures=True):
    """One exercise: its heading, its checks, its facts, then its drawn failures."""
    out = [heading(exercise, s)]
    if not exercise.submitted:
        return out + [s.dim(f'  not submitted ({exercise.error})')]
    out += [s.bad('  warning: ') + warning for warning in exercise.warnings]
    if exercise.error:
        out.append(s.bad('  error: ') + exercise.error)
    out += check_lines(exercise.checks, s)
    out += [s.dim(f'  {hidden_line(check)}') for check in exercise.checks if hidden_line(check)]
    out += fact_lines(exercise, s)
    if show_failures:
        out += failure_lines(exercise, s, verbose)
    return out


def heading(exercise, s):
    head = f'{exercise.file or exercise.name}  {exercise.title}'
    counted = ''
    if exercise.submitted:
        counted = s.good('  counted') if exercise.counted else s.dim('  not counted')
    return s.bold(f'{head:<58}') + points(exercise.score, exercise.max_score) + counted


def check_lines(checks, s):
    """A line per check; when no failed check passed a single case (nothing works yet:
    a placeholder fails them all), two or more of them share one line, in the place of
    the first, and the causes drawn below say why."""
    failed = [c for c in checks if not c.passed]
    none = [c for c in failed if c.cases_total and not c.cases_passed]
    if len(none) < 2 or len(none) < len(failed):
        return [check_line(check, s) for check in checks]
    tallies = ', '.join(f'{c.name} 0/{c.cases_total}' for c in none)
    total = sum(c.max_score for c in none)
    lost = points(0, total).strip() if total else 'information'
    shared = s.bad('  -- ') + f'{tallies}: no case passed ({lost})'
    merged = {id(c) for c in none[1:]}
    return [shared if check is none[0] else check_line(check, s)
            for check in checks if id(check) not in merged]


def check_line(check, s):
    """``-- values 15/22 0.68 / 1.00``: the check's tally and points (the failed cases are
    drawn below, each once); a failed check without failed cases to draw says why."""
    mark = s.good('  ok ') if check.passed else s.bad('  -- ')
    tally = f'{check.cases_passed}/{check.cases_total}' if check.cases_total else ''
    info = s.dim(' (information)') if check.max_score == 0 else ''
    line = f'{mark}{check.name:<12}{tally:>7}   {points(check.score, check.max_score)}{info}'
    if not check.passed and not check.cases_total and check.message:
        line += '  ' + check.message
    return line


def fact_lines(exercise, s):
    """The facts line, the facts said on lines of their own, and the drawn positions."""
    out = [s.dim(f'  {text}') for text in fact_texts(exercise)]
    if exercise.generated.get('count'):
        out.append(s.dim(f"  also graded on {exercise.generated['count']} positions drawn "
                         f"for this submission (seed {exercise.generated['seed']})"))
    return out


def failure_lines(exercise, s, verbose):
    """The failed public cases, each position once, cause by cause
    (:func:`grader.report.paragraphs.paragraphs`): a title, the drawing, then the notes."""
    out = []
    for paragraph in paragraphs.paragraphs(exercise, verbose):
        out.append('')
        if paragraph.title:
            out.append(s.bad(f'  {paragraph.title}'))
        out.extend(f'    {line}' for line in paragraph.drawing)
        out.extend(f'    {line}' if paragraph.title else f'  {line}' for line in paragraph.notes)
    return out


def write(result, stream=None, colour='auto', **kwargs):
    stream = stream or sys.stdout
    stream.write(render(result, colour=use_colour(stream, colour), **kwargs))
