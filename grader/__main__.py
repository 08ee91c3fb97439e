"""``python -m grader`` is the same as the ``grader`` command, from any working folder.

``python -m`` puts the working folder first on ``sys.path``; run inside a
student's folder, a file there named like a module the grader imports
(``argparse.py``, ``yaml.py``, ``json.py``...) would run in the grader's
process.  So the working folder leaves ``sys.path`` here, before anything
else is imported (what ``python -P`` does on Python 3.11 and later).  One
thing no code here can undo: ``python -m grader`` in a folder that holds a
package named ``grader`` runs that package instead of this one; use the
``grader`` command (or ``python -P -m grader``) there.
"""
import os
import sys


def _without_working_folder(path):
    """``path`` without the entries that name the working folder ('' included)."""
    here = os.path.realpath(os.getcwd())
    return [entry for entry in path
            if entry and os.path.realpath(entry) != here]


if not getattr(sys.flags, 'safe_path', False):
    sys.path[:] = _without_working_folder(sys.path)

from grader.cli import main  # noqa: E402 - only once the working folder is off sys.path

sys.exit(main())
