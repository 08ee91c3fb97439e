"""The facts the eight-puzzle plug-in reports (see :mod:`grader.exercises.facts`)."""
from grader.exercises.facts import EVIDENCE, SEARCHED, TAMPERED, Fact

SOURCES = {'list': 'the returned list', 'reconstruct_path': 'camefrom, via ReconstructPath',
           'printed': 'the printed path'}
"""Where the path was read from, in words, by result convention."""


def _convention_words(value, facts):
    if not value or value == 'none':
        return ''
    return f'path read from {SOURCES.get(value, value)}'


FACTS = (
    Fact('result_convention', 'How most answers gave their path: list, reconstruct_path '
         '(camefrom) or printed; none when no path was read.', _convention_words),
    Fact('conventions', 'Answers read by each result convention.'),
    Fact('expansions', 'States expanded on each public heuristic case.'),
    Fact('expansion_ratio_max', "Largest ratio of expansions to the reference A*'s."),
    Fact('unsolvable_outcome', 'What the search did on the unsolvable start.'),
    Fact('search_cpu', 'CPU seconds per start timed for a search (ten moves or more, 250 '
                       'expansions of the reference A* where any has): {starts, median, needed}.'),
    EVIDENCE, SEARCHED, TAMPERED,
)
