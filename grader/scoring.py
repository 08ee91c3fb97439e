"""From judged outcomes to points: checks, exercises, and the assignment.

- A check's points are split by the share of its cases passed
  (``proportional``) or given only when every case passes
  (``all_or_nothing``), as grading.yaml says.  When hidden cases were graded
  the check is also split into its public and hidden parts, so a report can
  show the public part now and the hidden part later; the parts add up to the
  check.
- An assignment counts the best ``count`` exercises.  A requirement such as
  "tic-tac-toe and connect four count together only if at least one of them
  prunes" rules out every choice that holds the whole combination without the
  fact.  The best remaining choice counts; a place with nothing left to fill
  counts zero.  :func:`choose` says in words what counted and why.
- An optional late penalty takes a share of the score per started day late.
"""
import itertools
import math
from dataclasses import dataclass
from datetime import datetime, timezone

from grader.contract import NOT_CHECKED
from grader.errors import UserError
from grader.judging import tallies
from grader.judging.outcomes import hidden_sentence
from grader.model import CheckResult


def fmt(points):
    """Points as a person writes them: ``2.5``, ``1.75``, ``5``."""
    points = round(points, 2)
    return str(int(points)) if points == int(points) else f'{points:.2f}'.rstrip('0')


# -- checks -----------------------------------------------------------------
def check_result(name, settings, outcomes, hidden_names=(), check=None):
    """Aggregate one check's outcomes (one per case) into a :class:`CheckResult`.

    The outcomes of the cases in ``hidden_names`` (hidden and generated) are
    counted, never listed: the check says how many of them passed, in words
    ``check`` (the plug-in's :class:`~grader.exercises.base.Check`) fixes
    (:func:`grader.judging.outcomes.hidden_sentence`), in its message when no
    public case failed and in its hidden part (``split['hidden']['message']``).
    Only public failures are listed, with their feedback.
    """
    spec = settings.checks[name]
    hidden_names = set(hidden_names)
    total = len(outcomes)
    passed = sum(1 for o in outcomes if o.passed)
    score = _points(spec, passed, total, passed == total)
    hidden = [o for o in outcomes if o.case in hidden_names]
    failed = [o for o in outcomes if not o.passed and o.case not in hidden_names]
    said = hidden_sentence(check, sum(1 for o in hidden if o.passed), len(hidden))
    if total == 0:
        message = 'no cases for this check'
    else:
        message = f'{passed}/{total} cases passed'
        if failed:
            message += f'; {failed[0].case}: {failed[0].message}'
        elif passed < total:
            message += f'; {said}'
    failures = [{'case': o.case, 'message': o.message, 'hidden': False, 'feedback': o.feedback}
                for o in failed]
    result = CheckResult(name=name, passed=total > 0 and passed == total, score=score,
                         max_score=spec.points, message=message, cases_passed=passed,
                         cases_total=total, visibility=spec.visibility, failures=failures)
    if hidden:
        result.split = _split(spec, outcomes, hidden, score, passed == total)
        result.split['hidden']['message'] = said
    return result


def _points(spec, passed, total, all_passed):
    if total == 0:
        return 0.0
    share = passed / total
    if spec.partial_credit == 'all_or_nothing':
        share = 1.0 if all_passed else 0.0
    return round(spec.points * share, 4)


def _split(spec, outcomes, hidden, score, all_passed):
    """The public and hidden parts of a check's points (they add up to ``score``).

    Each part's maximum is the check's points shared by its number of cases.
    Proportional credit gives each part its passed cases' share; all-or-nothing
    gives both parts their maximum only when every case of the check passed.
    """
    total = len(outcomes)
    hidden_passed = sum(1 for o in hidden if o.passed)
    hidden_max = round(spec.points * len(hidden) / total, 4)
    if spec.partial_credit == 'all_or_nothing':
        hidden_score = hidden_max if all_passed else 0.0
    else:
        hidden_score = round(spec.points * hidden_passed / total, 4)
    public_total = total - len(hidden)
    public_passed = sum(1 for o in outcomes if o.passed) - hidden_passed
    return {
        'public': {'score': round(score - hidden_score, 4),
                   'max_score': round(spec.points - hidden_max, 4),
                   'cases_passed': public_passed, 'cases_total': public_total,
                   'passed': public_passed == public_total, 'visibility': spec.visibility},
        'hidden': {'score': hidden_score, 'max_score': hidden_max,
                   'cases_passed': hidden_passed, 'cases_total': len(hidden),
                   'passed': hidden_passed == len(hidden),
                   'visibility': getattr(spec, 'hidden_visibility', 'after_published')},
    }


def exercise_score(checks):
    return round(sum(c.score for c in checks), 4)


# -- the assignment ---------------------------------------------------------
def allowed(requirements, combo, facts):
    """Whether ``combo`` (exercise names) breaks none of the requirements."""
    return not broken(requirements, combo, facts)


def broken(requirements, combo, facts):
    """The requirements that ``combo`` breaks: it holds their whole combination
    but too few of its exercises have the fact."""
    chosen = set(combo)
    return [req for req in requirements
            if set(req.together) <= chosen
            and sum(1 for n in req.together if facts.get(n, {}).get(req.fact)) < req.at_least]


@dataclass
class Standing:
    """An assignment's exercises as submitted: what :func:`choose` chooses from."""

    names: list
    """The assignment's exercises, in its order (which breaks ties)."""
    submitted: list
    score: dict
    """Points by name (0 for an exercise not submitted)."""
    facts: dict
    """Facts by name (empty for an exercise not submitted)."""
    size: int
    """How many exercises count at most."""

    @classmethod
    def of(cls, assignment, results):
        by_name = {r.name: r for r in results}
        names = list(assignment.exercises)
        submitted = [n for n in names if n in by_name and by_name[n].submitted]
        return cls(names, submitted,
                   {n: by_name[n].score if n in submitted else 0.0 for n in names},
                   {n: by_name[n].facts if n in submitted else {} for n in names},
                   min(assignment.count, len(names)))

    def total(self, combo):
        return round(sum(self.score[n] for n in combo), 4)

    def best(self, requirements=()):
        """The best-scoring choice of at most :attr:`size` submitted exercises that breaks
        none of ``requirements`` (``()`` is always allowed), in the assignment's order."""
        largest = min(self.size, len(self.submitted))
        candidates = [c for k in range(largest, -1, -1)
                      for c in itertools.combinations(self.submitted, k)
                      if allowed(requirements, c, self.facts)]
        chosen = max(candidates, key=self.total)
        return [n for n in self.names if n in chosen]


def choose(assignment, results):
    """Pick the counted exercises: ``(names, total, explanation lines)``.

    The counted set is the best-scoring choice of at most ``count`` exercises
    that breaks no requirement; among equal totals the order of the
    assignment's list decides.  Exercises not submitted never count (their
    place counts zero).
    """
    standing = Standing.of(assignment, results)
    counted = standing.best(assignment.requirements)
    total = standing.total(counted)
    return counted, total, explain(assignment, standing, counted, total)


def explain(assignment, standing, counted, total):
    """The explanation lines of a choice: how many count, the rules that decided, what
    counted, the places left empty, what did not count and why, what was not submitted."""
    names, submitted, size = standing.names, standing.submitted, standing.size
    explanation = []
    if size < len(names):
        explanation.append(f'The best {size} of the {len(names)} exercises count '
                           f'({", ".join(names)}).')
    if not submitted:
        explanation.append('No exercise of this assignment was found in the submission, '
                           'so the score is 0.')
        return explanation
    binding = binding_requirements(assignment, standing, counted)
    explanation += [_requirement_sentence(req, standing.facts, counted, standing.score)
                    for req in binding]
    explanation.append('Counted: ' + (' + '.join(f'{n} ({fmt(standing.score[n])})'
                                                 for n in counted) if counted else 'nothing')
                       + f' = {fmt(total)} of {fmt(assignment.max_score)}.')
    explanation += _empty_places(standing, counted)
    explanation += _left_out(standing, counted, binding)
    missing = [n for n in names if n not in submitted]
    if missing:
        explanation.append('Not submitted: ' + ', '.join(missing) + '.')
    return explanation


def binding_requirements(assignment, standing, counted):
    """The requirements that changed the choice: those the best choice without any
    requirement breaks, when the counted exercises differ from it."""
    natural = standing.best()
    if set(natural) == set(counted):
        return []
    return broken(assignment.requirements, natural, standing.facts)


def _empty_places(standing, counted):
    empty = standing.size - len(counted)
    if empty <= 0 or standing.size >= len(standing.names):
        return []
    why = ('no other exercise was submitted' if len(counted) == len(standing.submitted)
           else 'no other submitted exercise may count with these')
    return [f'{_places(empty)} left empty (0 points): {why}.']


def _left_out(standing, counted, binding):
    ruled = {n for req in binding for n in req.together}
    left_out = [n for n in standing.submitted if n not in counted]
    if not left_out:
        return []
    return ['Not counted: ' + ', '.join(
        f'{n} ({fmt(standing.score[n])}, ' + ('by the rule above' if n in ruled
                                              else f'not among the best {standing.size}') + ')'
        for n in left_out) + '.']


def _places(count):
    return 'One place is' if count == 1 else f'{count} places are'


def _requirement_sentence(req, facts, counted, score):
    rule = req.explain or (f'{" and ".join(req.together)} count together only if at least '
                           f'{req.at_least} of them has the fact "{req.fact}"')
    lacking = [n for n in req.together if not facts.get(n, {}).get(req.fact)]
    if tallies.counter_missing():   # a self-check without the counter: never measured
        holds = f'"{req.fact}" is {NOT_CHECKED}'
    elif len(lacking) == len(req.together):
        holds = f'"{req.fact}" holds for ' + ('neither' if len(lacking) == 2 else 'none of them')
    else:
        holds = (f'"{req.fact}" holds only for '
                 f'{", ".join(n for n in req.together if n not in lacking)}')
    kept = [n for n in req.together if n in counted]
    dropped = [n for n in req.together if n not in counted]
    tail = ''
    if kept:
        tail = (f'; so {" and ".join(kept)} ({", ".join(fmt(score[n]) for n in kept)}) counts '
                f'and {", ".join(dropped)} does not')
    return rule.rstrip('.') + f' ({holds}){tail}.'


def hidden_pending(policy, result, include_hidden):
    """Whether ``result`` lacks hidden checks that the official grade has: hidden fixtures,
    or positions drawn at grading time."""
    return not include_hidden and any(
        policy.exercises[e.name].hidden_fixtures
        or policy.exercises[e.name].generated.get('count', 0)
        for e in result.exercises if e.name in policy.exercises)


# -- the late penalty -------------------------------------------------------
def late_penalty(rule, submitted_at, score):
    """``(score after penalty, details)``; details are empty without a rule or time.

    ``rule`` is the assignment's ``late_penalty`` mapping: ``deadline`` (ISO
    8601 with zone), ``per_day`` (share of the score lost per started day
    late), ``max`` (the largest share lost, default 1), ``grace_minutes``
    (lateness forgiven), ``zero_after_days`` (more days late than this score
    0).  ``submitted_at`` is an ISO 8601 string or a datetime; without a zone
    it is read in the deadline's zone.
    """
    if not rule or submitted_at is None:
        return score, {}
    deadline = parse_time(rule['deadline'], 'late_penalty.deadline')
    when = (parse_time(submitted_at, 'the submission time', deadline.tzinfo)
            if isinstance(submitted_at, str) else submitted_at)
    if when.tzinfo is None:
        when = when.replace(tzinfo=deadline.tzinfo)
    details = {'late': False, 'submitted_at': when.isoformat(), 'deadline': deadline.isoformat()}
    late_seconds = (when - deadline).total_seconds() - 60 * rule.get('grace_minutes', 0)
    if late_seconds <= 0:
        return score, details
    days = math.ceil(late_seconds / 86400)
    share = min(rule.get('max', 1.0), rule.get('per_day', 0.0) * days)
    if rule.get('zero_after_days') is not None and days > rule['zero_after_days']:
        share = 1.0
    share = round(share, 4)
    penalised = round(score * (1 - share), 4)
    details.update({'late': True, 'days_late': days, 'penalty_share': share,
                    'score_before_penalty': score})
    return penalised, details


def late_sentence(details, final):
    """The explanation line of a late penalty ('' when not late)."""
    if not details.get('late'):
        return ''
    return (f"Submitted {details['days_late']} day(s) late: {details['penalty_share']:.0%} off, "
            f"{fmt(details['score_before_penalty'])} -> {fmt(final)}.")


def parse_time(text, what='time', default_zone=timezone.utc):
    """An aware datetime from ISO 8601 text (``Z`` accepted); a UserError otherwise."""
    try:
        value = datetime.fromisoformat(text.strip().replace('Z', '+00:00'))
    except ValueError:
        raise UserError(f'{what}: {text!r} is not an ISO 8601 time '
                        '(e.g. 2024-02-01T23:59:00+02:00)') from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=default_zone)
    return value
