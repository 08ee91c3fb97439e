"""Every hand-in is accounted for: each participant of a class is graded or listed with why.

Real-shaped sources built here: a Moodle "Download all submissions" zip and
the same class unpacked into a folder, with participants whose hand-in is
nothing but symbolic links (entries of the archive, files of a folder, or
the participant's folder itself), one whose folder holds an entry pointing
outside the archive, one with an empty folder, and an entry outside the
archive that belongs to nobody.  Each participant is in grades.csv, and each
one not graded is in problems.csv with the reason; a bad entry touches only
its own participant, and no link is ever followed.
"""
import io
import os
import stat
import zipfile

import pytest

from grader.batch import exports, sources
from grader.batch.archives import Limits
from grader.batch.cli import main as batch_main
from gradertest import ROOT
from test_batch_run import variant

CODE = variant('alphabeta_nested')
SECRET = b'# a file no submission may read\n'
FILE = '_assignsubmission_file_'
ONLINE = '_assignsubmission_onlinetext_'


def link(archive, name, target):
    """A symbolic-link entry, as zip -y (Info-ZIP) writes one."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, target)


def folder_entry(archive, name):
    info = zipfile.ZipInfo(name.rstrip('/') + '/')
    info.external_attr = (stat.S_IFDIR | 0o755) << 16 | 0x10
    archive.writestr(info, b'')


def moodle_zip(path, outside):
    """A Moodle download: the participants described in the module docstring."""
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as out:
        out.writestr(f'Aino Virtanen_101{FILE}/tictactoe.py', CODE)
        link(out, f'Bo Li_102{FILE}/tictactoe.py', str(outside / 'tictactoe.py'))
        link(out, f'Bo Li_102{FILE}/src', str(outside))
        out.writestr(f'Cy Twombly_103{FILE}/tictactoe.py', CODE)
        out.writestr(f'Cy Twombly_103{FILE}/../../../tmp/evil.py', b'boom')
        link(out, f'Di Ng_104{FILE}tictactoe.py', str(outside / 'tictactoe.py'))
        folder_entry(out, f'Ed Wood_105{FILE}')
        out.writestr(f'Fay Ray_106{FILE}/tictactoe.py', CODE)
        link(out, f'Fay Ray_106{ONLINE}/onlinetext.html', '/etc/hostname')
        out.writestr('../../outside.py', b'boom')
    return path


def moodle_folder(root, outside):
    """The same kind of class, unpacked: a folder per participant, some of them links."""
    root.mkdir()
    (root / f'Aino Virtanen_101{FILE}').mkdir()
    (root / f'Aino Virtanen_101{FILE}' / 'tictactoe.py').write_bytes(CODE)
    os.symlink(outside, root / f'Bo Li_102{FILE}')                  # the folder is a link
    (root / f'Cy Twombly_103{FILE}').mkdir()
    os.symlink(outside / 'tictactoe.py', root / f'Cy Twombly_103{FILE}' / 'tictactoe.py')
    os.symlink(outside, root / f'Cy Twombly_103{FILE}' / 'src')
    os.symlink(outside / 'tictactoe.py', root / f'Di Ng_104{FILE}tictactoe.py')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as upload:
        link(upload, 'tictactoe.py', str(outside / 'tictactoe.py'))
    (root / f'Ed Wood_105{FILE}').mkdir()
    (root / f'Ed Wood_105{FILE}' / 'upload.zip').write_bytes(buffer.getvalue())
    return root


@pytest.fixture
def outside(tmp_path):
    """A folder no submission may read: a link into it must never be followed."""
    folder = tmp_path / 'outside'
    folder.mkdir()
    (folder / 'tictactoe.py').write_bytes(SECRET)
    return folder


def by_participant(entries):
    found = {}
    for entry in entries:
        assert entry.identity.key not in found, entry.identity.key
        found[entry.identity.participant or entry.identity.key] = entry
    return found


def test_a_moodle_archive_accounts_for_every_participant(tmp_path, outside):
    entries = by_participant(sources.scan(moodle_zip(tmp_path / 'download.zip', outside),
                                          Limits()))
    assert entries['101'].files == {'tictactoe.py': CODE}
    assert entries['102'].problem.startswith('only links, skipped'), entries['102'].problem
    assert 'entry outside the archive, refused' in entries['103'].problem
    assert '../../../tmp/evil.py' in entries['103'].problem
    assert entries['104'].problem.startswith('only links, skipped')
    assert entries['105'].problem == 'the submission holds no files'
    assert entries['106'].files == {'tictactoe.py': CODE} and not entries['106'].problem
    [loose] = [e for k, e in entries.items() if not e.identity.participant]
    assert "'../../outside.py'" in loose.problem and 'outside the archive' in loose.problem
    assert set(entries) == {'101', '102', '103', '104', '105', '106', loose.identity.key}
    for entry in entries.values():
        assert SECRET not in b''.join((entry.files or {}).values())


def test_an_unpacked_class_accounts_for_every_participant_and_follows_no_link(tmp_path, outside):
    entries = by_participant(sources.scan(moodle_folder(tmp_path / 'class', outside), Limits()))
    assert set(entries) == {'101', '102', '103', '104', '105'}
    assert entries['101'].files == {'tictactoe.py': CODE}
    for participant in ('102', '103', '104', '105'):
        problem = entries[participant].problem
        assert 'only links, skipped' in problem and entries[participant].files is None, problem
    assert 'is a symbolic link' in entries['102'].problem
    assert 'nothing but symbolic links (src, tictactoe.py)' in entries['103'].problem


def test_the_class_check_refuses_no_archive_for_one_bad_entry(tmp_path, outside):
    archive = moodle_zip(tmp_path / 'download.zip', outside)
    assert sources.check(archive) == 'zip'
    damaged = tmp_path / 'damaged.zip'
    damaged.write_bytes(archive.read_bytes()[:-40])
    with pytest.raises(Exception, match='not a readable zip'):
        sources.check(damaged)


@pytest.mark.parametrize('layout', ['zip', 'folder'])
def test_every_participant_is_in_grades_csv_and_every_ungraded_one_says_why(
        tmp_path, outside, layout, capsys):
    source = (moodle_zip(tmp_path / 'download.zip', outside) if layout == 'zip'
              else moodle_folder(tmp_path / 'class', outside))
    out = tmp_path / 'out'
    argv = ['--config', str(ROOT / 'grading.yaml'), 'batch', str(source), '--out', str(out),
            '--workers', '1', '--no-progress']
    assert batch_main(argv) == 0, capsys.readouterr().err
    grades = {row['student_id']: row for row in exports.read_grades(out / 'grades.csv')}
    _, problems = exports.csvfile.read(out / 'problems.csv')
    problems = {row['student_id']: row for row in problems}
    expected = {'101', '102', '103', '104', '105'} | ({'106'} if layout == 'zip' else set())
    assert expected <= set(grades)
    graded = {'101', '106'} & expected
    for participant in expected:
        row = grades[participant]
        if participant in graded:
            assert row['status'] == 'graded' and row['score'] is not None, row
            assert participant not in problems
        else:
            assert row['status'] == 'ungradable' and row['score'] is None, row
            reason = problems[participant]['reason']
            assert reason == row['reason'] and ('only links, skipped' in reason or
                                                'entry outside the archive, refused' in reason
                                                or 'holds no files' in reason), reason
    if layout == 'zip':
        assert 'entry outside the archive, refused' in problems['103']['reason']
        assert any('../../outside.py' in row['reason'] for row in problems.values())
        assert len(grades) == len(expected) + 1            # the loose entry, listed
    else:
        assert len(grades) == len(expected)
    feedback = (out / 'feedback' / '102.md').read_text()
    assert 'only links, skipped' in feedback
