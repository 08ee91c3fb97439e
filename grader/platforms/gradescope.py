"""Gradescope's autograder: the zip ``grader dist --gradescope FILE.zip`` writes, and
the program ``run_autograder`` starts for every submission.

The zip follows Gradescope's autograder specification: ``setup.sh`` and an
executable ``run_autograder`` at the top; Gradescope unpacks the rest into
``/autograder/source``.  It carries the grader (package, ``pyproject.toml`` and
``setup.py``, which builds its C search counter) and the whole course:
``grading.yaml``, the public and hidden fixture files, the data files the
exercises read, and the ``reference/`` folder (the expected answers of
positions generated at grading time are computed from it).  The zip is for Gradescope only: it
holds what students must never see.

``setup.sh`` runs once, as root, when Gradescope builds the image: it
installs Python, a C compiler, bubblewrap and libseccomp from Ubuntu's
packages, then ``install_grader.sh`` installs the grader into
``/autograder/venv`` (its search counter compiled) and fails the build when
``grader doctor --require-counter`` does.  ``run_autograder`` runs that
installed grader (``python -I``), never the copy in ``source/``, and an image
without the counter answers every submission that the autograder is broken.

``run_autograder`` runs :func:`run` for each submission (files in
``/autograder/submission``; the root ``/autograder`` can be moved with
``GRADER_AUTOGRADER_ROOT``, as the test suite does).  It **always** writes
``/autograder/results/results.json``: the grader's result when the
submission could be graded; otherwise score 0 and a sentence saying why --
a misnamed or missing file names the file expected, an unreadable upload
says what could not be read, and a failure of the grader itself says so
(the details go to the standard output, which only the staff see).  The
script writes a last-resort result itself if even Python cannot start.
"""
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import traceback
import zipfile
from pathlib import Path

from grader import __version__, instruments
from grader.errors import UserError
from grader.report.files import write_text
from grader.sandbox import leftovers

ROOT_VARIABLE = 'GRADER_AUTOGRADER_ROOT'
SETTINGS = 'autograder.json'
_DATE = (1980, 1, 1, 0, 0, 0)

SETUP_SH = r'''#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (Ubuntu 22.04 or newer: the grader needs Python 3.9 or newer).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# bubblewrap and libseccomp: the sandbox's strongest isolation level; a C compiler and
# Python's headers: the search counter (grader/child/_tally.c, built by setup.py)
apt-get install -y -qq python3 python3-venv python3-pip python3-dev gcc bubblewrap libseccomp2
bash /autograder/source/install_grader.sh
'''

INSTALL_GRADER_SH = r'''#!/usr/bin/env bash
# The grader's install into the autograder image, run by setup.sh once the system
# packages are in: a virtual environment of its own, the grader installed into it from
# this folder (its C search counter compiled), and `grader doctor --require-counter`,
# which fails the image build when the counter is missing: an image that cannot count
# never grades. The root /autograder can be moved with GRADER_AUTOGRADER_ROOT and the
# Python with GRADER_SETUP_PYTHON (the test suite does both).
set -euo pipefail
ROOT="${GRADER_AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PYTHON="${GRADER_SETUP_PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || {
  echo "install_grader.sh: the grader needs Python 3.9 or newer;" \
    "choose the Ubuntu 22.04 (or newer) base image" >&2
  exit 1
}
"$PYTHON" -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
"$ROOT/venv/bin/python" -m pip install --quiet "$SOURCE[sandbox]"
chmod +x "$SOURCE/run_autograder"
# The build log shows the counter, the isolation level and the time limits on this image.
cd "$ROOT" && "$ROOT/venv/bin/grader" --config "$SOURCE/grading.yaml" doctor --require-counter
'''

RUN_AUTOGRADER = r'''#!/usr/bin/env bash
# Gradescope runs this for every submission. It always writes results/results.json.
# It runs the grader installed by setup.sh (python -I: never a copy on PYTHONPATH or in
# the working folder, such as the source folder, where no counter was built).
ROOT="${GRADER_AUTOGRADER_ROOT:-/autograder}"
RESULTS="$ROOT/results/results.json"
PYTHON="${GRADER_PYTHON:-$ROOT/venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
mkdir -p "$ROOT/results"
rm -f "$RESULTS"
cd "$ROOT" || cd /
GRADER_AUTOGRADER_ROOT="$ROOT" "$PYTHON" -I -m grader.platforms.gradescope
if [ ! -s "$RESULTS" ]; then
  echo "run_autograder: the grader wrote no results; writing a result that says so" >&2
  printf '%s\n' '{"score": 0, "output": "The autograder could not grade this submission. '\
'This is a problem of the grader, not of your code: the course staff can see what happened, '\
'please tell them.", "stdout_visibility": "hidden", "tests": []}' > "$RESULTS"
fi
exit 0
'''


# -- the zip ------------------------------------------------------------------------
def grader_source():
    """``(package folder, pyproject.toml)`` of the running grader, to install in the image."""
    package = Path(__file__).resolve().parents[1]
    pyproject = package.parent / 'pyproject.toml'
    if not pyproject.is_file():
        raise UserError('the Gradescope zip installs the grader from its source, but '
                        f'{pyproject} is missing: run `grader dist --gradescope` from a '
                        "checkout of the grader's repository")
    return package, pyproject


def course_files(policy):
    """Paths of the course (relative to the policy's folder): grading.yaml, public and
    hidden fixtures, the data files the exercises name, and the reference folder."""
    from grader.batch import bundle  # on demand: only building the autograder zip needs it
    root = Path(policy.root).resolve()
    wanted = [Path(policy.path).resolve()]
    wanted += [Path(p).resolve() for p in bundle.course_files(policy)]
    reference = Path(policy.reference).resolve()
    if reference.is_dir():
        wanted.append(reference)
    out = []
    for path in wanted:
        try:
            out.append(path.relative_to(root))
        except ValueError:
            raise UserError(f'{path} lies outside the course folder {root}; the autograder '
                            'zip holds only that folder: move the file into it',
                            policy.path) from None
    return sorted(set(out))


def _walk(folder):
    for path in sorted(folder.rglob('*')):
        if path.is_file() and not path.is_symlink() and '__pycache__' not in path.parts \
                and path.suffix not in ('.pyc', '.so'):   # the image builds its own
            yield path


def build(policy, target, assignment=None):
    """Write the autograder zip to ``target``: the names it holds.

    ``assignment`` pins the assignment graded (one Gradescope assignment,
    one results.json); without it each submission is graded for the first
    assignment whose files it holds.
    """
    if assignment is not None and assignment not in policy.assignments:
        raise UserError(f'unknown assignment {assignment!r} (known: '
                        f'{", ".join(policy.assignments)})', policy.path)
    target = Path(target)
    if target.suffix.lower() != '.zip':
        raise UserError('the Gradescope autograder is a zip file: give a name ending in .zip',
                        target)
    if target.is_dir():
        raise UserError('this is a folder: give the name of the zip file to write', target)
    package, pyproject = grader_source()
    entries = {}
    for path in _walk(package):
        entries['grader/' + path.relative_to(package).as_posix()] = path.read_bytes()
    entries['pyproject.toml'] = pyproject.read_bytes()
    builder = pyproject.parent / 'setup.py'     # builds the C search counter
    if builder.is_file():
        entries['setup.py'] = builder.read_bytes()
    readme = pyproject.parent / 'README.md'
    entries['README.md'] = readme.read_bytes() if readme.is_file() else b'# grader\n'
    root = Path(policy.root).resolve()
    for relative in course_files(policy):
        source = root / relative
        if source.is_dir():
            for path in _walk(source):
                entries[path.relative_to(root).as_posix()] = path.read_bytes()
        elif source.is_file():
            entries[relative.as_posix()] = source.read_bytes()
    if Path(policy.path).name != 'grading.yaml':
        entries['grading.yaml'] = Path(policy.path).read_bytes()
    settings = {'assignment': assignment, 'grader_version': __version__,
                'config': 'grading.yaml'}
    entries[SETTINGS] = (json.dumps(settings, indent=2) + '\n').encode()
    scripts = {'setup.sh': SETUP_SH.encode(), 'install_grader.sh': INSTALL_GRADER_SH.encode(),
               'run_autograder': RUN_AUTOGRADER.encode()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as archive:
        for name, data in [*scripts.items(), *sorted(entries.items())]:
            info = zipfile.ZipInfo(name, date_time=_DATE)
            mode = 0o755 if name in scripts else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f'.{target.name}.{os.getpid()}.tmp')
    tmp.write_bytes(buffer.getvalue())
    tmp.replace(target)
    return [*scripts, *sorted(entries)]


def _graded_exercises(policy, assignment):
    """The settings of the exercises the autograder may grade (those of ``assignment``, or
    of every assignment)."""
    names = policy.assignments[assignment].exercises if assignment else list(policy.exercises)
    return [policy.exercises[name] for name in names]


def missing_hidden(policy, assignment=None):
    """Hidden fixture files of the graded exercises that grading.yaml names but that do
    not exist (the autograder grades without them)."""
    return [Path(p) for s in _graded_exercises(policy, assignment) for p in s.hidden_fixtures
            if not Path(p).is_file()]


def described(policy, assignment, names):
    """What the zip holds, in the words ``grader dist --gradescope`` prints."""
    hidden = [p for s in _graded_exercises(policy, assignment) for p in s.hidden_fixtures
              if Path(p).is_file()]
    parts = ['grading.yaml', 'the public fixtures',
             f'{len(hidden)} hidden fixture file{"" if len(hidden) == 1 else "s"}' if hidden
             else 'no hidden fixture file']
    if any(name.startswith(Path(policy.reference).name + '/') for name in names):
        parts.append('the reference')
    return (f'the Gradescope autograder, {len(names)} files (setup.sh, run_autograder, the '
            f'grader and the course: {", ".join(parts[:-1])} and {parts[-1]}): upload it to '
            'Gradescope, never give it to students')


# -- inside Gradescope: one submission ------------------------------------------------
def _results(score, message, max_score=None, name='Submission'):
    """A results.json document for a submission that could not be graded."""
    test = {'name': name, 'score': 0.0, 'status': 'failed', 'output': message,
            'visibility': 'visible'}
    if max_score is not None:
        test['max_score'] = max_score
    return {'score': score, 'output': message, 'output_format': 'text',
            'stdout_visibility': 'hidden', 'tests': [test]}


def _write(path, document):
    write_text(path, json.dumps(document, indent=2) + '\n')


def _submission_time(root):
    """``created_at`` of Gradescope's submission_metadata.json, or None."""
    try:
        data = json.loads((root / 'submission_metadata.json').read_text(encoding='utf-8'))
        when = data.get('created_at')
        return when if isinstance(when, str) and when else None
    except (OSError, ValueError, AttributeError):
        return None


def grade_submission(root, settings, results):
    """Grade ``root/submission`` into ``results``; the document written is returned."""
    from grader import config  # on demand: only grading on Gradescope needs them
    from grader.batch import archives  # on demand: only grading on Gradescope needs them
    from grader.submission import readable  # on demand: only grading on Gradescope needs it
    source = root / 'source'
    policy = config.load(source / settings.get('config', 'grading.yaml'))
    assignment = settings.get('assignment')
    max_score = policy.assignments[assignment].max_score if assignment else None
    submission = root / 'submission'
    if not submission.is_dir():
        document = _results(0.0, 'No files were submitted.', max_score)
        _write(results, document)
        return document
    try:
        readable(submission)
        files = archives.normalise(archives.read_folder(submission, archives.Limits()),
                                   archives.Limits())
    except UserError as error:
        document = _results(0.0, f'Your submission could not be graded: {error.message}.',
                            max_score)
        _write(results, document)
        return document
    except (archives.Refused, OSError) as error:
        document = _results(0.0, f'Your submission could not be read: {error}.', max_score)
        _write(results, document)
        return document
    # A misnamed, misplaced or missing file is refused by the grader itself (exit 2),
    # in the sentence every route gives (grader.submission).
    with tempfile.TemporaryDirectory(prefix=leftovers.prefix('gradescope')) as tmp:
        folder = archives.unpack(archives.pack(files), Path(tmp) / 'submission')
        os.chmod(tmp, 0o755)
        written = Path(tmp) / 'results.json'
        command = [sys.executable, '-m', 'grader', '--config', str(policy.path), 'grade',
                   str(folder), '--quiet', '--gradescope', str(written)]
        if assignment:
            command += ['--assignment', assignment]
        when = _submission_time(root)
        if when:
            command += ['--submitted-at', when]
        # the grader this process is (never one on PYTHONPATH)
        env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, env=env)
        sys.stdout.write(done.stdout)
        sys.stdout.write(done.stderr)
        if done.returncode in (0, 1) and written.is_file():
            document = json.loads(written.read_text(encoding='utf-8'))
            _write(results, document)
            return document
        if done.returncode == 2:
            line = (done.stderr.strip().splitlines() or ['the submission could not be graded'])[-1]
            line = line.replace('grader: error: ', '').replace(f'{folder}: ', '', 1)
            line = line.replace(str(folder), 'your submission')
            document = _results(0.0, f"Your submission could not be graded: {line.rstrip('.')}.",
                                max_score)
            _write(results, document)
            return document
        raise RuntimeError(f'the grader stopped with status {done.returncode}')


def run(root=None):
    """Grade one Gradescope submission; always leaves ``results/results.json``."""
    root = Path(root or os.environ.get(ROOT_VARIABLE) or '/autograder')
    results = root / 'results' / 'results.json'
    try:
        instruments.require_counter()   # an image without its counter never grades
        settings = json.loads((root / 'source' / SETTINGS).read_text(encoding='utf-8'))
        grade_submission(root, settings, results)
    except BaseException as error:      # noqa: BLE001 -- the student still gets a result
        traceback.print_exc(file=sys.stdout)
        message = ('The autograder could not grade this submission. This is a problem of '
                   'the grader, not of your code: the course staff can see what happened '
                   f'({type(error).__name__}); please tell them.')
        if isinstance(error, instruments.MissingInstrument):
            message = instruments.broken_autograder(error)
        elif isinstance(error, UserError):
            message = (f'The autograder is not set up correctly ({error}). This is not a '
                       'problem of your code: please tell the course staff.')
        _write(results, _results(0.0, message))
        if isinstance(error, KeyboardInterrupt):
            raise
    return 0


if __name__ == '__main__':
    sys.exit(run())
