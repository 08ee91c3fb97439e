"""The failed public cases of an exercise as a teaching assistant groups them.

The Result keeps one outcome per check and case (the machine formats print
them so); a human reader wants each wrong *position* once, with everything
it costs, and each *cause* once.  Every human writer (terminal, Markdown, the
course platforms' test outputs, the class's feedback pages) draws from the
one grouping made here, and nothing here reads anything but the Result:

- :class:`Position` -- one failed public case: its drawing (the feedback of
  all its failed checks merged, each line once) and :class:`Cost` per check
  it fails.  A check that fails there only because the answer is wrong (its
  message says ``..., but the value is wrong``, and its feedback adds nothing
  but that sentence) is a *consequence*: named among the costs, never drawn.
- :class:`Cause` -- the positions whose first failure has the same likely
  cause (the sentence the judge ends its feedback with, or else its message,
  numbers set aside), in the order they fail (the fixture order); the first
  is the one drawn.  When it is the exercise's only cause and every position
  failed with the same message and the same answer (a template placeholder
  returns None wherever it is called), no position is to blame:
  :attr:`Cause.everywhere`, and a view says the cause once and draws none.
- :func:`group` -- the causes, in the order their first position fails, and
  the positions that fail only as a consequence of answers wrong elsewhere
  (an unsolvable start "says nothing" while no path is found at all).

Hidden and generated cases are never here: the Result lists none of them
(each check counts them in ``split``), and a failure marked ``hidden`` (a
result of an earlier version) is left out, so neither the order nor the
number of what a view prints depends on a hidden case.
"""
import re
from dataclasses import dataclass, field

CONSEQUENCE = ', but '
"""How a judge words a check that holds only where the answer is right
(``0.01 s of 1.20 s of CPU time, but the value is wrong``; see :mod:`grader.contract`)."""

_NUMBER = re.compile(r'[-+]?\d+(?:[.,]\d+)*')
_WORD = re.compile(r'[A-Za-z]{2,}')


@dataclass
class Cost:
    """One check a position fails, with the check's message there."""

    check: str
    message: str
    consequence: bool = False
    """It fails only because the answer is wrong (named, never drawn)."""


@dataclass
class Position:
    """One failed public case of an exercise, with everything it costs."""

    case: str
    message: str
    """The message of the failure that says what is wrong: the title of its drawing."""
    drawing: list = field(default_factory=list)
    costs: list = field(default_factory=list)
    returned: str = ''
    """Its ``returned: ...`` line ('' when the feedback has none)."""
    cause: str = ''
    """The judge's sentence on the likely cause ('' when the feedback has none)."""

    @property
    def checks(self):
        return [cost.check for cost in self.costs]

    @property
    def consequence_only(self):
        """Every check it fails, it fails only as a consequence of wrong answers."""
        return all(cost.consequence for cost in self.costs)

    def costs_text(self):
        """``values; robustness (well-formed, but the value is wrong)``: each check once,
        with its own message when that is not the position's title."""
        parts = []
        for cost in self.costs:
            same = cost.message == self.message or not cost.message
            parts.append(cost.check if same else f'{cost.check} ({cost.message})')
        return ('; ' if any('(' in part for part in parts) else ', ').join(parts)


@dataclass
class Cause:
    """The positions that fail for one likely cause, the one to draw first."""

    positions: list
    everywhere: bool = False
    """It is the exercise's only cause and its positions (more than one) failed the same
    way with the same answer: no position is to blame, so none needs drawing."""

    @property
    def shown(self):
        return self.positions[0]

    @property
    def others(self):
        return self.positions[1:]

    def alike(self):
        """Whether every position has the same message, answer and cause sentence."""
        first = self.shown
        return len(self.positions) > 1 and all(
            (p.message, p.returned, p.cause) == (first.message, first.returned, first.cause)
            for p in self.positions)

    def checks(self):
        """Every check its positions cost, in the order first met."""
        return list(dict.fromkeys(c for p in self.positions for c in p.checks))


@dataclass
class Grouping:
    """An exercise's failed public cases: by cause, then the consequences."""

    causes: list
    consequences: list
    """Positions that fail only because answers are wrong (elsewhere, or there)."""

    @property
    def positions(self):
        return [p for cause in self.causes for p in cause.positions] + self.consequences


def failed_positions(exercise):
    """Every failed public case of ``exercise`` once, in the order first failed (check by
    check, each in fixture order), its failures merged (:func:`position`)."""
    failures = {}
    for check in exercise.checks:
        for failure in check.failures:
            if not failure.get('hidden'):       # (a hidden one: a result of an earlier version)
                failures.setdefault(failure['case'], []).append((check.name, failure))
    return [position(case, found) for case, found in failures.items()]


def position(case, failures):
    """The :class:`Position` of ``case`` from its ``[(check, failure)]`` in check order.

    Its title, answer and cause are those of its first failure that is not a
    consequence (of its first failure when all are); the drawing is that
    failure's feedback, then each line another failure adds, a consequence's
    closing sentence left out.  The costs keep the check order.
    """
    lead = next((f for _, f in failures if CONSEQUENCE not in f['message']), failures[0][1])
    lines = _lines(lead)
    found = Position(case, lead['message'], list(lines),
                     returned=next((line for line in lines if line.startswith('returned')), ''),
                     cause=_cause(lines))
    for check, failure in failures:
        lines = _lines(failure)
        drawn = set(found.drawing)
        consequence = CONSEQUENCE in failure['message'] and \
            all(line in drawn for line in lines[:-1])
        if not consequence:
            found.drawing += [line for line in lines if line not in drawn]
        found.costs.append(Cost(check, failure['message'], consequence))
    return found


def group(exercise):
    """The :class:`Grouping` of ``exercise``'s failed public cases."""
    causes, consequences = {}, []
    for found in failed_positions(exercise):
        if found.consequence_only:
            consequences.append(found)
            continue
        key = _NUMBER.sub('#', found.cause or found.message)
        causes.setdefault(key, []).append(found)
    causes = [Cause(positions) for positions in causes.values()]
    if len(causes) == 1:
        causes[0].everywhere = causes[0].alike()
    return Grouping(causes, consequences)


def _lines(failure):
    return (failure.get('feedback') or '').splitlines()


def _cause(lines):
    """The judge's sentence on the likely cause: the last line of the feedback when it is
    a sentence (not the call, a drawing, ``returned:`` or ``expected:``), else ''."""
    if len(lines) < 2:
        return ''
    last = lines[-1]
    if last != last.lstrip() or last.startswith(('returned', 'expected')):
        return ''
    return last if len(_WORD.findall(last)) >= 3 else ''

