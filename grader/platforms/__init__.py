"""Course platforms the grader drops into as they are.

- :mod:`gradescope` -- the autograder zip (``grader dist --gradescope FILE.zip``)
  and the program that runs in it for every submission.

PrairieLearn's external grader needs no bundle: ``grader grade /grade/student
--prairielearn /grade/results/results.json`` (see docs/prairielearn.md).
"""
