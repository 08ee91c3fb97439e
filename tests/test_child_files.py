"""The submission's files on their way into the sandbox (grader/child/files.py): read with
builtins, every name a plain relative path, nothing written through a link, and the same
files in the sandbox as in the hand-in."""
import os

import pytest

from grader.child import channel, files
from grader.sandbox import bundle, layers
from grader.sandbox.session import Session

WEIRD = os.fsdecode(b'caf\xe9-latin1.txt')
"""A file name that is not UTF-8 (a hand-in made on an older system)."""


def test_the_block_holds_the_files_as_they_are(tmp_path):
    entries = [('tictactoe.py', b'X = 1\n'), ('data/deep/table.bin', os.urandom(70000)),
               ('data/empty', b''), (WEIRD, b'latin-1 name\n')]
    block = files.pack(entries)
    assert [(os.fsdecode(name), bytes(data)) for name, data in files.entries(block)] == entries
    files.write_into(block, str(tmp_path), channel.write_all)
    for name, data in entries:
        assert (tmp_path / name).read_bytes() == data


@pytest.mark.parametrize('name', ['/etc/passwd', '../outside', 'data/../../outside', 'a//b',
                                  './a', 'a/.', '', 'a\0b'])
def test_a_name_that_is_not_a_plain_relative_path_is_refused(tmp_path, name):
    block = files.pack([('fine.py', b'1'), (name, b'2')])
    with pytest.raises(files.Unreadable):
        files.write_into(block, str(tmp_path / 'in'), channel.write_all)
    assert not (tmp_path / 'outside').exists()


def test_a_block_cut_short_anywhere_is_refused(tmp_path):
    block = files.pack([('a.py', b'12345'), ('b/c.py', b'678')])
    for end in range(1, len(block)):
        if end == len(files.pack([('a.py', b'12345')])):
            continue        # a whole first file: a block of one file
        with pytest.raises(files.Unreadable):
            list(files.entries(block[:end]))


def test_nothing_is_written_through_a_link(tmp_path):
    (tmp_path / 'in').mkdir()
    (tmp_path / 'target').write_text('kept')
    (tmp_path / 'in' / 'x.py').symlink_to(tmp_path / 'target')
    with pytest.raises(OSError):
        files.write_into(files.pack([('x.py', b'overwritten')]), str(tmp_path / 'in'),
                         channel.write_all)
    assert (tmp_path / 'target').read_text() == 'kept'


def test_the_sandbox_sees_the_hand_ins_files(tmp_path):
    """Folders, an empty file and a name that is not UTF-8 reach the project folder; the
    submission's size limit still holds."""
    folder = tmp_path / 'hand-in'
    (folder / 'data').mkdir(parents=True)
    (folder / 'data' / 'empty').write_bytes(b'')
    with open(os.path.join(os.fsencode(folder), os.fsencode(WEIRD)), 'wb') as f:
        f.write(b'x')
    (folder / 'tictactoe.py').write_text(
        'import os\n\ndef listed():\n'
        f'    names = (b"tictactoe.py", b"data/empty", {os.fsencode(WEIRD)!r})\n'
        '    return " ".join(str(os.path.getsize(name)) for name in names)\n')
    with Session(folder, 'tictactoe.py', 'grader.child.selftest',
                 isolation=layers.detect()) as box:
        assert box.start().ok
        reply = box.call({'function': 'listed'}, 5)
    assert reply.ok, (reply.status, reply.error)
    sizes = (folder / 'tictactoe.py').stat().st_size, 0, 1
    assert reply.observation['value']['repr'] == repr(' '.join(map(str, sizes)))
    with pytest.raises(OSError, match='larger than'):
        bundle.submission_archive(folder, 10)
