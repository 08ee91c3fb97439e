"""Trials: a variant of a reference solution (a bug a student makes, a mutant) answers many
positions, and each answer is told acceptable or not by the oracle's expectations.

Instructor tooling behind ``grader fixtures --select`` (:mod:`grader.selection`): each
exercise's module here knows how to call its solution in the handout's API
(``answer(module, input)``) and what the graded checks accept
(``verdict(input, expected, answer)``: '' when acceptable, else the reason).  A variant
runs in a process of its own (``python -m reference.trials``), never in the grader's.
"""
