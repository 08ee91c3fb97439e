"""The facts the connect-four plug-in reports (see :mod:`grader.exercises.facts`)."""
from grader.exercises.facts import DEDUCTION, EVIDENCE, SEARCHED, Fact, verdict_with_ratio

FACTS = (
    Fact('prunes', 'Every pruning case passed: alphabetapruning made at most the margin of '
         "plain minimax's leaf evaluations, with counts the CPU time confirms.",
         verdict_with_ratio('prunes', 'node_ratio_median', 'median node ratio'), rule=True),
    Fact('entry', 'The entry point graded (alphabetapruning, or minimax when alphabetapruning '
         'is the placeholder).', lambda value, facts: f'graded {value}' if value else ''),
    Fact('node_ratio_median', "Median over the pruning cases of moves made / plain minimax's."),
    Fact('leaf_ratio_median', "Median over the pruning cases of leaf evaluations / plain "
         "minimax's."),
    Fact('node_ratios', 'Moves made / plain minimax, per public pruning case.'),
    Fact('leaf_ratios', 'Leaf evaluations / plain minimax, per public pruning case.'),
    Fact('games', 'Games played against the reference: {win, draw, loss}.'),
    EVIDENCE, SEARCHED, DEDUCTION,
)
