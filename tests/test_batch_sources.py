"""Input layouts: folders, Moodle downloads, zips of zips, git repositories; identities."""
import shutil
import subprocess
import zipfile

import pytest

from grader.batch import identity, sources
from grader.batch.archives import Limits
from test_batch_archives import make_zip

CODE = b'def Minimax(board, maximizing, player):\n    return 0\n'


def keyed(entries):
    return {e.identity.key: e for e in entries}


def test_a_folder_of_folders_and_zips(tmp_path):
    (tmp_path / 'alice').mkdir()
    (tmp_path / 'alice' / 'tictactoe.py').write_bytes(CODE)
    (tmp_path / 'bob.zip').write_bytes(make_zip({'bob/src/tictactoe.py': CODE}))
    (tmp_path / 'carol.zip').write_bytes(b'not a zip at all')
    (tmp_path / 'README.txt').write_text('grading notes')
    (tmp_path / '.DS_Store').write_bytes(b'')
    entries = keyed(sources.scan(tmp_path, Limits()))
    assert set(entries) == {'alice', 'bob', 'carol', 'README.txt'}
    assert entries['alice'].files == {'tictactoe.py': CODE}
    assert entries['bob'].files == {'src/tictactoe.py': CODE}
    assert 'not a readable zip' in entries['carol'].problem
    assert 'neither a submission folder' in entries['README.txt'].problem


def test_moodle_download_with_folders(tmp_path):
    archive = tmp_path / 'download.zip'
    with zipfile.ZipFile(archive, 'w') as out:
        out.writestr('Aino Virtanen_101_assignsubmission_file_/tictactoe.py', CODE)
        out.writestr('Aino Virtanen_101_assignsubmission_onlinetext_/onlinetext.html', b'<p>hi</p>')
        out.writestr('Bo Li_102_assignsubmission_file_/submission.zip',
                     make_zip({'project/tictactoe.py': CODE}))
        out.writestr('Cy Twombly_103_assignsubmission_file_/submission.zip', b'broken')
    entries = keyed(sources.scan(archive, Limits()))
    assert set(entries) == {'101', '102', '103'}
    aino = entries['101']
    assert (aino.identity.name, aino.identity.participant) == ('Aino Virtanen', '101')
    assert aino.files == {'tictactoe.py': CODE, 'onlinetext.html': b'<p>hi</p>'}
    assert entries['102'].files == {'tictactoe.py': CODE}
    assert 'submission.zip: not a readable zip' in entries['103'].problem


def test_moodle_download_without_folders(tmp_path):
    (tmp_path / 'Aino Virtanen_101_assignsubmission_file_tictactoe.py').write_bytes(CODE)
    (tmp_path / 'Aino Virtanen_101_assignsubmission_file_connect4.py').write_bytes(b'x = 4\n')
    entries = keyed(sources.scan(tmp_path, Limits()))
    assert entries['101'].files == {'tictactoe.py': CODE, 'connect4.py': b'x = 4\n'}


def test_a_zip_of_zips_wrapped_in_a_folder(tmp_path):
    archive = tmp_path / 'class.zip'
    with zipfile.ZipFile(archive, 'w') as out:
        out.writestr('course export/alice.zip', make_zip({'tictactoe.py': CODE}))
        out.writestr('course export/bob/tictactoe.py', CODE)
    entries = keyed(sources.scan(archive, Limits()))
    assert set(entries) == {'alice', 'bob'}
    assert entries['alice'].files == {'tictactoe.py': CODE}


def test_a_traversing_entry_of_a_class_archive_is_listed_and_the_class_graded(tmp_path):
    archive = tmp_path / 'class.zip'
    archive.write_bytes(make_zip({'alice/tictactoe.py': CODE, '../../etc/cron.d/x': b'boom'}))
    entries = sources.scan(archive, Limits())
    alice = next(e for e in entries if e.identity.key == 'alice')
    assert alice.files == {'tictactoe.py': CODE} and not alice.problem
    [stray] = [e for e in entries if e is not alice]
    assert 'entry outside the archive, refused' in stray.problem
    assert '../../etc/cron.d/x' in stray.problem


def test_a_second_submission_for_the_same_key_is_listed_not_dropped(tmp_path):
    (tmp_path / 'alice').mkdir()
    (tmp_path / 'alice' / 'tictactoe.py').write_bytes(CODE)
    (tmp_path / 'alice.zip').write_bytes(make_zip({'tictactoe.py': CODE}))
    entries = keyed(sources.scan(tmp_path, Limits()))
    assert entries['alice'].files and 'a second submission for alice' in entries['alice-2'].problem


def test_worksheet_and_roster_complete_identities(tmp_path):
    (tmp_path / 'Aino Virtanen_101_assignsubmission_file_').mkdir()
    (tmp_path / 'Aino Virtanen_101_assignsubmission_file_' / 'tictactoe.py').write_bytes(CODE)
    sheet = tmp_path.parent / 'worksheet.csv'
    sheet.write_text('\ufeffIdentifier,Full name,Email address,Status,Grade,Maximum Grade,'
                     'Last modified (submission)\n'
                     'Participant 101,Aino Virtanen,aino@example.org,Submitted,,100,'
                     '"Monday, 5 February 2024, 11:59 PM"\n', encoding='utf-8')
    [entry] = sources.scan(tmp_path, Limits(), worksheet=identity.moodle_worksheet(sheet))
    assert entry.identity.email == 'aino@example.org'
    assert entry.identity.submitted_at == '2024-02-05T23:59:00'
    roster = tmp_path.parent / 'roster.csv'
    roster.write_text('student_id,name,submitted_at\n101,Aino V.,2024-02-06T10:00:00+02:00\n')
    [entry] = sources.scan(tmp_path, Limits(), students=identity.roster(roster))
    assert (entry.identity.name, entry.identity.submitted_at) == \
        ('Aino V.', '2024-02-06T10:00:00+02:00')


def test_classroom_prefix_is_removed():
    assert identity.classroom_users(['tictactoe-alice', 'tictactoe-bob-2']) == ['alice', 'bob-2']
    assert identity.classroom_users(['alice']) == ['alice']
    assert identity.classroom_users(['hw1-alice', 'hw1-alicia']) == ['alice', 'alicia']


def git(*args, cwd=None):
    env = {'GIT_AUTHOR_NAME': 'Student', 'GIT_AUTHOR_EMAIL': 's@example.org',
           'GIT_COMMITTER_NAME': 'Student', 'GIT_COMMITTER_EMAIL': 's@example.org',
           'GIT_AUTHOR_DATE': '2024-02-05T12:00:00+02:00',
           'GIT_COMMITTER_DATE': '2024-02-05T12:00:00+02:00', 'HOME': str(cwd or '/'),
           'PATH': '/usr/bin:/bin'}
    subprocess.run(['git', *args], cwd=cwd, env=env, check=True, capture_output=True)


def bare_repo(tmp_path, name, files):
    """A bare repository holding one commit of ``files`` (as GitHub would)."""
    work = tmp_path / 'work' / name
    work.mkdir(parents=True)
    for relative, data in files.items():
        (work / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / relative).write_bytes(data)
    git('init', '-q', '-b', 'main', cwd=work)
    git('add', '-A', cwd=work)
    git('commit', '-q', '-m', 'submission', cwd=work)
    bare = tmp_path / 'remote' / f'{name}.git'
    bare.parent.mkdir(exist_ok=True)
    git('clone', '-q', '--bare', str(work), str(bare))
    shutil.rmtree(work)
    return bare


@pytest.mark.skipif(shutil.which('git') is None, reason='git not installed')
def test_git_repositories_from_a_list(tmp_path):
    bare_repo(tmp_path, 'tictactoe-alice', {'tictactoe.py': CODE})
    bare_repo(tmp_path, 'tictactoe-bob', {'src/tictactoe.py': CODE})
    git('init', '-q', '--bare', str(tmp_path / 'remote' / 'tictactoe-carol.git'))
    (tmp_path / 'repos.txt').write_text('# class\n'
                                        'remote/tictactoe-alice.git\n'
                                        'remote/tictactoe-bob.git 012345 "Bob Builder"\n'
                                        'remote/tictactoe-carol.git\n')
    entries = keyed(sources.scan(tmp_path / 'repos.txt', Limits(), clones=tmp_path / 'clones'))
    assert set(entries) == {'alice', '012345', 'carol'}
    alice = entries['alice']
    assert alice.files == {'tictactoe.py': CODE}
    assert alice.identity.submitted_at == '2024-02-05T12:00:00+02:00'
    assert '@' in alice.identity.origin
    assert entries['012345'].identity.name == 'Bob Builder'
    assert entries['012345'].files == {'src/tictactoe.py': CODE}
    assert entries['carol'].problem        # an empty repository: listed with the reason
