"""Reading submissions safely: traversal, absolute paths, links, zip bombs, layouts."""
import io
import os
import stat
import zipfile

import pytest

from grader.batch import archives
from grader.batch.archives import Limits, Refused


def make_zip(entries, links=()):
    """A zip from ``{name: bytes}``; ``links`` maps names to symlink targets."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        for name, target in dict(links).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


@pytest.mark.parametrize('name', ['../evil.py', 'a/../../evil.py', '/etc/evil.py',
                                  'C:/evil.py', '..\\evil.py'])
def test_an_entry_outside_the_archive_refuses_it(name):
    blob = make_zip({'tictactoe.py': b'x = 1\n', name: b'boom'})
    with pytest.raises(Refused, match='outside the archive|absolute path'):
        archives.read_zip(blob, Limits())


def test_symbolic_links_are_skipped_never_followed(tmp_path):
    blob = make_zip({'tictactoe.py': b'x = 1\n'}, links={'secret.py': '/etc/passwd'})
    assert archives.read_zip(blob, Limits()) == {'tictactoe.py': b'x = 1\n'}
    folder = tmp_path / 'student'
    folder.mkdir()
    (folder / 'tictactoe.py').write_text('x = 1\n')
    os.symlink('/etc/passwd', folder / 'passwd.py')
    os.symlink(tmp_path, folder / 'loop')
    assert archives.read_folder(folder, Limits()) == {'tictactoe.py': b'x = 1\n'}


def test_a_zip_bomb_is_refused_on_inflated_bytes():
    blob = make_zip({'tictactoe.py': b'x = 1\n', 'bomb.bin': b'\0' * (3 * 1024 * 1024)})
    assert len(blob) < 64 * 1024
    with pytest.raises(Refused, match='larger than 1 MB'):
        archives.read_zip(blob, Limits(max_bytes=1024 * 1024))


def test_a_lying_size_header_does_not_get_past_the_cap():
    blob = bytearray(make_zip({'big.bin': b'\0' * 200_000}))
    # Patch the central directory's uncompressed size of the entry to 10 bytes.
    at = blob.rfind(b'PK\x01\x02')
    blob[at + 24:at + 28] = (10).to_bytes(4, 'little')
    with pytest.raises(Refused):
        archives.read_zip(bytes(blob), Limits(max_bytes=100_000))


def test_too_many_files_are_refused():
    blob = make_zip({f'f{i}.py': b'' for i in range(30)})
    with pytest.raises(Refused, match='more than 20 files'):
        archives.read_zip(blob, Limits(max_files=20))


def test_unreadable_and_encrypted_archives_are_refused_with_a_reason():
    with pytest.raises(Refused, match='not a readable zip'):
        archives.read_zip(b'this is not a zip', Limits())
    blob = bytearray(make_zip({'tictactoe.py': b'x = 1\n'}))
    blob[6] |= 0x1                     # the local header's "encrypted" flag
    at = blob.rfind(b'PK\x01\x02')
    blob[at + 8] |= 0x1                # and the central directory's
    with pytest.raises(Refused):
        archives.read_zip(bytes(blob), Limits())


def test_clutter_is_left_out_so_the_hash_is_stable():
    clean = {'tictactoe.py': b'x = 1\n'}
    cluttered = dict(clean, **{'__MACOSX/._tictactoe.py': b'junk', '.DS_Store': b'junk',
                               '__pycache__/tictactoe.cpython-311.pyc': b'junk'})
    assert archives.read_zip(make_zip(cluttered), Limits()) == clean
    assert archives.content_hash(archives.read_zip(make_zip(cluttered), Limits())) == \
        archives.content_hash(clean)


def test_uploaded_zips_are_unpacked_and_wrappers_dropped():
    inner = make_zip({'project/tictactoe.py': b'x = 1\n', 'project/notes.txt': b'hi'})
    assert archives.normalise({'submission.zip': inner}, Limits()) == \
        {'tictactoe.py': b'x = 1\n', 'notes.txt': b'hi'}
    # src/ is a layout, not a wrapper
    assert archives.normalise({'src/citymap.py': b'x'}, Limits()) == {'src/citymap.py': b'x'}
    # a zip inside a zip inside the upload stays a file (depth limit)
    deeper = make_zip({'inner.zip': make_zip({'a.py': b'1'}), 'tictactoe.py': b'2'})
    assert set(archives.normalise({'up.zip': deeper}, Limits())) == {'inner.zip', 'tictactoe.py'}


def test_a_broken_uploaded_zip_names_itself():
    with pytest.raises(Refused, match='submission.zip: not a readable zip'):
        archives.normalise({'submission.zip': b'garbage'}, Limits())


def test_pack_is_deterministic_and_round_trips(tmp_path):
    files = {'b.py': b'2', 'a/c.py': b'3', 'tictactoe.py': b'1'}
    assert archives.pack(files) == archives.pack(dict(reversed(list(files.items()))))
    folder = archives.unpack(archives.pack(files), tmp_path / 'out')
    assert archives.read_folder(folder, Limits()) == files
    assert archives.content_hash(files) != archives.content_hash(dict(files, **{'b.py': b'4'}))
