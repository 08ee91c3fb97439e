"""The course a class is graded against, checked whole before anything is graded.

A fixture with a typo found halfway through a class would make every
submission ungradable and overwrite a good earlier run; so ``grader batch``
and ``grader regrade`` load every fixture file the policy names (public,
hidden, and the cases each plug-in makes from them) exactly as grading will,
and check the data files the exercises read, before the output folder is
touched.  A problem is a :class:`~grader.errors.UserError` naming the file,
the line and what to fix.

:func:`digest` is the fixtures digest a result graded today carries for the
exercises it graded, computed as the engine computes it, so a note about
results graded "with other fixtures" appears only when they really differ.
"""
from pathlib import Path

from grader import exercises as plugins
from grader import fixtures
from grader.errors import UserError


def cases(policy, name):
    """``(cases, files used, hidden used)`` of one exercise, as a grading run loads them."""
    return fixtures.load_cases(plugins.get(name), policy.exercises[name])


def validate(policy):
    """Load every fixture of every exercise and check its data files; raise on a problem."""
    for name, settings in policy.exercises.items():
        cases(policy, name)
        for key, value in settings.options.items():
            if isinstance(value, str) and (key.endswith('_file') or key.endswith('_dir')):
                if not Path(value).exists():
                    raise UserError(f'exercises.{name}.options.{key}: {value} does not exist',
                                    policy.path)


def digest(policy, exercise_names):
    """The fixtures digest of a result graded today on ``exercise_names``."""
    used = {}
    for name in exercise_names:
        if name in policy.exercises:
            used.update(cases(policy, name)[1])
    return fixtures.digest(used)


def graded_exercises(result):
    """The exercises a result document graded (those whose file was found)."""
    return [e['name'] for e in result.get('exercises', []) if e.get('submitted')]
