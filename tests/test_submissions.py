"""Every example submission under tests/submissions gets exactly its verdict.

``tests/submissions/<exercise>/verdicts.yaml`` maps each variant to the checks
it must lose (``fails``); every other check must get full points.  A check
worth 0 points (information only) is compared by ``passed`` instead.

A variant designed to time out (a loop that never ends, a search that needs
hours) may name, under ``limits``, time-limit factors of its exercise to grade it
with instead of the course's, and under ``min_seconds`` a smaller floor for every
limit: it times out under any limit, so a smaller one gives the same verdict
sooner.  Likewise ``check_limits`` may lower a check's count limits
(``{check: {parameter: value}}``, e.g. the route planner's expansions per stop)
for a variant stopped by its counts whatever they are.

Each variant's grade draws fewer positions than the course's (:func:`gradertest.drawing_less`),
unless its verdict says ``draws: course``: a bug that only the pool's killers find.  And
the eight puzzle's unsolvable start is stopped after a fraction of a second
(:func:`gradertest.cutting_unsolvable`): an exhaustive search that the course's limit sees
return None is still searching then, so its ``unsolvable`` check fails with the outcome
``timed out`` instead, and no other; a variant whose verdict names another outcome of that
start (``unsolvable_outcome``), or limits of its own, is graded under the course's limit.
A trick whose verdict says ``cases: fewer`` (an answer from a table, found case by case) is
graded on the first two public cases of each kind and those a check names
(:func:`gradertest.fewer_cases`): what it gains is decided on each case alone, and its checks
keep their cases.
``GRADER_SLOW_TESTS=1`` (``make slow``) grades every variant under the course's own draws,
cases and limits.
"""
import dataclasses
import os

import pytest
import yaml

from gradertest import SUBMISSIONS, cutting_unsolvable, drawing_less, fewer_cases, with_exercise


def variants():
    for verdicts in sorted(SUBMISSIONS.glob('*/verdicts.yaml')):
        exercise = verdicts.parent.name
        for name, verdict in (yaml.safe_load(verdicts.read_text()) or {}).items():
            yield pytest.param(exercise, verdicts.parent / name, verdict, id=f'{exercise}/{name}')


TIMED_OUT = 'timed out'
"""The ``unsolvable_outcome`` of a search stopped at its limit."""


def course_for(policy, exercise, verdict, unit, folder):
    """The course ``exercise``'s variant is graded under: the repository's, with the
    factors of the variant's ``limits``, its ``min_seconds`` and the check parameters of its
    ``check_limits``, drawing the test course's positions unless it says ``draws: course``,
    on fewer public cases (copies in ``folder``) if it says ``cases: fewer``, and the
    unsolvable start cut short under ``unit`` unless the verdict names its outcome (unless
    GRADER_SLOW_TESTS=1)."""
    assert verdict.get('draws', 'test') in ('test', 'course'), 'draws: test or course'
    assert verdict.get('cases', 'course') in ('course', 'fewer'), 'cases: course or fewer'
    if verdict.get('draws') != 'course':
        policy = drawing_less(policy, exercise)
    if verdict.get('cases') == 'fewer' and not os.environ.get('GRADER_SLOW_TESTS'):
        policy = fewer_cases(policy, exercise, folder, named=True)
    limits = verdict.get('limits') or {}
    floor = verdict.get('min_seconds')
    counts = verdict.get('check_limits') or {}
    outcome = verdict.get('facts', {}).get('unsolvable_outcome', TIMED_OUT)
    if not (limits or floor) and outcome == TIMED_OUT:
        policy = cutting_unsolvable(policy, exercise, unit)
    if not (limits or floor or counts) or os.environ.get('GRADER_SLOW_TESTS'):
        return policy
    settings = policy.exercises[exercise]
    assert set(limits) <= set(settings.factors), f'limits: no such factors in {exercise}'
    assert all(limits[k] < settings.factors[k] for k in limits), 'limits only scale down'
    assert floor is None or floor < settings.min_seconds, 'min_seconds only scales down'
    checks = dict(settings.checks)
    for name, lowered in counts.items():
        assert name in checks, f'check_limits: no check {name} in {exercise}'
        params = checks[name].params
        assert set(lowered) <= set(params), f'check_limits: {name} has no {set(lowered)}'
        assert all(lowered[k] < params[k] for k in lowered), 'check_limits only scale down'
        checks[name] = dataclasses.replace(checks[name], params={**params, **lowered})
    return with_exercise(policy, exercise, factors={**settings.factors, **limits},
                         min_seconds=floor or settings.min_seconds, checks=checks)


@pytest.mark.parametrize('exercise,variant,verdict', list(variants()))
def test_verdict(exercise, variant, verdict, submission, policy, run, tmp_path):
    from grader import engine
    assert exercise in policy.exercises, f'{exercise} has verdicts but is not in grading.yaml'
    assert variant.exists(), f'{variant} listed in verdicts.yaml is missing'
    course = course_for(policy, exercise, verdict, run.unit, tmp_path / 'course')
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
    if got.get('unsolvable') and 'unsolvable' not in fails and \
            course.exercises[exercise].factor('unsolvable') < policy.exercises[exercise].factor(
                'unsolvable'):
        # cut short (cutting_unsolvable): stopped while searching, as it passes when given
        # the course's limit: nothing else
        assert result.facts.get('unsolvable_outcome') == TIMED_OUT, result.facts
        got['unsolvable'] = False
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
