"""The judges' toolkit (parent side): what every exercise's judge needs the same way.

- :mod:`grader.judging.feedback`: a case's verdicts with their feedback block
  (the position drawn, what was returned, what was expected, the likely
  cause), every check of a case failed at once, the CPU time against the
  limit, counts that were tampered with;
- :mod:`grader.judging.answers`: what a call returned, in words, and the
  pair ``(value, move)`` of a game search read once;
- :mod:`grader.judging.review`: judgement across cases: baseline cases and
  their times, the evidence as facts, credit withdrawn, medians;
- :mod:`grader.judging.evidence`: counts made in the submission's process,
  confirmed by the CPU time measured outside it;
- :mod:`grader.judging.outcomes`: the kind of a case's outcome, from a small
  fixed set, and what a report says of hidden and generated cases (per
  check, how many passed);
- :mod:`grader.judging.shapes`: JSON-schema pieces of what probes report.

A judge (``grader/exercises/<name>/judge.py``) holds only what is its
exercise's own: its checks, its words, its causes.
"""
