"""The terminal report of ``grader check`` / ``grader grade``.

A compact table per exercise, then the failures drawn as a teaching
assistant would (position, what was returned, what was expected, the likely
cause), the total, and which exercises counted.  Colour only on a terminal.
"""
import os
import sys

from grader.report import PUBLIC_ONLY_NOTE, fact_texts, hidden_line

MAX_FAILURES_SHOWN = 3


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
    out += [check_line(check, s) for check in exercise.checks]
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


def check_line(check, s):
    mark = s.good('  ok ') if check.passed else s.bad('  -- ')
    tally = f'{check.cases_passed}/{check.cases_total}' if check.cases_total else ''
    info = s.dim(' (information)') if check.max_score == 0 else ''
    line = f'{mark}{check.name:<12}{tally:>7}   {points(check.score, check.max_score)}{info}'
    if not check.passed and check.failures:
        line += '  ' + check.message.split('; ', 1)[-1]
    return line


def fact_lines(exercise, s):
    """The facts line, the facts said on lines of their own, and the drawn positions."""
    out = [s.dim(f'  {text}') for text in fact_texts(exercise)]
    if exercise.generated.get('count'):
        out.append(s.dim(f"  also graded on {exercise.generated['count']} positions drawn "
                         f"for this submission (seed {exercise.generated['seed']})"))
    return out


def failure_lines(exercise, s, verbose):
    """The failed public cases drawn in full (the first :data:`MAX_FAILURES_SHOWN` unless
    ``verbose``), then how many more there are."""
    out, shown = [], 0
    for check in exercise.checks:
        for failure in check.failures if verbose else check.failures[:1]:
            if failure.get('hidden') or not failure.get('feedback'):   # (an older result)
                continue
            if not verbose and shown >= MAX_FAILURES_SHOWN:
                break
            shown += 1
            out.append('')
            out.append(s.bad(f'  {check.name}, case {failure["case"]}: {failure["message"]}'))
            out.extend('    ' + line for line in failure['feedback'].splitlines())
    more = sum(len(c.failures) for c in exercise.checks) - shown
    if shown and more > 0 and not verbose:
        out.append(s.dim(f'  ... {more} more failed case(s); --verbose shows them all'))
    return out


def write(result, stream=None, colour='auto', **kwargs):
    stream = stream or sys.stdout
    stream.write(render(result, colour=use_colour(stream, colour), **kwargs))
