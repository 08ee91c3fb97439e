"""Running untrusted student code.

The parent side (:mod:`grader.sandbox.session`) starts a child process,
sends it requests over a private pipe and reads raw observations back.  The
child side (:mod:`grader.sandbox.runner`) is the only place student code is
ever imported.  Isolation layers (:mod:`grader.sandbox.layers`) are applied
around and inside the child when the machine supports them.
"""
