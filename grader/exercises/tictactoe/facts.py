"""The facts the tic-tac-toe plug-in reports (see :mod:`grader.exercises.facts`)."""
from grader.exercises.facts import EVIDENCE, SEARCHED, TAMPERED, Fact, verdict_with_ratio

FACTS = (
    Fact('prunes', 'Every pruning case passed: the confirmed search calls stay within the '
         "check's margin of the game tree (alpha-beta).",
         verdict_with_ratio('prunes', 'node_ratio_median', 'median node ratio'), rule=True),
    Fact('node_ratio_median', 'Median over the pruning cases of search calls / game-tree size.'),
    Fact('nodes', 'Search calls counted on each public pruning case.'),
    EVIDENCE, SEARCHED, TAMPERED,
)
