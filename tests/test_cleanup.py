"""Removing a private copy whatever shape its writer gave it (grader/sandbox/cleanup.py)."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from grader.sandbox import cleanup

NOBODY = 65534


def chain(root, depth, name='d'):
    """A chain of ``depth`` nested folders below ``root``, made without long paths."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        with open(os.open('leaf.txt', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), 'w') as f:
            f.write('at the bottom')
    finally:
        os.close(fd)


def test_a_chain_deeper_than_the_recursion_limit_and_pathmax_is_removed(tmp_path):
    root = tmp_path / 'copy'
    root.mkdir()
    depth = max(3000, sys.getrecursionlimit() + 500)
    chain(root, depth, name='n' * 200)      # about 600 kB of path: far beyond PATH_MAX
    if sys.version_info < (3, 12):
        with pytest.raises(RecursionError):  # what the standard removal does on such a tree
            shutil.rmtree(root)
    assert cleanup.remove(root) == []
    assert not root.exists()


def test_links_are_removed_never_followed(tmp_path):
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'keep.txt').write_text('the grader\'s own file')
    root = tmp_path / 'copy'
    (root / 'a').mkdir(parents=True)
    (root / 'a' / 'to-folder').symlink_to(outside)
    (root / 'to-file').symlink_to(outside / 'keep.txt')
    assert cleanup.remove(root) == []
    assert not root.exists() and (outside / 'keep.txt').read_text() == 'the grader\'s own file'


@pytest.fixture
def open_folder():
    """A folder anyone can reach and write (pytest's own are root's alone)."""
    folder = tempfile.mkdtemp(prefix='grader-test-cleanup-')
    os.chmod(folder, 0o777)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def test_folders_without_permissions_and_many_entries_are_removed(open_folder):
    """Run as the tree's owner (not root, who needs no permissions) where possible."""
    root = open_folder / 'copy'
    wide = root / 'wide'
    wide.mkdir(parents=True)
    for i in range(2000):
        (wide / f'sub{i}').mkdir()
        (wide / f'file{i}').write_text('x')
    locked = root / 'locked' / 'inner'
    locked.mkdir(parents=True)
    (locked / 'f').write_text('x')
    os.chmod(locked, 0o500)
    os.chmod(root / 'locked', 0)
    if os.geteuid() == 0:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                os.lchown(os.path.join(folder, name), NOBODY, NOBODY)
        os.lchown(root, NOBODY, NOBODY)
        pid = os.fork()
        if pid == 0:   # the tree's owner, without root's permission to ignore modes
            code = 99
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                code = min(len(cleanup.remove(root)), 90)
            finally:
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    else:
        assert cleanup.remove(root) == []
    assert not root.exists()


def test_a_missing_folder_or_a_plain_file(tmp_path):
    assert cleanup.remove(tmp_path / 'nothing') == []
    (tmp_path / 'file').write_text('x')
    assert cleanup.remove(tmp_path / 'file') == [] and not (tmp_path / 'file').exists()


def test_what_cannot_be_removed_is_said_in_one_line_and_nothing_raises(tmp_path, monkeypatch,
                                                                         capsys):
    root = tmp_path / 'copy'
    root.mkdir()
    chain(root, 10)
    real = os.unlink

    def refuse(name, *args, **kwargs):
        if name == 'leaf.txt':
            raise PermissionError(13, 'Permission denied')
        return real(name, *args, **kwargs)
    monkeypatch.setattr(os, 'unlink', refuse)
    assert not cleanup.remove_and_report(root)
    line = capsys.readouterr().err
    assert line.count('\n') == 1 and 'Permission denied' in line and 'leaf.txt' in line
    assert str(root) in line and '(and ' in line        # and the folders above it
    monkeypatch.undo()
    assert cleanup.remove(root) == []


DEEP = '''
import os

def deep():
    for _ in range(1500):
        os.mkdir('d' * 100)
        os.chdir('d' * 100)
    return 1500
'''


def test_a_submission_that_leaves_a_deep_chain_in_its_copy_is_cleaned_up(tmp_path, capsys):
    from grader.sandbox.session import Session
    folder = tmp_path / 'sub'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text(DEEP)
    with Session(folder, 'tictactoe.py', 'grader.child.selftest') as box:
        assert box.start().ok
        reply = box.call({'function': 'deep'}, 5)
        workdir = box.workdir
    assert reply.ok, reply.error
    assert reply.observation['value']['value'] == 1500
    assert not workdir.exists()
    assert 'could not remove' not in capsys.readouterr().err
