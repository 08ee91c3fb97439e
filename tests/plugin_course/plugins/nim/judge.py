"""Nim judge: runs in the grader and decides every check.

- ``values``: ``Wins(stones, most)`` returned the right yes/no.
- ``memo``: on the cases tagged ``count``, a right answer with at most
  ``(most + 1) * stones + 1`` calls of the submission's search (a search that
  remembers the piles it solved); plain recursion makes exponentially many.
  Information only: the fact ``memoizes`` is what the course rule reads.
"""
from grader.exercises import base
from grader.judging import shapes, tallies

OBSERVATION = {
    'type': 'object',
    'required': ['result', 'calls'],
    'properties': {'result': shapes.PLAIN_ITEM, 'calls': {'type': ['integer', 'null'],
                                                           'minimum': 0, 'maximum': 10 ** 12}},
    'additionalProperties': False,
}


class Nim(base.Exercise):
    name = 'nim'
    title = 'One-pile nim (memoized search)'
    files = ('nim.py',)
    probe = 'grader.exercises.nim.probe'
    checks = (base.Check('values', 'the right answer', 1.0),
              base.Check('memo', 'a search that remembers solved piles', 0.0))
    observation_schema = OBSERVATION

    def requests(self, case, settings):
        return [base.Request({'stones': case.input['stones'], 'most': case.input['most'],
                              'count': 'count' in case.tags})]

    def judge(self, case, replies, settings):
        reply = replies[0]
        checks = ['values'] + (['memo'] if 'count' in case.tags else [])
        if reply.status != 'ok':
            return [base.Outcome(c, case.name, False, base.failure_message(reply))
                    for c in checks]
        got, wanted = reply.observation['result'], case.expected['wins']
        right = got.get('kind') == 'bool' and got['value'] == wanted
        said = 'yes' if wanted else 'no'
        feedback = (f"Wins({case.input['stones']}, {case.input['most']})\n"
                    f"returned: {got.get('value', got.get('type', got['kind']))}\n"
                    f'expected: {wanted}\n'
                    'A pile is won when some take leaves the other player a lost pile.')
        outcomes = [base.Outcome('values', case.name, right,
                                 '' if right else f'expected {said}', feedback,
                                 kind='right' if right else 'wrong answer')]
        if 'memo' in checks:
            counted = tallies.counted(reply)     # read by the runner, not the case's word
            calls = counted.traced if counted.intact else 0
            bound = (case.input['most'] + 1) * case.input['stones'] + 1
            memo = right and 0 < calls <= bound
            why = ('' if memo else 'the answer is wrong' if not right else
                   'no search calls were counted' if not calls else
                   f'{calls} search calls, more than {bound}')
            outcomes.append(base.Outcome('memo', case.name, memo, why, measured={'calls': calls},
                                         kind='right' if memo else 'wrong answer'))
        return outcomes

    def facts(self, outcomes, settings):
        memo = [o for o in outcomes if o.check == 'memo']
        calls = [o.measured['calls'] for o in memo if 'calls' in o.measured]
        return {'memoizes': bool(memo) and all(o.passed for o in memo),
                'calls': max(calls) if calls else None}


EXERCISE = Nim()
