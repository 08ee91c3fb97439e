"""The compiled part of the package: the search counter of a case process (grader/child/_tally.c).

Everything else is in pyproject.toml.  The extension is optional: where no C compiler is
found the install goes on without it, and the grader says so in one line at every start
(``grader doctor`` too); counts are then not read, and no pruning is credited.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension('grader.child._tally', ['grader/child/_tally.c'], optional=True)])
