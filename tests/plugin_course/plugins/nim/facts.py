"""The facts the nim plug-in reports."""
from grader.exercises.facts import Fact, yes_no


def _memo_words(value, facts):
    calls = facts.get('calls')
    return f'memoizes: {yes_no(value)}' + (f' (at most {calls} search calls)' if calls else '')


FACTS = (
    Fact('memoizes', 'Every counted pile was answered right with at most (most + 1) x stones '
         'calls of the search.', _memo_words, rule=True),
    Fact('calls', 'The most search calls counted on one pile.'),
)
