"""The untrusted side: everything that runs inside the sandbox, beside student code.

Nothing here may import anything but the standard library (and, for the
seccomp layer, ``pyseccomp``), and nothing of the trusted side imports
these modules except to ship them (:mod:`grader.sandbox.bundle` packs them,
with each exercise's probe, into the archive the child runs from).

Two kinds of process run this code:

- the *runner* (:mod:`grader.child.runner`), started by the parent inside
  the sandbox.  It never executes student code: it applies the isolation
  layers, unpacks the submission, compiles the student module and, for the
  load and for every case, forks a fresh *case process*;
- the *case process* (:mod:`grader.child.case`), which closes what it must
  not hold, adds its own limits and guards, executes the student module and
  calls the exercise's probe once.  Whatever it reports is a claim; the
  parent measures its CPU time from outside.
"""
