"""Writers: one per output format, all reading the same :class:`grader.model.Result`.

A writer formats; it never recomputes a score, and it never shows the
feedback of a hidden case (the scoring already blanks it; writers check
``failure['hidden']`` again).

- :mod:`terminal` -- the table ``grader check`` prints;
- :mod:`jsonout` -- ``--json``, the documented result contract;
- :mod:`gradescope` -- ``--gradescope``, Gradescope's results.json;
- :mod:`junit` -- ``--junit``, one testcase per check;
- :mod:`markdown` -- ``--markdown`` and the GitHub Actions job summary.
"""

PUBLIC_ONLY_NOTE = 'Public checks only; the official grade includes hidden checks.'


def shown_failures(check):
    """The failures a student may see in full: ``[(failure, feedback)]``."""
    return [(f, '' if f.get('hidden') else f.get('feedback', '')) for f in check.failures]


def exercise_label(exercise):
    return exercise.title or exercise.name
