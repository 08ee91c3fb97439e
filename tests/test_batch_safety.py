"""Nothing of an earlier run is lost, and every user error is one line, exit 2.

A small class is graded once; then a broken fixture, a broken grading.yaml
and a gradebook cut short while written must each stop `grader batch` and
`grader regrade` before anything is graded or written: exit 2, one line
naming the file (and line), and every file in --out byte for byte as it was.
Bad sources (a typo, a damaged zip, an empty class) and an --out that is a
file are refused the same way, without leaving a folder behind.
"""
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from grader.batch import archives, bundle
from grader.batch.cli import main as batch_main
from gradertest import ROOT
from test_batch_run import variant


def run_cli(*args, config=None):
    argv = ['--config', str(config or ROOT / 'grading.yaml'), *map(str, args)]
    return batch_main(argv)


def snapshot(folder):
    """Every file below ``folder`` with its bytes (the WAL files aside: SQLite's own)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob('*'))
            if p.is_file() and not p.name.endswith(('-wal', '-shm'))}


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    folder = tmp_path_factory.mktemp('course')
    blob, _ = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    return folder


@pytest.fixture(scope='module')
def graded(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp('class')
    source = folder / 'class'
    for name, code in (('alice', 'alphabeta_nested'), ('bob', 'bug_no_undo')):
        (source / name).mkdir(parents=True)
        (source / name / 'tictactoe.py').write_bytes(variant(code))
    out = folder / 'out'
    assert run_cli('batch', source, '--out', out, '--workers', 1, '--no-progress',
                   config=course / 'grading.yaml') == 0
    return source, out


def one_line_error(capsys):
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith('grader: error: '), err
    assert 'Traceback' not in err
    return lines[0]


def broken_copy(course, tmp_path, breaking):
    copy = tmp_path / 'course'
    shutil.copytree(course, copy)
    breaking(copy)
    return copy / 'grading.yaml'


def duplicate_case(copy):
    path = copy / 'fixtures' / 'connect4.yaml'
    data = yaml.safe_load(path.read_text())
    data['cases'].append(dict(data['cases'][0]))
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def bad_policy(copy):
    text = (copy / 'grading.yaml').read_text()
    (copy / 'grading.yaml').write_text(text.replace('points: 1.0', 'points: lots', 1))


def missing_hidden_expected(copy):
    (copy / 'hidden').mkdir(exist_ok=True)
    data = yaml.safe_load((copy / 'fixtures' / 'eightpuzzle.yaml').read_text())
    del data['cases'][1]['expected']
    (copy / 'hidden' / 'eightpuzzle.yaml').write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.mark.parametrize('breaking, names', [
    (duplicate_case, ('connect4.yaml', 'duplicate case name')),
    (bad_policy, ('grading.yaml', 'points')),
    (missing_hidden_expected, ('hidden/eightpuzzle.yaml:', 'no expected answers; run')),
])
def test_a_broken_course_stops_before_anything_is_touched(graded, course, tmp_path, capsys,
                                                         breaking, names):
    source, out = graded
    before = snapshot(out)
    config = broken_copy(course, tmp_path, breaking)
    for command in (['batch', source, '--out', out, '--resume'],
                    ['batch', source, '--out', out, '--regrade'],
                    ['regrade', out]):
        capsys.readouterr()
        assert run_cli(*command, '--workers', 1, '--no-progress', config=config) == 2
        line = one_line_error(capsys)
        assert all(name in line for name in names), line
        assert snapshot(out) == before, command
    # and a new batch leaves no folder behind
    assert run_cli('batch', source, '--out', tmp_path / 'new', '--no-progress',
                   config=config) == 2
    assert not (tmp_path / 'new').exists()


def test_a_gradebook_cut_short_is_refused_and_nothing_is_written(graded, tmp_path, capsys):
    source, out = graded
    copy = tmp_path / 'out'
    shutil.copytree(out, copy)
    book = copy / 'gradebook.sqlite'
    for suffix in ('-wal', '-shm'):
        (copy / f'gradebook.sqlite{suffix}').unlink(missing_ok=True)
    data = book.read_bytes()
    book.write_bytes(data[:len(data) // 2])               # cut short mid-write
    before = snapshot(copy)
    for command in (['batch', source, '--out', copy, '--resume'], ['regrade', copy],
                    ['regrade', copy, '--diff']):
        capsys.readouterr()
        assert run_cli(*command, '--workers', 1, '--no-progress') == 2
        line = one_line_error(capsys)
        assert 'gradebook.sqlite' in line and 'not a readable gradebook' in line
        assert snapshot(copy) == before


def test_user_errors_are_one_line_and_leave_no_folder(graded, tmp_path, capsys):
    source, _ = graded
    typo = tmp_path / 'clas'
    damaged = tmp_path / 'download.zip'
    damaged.write_bytes(b'PK\x03\x04' + b'\0' * 100)         # a zip cut short
    real = tmp_path / 'real.zip'
    with zipfile.ZipFile(real, 'w') as archive:
        archive.writestr('alice/tictactoe.py', variant('alphabeta_nested'))
    truncated = tmp_path / 'truncated.zip'
    truncated.write_bytes(real.read_bytes()[:-30])          # the central directory cut off
    empty = tmp_path / 'empty'
    empty.mkdir()
    repos = tmp_path / 'repos.txt'
    repos.write_text('# nobody yet\n')
    a_file = tmp_path / 'grades-here'
    a_file.write_text('not a folder')
    cases = [(typo, 'no such folder or file'), (damaged, 'not a readable zip'),
             (truncated, 'not a readable zip'), (empty, 'empty class'),
             (repos, 'empty class')]
    for bad, words in cases:
        out = tmp_path / f'out-{bad.name}'
        capsys.readouterr()
        assert run_cli('batch', bad, '--out', out, '--no-progress') == 2, bad
        line = one_line_error(capsys)
        assert words in line and str(bad) in line, line
        assert not out.exists(), f'{bad.name} left {out}'
    capsys.readouterr()
    assert run_cli('batch', source, '--out', a_file, '--no-progress') == 2
    assert 'is a file' in one_line_error(capsys)
    assert a_file.read_text() == 'not a folder'


def test_the_command_line_prints_no_traceback(tmp_path):
    """The same through the console entry point, as an instructor types it."""
    damaged = tmp_path / 'download.zip'
    damaged.write_bytes(b'PK\x05\x06 broken')
    done = subprocess.run([sys.executable, '-m', 'grader', '--config',
                           str(ROOT / 'grading.yaml'), 'batch', str(damaged), '--out',
                           str(tmp_path / 'out')], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count('\n') == 1 and 'Traceback' not in done.stderr
    assert not (tmp_path / 'out').exists()


def test_a_fresh_batch_has_no_note_about_other_fixtures(graded, course, capsys):
    """The digest a result carries covers the exercises it graded; the batch compares
    it with today's digest of the same exercises, so a fresh class is never 'stale'."""
    from grader import config
    from grader.batch import pipeline
    from grader.batch.gradebook import Gradebook
    _, out = graded
    policy = config.load(course / 'grading.yaml')
    with Gradebook(out) as book:
        records = book.records()
    assert records and pipeline.stale(policy, records) == []
    # a change of the tic-tac-toe fixtures (the exercise they graded) is noticed ...
    path = course / 'fixtures' / 'tictactoe.yaml'
    text = path.read_text()
    try:
        data = yaml.safe_load(text)
        data['cases'] = data['cases'][:-1]
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        assert len(pipeline.stale(config.load(course / 'grading.yaml'), records)) == 2
    finally:
        path.write_text(text)
    # ... one of connect four's (not graded here) is not
    path = course / 'fixtures' / 'connect4.yaml'
    text = path.read_text()
    try:
        data = yaml.safe_load(text)
        data['cases'] = data['cases'][:-1]
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        assert pipeline.stale(config.load(course / 'grading.yaml'), records) == []
    finally:
        path.write_text(text)
