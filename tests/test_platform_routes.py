"""Every install route grades with the search counter, or refuses to grade.

Each route is installed the way its platform installs it, into a fresh virtual environment
under a temporary root, and run the way the platform runs it:

- **Gradescope**: the zip of ``grader dist --gradescope``, unpacked as Gradescope unpacks it
  into ``source/``; its ``install_grader.sh`` (what ``setup.sh`` runs once Ubuntu's packages
  are in: a venv, ``pip install "$SOURCE[sandbox]"``, ``doctor --require-counter``) with the
  root moved; then ``run_autograder`` as Gradescope calls it.
- **PrairieLearn**: the Dockerfile's install command (``uv pip install`` into the image's
  ``/venv``, then ``grader doctor --require-counter``), with ``/venv`` and
  ``/opt/search-grader`` moved; then ``grade.sh``.
- **A wheel**: ``make wheels``' script for this Python, its wheel pip-installed into a fresh
  venv with no C compiler on the path, then ``grader grade``.

On each: an alpha-beta tic-tac-toe with an alpha-beta connect four gets 5.00 with "prunes:
yes"; a plain-minimax pair gets 2.50.  With the extension removed from the venv, the route
refuses: nothing graded, one line, and the platforms answer that the autograder is broken.
The installs need the package index (as the platforms' do); each route's tests share one
venv (one xdist group: gradertest.SHARED_BY_MODULE).
"""
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader import yamlio
from gradertest import ROOT, SUBMISSIONS, bypassing_pythons, quick_course
from test_gradescope import autograder_root
from test_prairielearn import grade_root, run_grade_sh

ALPHABETA = {'tictactoe.py': (SUBMISSIONS / 'tictactoe' / 'alphabeta_helpers.py').read_bytes(),
             'connect4.py': (SUBMISSIONS / 'connect4' / 'alphabeta_make_unmake.py').read_bytes()}
MINIMAX = {'tictactoe.py': (SUBMISSIONS / 'tictactoe' / 'minimax_make_undo.py').read_bytes(),
           'connect4.py': (SUBMISSIONS / 'connect4' / 'minimax_only.py').read_bytes()}
ASSIGNMENT = 'oulu-exercise-1'
INSTALL_SECONDS = 600


def clean_env(**extra):
    """This process's environment without what would point a Python at this checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'GRADER_CONFIG', 'VIRTUAL_ENV')}
    env.update(extra)
    return env


def run(command, **kwargs):
    kwargs.setdefault('env', clean_env())
    return subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_SECONDS,
                          **kwargs)


@contextlib.contextmanager
def counter_removed(venv):
    """``venv`` without its compiled counter for the block (put back after it)."""
    found = sorted(Path(venv).glob('lib/python3*/site-packages/grader/child/_tally*.so'))
    assert found, f'no counter installed in {venv}'
    aside = [path.with_name(path.name + '.aside') for path in found]
    for path, moved in zip(found, aside):
        path.rename(moved)
    try:
        yield
    finally:
        for path, moved in zip(found, aside):
            moved.rename(path)


def hand_in(folder, files):
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    """The course with few drawn positions and one public case of each kind
    (gradertest.quick_course), the reference with it: whether a route counts does not
    depend on how many positions it counts on (each check keeps its cases, the pruning
    positions theirs)."""
    folder = tmp_path_factory.mktemp('course')
    quick_course(policy, folder, per_kind=1)
    shutil.copytree(ROOT / 'reference', folder / 'reference', dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns('__pycache__'))
    return folder


def source_copy(target):
    """The checkout as the grader's source (what the PrairieLearn image copies in)."""
    listed = run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
                 cwd=ROOT).stdout.split('\0')
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target



# -- Gradescope --------------------------------------------------------------------
@pytest.fixture(scope='module')
def gradescope(course, tmp_path_factory):
    """``(zip, the install's root)``: install_grader.sh run into ROOT/venv."""
    from grader import cli
    folder = tmp_path_factory.mktemp('gradescope')
    target = folder / 'autograder.zip'
    assert cli.main(['--config', str(course / 'grading.yaml'), 'dist', '--gradescope',
                     str(target), '--assignment', ASSIGNMENT]) == 0
    installed = autograder_root(target, folder, {})
    done = run(['bash', str(installed / 'source' / 'install_grader.sh')],
               env=clean_env(GRADER_AUTOGRADER_ROOT=str(installed),
                             GRADER_SETUP_PYTHON=sys.executable))
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'search counter: C' in done.stdout, done.stdout
    return target, installed


def gradescope_run(gradescope, tmp_path, files):
    """run_autograder on ``files`` as Gradescope calls it: the venv setup.sh made in the root,
    nothing else set."""
    target, installed = gradescope
    root = autograder_root(target, tmp_path, files)
    (root / 'venv').symlink_to(installed / 'venv')
    done = run([str(root / 'run_autograder')], cwd=root,
               env=clean_env(GRADER_AUTOGRADER_ROOT=str(root)))
    assert done.returncode == 0, done.stderr
    results = json.loads((root / 'results' / 'results.json').read_text())
    jsonschema.validate(results, yamlio.schema('gradescope.schema.json'))
    return results, done


def prunes(results):
    """``{exercise: 'yes' | 'no'}``: the "prunes" fact of each exercise, as Gradescope's
    extra_data words it."""
    found = {}
    for name, lines in results['extra_data']['facts'].items():
        for line in lines:
            for part in line.split('; '):
                if part.startswith('prunes: '):
                    found[name] = part.split()[1]
    return found


def test_gradescope_grades_with_the_counter_the_image_installed(gradescope, tmp_path):
    results, done = gradescope_run(gradescope, tmp_path / 'ab', ALPHABETA)
    assert results['score'] == 5.0, done.stdout
    assert prunes(results) == {'tictactoe': 'yes', 'connect4': 'yes'}
    assert results['extra_data']['counted'] == ['tictactoe', 'connect4']
    results, done = gradescope_run(gradescope, tmp_path / 'mm', MINIMAX)
    assert results['score'] == 2.5, done.stdout
    assert prunes(results) == {'tictactoe': 'no', 'connect4': 'no'}
    assert '("prunes" holds for neither)' in results['output']


def test_gradescope_never_imports_the_source_folder(gradescope):
    """run_autograder runs the installed package: the source folder has no counter built,
    and run_autograder's Python is isolated from PYTHONPATH and the working folder."""
    _, installed = gradescope
    assert not list((installed / 'source' / 'grader').rglob('*.so'))
    text = (installed / 'source' / 'run_autograder').read_text()
    assert ' -I -m grader.platforms.gradescope' in text


def test_gradescope_without_the_counter_says_the_autograder_is_broken(gradescope, tmp_path):
    _, installed = gradescope
    with counter_removed(installed / 'venv'):
        done = run([str(installed / 'venv' / 'bin' / 'grader'), 'doctor', '--require-counter'],
                   cwd=tmp_path)
        assert done.returncode == 2 and 'search counter: none' in done.stdout
        results, done = gradescope_run(gradescope, tmp_path, ALPHABETA)
    assert results['score'] == 0
    assert 'not set up correctly' in results['output'], results['output']
    assert 'search counter' in results['output'] and 'not of your code' in results['output']
    assert 'extra_data' not in results                 # nothing graded
    assert [t['name'] for t in results['tests']] == ['Submission']


# -- PrairieLearn ------------------------------------------------------------------
DOCKERFILE = ROOT / 'docs' / 'prairielearn' / 'Dockerfile'


def image_install_commands(venv, source):
    """The Dockerfile's RUN command that installs the grader, as argument lists, with the
    image's /venv and /opt/search-grader moved to ``venv`` and ``source``."""
    text = DOCKERFILE.read_text().replace('\\\n', ' ')
    runs = [line[4:] for line in text.splitlines() if line.startswith('RUN ')]
    install = [r for r in runs if 'uv pip install' in r]
    assert len(install) == 1, runs
    commands = []
    for part in re.split(r'\s*&&\s*', install[0]):
        words = [w.replace('/venv/', f'{venv}/').replace('/opt/search-grader', str(source))
                 for w in shlex.split(part)]
        if words[0] == 'uv':
            words[0] = str(Path(sys.executable).parent / 'uv')
        commands.append(words)
    return commands


@pytest.fixture(scope='module')
def prairielearn(tmp_path_factory):
    """A venv installed by the image's own install command (the image's /venv moved)."""
    folder = tmp_path_factory.mktemp('prairielearn')
    source = source_copy(folder / 'search-grader')
    venv = folder / 'venv'
    assert run([sys.executable, '-m', 'venv', '--without-pip', str(venv)]).returncode == 0
    for command in image_install_commands(venv, source):
        done = run(command, cwd=folder)
        assert done.returncode == 0, (command, done.stdout + done.stderr)
    return venv


def prairielearn_grade(course, tmp_path, venv, files):
    root = grade_root(course, tmp_path, files)
    shutil.copy(ROOT / 'docs' / 'prairielearn' / 'grade.sh',
                root / 'serverFilesCourse' / 'course' / 'grade.sh')
    return run_grade_sh(root, bin_dir=venv / 'bin')


def test_prairielearn_grades_with_the_counter_the_image_installed(course, prairielearn,
                                                                   tmp_path):
    document, done = prairielearn_grade(course, tmp_path / 'ab', prairielearn, ALPHABETA)
    assert done.returncode == 0, done.stderr
    assert document['gradable'] and document['score'] == 1.0, document['output']
    document, done = prairielearn_grade(course, tmp_path / 'mm', prairielearn, MINIMAX)
    assert document['gradable'] and document['score'] == 0.5, document['output']
    assert '("prunes" holds for neither)' in document['output']


def test_prairielearn_without_the_counter_says_the_autograder_is_broken(course, prairielearn,
                                                                        tmp_path):
    with counter_removed(prairielearn):
        document, done = prairielearn_grade(course, tmp_path, prairielearn, ALPHABETA)
    assert done.returncode == 2
    assert document['gradable'] is False and document['score'] == 0 and not document['tests']
    assert 'not set up correctly' in document['message'], document['message']
    assert 'search counter' in document['message']
    assert done.stderr.count('grader: error:') == 1


def test_the_image_install_without_a_compiler_fails_loudly(tmp_path):
    """No C compiler on the path: the image's install command fails, saying what to
    install, rather than installing a grader that cannot count."""
    source = source_copy(tmp_path / 'search-grader')
    venv = tmp_path / 'venv'
    assert run([sys.executable, '-m', 'venv', '--without-pip', str(venv)]).returncode == 0
    bare = tmp_path / 'bin'          # a PATH without gcc or cc
    bare.mkdir()
    install = image_install_commands(venv, source)[0]
    env = clean_env(PATH=f'{venv}/bin{os.pathsep}{bare}')
    env.pop('CC', None)
    done = run(install, cwd=tmp_path, env=env)
    assert done.returncode != 0
    said = ' '.join((done.stdout + done.stderr).split())    # uv folds long lines
    assert 'the search counter (grader/child/_tally.c) could not be built' in said, said
    assert 'apt-get install gcc python3-dev' in said
    assert not list(venv.glob('lib/python3*/site-packages/grader'))


# -- a wheel -----------------------------------------------------------------------
@pytest.fixture(scope='module')
def wheel_venv(tmp_path_factory):
    """``make wheels``' script for this Python; its wheel pip-installed into a fresh venv
    with no C compiler on the path."""
    folder = tmp_path_factory.mktemp('wheel')
    version = f'{sys.version_info[0]}.{sys.version_info[1]}'
    done = run([str(ROOT / 'scripts' / 'wheels.sh')], cwd=ROOT, env=clean_env(
        WHEELS_OUT=str(folder / 'wheels'), WHEEL_VERSIONS=version,
        TOOLS_PYTHON=sys.executable))
    if 'no Python' in done.stderr:
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stdout + done.stderr
    tag = f'cp{sys.version_info[0]}{sys.version_info[1]}'
    wheels = sorted((folder / 'wheels').glob(f'search_grader-*-{tag}-{tag}-manylinux*.whl'))
    assert len(wheels) == 1, list((folder / 'wheels').iterdir())
    venv = folder / 'venv'
    assert run([sys.executable, '-m', 'venv', str(venv)]).returncode == 0
    bare = folder / 'bin'
    bare.mkdir()
    done = run([str(venv / 'bin' / 'python'), '-m', 'pip', 'install', '--quiet',
                '--only-binary', ':all:', f'{wheels[0]}[sandbox]'],
               env=clean_env(PATH=f'{venv}/bin{os.pathsep}{bare}'))
    assert done.returncode == 0, done.stdout + done.stderr
    return venv


def grade_with(venv, course, folder, *options):
    return run([str(venv / 'bin' / 'grader'), '--config', str(course / 'grading.yaml'), 'grade',
                str(folder), '--assignment', ASSIGNMENT, *options], cwd=folder.parent)


def test_a_wheel_grades_with_its_counter(wheel_venv, course, tmp_path):
    done = run([str(wheel_venv / 'bin' / 'grader'), 'doctor', '--require-counter'],
               cwd=tmp_path)
    assert done.returncode == 0 and 'search counter: C, ' in done.stdout, done.stdout
    assert 'built for CPython ' + '.'.join(map(str, sys.version_info[:2])) in done.stdout
    result = tmp_path / 'ab.json'
    done = grade_with(wheel_venv, course, hand_in(tmp_path / 'ab', ALPHABETA), '--json',
                      str(result))
    assert done.returncode == 0, done.stderr
    data = json.loads(result.read_text())
    assert data['score'] == 5.0 and 'prunes: yes' in done.stdout
    assert {e['name']: e['facts'].get('prunes') for e in data['exercises']
            if e['name'] != 'eightpuzzle'} == {'tictactoe': True, 'connect4': True}
    done = grade_with(wheel_venv, course, hand_in(tmp_path / 'mm', MINIMAX), '--json',
                      str(tmp_path / 'mm.json'))
    assert json.loads((tmp_path / 'mm.json').read_text())['score'] == 2.5


def test_a_cp311_wheel_counts_where_the_python_runs_calls_past_the_hook(wheel_venv, course,
                                                                        tmp_path):
    """CPython 3.11.0-3.11.3 (Debian 12's Python is 3.11.2) run a specialised subscript's
    ``__getitem__`` past a frame-evaluation hook, and the cp311 wheel is built on a later
    3.11: its counter with the hook loads there, spends the function versions that
    specialisation takes, and counts every call by every route
    (tests/test_every_call_seen.py, run there against the wheel), so the wheel grades as on
    any Python."""
    others = bypassing_pythons()
    if sys.version_info[:2] != (3, 11) or not others:
        pytest.skip('needs a Python 3.11.0-3.11.3 beside a cp311 wheel')
    wheel = next(wheel_venv.parent.glob('wheels/search_grader-*-cp311-cp311-*.whl'))
    venv = tmp_path / 'venv'
    assert run([others[0], '-m', 'venv', str(venv)]).returncode == 0
    done = run([str(venv / 'bin' / 'python'), '-m', 'pip', 'install', '--quiet',
                '--only-binary', ':all:', f'{wheel}[sandbox]', 'pytest'])
    assert done.returncode == 0, done.stdout + done.stderr
    doctor = run([str(venv / 'bin' / 'grader'), 'doctor', '--require-counter'], cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stdout
    assert ('search counter: C, frame-evaluation hook (PEP 523), function versions below '
            '0x10000 spent (gh-104405), built for CPython 3.11.') in doctor.stdout
    # the routes, against the wheel's grader (no conftest: nothing puts the checkout first)
    routes = tmp_path / 'routes'
    routes.mkdir()
    shutil.copy(ROOT / 'tests' / 'test_every_call_seen.py', routes)
    done = run([str(venv / 'bin' / 'python'), '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
                str(routes)], cwd=routes)
    assert done.returncode == 0 and ' passed' in done.stdout, done.stdout + done.stderr
    assert 'skipped' not in done.stdout and 'failed' not in done.stdout, done.stdout
    result = tmp_path / 'ab.json'
    done = grade_with(venv, course, hand_in(tmp_path / 'ab', ALPHABETA), '--json', str(result))
    assert done.returncode == 0, done.stderr
    data = json.loads(result.read_text())
    assert data['score'] == 5.0 and 'prunes: yes' in done.stdout
    assert {e['name']: e['facts'].get('prunes') for e in data['exercises']
            if e['name'] != 'eightpuzzle'} == {'tictactoe': True, 'connect4': True}


def test_a_wheel_without_its_counter_refuses_in_one_line(wheel_venv, course, tmp_path):
    result = tmp_path / 'r.json'
    with counter_removed(wheel_venv):
        done = grade_with(wheel_venv, course, hand_in(tmp_path / 'ab', ALPHABETA), '--json',
                          str(result))
        doctor = run([str(wheel_venv / 'bin' / 'grader'), 'doctor', '--require-counter'],
                     cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('grader: error: the search counter')
    assert 'fix:' in lines[0] and not result.exists()
    assert doctor.returncode == 2 and 'search counter: none' in doctor.stdout
