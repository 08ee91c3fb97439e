"""Judgement across cases, the parts every exercise's ``review`` does alike.

- baselines: requests that run no search (or a trivial one), timed for
  what a case costs besides its search (:func:`baseline_cases` makes the
  cases, :func:`baseline_outcome` records one, :func:`baselines` collects
  them for :func:`grader.judging.evidence.overhead`);
- the evidence for the counts, as facts (:func:`evidence_facts`), and the
  credit withdrawn when it does not hold (:func:`withdraw_uncounted`) or
  when no search ran behind the answers (:func:`withdraw_unsearched`);
- medians and the facts read off outcomes (:func:`median`, :func:`tampered`).
"""
import statistics

from grader import contract
from grader.judging import evidence

BASELINE = '_baseline'
"""The check name of a baseline request (a name with ``_`` is never scored or shown)."""


def baseline_cases(count, reps=(), label='baseline', **inputs):
    """Cases that time a request which searches nothing (or a trivial search), tagged ``baseline``.

    ``count`` of them, or ``count`` for each number of runs in ``reps`` (the
    case's ``input['reps']``); ``inputs`` go into every case's input.
    """
    runs = [{'reps': n} for n in reps for _ in range(count)] if reps else [{}] * count
    return [contract.Case(name=f'{label}-{i + 1}', input=dict(inputs, **extra), expected={},
                      tags=('baseline',)) for i, extra in enumerate(runs)]


def baseline_outcome(case, reply, passed=True, **measured):
    """The record of one baseline request: its CPU time, and ``measured`` (e.g. ``runs``)."""
    return contract.Outcome(BASELINE, case.name, reply.ok and passed,
                            contract.failure_message(reply),
                            measured=dict(measured, cpu=reply.cpu))


def baselines(outcomes, **where):
    """``[(runs, cpu)]`` of the answered baseline requests whose measurements match ``where``."""
    return [(o.measured.get('runs', 0), o.measured['cpu']) for o in outcomes
            if o.check == BASELINE and o.passed
            and all(o.measured.get(key) == value for key, value in where.items())]


def evidence_facts(found, per, reason=None):
    """The facts of an :class:`~grader.judging.evidence.Evidence`: ``{'evidence': {...}}``.

    ``per`` names the counted unit in the key of its time (``seconds_per_<per>``);
    ``reason`` replaces the evidence's own sentence (said in the exercise's words).
    """
    return {'evidence': {'status': found.status,
                         'reason': found.reason if reason is None else reason,
                         f'seconds_per_{per}': found.seconds_per_unit,
                         'spread': found.spread}}


def withdraw_uncounted(outcomes, check, reason):
    """Fail the passed outcomes of ``check``: their counts were not confirmed (``reason``)."""
    return evidence.withdraw(outcomes, {check}, 'not measured', f'could not be counted: {reason}')


def withdraw_unsearched(outcomes, checks, message):
    """Fail the passed outcomes of ``checks``: no search ran behind the answers (``message``)."""
    return evidence.withdraw(outcomes, set(checks), 'no search', message)


def search_works(samples, baseline):
    """CPU seconds of one run of each sample's search, what a case costs besides it taken off."""
    costs = evidence.overhead(baseline)
    return [evidence.work(sample, costs) for sample in samples]


def median(values, digits=None):
    """The median of ``values`` (None when there are none), rounded to ``digits`` if given."""
    values = [value for value in values if value is not None]
    if not values:
        return None
    middle = statistics.median(values)
    return round(middle, digits) if digits is not None else middle


def tampered(outcomes, check):
    """Whether a count of ``check`` was interfered with on some case."""
    return any(o.measured.get('tampered') for o in outcomes if o.check == check)
