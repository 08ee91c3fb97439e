"""The one result model every writer reads.

A :class:`Result` is built once per graded submission and serialised with
:meth:`Result.to_dict` into the JSON contract described by
``schemas/result.schema.json``.  Writers format it; none recomputes a score.
"""
import math
from dataclasses import asdict, dataclass, field


def finite(value):
    """``value`` with every NaN or infinite number replaced by None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


@dataclass
class CheckResult:
    name: str
    passed: bool
    score: float
    max_score: float
    message: str
    cases_passed: int = 0
    cases_total: int = 0
    visibility: str = 'visible'
    failures: list = field(default_factory=list)
    """``[{case, message, feedback, hidden}]`` for the failed public cases (``hidden`` is
    False: hidden and generated cases are counted in :attr:`split`, never listed)."""
    split: dict = field(default_factory=dict)
    """When hidden cases were graded: ``{'public': part, 'hidden': part}``, each
    part ``{score, max_score, cases_passed, cases_total, passed, visibility}``,
    the hidden one with its ``message`` too (how many passed, in the check's
    words); the two parts add up to the check.  Empty otherwise."""


@dataclass
class ExerciseResult:
    name: str
    title: str
    score: float
    max_score: float
    submitted: bool
    file: str = ''
    checks: list = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    fact_lines: list = field(default_factory=list)
    """The facts in words, as their plug-in (or the engine) declares them
    (:mod:`grader.exercises.facts`): ``[{fact, text, own_line}]`` in the
    order declared.  Every report prints these and names no fact itself."""
    warnings: list = field(default_factory=list)
    error: str = ''
    counted: bool = False
    hidden_cases: bool = False
    generated: dict = field(default_factory=dict)
    """``{seed, count}`` of the positions drawn for this submission (official grades)."""


@dataclass
class Result:
    grader_version: str
    assignment: str
    score: float
    max_score: float
    exercises: list
    isolation: dict
    fixtures_digest: str
    calibration: dict
    explanation: list = field(default_factory=list)
    hidden_checks_included: bool = False
    submission: dict = field(default_factory=dict)
    late: dict = field(default_factory=dict)
    duration_seconds: float = 0.0
    hidden_checks_pending: bool = False
    """Graded on public checks only, while the official grade also has hidden ones."""

    def exercise(self, name):
        for exercise in self.exercises:
            if exercise.name == name:
                return exercise
        raise KeyError(name)

    def to_dict(self):
        """The JSON form: plain data, with no NaN or infinity anywhere."""
        return finite(asdict(self))


def from_dict(data):
    """Rebuild a :class:`Result` from its JSON form (gradebook, regrade diffs)."""
    exercises = []
    for raw in data['exercises']:
        raw = dict(raw)
        raw['checks'] = [CheckResult(**c) for c in raw['checks']]
        exercises.append(ExerciseResult(**raw))
    data = dict(data, exercises=exercises)
    return Result(**data)
