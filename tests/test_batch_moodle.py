"""A Moodle class as Moodle hands it over: accented and hostile names in the
"Download all submissions" zip (UTF-8 flag, UTF-8 without the flag, cp437),
a grading worksheet in Finnish with Finnish dates and decimal commas, a late
penalty; every student under their own key, every CSV free of formulas,
times kept on --resume, and a comment on every worksheet row."""
import csv
import io
import subprocess
import sys
import zipfile

import pytest
import yaml

from grader.batch import archives, bundle, exports, identity, moodle, overview, sources
from grader.batch.archives import Limits
from grader.batch.cli import main as batch_main
from grader.batch.gradebook import Gradebook
from grader.errors import UserError
from grader.report import csvfile
from gradertest import ROOT
from test_batch_run import variant


# -- dates ---------------------------------------------------------------------------
@pytest.mark.parametrize('text, expected', [
    ('Friday, 27 March 2026, 10:00 AM', '2026-03-27T10:00:00'),
    ('Friday, 6 March 2026, 9:05 PM', '2026-03-06T21:05:00'),
    ('Friday, 27 March 2026, 10:00\u202fAM', '2026-03-27T10:00:00'),     # ICU's narrow space
    ('27 March 2026, 10:00 AM', '2026-03-27T10:00:00'),
    ('perjantai, 27. maaliskuuta 2026, 10.00', '2026-03-27T10:00:00'),
    ('perjantai, 27 maaliskuu 2026, 10:00', '2026-03-27T10:00:00'),      # older Finnish pack
    ('torstai, 1. tammikuuta 2026, 9.05', '2026-01-01T09:05:00'),
    ('fredag, 27 mars 2026, 10:00', '2026-03-27T10:00:00'),
    ('2026-03-27T10:00:00+02:00', '2026-03-27T10:00:00+02:00'),
    ('-', ''), ('', ''),
])
def test_moodle_dates_in_english_and_finnish_parse(text, expected):
    assert moodle.parse_time(text) == expected


@pytest.mark.parametrize('text', ['Yes', 'soon', '27 Marchember 2026', 'Osallistuja 12',
                                  'huomenna', 'yesterday', 'today 10:00'])
def test_what_is_not_a_date_is_refused(text):
    with pytest.raises(ValueError):
        moodle.parse_time(text)


# -- the class -------------------------------------------------------------------------
def patch_name(blob, placeholder, raw):
    """``blob`` with the entry name ``placeholder`` replaced by the bytes ``raw`` (same
    length), the UTF-8 flag left clear: as a tool writing legacy names does."""
    assert len(placeholder.encode()) == len(raw)
    return blob.replace(placeholder.encode(), raw)


FOLDER = '_assignsubmission_file_'
STUDENTS = [   # participant, name in the zip, how the name is written, code
    ('301', 'Åsa Öberg', 'utf8-flag', 'alphabeta_nested'),
    ('302', 'Jörg Müller', 'utf8-no-flag', 'alphabeta_helpers'),
    ('303', 'Ilkka Mäkelä', 'cp437', 'alphabeta_nested'),
    ('304', '=HYPERLINK("x")', 'utf8-flag', 'bug_no_undo'),
    ('305', '+Broken Upload', 'utf8-flag', None),
]


def moodle_zip(path):
    buffer = io.BytesIO()
    renames = []
    with zipfile.ZipFile(buffer, 'w') as out:
        for participant, name, how, code in STUDENTS:
            folder = f'{name}_{participant}{FOLDER}'
            entry = f'{folder}/tictactoe.py' if code else f'{folder}/upload.zip'
            data = variant(code) if code else b'PK\x03\x04 cut short'
            if how == 'utf8-flag':
                out.writestr(entry, data)              # zipfile sets the flag for non-ASCII
                continue
            raw = entry.encode('utf-8' if how == 'utf8-no-flag' else 'cp437')
            placeholder = f'P{participant}' + 'x' * (len(raw) - 4)
            out.writestr(placeholder, data)
            renames.append((placeholder, raw))
    blob = buffer.getvalue()
    for placeholder, raw in renames:
        blob = patch_name(blob, placeholder, raw)
    path.write_bytes(blob)
    return path


FINNISH_HEADER = ['Tunniste', 'Koko nimi', 'Sähköpostiosoite', 'Tila', 'Arvosana',
                  'Suurin mahdollinen arvosana', 'Arvosanaa voi muuttaa',
                  'Viimeksi muokattu (palautus)', 'Viimeksi muokattu (arviointi)',
                  'Palautteen kommentit']
"""Column names as a Finnish site might write them: the worksheet's columns are found by
Moodle's column order and their content, not by these words."""
FINNISH_ROWS = [
    ('301', 'Åsa Öberg', 'torstai, 26. maaliskuuta 2026, 22.00'),          # on time
    ('302', 'Jörg Müller', 'lauantai, 28. maaliskuuta 2026, 10.00'),       # 2 days late
    ('303', 'Ilkka Mäkelä', '-'),                                          # no time
    ('304', '@SUM(1+1)', 'torstai, 26. maaliskuuta 2026, 9.00'),
    ('305', '-2+3', 'torstai, 26. maaliskuuta 2026, 9.00'),
]


def finnish_worksheet(path, rows=FINNISH_ROWS):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(FINNISH_HEADER)
    for participant, name, when in rows:
        writer.writerow([f'Osallistuja {participant}', name, f'{participant}@example.org',
                         'Palautettu arvioitavaksi', '', '5,00', 'Kyllä', when, '-', ''])
    path.write_text('\ufeff' + out.getvalue(), encoding='utf-8')
    return path


@pytest.fixture(scope='module')
def late_course(policy, tmp_path_factory):
    """The course with a late penalty on exercise 1: 10 % a started day, at most 50 %."""
    folder = tmp_path_factory.mktemp('late-course')
    blob, _ = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    data = yaml.safe_load((folder / 'grading.yaml').read_text())
    data['assignments']['oulu-exercise-1']['late_penalty'] = {
        'deadline': '2026-03-26T23:59:00+02:00', 'per_day': 0.1, 'max': 0.5}
    (folder / 'grading.yaml').write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / 'grading.yaml'


def run_cli(config, *args):
    return batch_main(['--config', str(config), *map(str, args)])


@pytest.fixture(scope='module')
def graded(late_course, tmp_path_factory):
    folder = tmp_path_factory.mktemp('moodle')
    source = moodle_zip(folder / 'download.zip')
    sheet = finnish_worksheet(folder / 'arviointitaulukko.csv')
    out = folder / 'out'
    assert run_cli(late_course, 'batch', source, '--out', out, '--moodle-worksheet', sheet,
                   '--workers', 2, '--no-progress') == 0
    with Gradebook(out) as book:
        records = {r.identity.key: r for r in book.records()}
    return source, sheet, out, records


def test_names_are_read_from_the_utf8_flag_and_the_legacy_code_page(tmp_path):
    entries = {e.identity.participant: e for e in
               sources.scan(moodle_zip(tmp_path / 'download.zip'), Limits())}
    assert {p: entries[p].identity.name for p in ('301', '302', '303')} == {
        '301': 'Åsa Öberg', '302': 'Jörg Müller', '303': 'Ilkka Mäkelä'}
    assert entries['302'].files == {'tictactoe.py': variant('alphabeta_helpers')}
    assert 'upload.zip: not a readable zip' in entries['305'].problem


def test_a_late_penalty_comes_from_the_finnish_worksheet(graded):
    _, _, out, records = graded
    assert records['301'].score == 2.5 and not records['301'].result['late']['late']
    late = records['302'].result['late']
    assert late['late'] and late['days_late'] == 2 and records['302'].score == 2.0
    rows = {r['key']: r for r in exports.read_grades(out / 'grades.csv')}
    assert rows['302']['late'] is True and rows['302']['days_late'] == 2
    assert rows['301']['submitted_at'] == '2026-03-26T22:00:00'


def test_a_submission_without_a_time_is_listed_not_taken_as_on_time(graded, capsys):
    _, _, out, records = graded
    assert records['303'].status == 'graded' and records['303'].result['late'] == {}
    rows = {r['key']: r for r in exports.read_grades(out / 'grades.csv')}
    assert rows['303']['late'] is None and 'no submission time' in rows['303']['reason']
    _, problems = csvfile.read(out / 'problems.csv')
    assert [p['key'] for p in problems if 'no submission time' in p['reason']] == ['303']
    assert 'Submissions without a time' in (out / 'overview.md').read_text()


def test_the_worksheet_is_filled_in_the_sites_notation_with_a_comment_on_every_row(graded):
    _, _, out, records = graded
    with open(out / 'moodle-worksheet.csv', newline='', encoding='utf-8') as stream:
        reader = csv.reader(stream)
        header = next(reader)
        rows = {row[0]: dict(zip(header, row)) for row in reader}
    assert header == FINNISH_HEADER
    assert rows['Osallistuja 301']['Arvosana'] == '2,5'
    assert rows['Osallistuja 302']['Arvosana'] == '2'
    assert rows['Osallistuja 305']['Arvosana'] == ''            # ungradable: no silent zero
    assert all(row['Palautteen kommentit'] for row in rows.values())
    assert 'upload.zip: not a readable zip' in rows['Osallistuja 305']['Palautteen kommentit']
    assert rows['Osallistuja 303']['Viimeksi muokattu (palautus)'] == '-'   # Moodle's own


def test_every_csv_the_batch_writes_is_free_of_formulas(graded):
    _, _, out, _ = graded
    files = sorted(out.rglob('*.csv'))
    assert {f.name for f in files} >= {'grades.csv', 'problems.csv', 'moodle-worksheet.csv'}
    hostile = 0
    for path in files:
        with open(path, newline='', encoding='utf-8') as stream:
            for row in csv.reader(stream):
                for cell in row:
                    assert cell == '-' or not cell.startswith(csvfile.FORMULA_START), \
                        f'{path.name}: {cell!r}'
                    hostile += cell.startswith("'")
    assert hostile >= 3            # the hostile names were there, and were neutralised
    names = {r['name'] for r in exports.read_grades(out / 'grades.csv')}
    assert {'@SUM(1+1)', '-2+3'} <= names                      # read back exactly


def test_resume_without_the_worksheet_keeps_times_and_grades(graded, late_course, tmp_path):
    import shutil
    source, _, out, records = graded
    copy = tmp_path / 'out'
    shutil.copytree(out, copy)
    with Gradebook(copy) as book:
        before = {k: book.history(k) for k in book.keys()}
    assert run_cli(late_course, 'batch', source, '--out', copy, '--resume', '--workers', 1,
                   '--no-progress') == 0
    with Gradebook(copy) as book:
        after = {k: book.history(k) for k in book.keys()}
        again = {r.identity.key: r for r in book.records()}
    assert after == before                                      # nothing regraded
    assert again['302'].score == 2.0 and again['302'].identity.submitted_at


def test_an_unreadable_worksheet_time_names_the_file_and_line(tmp_path):
    rows = FINNISH_ROWS[:1] + [('302', 'Jörg Müller', 'huomenna')]
    sheet = finnish_worksheet(tmp_path / 'sheet.csv', rows)
    with pytest.raises(UserError, match=r"sheet\.csv:3: cannot read the submission time "
                                        r"'huomenna'"):
        identity.moodle_worksheet(sheet)


def test_look_alike_names_keep_their_own_keys_and_feedback(late_course, tmp_path, capsys):
    source = tmp_path / 'class'
    for name, code in (('alice_smith', 'alphabeta_nested'), ('!alice_smith', 'template')):
        (source / name).mkdir(parents=True)
        (source / name / 'tictactoe.py').write_bytes(variant(code))
    entries = {e.identity.student_id: e for e in sources.scan(source, Limits())}
    real, other = entries['alice_smith'], entries['!alice_smith']
    assert real.identity.key == 'alice_smith' and other.identity.key != 'alice_smith'
    assert not real.problem and not other.problem
    assert sources.look_alike([real.identity, other.identity]) == \
        [sorted([real.identity.key, other.identity.key])]
    out = tmp_path / 'out'
    capsys.readouterr()
    assert run_cli(ROOT / 'grading.yaml', 'batch', source, '--out', out, '--workers', 1,
                   '--no-progress') == 0
    said = capsys.readouterr().out
    assert 'reduce to the same text' in said and other.identity.key in said
    with Gradebook(out) as book:
        scores = {r.identity.key: r.score for r in book.records()}
    assert scores == {'alice_smith': 2.5, other.identity.key: 0.0}
    assert 'Score: 2.50' in (out / 'feedback' / 'alice_smith.md').read_text() or \
        '2.5 / ' in (out / 'feedback' / 'alice_smith.md').read_text()
    assert 'Names that look alike' in (out / 'overview.md').read_text()


def test_the_overview_is_the_same_for_the_same_results(graded):
    """Ties between failed cases are broken by name, not by the hash seed of the run."""
    _, _, out, _ = graded
    code = ('import sys; from grader.batch.gradebook import Gradebook; '
            'from grader.batch import overview; '
            'book = Gradebook(sys.argv[1]); print(overview.render(overview.build(book.records())))')
    texts = set()
    for seed in ('1', '2', '3'):
        done = subprocess.run([sys.executable, '-c', code, str(out)], capture_output=True,
                              text=True, env={'PYTHONHASHSEED': seed, 'PATH': '/usr/bin:/bin'},
                              cwd=ROOT)
        assert done.returncode == 0, done.stderr
        texts.add(done.stdout)
    assert len(texts) == 1
    records = [type('R', (), {'status': 'graded', 'score': 1.0, 'max_score': 2.0,
                              'result': {'exercises': [{
                                  'name': 'tictactoe', 'submitted': True,
                                  'checks': [{'name': 'values', 'max_score': 1.0,
                                              'passed': False,
                                              'failures': [{'case': c} for c in cases]}]}]}})()
               for cases in (['b', 'a'], ['c', 'a', 'b'], ['a', 'c'])]
    assert overview.build(records).checks[0].most_failed == [('a', 3), ('b', 2), ('c', 2)]
