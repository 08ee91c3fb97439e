"""Course platforms the grader drops into as they are.

- :mod:`gradescope` -- the autograder zip (``grader dist --gradescope FILE.zip``)
  and the program that runs in it for every submission.

PrairieLearn's external grader needs no bundle: an image built on PrairieLearn's
Python grader image with the grader installed (docs/prairielearn/Dockerfile) runs
docs/prairielearn/grade.sh, that is ``grader grade /grade/student --prairielearn
/grade/results/results.json`` (see docs/prairielearn.md).
"""
