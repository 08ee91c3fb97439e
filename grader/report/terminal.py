"""The terminal report of ``grader check`` / ``grader grade``.

A compact table per exercise, then the failures drawn as a teaching
assistant would (position, what was returned, what was expected, the likely
cause), the total, and which exercises counted.  Colour only on a terminal.
"""
import os
import sys

from grader.report import PUBLIC_ONLY_NOTE

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


def facts_line(facts):
    parts = []
    if 'prunes' in facts:
        ratio = facts.get('node_ratio_median')
        extra = f' (median node ratio {ratio:.2f})' if ratio is not None else ''
        status = (facts.get('evidence') or {}).get('status')
        if status not in (None, 'confirmed', 'unmeasured'):
            extra = ' (the counts could not be confirmed)'
        parts.append(f"prunes: {'yes' if facts['prunes'] else 'no'}{extra}")
    if facts.get('entry'):
        parts.append(f"graded {facts['entry']}")
    convention = facts.get('result_convention') or facts.get('convention')
    if convention and convention != 'none':
        sources = {'list': 'the returned list', 'reconstruct_path': 'camefrom, via ReconstructPath',
                   'printed': 'the printed path'}
        parts.append(f'path read from {sources.get(convention, convention)}')
    if facts.get('search_order'):
        parts.append(f"expansion order: {facts['search_order']}")
    if 'student_seconds' in facts:
        parts.append(f"{facts['student_seconds']:.2f} s of CPU in your code")
    if facts.get('import_seconds'):
        parts.append(f"import {facts['import_seconds']:.2f} s")
    if facts.get('child_starts', 1) > 1:
        parts.append(f"sandbox restarted {facts['child_starts'] - 1} time(s)")
    return '; '.join(parts)


def render(result, verbose=False, colour=False, public_only_note=False, show_failures=True):
    """The report as text; ``show_failures=False`` leaves out the drawn failed cases."""
    s = Style(colour)
    out = []
    iso = result.isolation
    out.append(s.bold(f'grader {result.grader_version}') +
               f' -- assignment {result.assignment} (isolation: {iso["level"]})')
    if public_only_note or result.hidden_checks_pending:
        out.append(s.bold(PUBLIC_ONLY_NOTE))
    for exercise in result.exercises:
        out.append('')
        head = f'{exercise.file or exercise.name}  {exercise.title}'
        counted = ''
        if exercise.submitted:
            counted = s.good('  counted') if exercise.counted else s.dim('  not counted')
        out.append(s.bold(f'{head:<58}') + points(exercise.score, exercise.max_score) + counted)
        if not exercise.submitted:
            out.append(s.dim(f'  not submitted ({exercise.error})'))
            continue
        for warning in exercise.warnings:
            out.append(s.bad('  warning: ') + warning)
        if exercise.error:
            out.append(s.bad('  error: ') + exercise.error)
        for check in exercise.checks:
            mark = s.good('  ok ') if check.passed else s.bad('  -- ')
            tally = f'{check.cases_passed}/{check.cases_total}' if check.cases_total else ''
            info = s.dim(' (information)') if check.max_score == 0 else ''
            line = f'{mark}{check.name:<12}{tally:>7}   {points(check.score, check.max_score)}{info}'
            if not check.passed and check.failures:
                line += '  ' + check.message.split('; ', 1)[-1]
            out.append(line)
        facts = facts_line(exercise.facts)
        if facts:
            out.append(s.dim(f'  {facts}'))
        evidence = exercise.facts.get('evidence') or {}
        if evidence.get('status') not in (None, 'confirmed', 'unmeasured'):
            out.append(s.dim(f"  counts: {evidence.get('reason')}"))
        if exercise.generated.get('count'):
            out.append(s.dim(f"  also graded on {exercise.generated['count']} positions drawn "
                             f"for this submission (seed {exercise.generated['seed']})"))
        shown = 0
        for check in exercise.checks if show_failures else ():
            listed = check.failures if verbose else check.failures[:1]
            for failure in listed:
                if failure.get('hidden') or not failure.get('feedback'):
                    continue
                if not verbose and shown >= MAX_FAILURES_SHOWN:
                    break
                shown += 1
                out.append('')
                out.append(s.bad(f'  {check.name}, case {failure["case"]}: {failure["message"]}'))
                out.extend('    ' + line for line in failure['feedback'].splitlines())
        hidden_more = sum(len(c.failures) for c in exercise.checks) - shown
        if shown and hidden_more > 0 and not verbose:
            out.append(s.dim(f'  ... {hidden_more} more failed case(s); --verbose shows them all'))
    out.append('')
    out.append(s.bold(f'Score: {result.score:.2f} / {result.max_score:.2f}'))
    out.extend(f'  {line}' for line in result.explanation)
    return '\n'.join(out) + '\n'


def write(result, stream=None, colour='auto', **kwargs):
    stream = stream or sys.stdout
    stream.write(render(result, colour=use_colour(stream, colour), **kwargs))
