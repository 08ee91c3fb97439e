"""What the child's quicker start keeps the same for student code.

- Python runs without the site module (``-S``), yet ``exit()`` and
  ``quit()`` still raise SystemExit; the sandbox offers the standard library
  and nothing of the grader (no judge, no calibration workload, none of its
  third-party packages);
- the child leaves at once when asked to exit, so nothing the student
  registered (``atexit``) runs after grading;
- a probe imports neither :mod:`inspect` nor :mod:`pkgutil` (each costs every
  child milliseconds), and the code flags spelt out in place of
  :mod:`inspect`'s are its values.
"""
import os
import subprocess
import sys
import textwrap

import pytest

from grader.sandbox import bundle, launch, layers
from grader.sandbox.session import Session
from gradertest import ROOT

ISOLATION = layers.detect()
LEVELS = {'strong': ISOLATION,
          'standard': layers.weaker(ISOLATION, ['namespaces', 'seccomp', 'cgroup', 'uid-drop'])}


def started(tmp_path, isolation, source):
    folder = tmp_path / 'sub'
    folder.mkdir(exist_ok=True)
    (folder / 'tictactoe.py').write_text(textwrap.dedent(source))
    box = Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=isolation)
    loaded = box.start()
    assert loaded.ok, loaded.error
    return box, loaded


def value(reply):
    assert reply.ok, (reply.status, reply.error)
    return reply.observation['value']['value']


@pytest.mark.parametrize('level', LEVELS)
@pytest.mark.parametrize('call', ['exit()', 'quit()', 'exit(3)'])
def test_exit_and_quit_at_import_still_raise_system_exit(tmp_path, level, call):
    source = f'def answer():\n    return 42\n\n{call}\n\ndef later():\n    return 1\n'
    box, loaded = started(tmp_path, LEVELS[level], source)
    with box:
        assert 'sys.exit()' in ' '.join(loaded.observation['warnings'])
        assert value(box.call({'function': 'answer'}, 5)) == 42
        assert not box.call({'function': 'later'}, 5).ok   # defined after the exit: never


@pytest.mark.parametrize('level', LEVELS)
def test_only_the_standard_library_and_the_child_package_are_importable(tmp_path, level):
    """Nothing of the grader beyond the child archive, no third-party package: and once a
    case process is sealed, not even the archive's modules not yet imported (their .pyc
    files are byte-code the counter lets no one unmarshal then)."""
    source = """
        import importlib, sys
        def packages():
            found = []
            for name in ('grader.calibrate', 'grader.exercises.tictactoe.judge', 'grader.engine',
                         'reference', 'yaml', 'heapq'):
                try:
                    importlib.import_module(name)
                    found.append(name)
                except (ImportError, PermissionError):   # absent, or byte-code refused
                    pass
            return [','.join(found), sys.flags.no_site, 'site' in sys.modules]
    """
    box, _ = started(tmp_path, LEVELS[level], source)
    with box:
        reply = box.call({'function': 'packages'}, 5)
        assert reply.ok, reply.error
        assert [item.get('value', item.get('repr')) for item in reply.observation['value']] == \
            ["'heapq'", 1, False]


def test_the_child_runs_the_base_interpreter_from_the_child_archive():
    assert os.path.realpath(launch.interpreter()) == os.path.realpath(sys.executable)
    assert '-S' in launch.python_flags()
    names = set(bundle.members())
    assert 'grader/child/runner.pyc' in names and 'grader/exercises/tictactoe/probe.pyc' in names
    assert not any('judge' in n or 'calibrate' in n or 'engine' in n for n in names), names


def test_the_probes_helpers_are_kept_per_content_of_the_probe(tmp_path, monkeypatch):
    """What a probe imports of its package is read off its syntax tree once per content
    (grader.doccache): a probe that starts importing another module is seen at once, and
    the cache off gives the same members."""
    folder = tmp_path / 'demo'
    folder.mkdir()
    for name in ('__init__', 'rules', 'board'):
        (folder / f'{name}.py').write_text('')
    probe = folder / 'probe.py'
    probe.write_text('from grader.exercises.demo import rules\n')
    assert bundle._probe_helpers(folder, 'demo') == ['rules']
    parse = bundle._imported_helpers
    monkeypatch.setattr(bundle, '_imported_helpers', None)      # not parsed again:
    assert bundle._probe_helpers(folder, 'demo') == ['rules']      # from the cache
    monkeypatch.setattr(bundle, '_imported_helpers', parse)
    probe.write_text('from grader.exercises.demo import rules\n'
                     'from grader.exercises.demo.board import Board\n')
    assert bundle._probe_helpers(folder, 'demo') == ['board', 'rules']
    (folder / 'board.py').unlink()          # a module named that is not there: not a member
    assert bundle._probe_helpers(folder, 'demo') == ['rules']
    kept = bundle.members()
    monkeypatch.setenv('GRADER_CACHE_DIR', '')
    assert bundle.members() == kept


@pytest.mark.parametrize('level', LEVELS)
def test_nothing_registered_with_atexit_runs_after_grading(tmp_path, level):
    source = '''
        import atexit, os
        atexit.register(lambda: os.write(1, b'ATEXIT-RAN'))
        def answer():
            os.write(1, b'CALLED')
            return 42
    '''
    box, _ = started(tmp_path, LEVELS[level], source)
    with box:
        assert value(box.call({'function': 'answer'}, 5)) == 42
        box.request_exit()
    assert 'CALLED' in box.output()       # the real stdout is read to its end...
    assert 'ATEXIT-RAN' not in box.output()   # ...and the handler never ran


def test_probes_import_neither_inspect_nor_pkgutil():
    code = ('import sys; sys.path.insert(0, sys.argv[1]); '
            'import grader.child.runner, grader.child.case, grader.child.layers; '
            'import grader.exercises.tictactoe.probe, grader.exercises.connect4.probe, '
            'grader.exercises.eightpuzzle.probe, grader.exercises.travel.probe; '
            'print(sorted({"inspect", "pkgutil", "typing"} & set(sys.modules)))')
    done = subprocess.run([sys.executable, *launch.python_flags(), '-c', code, str(ROOT)],
                          capture_output=True, text=True, timeout=60,
                          env={'PATH': os.environ.get('PATH', '')})
    assert done.stdout.strip() == '[]', done.stderr


@pytest.mark.parametrize('level', LEVELS)
def test_system_libraries_load_after_the_uid_drop(tmp_path, level):
    """An extension module that links a system library (zlib) imports in student code."""
    source = '''
        def compressed():
            import zlib
            return len(zlib.compress(b'x' * 1000)) < 100
    '''
    box, _ = started(tmp_path, LEVELS[level], source)
    with box:
        assert value(box.call({'function': 'compressed'}, 5)) is True
