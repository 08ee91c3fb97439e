"""From judged outcomes to points: checks, exercises, and the assignment.

- A check's points are split by the share of its cases passed
  (``proportional``) or given only when every case passes
  (``all_or_nothing``), as grading.yaml says.
- An assignment counts the best ``count`` exercises.  A requirement such as
  "tic-tac-toe and connect four count together only if at least one of them
  prunes" removes every choice that breaks it; the best remaining choice
  wins, and a slot with nothing left to fill counts zero.
- An optional late penalty takes a share of the score per started day late.
"""
import itertools
import math
from datetime import datetime, timezone

from grader.model import CheckResult


def fmt(points):
    return f'{points:.2f}'.rstrip('0').rstrip('.') if points != int(points) else str(int(points))


def check_result(name, settings, outcomes, hidden_names=()):
    """Aggregate one check's outcomes into a :class:`CheckResult`."""
    spec = settings.checks[name]
    total = len(outcomes)
    passed = sum(1 for o in outcomes if o.passed)
    if total == 0:
        score = 0.0
        message = 'no cases for this check'
    else:
        share = passed / total
        if spec.partial_credit == 'all_or_nothing':
            share = 1.0 if passed == total else 0.0
        score = round(spec.points * share, 4)
        message = f'{passed}/{total} cases passed'
        failed = [o for o in outcomes if not o.passed]
        if failed:
            first = failed[0]
            message += f'; {first.case}: {first.message}'
    failures = [{'case': o.case, 'message': o.message,
                 'feedback': '' if o.case in hidden_names else o.feedback}
                for o in outcomes if not o.passed]
    return CheckResult(name=name, passed=total > 0 and passed == total, score=score,
                       max_score=spec.points, message=message, cases_passed=passed,
                       cases_total=total, visibility=spec.visibility, failures=failures)


def exercise_score(checks):
    return round(sum(c.score for c in checks), 4)


def choose(assignment, results):
    """Pick the counted exercises: ``(names, total, explanation lines)``."""
    by_name = {r.name: r for r in results}
    names = list(assignment.exercises)
    score = {n: by_name[n].score if n in by_name else 0.0 for n in names}
    facts = {n: by_name[n].facts if n in by_name else {} for n in names}
    size = min(assignment.count, len(names))

    def allowed(combo):
        for req in assignment.requirements:
            if set(req.together) <= set(combo):
                holding = sum(1 for n in req.together if facts[n].get(req.fact))
                if holding < req.at_least:
                    return False
        return True

    combos = list(itertools.combinations(names, size))
    best_any = max(combos, key=lambda c: sum(score[n] for n in c))
    candidates = [c for c in combos if allowed(c)]
    explanation = []
    if candidates:
        chosen = max(candidates, key=lambda c: sum(score[n] for n in c))
        counted = [n for n in chosen if n in by_name and by_name[n].submitted]
    else:
        # Every full choice breaks a requirement: count the best single exercises
        # that break none, and leave the other slots at zero.
        chosen = ()
        for k in range(size - 1, 0, -1):
            smaller = [c for c in itertools.combinations(names, k) if allowed(c)]
            if smaller:
                chosen = max(smaller, key=lambda c: sum(score[n] for n in c))
                break
        counted = [n for n in chosen if n in by_name and by_name[n].submitted]
    total = round(sum(score[n] for n in counted), 4)

    submitted = [n for n in names if n in by_name and by_name[n].submitted]
    if size < len(names):
        explanation.append(f'The best {size} of {len(names)} exercises count.')
    if not submitted:
        explanation.append('No exercise of this assignment was found in the submission.')
    if set(best_any) != set(chosen):
        for req in assignment.requirements:
            if set(req.together) <= set(best_any) and not allowed(best_any):
                why = req.explain or (f'{" and ".join(req.together)} count together only if at '
                                      f'least {req.at_least} of them has the fact "{req.fact}"')
                lacking = ', '.join(n for n in req.together if not facts[n].get(req.fact))
                explanation.append(f'{why}; it does not hold for {lacking}, so the pair cannot '
                                   'both count.')
    if counted:
        parts = [f'{n} ({fmt(score[n])})' for n in counted]
        explanation.append('Counted: ' + ', '.join(parts) + f' = {fmt(total)}.')
    not_counted = [n for n in submitted if n not in counted]
    if not_counted:
        explanation.append('Not counted: ' + ', '.join(f'{n} ({fmt(score[n])})'
                                                        for n in not_counted) + '.')
    return counted, total, explanation


def late_penalty(rule, submitted_at, score):
    """``(score after penalty, details)``; details empty when not late or no rule."""
    if not rule or submitted_at is None:
        return score, {}
    deadline = parse_time(rule['deadline'])
    when = parse_time(submitted_at) if isinstance(submitted_at, str) else submitted_at
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    late_seconds = (when - deadline).total_seconds() - 60 * rule.get('grace_minutes', 0)
    if late_seconds <= 0:
        return score, {'late': False, 'submitted_at': when.isoformat()}
    days = math.ceil(late_seconds / 86400)
    share = min(rule.get('max', 1.0), rule.get('per_day', 0.0) * days)
    penalised = round(score * (1 - share), 4)
    return penalised, {'late': True, 'days_late': days, 'penalty_share': share,
                       'submitted_at': when.isoformat(), 'score_before_penalty': score}


def parse_time(text):
    value = datetime.fromisoformat(text.replace('Z', '+00:00'))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value
