"""The gradebook: one current result per submission, history kept, what is pending;
the CSV, Moodle and overview writers on stored records."""
import csv
import sqlite3

import pytest

from grader.batch import exports, overview
from grader.batch.gradebook import Gradebook
from grader.batch.identity import Identity
from grader.errors import UserError


def result(score, checks=(('values', 1.0, True), ('moves', 1.0, True)), late=None):
    """A result document of the shape Result.to_dict() makes (one exercise)."""
    return {
        'grader_version': '0.1.0', 'assignment': 'a1', 'score': score, 'max_score': 2.0,
        'fixtures_digest': 'sha256:f', 'calibration': {}, 'explanation': ['Counted: tictactoe.'],
        'hidden_checks_included': False, 'submission': {}, 'late': late or {},
        'duration_seconds': 0.5, 'hidden_checks_pending': False,
        'isolation': {'level': 'standard', 'layers': [], 'missing': []},
        'exercises': [{
            'name': 'tictactoe', 'title': 'Tic-tac-toe', 'score': score, 'max_score': 2.0,
            'submitted': True, 'file': 'tictactoe.py', 'facts': {}, 'warnings': [], 'error': '',
            'counted': True, 'hidden_cases': False,
            'checks': [{'name': n, 'passed': ok, 'score': p if ok else 0.0, 'max_score': p,
                        'message': '', 'cases_passed': 3 if ok else 1, 'cases_total': 3,
                        'visibility': 'visible', 'split': {},
                        'failures': [] if ok else [{'case': 'max-despair', 'message': 'wrong',
                                                    'feedback': '', 'hidden': False}]}
                       for n, p, ok in checks]}],
    }


@pytest.fixture
def book(tmp_path):
    with Gradebook(tmp_path, create=True) as opened:
        yield opened


def add(book, run, key, content='h1', name='', participant=''):
    who = Identity(key=key, student_id=key, name=name, participant=participant)
    book.put_submission(who, content, b'zip', '', run)


def test_wal_mode_and_one_current_result_with_history(book):
    assert book.db.execute('PRAGMA journal_mode').fetchone()[0] == 'wal'
    run = book.start_run('batch', grader_version='0.1.0')
    add(book, run, 'alice')
    first = book.record('alice', run, 'graded', content_hash='h1', result=result(2.0))
    second = book.record('alice', run, 'graded', content_hash='h1', result=result(1.0))
    assert book.current('alice')['id'] == second
    assert [r['id'] for r in book.history('alice')] == [first, second]
    with pytest.raises(sqlite3.IntegrityError):
        book.db.execute('UPDATE results SET current = 1')


def test_pending_means_missing_failed_changed_or_stale(book):
    run = book.start_run('batch', grader_version='0.1.0')
    for key in ('done', 'failed', 'changed', 'missing', 'late'):
        add(book, run, key)
    book.record('done', run, 'graded', content_hash='h1', result=result(2.0))
    book.record('failed', run, 'error', content_hash='h1', reason='worker died')
    book.record('changed', run, 'graded', content_hash='h0', result=result(2.0))
    book.record('late', run, 'graded', content_hash='h1', submitted_at='2024-01-01T00:00:00',
                result=result(2.0))
    assert book.pending() == ['changed', 'failed', 'late', 'missing']
    regrade = book.start_run('regrade', grader_version='0.1.0', fresh_since=0)
    assert book.pending(regrade) == ['changed', 'done', 'failed', 'late', 'missing']
    assert book.unfinished_regrade() == regrade
    book.finish_run(regrade)
    assert book.unfinished_regrade() is None


def test_a_second_writer_is_kept_out(book, tmp_path):
    with pytest.raises(UserError, match='another grader batch'):
        Gradebook(tmp_path)


def test_a_killed_run_is_marked_interrupted_on_reopen(tmp_path):
    with Gradebook(tmp_path, create=True) as first:
        first.start_run('batch', grader_version='0.1.0')
    with Gradebook(tmp_path) as again:
        assert [r['status'] for r in again.runs()] == ['interrupted']


def tricky_records(book):
    run = book.start_run('batch', grader_version='0.1.0')
    names = {'a': 'Åsa Öberg, "Jr."', 'b': '=HYPERLINK("http://x")', 'c': "'quoted",
             'd': 'Line\nbreak', 'e': '-5'}
    for key, name in names.items():
        add(book, run, key, name=name, participant=str(100 + ord(key)))
    book.record('a', run, 'graded', content_hash='h1', result=result(2.0))
    book.record('b', run, 'graded', content_hash='h1',
                result=result(1.0, late={'late': True, 'days_late': 2}))
    book.record('c', run, 'graded', content_hash='h1',
                result=result(0.1234, checks=(('values', 1.0, False), ('moves', 1.0, False))))
    book.record('d', run, 'ungradable', content_hash='h1', reason='no tictactoe.py found')
    return book.records()


def test_the_csv_round_trips_and_never_starts_a_formula(book, tmp_path):
    records = tricky_records(book)
    rows = exports.grade_rows(records)
    exports.write_grades(records, tmp_path / 'grades.csv')
    assert exports.read_grades(tmp_path / 'grades.csv') == rows
    assert rows[1]['late'] is True and rows[1]['days_late'] == 2
    assert rows[3]['status'] == 'ungradable' and rows[3]['score'] is None
    with open(tmp_path / 'grades.csv', newline='', encoding='utf-8') as stream:
        raw = list(csv.DictReader(stream))
    assert all(not r['name'].startswith(exports.FORMULA_START[:-1]) for r in raw)


def test_moodle_worksheet_is_filled_and_scaled(book, tmp_path):
    records = tricky_records(book)
    sheet = ('Identifier,Full name,Email address,Status,Grade,Maximum Grade,'
             'Grade can be changed,Last modified (submission),Last modified (grade),'
             'Feedback comments\n'
             'Participant 197,A,a@x,Submitted,,100,Yes,-,-,\n'
             'Participant 198,B,b@x,Submitted,,100,Yes,-,-,keep this\n'
             'Participant 100,Nobody,n@x,No submission,,100,Yes,-,-,\n'
             'Participant 200,D,d@x,Submitted,,100,Yes,-,-,\n')
    assert exports.write_moodle(records, tmp_path / 'moodle.csv', sheet)
    with open(tmp_path / 'moodle.csv', newline='') as stream:
        rows = {r['Identifier']: r for r in csv.DictReader(stream)}
    assert rows['Participant 197']['Grade'] == '100'
    assert rows['Participant 198']['Grade'] == '50'
    assert rows['Participant 198']['Feedback comments'] == 'keep this'
    assert rows['Participant 100']['Grade'] == '' and rows['Participant 200']['Grade'] == ''
    # without Moodle's own worksheet one is made from the participant ids
    assert exports.write_moodle(records, tmp_path / 'made.csv')
    with open(tmp_path / 'made.csv', newline='') as stream:
        made = list(csv.DictReader(stream))
    assert [r['Identifier'] for r in made][:2] == ['Participant 197', 'Participant 198']
    assert made[0]['Grade'] == '2' and made[0]['Maximum Grade'] == '2'


def test_overview_flags_a_check_most_of_the_class_fails(book, tmp_path):
    run = book.start_run('batch', grader_version='0.1.0')
    for i in range(5):
        add(book, run, f's{i}')
        broken = (('values', 1.0, True), ('moves', 1.0, i == 0))
        book.record(f's{i}', run, 'graded', content_hash='h1',
                    result=result(1.0 + (i == 0), checks=broken))
    view = overview.build(book.records())
    assert [(c.check, c.passed, c.total) for c in view.flagged] == [('moves', 1, 5)]
    assert view.flagged[0].most_failed == [('max-despair', 4)]
    assert sum(n for *_, n in view.bins) == 5 and view.bins[-1][2] == 1
    overview.write(book.records(), tmp_path)
    text = (tmp_path / 'overview.md').read_text()
    assert 'tictactoe/moves** passed by 1 of 5' in text
    assert (tmp_path / 'overview.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'
