"""Every example submission under tests/submissions gets exactly its verdict.

``tests/submissions/<exercise>/verdicts.yaml`` maps each variant to the checks
it must lose (``fails``); every other check must get full points.  A check
worth 0 points (information only) is compared by ``passed`` instead.

A variant designed to time out (a loop that never ends, a search that needs
hours) may name, under ``limits``, time-limit factors of its exercise to grade it
with instead of the course's, and under ``min_seconds`` a smaller floor for every
limit: it times out under any limit, so a smaller one gives the same verdict
sooner.  ``GRADER_SLOW_TESTS=1`` grades every variant
under the course's own limits.
"""
import dataclasses
import os

import pytest
import yaml

from gradertest import SUBMISSIONS


def variants():
    for verdicts in sorted(SUBMISSIONS.glob('*/verdicts.yaml')):
        exercise = verdicts.parent.name
        for name, verdict in (yaml.safe_load(verdicts.read_text()) or {}).items():
            yield pytest.param(exercise, verdicts.parent / name, verdict, id=f'{exercise}/{name}')


def course_for(policy, exercise, verdict):
    """The course ``exercise``'s variant is graded under: the repository's, with the
    factors of the variant's ``limits`` and its ``min_seconds`` (unless GRADER_SLOW_TESTS=1)."""
    limits = verdict.get('limits') or {}
    floor = verdict.get('min_seconds')
    if not (limits or floor) or os.environ.get('GRADER_SLOW_TESTS'):
        return policy
    settings = policy.exercises[exercise]
    assert set(limits) <= set(settings.factors), f'limits: no such factors in {exercise}'
    assert all(limits[k] < settings.factors[k] for k in limits), 'limits only scale down'
    assert floor is None or floor < settings.min_seconds, 'min_seconds only scales down'
    scaled = dataclasses.replace(settings, factors={**settings.factors, **limits},
                                 min_seconds=floor or settings.min_seconds)
    return dataclasses.replace(policy, exercises={**policy.exercises, exercise: scaled})


@pytest.mark.parametrize('exercise,variant,verdict', list(variants()))
def test_verdict(exercise, variant, verdict, submission, policy, run):
    from grader import engine
    assert exercise in policy.exercises, f'{exercise} has verdicts but is not in grading.yaml'
    assert variant.exists(), f'{variant} listed in verdicts.yaml is missing'
    course = course_for(policy, exercise, verdict)
    if course is not policy:
        run = engine.Run(course, calibration=run.calibration, isolation=run.isolation)
    result = engine.grade(course, submission(exercise, variant), run=run,
                          only=[exercise]).exercise(exercise)
    fails = set(verdict.get('fails', []))
    known = {c.name for c in result.checks}
    assert fails <= known, f'unknown checks in verdicts.yaml: {fails - known}'
    got = {}
    for check in result.checks:
        lost = (check.score < check.max_score) if check.max_score > 0 else not check.passed
        got[check.name] = lost
    wrong = {name: ('lost points' if lost else 'full points')
             for name, lost in got.items() if lost != (name in fails)}
    details = {c.name: c.message for c in result.checks if c.name in wrong}
    assert not wrong, f'{variant.name}: unexpected {wrong}; messages: {details}; ' \
                      f'warnings: {result.warnings}; error: {result.error}'
    for fact, value in verdict.get('facts', {}).items():
        assert result.facts.get(fact) == value, f'fact {fact}: {result.facts.get(fact)!r}'
    if verdict.get('score') is not None:
        assert result.score == pytest.approx(verdict['score'])
    for text in verdict.get('warnings', []):
        assert any(text in w for w in result.warnings), result.warnings
