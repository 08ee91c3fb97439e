"""The contract every exercise plug-in fulfils (parent side).

The engine drives a plug-in like this, for one submission::

    path = exercise.locate(submission_dir, settings)       # or None: not submitted
    session = Session(..., probe=exercise.probe, options=exercise.child_options(settings))
    loaded = session.start()                               # import guards, probe.load()
    for case in cases:
        replies = [session.call(r.payload, limit(r)) for r in exercise.requests(case, settings)]
        outcomes += exercise.judge(case, replies, settings)
    facts = exercise.facts(outcomes, settings)

Judging rules shared by every exercise:

- An :class:`Outcome` is one check on one case.  A check's score is the
  share of its cases passed (or all-or-nothing), times its points.
- Checks about speed, form or balance pass only on cases whose answer is
  also right, so a submission wrong everywhere scores zero however fast.
- ``feedback`` is what a teaching assistant would write: the position drawn
  as text, what was returned, what was expected, and one sentence on the
  likely cause.  Hidden cases never show their expected answer.
"""
import functools
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from grader.replycheck import ReplyCheck


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


class Exercise(ABC):
    """Base class of a plug-in's declaration; subclasses live in ``judge.py``."""

    name = ''
    title = ''
    files = ()
    """Default file names to look for (relative paths), first match wins."""
    probe = ''
    """Dotted name of the probe module run in the child."""
    checks = ()
    observation_schema = {'type': 'object'}
    """JSON Schema every successful call's observation must satisfy."""
    api_hint = 'keep the name and signature of the handout'
    """The advice given when the module does not define the graded entry point."""

    @property
    def folder(self):
        """The folder of the plug-in's package (in this package or mounted from grading.yaml)."""
        return Path(sys.modules[type(self).__module__].__file__).parent

    @property
    def fixture_schema(self):
        """The JSON Schema of the exercise's fixture files: ``fixtures.schema.json`` in the
        plug-in's package."""
        return self.folder / 'fixtures.schema.json'

    # -- locating the student's file -------------------------------------
    def locate(self, submission_dir, settings):
        """Relative path of the student's file in ``submission_dir``, or None."""
        root = Path(submission_dir)
        for name in settings.files or self.files:
            for candidate in (name, f'src/{name}'):
                if (root / candidate).is_file():
                    return candidate
        return None

    def prepare(self, settings):
        """A callable that adds files to the private copy, or None."""
        return None

    def child_options(self, settings):
        """Options sent to the probe (entry-point names, call convention)."""
        return dict(settings.options)

    # -- the judge -------------------------------------------------------
    @abstractmethod
    def requests(self, case, settings):
        """The :class:`Request` list for one case (inputs only, no answers)."""

    @abstractmethod
    def judge(self, case, replies, settings):
        """The :class:`Outcome` list for one case, one reply per request."""

    def missing_entry(self, probe_load, relpath):
        """A sentence when the module does not define what is graded, else None."""
        if probe_load.get('defined') is False:
            return f"{relpath} does not define {probe_load.get('entry')}; {self.api_hint}"
        return None

    def load_warnings(self, loaded, settings):
        """Extra sentences for the result's warnings, from the load reply (default none)."""
        return []

    def load_outcomes(self, loaded, settings):
        """Extra outcomes decided from the load reply alone (default none)."""
        return []

    def extra_cases(self, cases, settings):
        """Cases derived from the fixture cases (e.g. turned boards, a baseline); default none."""
        return []

    def review(self, outcomes, settings, context):
        """Judge across cases once every case is judged: ``(outcomes, facts)``.

        ``context`` holds ``unit`` (the calibration unit, seconds) and
        ``hidden`` (the names of the hidden and generated cases: a sentence
        about such a case names no count, bound or answer of it; one that
        names the case is replaced by the engine).  The default changes
        nothing and adds no fact.
        """
        return outcomes, {}

    def facts(self, outcomes, settings):
        """Exercise-level measured facts (e.g. whether the search prunes).

        ``outcomes`` of hidden and generated cases come redacted (no
        measurements): facts name public cases only.
        """
        return {}

    def case_from_fixture(self, raw, file, hidden):
        return Case(name=raw['name'], input=raw['input'], expected=raw.get('expected', {}),
                    source=raw.get('source', ''), tags=tuple(raw.get('tags', ())),
                    hidden=hidden, file=str(file))

    @functools.cached_property
    def observation_validator(self):
        """The compiled :attr:`observation_schema` (built once per plug-in; 2020-12)."""
        return ReplyCheck(self.observation_schema)


def failure_kind(reply):
    """The outcome kind of a reply that carries no usable observation."""
    if getattr(reply, 'kind', '') == 'not run':
        return 'not run'
    return {'timeout': 'timeout', 'crashed': 'crash', 'invalid': 'invalid reply',
            'error': 'exception'}.get(reply.status, 'wrong answer')


def failure_message(reply):
    """The one-line reason a reply carries no usable observation."""
    if reply.status == 'timeout':
        return reply.error or f'timed out after {reply.limit:.2f} s of CPU time'
    if reply.status in ('error', 'crashed', 'invalid'):
        return reply.error or reply.status
    return ''
