"""The data every exercise plug-in and the judges' toolkit share (parent side).

The bottom of the plug-in contract: what a check, a request, a case and an
outcome are, and how a reply that carries no usable observation is named.
It imports nothing of the grader, so both the judges' toolkit
(:mod:`grader.judging`) and the plug-ins above it (:mod:`grader.exercises.base`,
the judges) build on it and no import runs upwards.

Judging rules shared by every exercise:

- An :class:`Outcome` is one check on one case.  A check's score is the
  share of its cases passed (or all-or-nothing), times its points.
- Checks about speed, form or balance pass only on cases whose answer is
  also right, so a submission wrong everywhere scores zero however fast.
- ``feedback`` is what a teaching assistant would write: the position drawn
  as text, what was returned, what was expected, and one sentence on the
  likely cause.  Hidden cases never show their expected answer.
"""
from dataclasses import dataclass, field

NOT_CHECKED = 'not checked on this machine (the counter is not built)'
"""What a counted check or fact says in a self-check on a machine without the search counter
(an official grade refuses to run there): nobody's doing, never "tampered"."""


@dataclass(frozen=True)
class Check:
    """A named check of an exercise with its default points."""

    name: str
    summary: str
    points: float = 0.0


@dataclass
class Request:
    """One call to make in the child for a case."""

    payload: dict
    limit_key: str = 'default'
    """Which ``time_limit`` factor of grading.yaml applies."""
    needed: object = None
    """A test over the case's earlier replies: when it says False, the request is not sent
    and its reply is ``not run`` (e.g. a fallback that only matters when the first call
    answered)."""
    runs: int = 1
    """How many times the call runs the search (repeated to time a small search): the
    call's limit is that many times the limit of one search, so the repeats a grader
    asks for for its own timing never make a call time out."""

    def limit(self, settings, unit):
        """CPU seconds this call may use given the calibration ``unit``."""
        return settings.limit(self.limit_key, unit) * max(1, self.runs)


@dataclass
class Outcome:
    """One check on one case, decided by the judge.

    ``kind`` is one of :data:`grader.judging.outcomes.KINDS` (``right``,
    ``wrong value``, ``timeout`` ...): all a report shows of a hidden case.
    A judge that leaves it empty gets the kind of the reply's failure, or
    ``wrong answer``.
    """

    check: str
    case: str
    passed: bool
    message: str = ''
    feedback: str = ''
    measured: dict = field(default_factory=dict)
    kind: str = ''


@dataclass
class Case:
    """A fixture case: inputs, generated expectations, and where it came from."""

    name: str
    input: dict
    expected: dict
    source: str = ''
    tags: tuple = ()
    hidden: bool = False
    file: str = ''
    generated: bool = False
    """Drawn at grading time (hidden from reports like a hidden fixture)."""
    group: str = ''
    """Cases derived from one position (turned boards) share a group."""


def failure_kind(reply):
    """The outcome kind of a reply that carries no usable observation."""
    if getattr(reply, 'kind', '') in ('not run', 'tampered'):
        return reply.kind
    return {'timeout': 'timeout', 'crashed': 'crash', 'invalid': 'invalid reply',
            'error': 'exception'}.get(reply.status, 'wrong answer')


def failure_message(reply):
    """The one-line reason a reply carries no usable observation."""
    if reply.status == 'timeout':
        return reply.error or f'timed out after {reply.limit:.2f} s of CPU time'
    if reply.status in ('error', 'crashed', 'invalid'):
        return reply.error or reply.status
    return ''
