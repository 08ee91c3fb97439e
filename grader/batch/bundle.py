"""The course bundle: what a remote worker needs besides the grader itself.

A Dask worker on another machine has the grader installed but not the
course: ``grading.yaml`` and the files it names (fixtures, hidden fixtures,
data files of exercise options, plug-ins mounted from the course's folders,
and the reference's oracles when positions are drawn at grading time), not
the folders of ``similarity`` (the comparison of the hand-ins runs where the
batch runs).
:func:`make` packs them into one zip, shipped once to every worker;
:func:`load` unpacks it there and loads the policy from the copy.  Fixture
digests are computed from file names and parsed content, so results graded
from the copy carry the same digest.
"""
import atexit
import hashlib
import shutil
import tempfile
from pathlib import Path

from grader.batch import archives
from grader.errors import UserError
from grader.sandbox import leftovers


def course_files(policy):
    """Absolute paths of the files grading reads, besides grading.yaml.

    With positions drawn at grading time (``generated``), that includes the
    reference folder: its oracles answer them in the grading process, and its pools
    (``pools/*.json``) hold the positions drawn to catch known bugs.
    """
    paths = []
    if any(s.generated.get('count', 0) for s in policy.exercises.values()):
        reference = Path(policy.reference)
        paths += sorted(p for p in reference.rglob('*.py') if '__pycache__' not in p.parts)
        paths += sorted(reference.glob('pools/*.json'))
    for settings in policy.exercises.values():
        paths += [Path(settings.plugin)] if settings.plugin else []
        paths += [Path(p) for p in settings.fixtures]
        paths += [Path(p) for p in settings.hidden_fixtures if Path(p).is_file()]
        for key, value in settings.options.items():
            if isinstance(value, str) and (key.endswith('_file') or key.endswith('_dir')):
                paths.append(Path(value))
    return paths


def make(policy):
    """``(zip bytes, sha256 digest)`` of the policy and every file it names."""
    root = Path(policy.root).resolve()
    files = {'grading.yaml': Path(policy.path).read_bytes()}
    for path in course_files(policy):
        path = path.resolve()
        try:
            relative = path.relative_to(root)
        except ValueError:
            raise UserError(f'{path} lies outside the policy folder {root}; remote workers '
                            'receive only that folder: move the file into it',
                            policy.path) from None
        if path.is_dir():
            limits = archives.Limits(max_bytes=500 * 1024 * 1024, max_files=100000)
            for name, data in archives.read_folder(path, limits).items():
                files[f'{relative.as_posix()}/{name}'] = data
        elif path.is_file():
            files[relative.as_posix()] = path.read_bytes()
    blob = archives.pack(files)
    return blob, hashlib.sha256(blob).hexdigest()


def load(blob, digest):
    """The policy of a bundle, unpacked into a private folder removed at exit."""
    from grader import config  # a worker reads the course only when a bundle arrives
    # marked as this process's, so the next run's sweep removes it if the worker is killed
    folder = Path(tempfile.mkdtemp(prefix=f'{leftovers.prefix("course")}{digest[:12]}-'))
    atexit.register(shutil.rmtree, folder, True)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 1024 * 1024,
                                                  max_files=100000))
    path, data, where = config.read(folder / 'grading.yaml')
    # The hand-ins are compared where the batch runs, never on a worker: the folders of
    # ``similarity`` (known solutions, the template) stay there.
    data = {key: value for key, value in data.items() if key != 'similarity'}
    return config.load(document=(path, data, where))
