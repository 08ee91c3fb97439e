"""grader: automated, sandboxed grading of search exercises.

The package is the trusted side of grading. Student code never runs in this
process: it runs in a sandboxed child (see :mod:`grader.sandbox`) that only
reports raw observations, which the judges in :mod:`grader.exercises` assess.
"""

__version__ = "0.1.0"
