"""The contract every exercise plug-in fulfils (parent side).

The engine drives a plug-in like this, for one submission::

    path = exercise.locate(submission_dir, settings)       # or None: not submitted
    session = Session(..., probe=exercise.probe, options=exercise.child_options(settings))
    loaded = session.start()                               # import guards, probe.load()
    for case in cases:
        replies = [session.call(r.payload, limit(r)) for r in exercise.requests(case, settings)]
        outcomes += exercise.judge(case, replies, settings)
    facts = exercise.facts(outcomes, settings)

The data the plug-ins and the judges' toolkit share (checks, requests, cases,
outcomes, the names of failed replies) live in :mod:`grader.contract`, below
both; they are re-exported here, so ``base.Outcome`` and the like keep working.
"""
import functools
import sys
from abc import ABC, abstractmethod
from pathlib import Path

# Re-exported: the names the plug-ins use (base.Outcome, base.failure_message ...).
from grader.contract import Case, Check, Outcome, Request, failure_kind, failure_message  # noqa: F401
from grader.replycheck import ReplyCheck


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
    information_limits = {}
    """``{limit key: check}``: calls whose limit key decides only that check, a check of 0
    points (information), are not made in a quick self-check (``grader check``), get the
    self-check's own limit in a full one (``--full``; :data:`grader.engine.SELF_CHECK_UNITS`);
    official grades keep the course's."""
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

    def request_count(self, case, settings):
        """``len(self.requests(case, settings))``: what the schedule orders the exercises
        by before any child starts; a plug-in whose requests cost more to make (data files
        read for their limits) says it from the case alone."""
        return len(self.requests(case, settings))

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
