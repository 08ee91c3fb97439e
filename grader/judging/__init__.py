"""The judges' toolkit (parent side): what every exercise's judge needs the same way.

- :mod:`grader.judging.evidence`: counts made in the submission's process,
  confirmed by the CPU time measured outside it;
- :mod:`grader.judging.outcomes`: the kind of a case's outcome, from a small
  fixed set, which is all a report shows of a hidden or generated case.
"""
