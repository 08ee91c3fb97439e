"""What keeps a case process cheap keeps the sandbox what it was (issue 42, item 1).

The runner loads neither ``zipfile`` nor ``shutil`` nor ``threading`` (each case process
would copy their pages and run ``threading``'s after-fork hook): the submission's files
come as one block read with builtins (tests/test_child_files.py), the project is copied
back by :func:`runner.copy_tree`, and a submission that imports those modules still has
them.  The parent keeps the cgroup's CPU file open and reads it afresh each time.
"""
import ast
import os
import shutil
import stat
import textwrap
import time

import pytest

from grader.child import runner
from grader.sandbox import layers
from grader.sandbox.session import Session


def _tree(root):
    """``{relative path: (kind, mode, mtime_ns, content or link)}`` of a tree."""
    found = {}
    for top, folders, files in os.walk(root):
        for name in folders + files:
            path = os.path.join(top, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found[os.path.relpath(path, root)] = ('link', os.readlink(path))
                continue
            body = open(path, 'rb').read() if stat.S_ISREG(info.st_mode) else None
            found[os.path.relpath(path, root)] = (stat.S_IFMT(info.st_mode),
                                                 stat.S_IMODE(info.st_mode), info.st_mtime_ns,
                                                 body)
    return found


def test_copy_tree_copies_as_shutil_copytree_does(tmp_path):
    source = tmp_path / 'pristine'
    (source / 'data' / 'deep').mkdir(parents=True)
    (source / 'tictactoe.py').write_text('X = 1\n')
    (source / 'data' / 'deep' / 'table.bin').write_bytes(os.urandom(3 << 20))   # past a chunk
    (source / 'data' / 'empty').write_bytes(b'')
    os.chmod(source / 'data' / 'empty', 0o600)
    (source / 'link').symlink_to('tictactoe.py')
    for number, path in enumerate(sorted(source.rglob('*'))):
        if not path.is_symlink():
            os.utime(path, ns=(10**18 + number, 10**18 + 7 * number))
    os.utime(source / 'data', ns=(10**18, 10**18 + 5))
    runner.copy_tree(str(source), str(tmp_path / 'mine'))
    shutil.copytree(source, tmp_path / 'theirs', symlinks=True)
    assert _tree(tmp_path / 'mine') == _tree(tmp_path / 'theirs')
    assert _tree(tmp_path / 'mine')['data'][2] == 10**18 + 5


MODULES = '''
import sys

def loaded():
    return ' '.join(sorted(name for name in ('threading', 'zipfile', 'shutil', 'pathlib', 'bz2')
                           if name in sys.modules))
'''


def _session(tmp_path, text, name='s'):
    folder = tmp_path / name
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(textwrap.dedent(text))
    return Session(folder, 'tictactoe.py', 'grader.child.selftest', isolation=layers.detect())


def _loaded(reply):
    """The names ``loaded`` returned."""
    assert reply.ok, (reply.status, reply.error)
    return ast.literal_eval(reply.observation['value']['repr']).split()


def test_the_runner_loads_no_zipfile_shutil_or_threading(tmp_path):
    with _session(tmp_path, MODULES) as box:
        loaded = box.start()
        assert loaded.ok and not loaded.observation['warnings']
        assert _loaded(box.call({'function': 'loaded'}, 5)) == []


@pytest.mark.parametrize('imports', ['import zipfile, pathlib, shutil, threading',
                                     'import importlib.resources',
                                     'from pathlib import Path'])
def test_a_submission_that_imports_them_still_has_them(tmp_path, imports):
    with _session(tmp_path, imports + '\n' + MODULES) as box:
        loaded = box.start()
        assert loaded.ok and not loaded.observation['warnings'], loaded.observation
        assert 'pathlib' in _loaded(box.call({'function': 'loaded'}, 5))


BURN = '''
import time

def burn():
    began = time.thread_time()
    while time.thread_time() - began < 0.05:
        pass
    return 1
'''


def test_the_sandbox_clock_read_through_an_open_file_moves(tmp_path):
    with _session(tmp_path, BURN) as box:
        assert box.start().ok
        if box.clock is None or box.clock.source != 'cgroup':
            pytest.skip('no cgroup CPU clock here')
        before = box.clock.read()
        reply = box.call({'function': 'burn'}, 5)
        assert reply.ok and reply.sandbox_cpu >= 0.05
        assert box.clock.read() - before >= 0.05
        time.sleep(0.01)
    assert box.clock is None or box.clock._fd is None
