"""The failed public cases of an exercise in a teaching assistant's words.

:func:`paragraphs` turns the :func:`grader.report.grouping.group` of an
exercise into what every human view prints (the terminal, Markdown, the
course platforms' test outputs, the class's feedback pages): one
:class:`Paragraph` per cause, or per position with ``--verbose``.  Each
position is drawn at most once and each cause said once; every failed public
case is at least named.
"""
from dataclasses import dataclass, field

from grader.report.grouping import group

MAX_CAUSES = 3
"""Causes drawn (one position each) without ``--verbose``; further causes get a line each."""
MAX_NAMED = 10
"""Positions of a cause named after the one drawn; the rest are counted."""


@dataclass
class Paragraph:
    """What a human view prints for one cause or position: a title line, the drawing
    (lines of the feedback, to be shown as they are), then notes in sentences."""

    title: str
    drawing: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    """The checks it speaks of, the one it belongs under first (a course platform shows
    a test per check: the paragraph goes in the first one's output)."""
    cases: list = field(default_factory=list)
    """The cases it draws or names (the drawn one first)."""


def paragraphs(exercise, verbose=False, max_causes=MAX_CAUSES, max_named=MAX_NAMED,
               hints=True):
    """The failed public cases of ``exercise`` as a teaching assistant writes them.

    Without ``verbose``: the first ``max_causes`` causes each with its first
    position drawn once (its title, drawing and a line of everything it costs) and the
    other positions of the cause named (at most ``max_named``, then counted; None: all);
    a cause the same everywhere said once and drawn nowhere; each further cause on a
    line or two; the consequences named on one line.  With ``verbose``: every position
    drawn once, cause by cause.  No failed public case goes unmentioned.  ``hints``
    says where ``--verbose`` would draw more (a view that has no such option: False).
    """
    grouping = group(exercise)
    words = _Words(max_named, hints)
    out = []
    for number, cause in enumerate(grouping.causes):
        if verbose:
            out += [words.drawn(p) for p in cause.positions]
        elif number >= max_causes:
            out.append(words.named(cause))
        elif cause.everywhere:
            out.append(words.everywhere(cause))
        else:
            out.append(words.drawn(cause.shown, cause.others))
    if grouping.consequences:
        out += [words.drawn(p) for p in grouping.consequences] if verbose else \
            [words.consequences(grouping.consequences)]
    return out


@dataclass
class _Words:
    max_named: object = MAX_NAMED
    hints: bool = True

    def drawn(self, position, others=()):
        """The position drawn, what it costs, and the others of its cause named."""
        notes = [f'Costs: {position.costs_text()}.']
        if others:
            notes.append(f'The same on {_count(len(others), "more case")}: '
                         f'{self.names(others, position.checks)}.')
        return Paragraph(f'{position.case}: {position.message}', list(position.drawing), notes,
                         position.checks, [position.case] + [p.case for p in others])

    def everywhere(self, cause):
        """The one cause of every failed case: said once, none drawn."""
        shown = cause.shown
        notes = [shown.cause] if shown.cause and not _same(shown.cause, shown.message) else []
        hint = ' (--verbose draws each)' if self.hints else ''
        notes.append(f'Costs: {", ".join(cause.checks())}, on {self.names(cause.positions)}; '
                     f'no position is to blame, so none is drawn{hint}.')
        return Paragraph(f'The same on {len(cause.positions)} cases: {shown.message}', [], notes,
                         cause.checks(), [p.case for p in cause.positions])

    def named(self, cause):
        """A cause past the ones drawn: its first position's title, cause and costs."""
        shown = cause.shown
        notes = [shown.cause] if shown.cause and not _same(shown.cause, shown.message) else []
        also = f'; the same on {self.names(cause.others, shown.checks)}' if cause.others else ''
        hint = ' --verbose draws it.' if shown.drawing and self.hints else ''
        notes.append(f'Costs: {shown.costs_text()}{also}.{hint}')
        return Paragraph(f'{shown.case}: {shown.message}', [], notes, cause.checks(),
                         [p.case for p in cause.positions])

    def consequences(self, positions):
        """The cases lost only because answers are wrong, on one line."""
        named = '; '.join(f'{p.case} ({p.costs_text()}: {p.message})' if len(p.costs) == 1
                          else f'{p.case} ({p.costs_text()})' for p in positions)
        checks = list(dict.fromkeys(c for p in positions for c in p.checks))
        return Paragraph('', [], [f'Lost as well, only because answers are wrong: {named}.'],
                         checks, [p.case for p in positions])

    def names(self, positions, checks=None):
        """``a, b (also pruning), c and 12 more``: at most ``max_named`` named, each with
        the checks it fails when they are not ``checks``."""
        shown = positions if self.max_named is None else positions[:self.max_named]
        named = [p.case + _unlike(p.checks, checks) for p in shown]
        rest = len(positions) - len(named)
        return ', '.join(named) + (f' and {rest} more' if rest else '')


def _unlike(own, checks):
    """`` (also pruning)``, `` (only moves)`` or `` (moves, pruning)``: how the checks
    a position fails differ from ``checks``; '' when they do not."""
    if checks is None or own == checks:
        return ''
    extra = [c for c in own if c not in checks]
    if not [c for c in checks if c not in own]:
        return f' (also {", ".join(extra)})'
    return f' (only {", ".join(own)})' if not extra else f' ({", ".join(own)})'


def _count(number, noun):
    return f'{number} {noun}' + ('' if number == 1 else 's')


def _same(sentence, message):
    return sentence.rstrip('.').strip() == message.rstrip('.').strip()
