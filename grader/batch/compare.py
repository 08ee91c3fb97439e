"""What a result says about the student, without what varies from run to run.

Scores, check verdicts and case counts must not depend on the executor, the
number of workers or the grading order; durations, the calibration and the
machine do.  :func:`verdict` keeps the first kind only: two gradings of the
same submission must have equal verdicts.  :func:`changes` says in words
what differs between two results, for ``grader regrade --diff``.
"""
from grader.scoring import fmt


def verdict(result):
    """The stable part of a result document (a dict), or None."""
    if not result:
        return None
    return {
        'assignment': result['assignment'],
        'score': result['score'],
        'max_score': result['max_score'],
        'late': bool(result.get('late', {}).get('late')),
        'exercises': {
            e['name']: {
                'score': e['score'], 'submitted': e['submitted'], 'counted': e['counted'],
                'error': e['error'],
                'checks': {c['name']: [c['score'], c['passed'], c['cases_passed'],
                                       c['cases_total'], sorted(f['case'] for f in c['failures'])]
                           for c in e['checks']},
            } for e in result['exercises']},
    }


def changes(old_status, old_result, new_status, new_result):
    """Sentences on what differs between two outcomes ([] when nothing does)."""
    if old_status != new_status:
        return [f'{old_status} -> {new_status}']
    if old_status != 'graded':
        return []
    old, new = verdict(old_result), verdict(new_result)
    if old == new:
        return []
    out = []
    for name in sorted(set(old['exercises']) | set(new['exercises'])):
        out += _exercise_changes(name, old['exercises'].get(name), new['exercises'].get(name))
    if old['late'] != new['late']:
        out.append('late' if new['late'] else 'no longer late')
    if not out and old['score'] != new['score']:
        out.append('score')
    return out


def _exercise_changes(name, a, b):
    """Sentences on what differs in exercise ``name`` between two verdicts (None: absent)."""
    if a is None or b is None:
        return [f'{name} {"added" if a is None else "removed"}']
    out = []
    for check in sorted(set(a['checks']) | set(b['checks'])):
        ca, cb = a['checks'].get(check), b['checks'].get(check)
        if ca == cb:
            continue
        if ca is None or cb is None:
            out.append(f'{name}/{check} {"added" if ca is None else "removed"}')
        elif ca[0] != cb[0]:
            out.append(f'{name}/{check} {fmt(ca[0])} -> {fmt(cb[0])}')
        else:
            out.append(f'{name}/{check} cases {ca[2]}/{ca[3]} -> {cb[2]}/{cb[3]}')
    if a['counted'] != b['counted']:
        out.append(f'{name} {"now" if b["counted"] else "no longer"} counted')
    return out
