"""The search counter built with the profile function (``_tally.c`` with ``TALLY_NO_HOOK``),
beside the one with the frame-evaluation hook in every build for CPython 3.11: CPython
3.11.0-3.11.3 run a specialised subscript's ``__getitem__`` past the hook (gh-104405), and
:func:`grader.child.tally.extension_path` gives them this one."""
