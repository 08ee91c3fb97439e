"""The class as an instructor sees it: ``index.html``, a student's page, similar code.

One small class is graded once (under :func:`gradertest.quick_course`, with
``similarity:`` in its grading.yaml and the known solution of tests/copies):
two honest, independent tic-tac-toe solutions, a renamed and reordered copy
of one, a hand-in made from the known solution, one with a bug (failed
cases to show), and Mallory, whose name (from the roster) and code hold
``<script>`` (her code is honest_a's with two lines added: a copy too).  The
exact copy, and more, are tested on files in test_batch_similarity.py.  The
pages are opened in headless Chromium (Debian's ``chromium``, installed by
scripts/system-deps.sh) and read from the DOM it built: tables there, and no
script of Mallory's run.
"""
import base64
import csv
import hashlib
import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser

import pytest

from grader.batch.cli import main as batch_main
from gradertest import ROOT, SUBMISSIONS, quick_course

COPIES = ROOT / 'tests' / 'copies'
HAND_INS = {'honest_a': COPIES / 'honest_a.py', 'honest_b': COPIES / 'honest_b.py',
            'renamed_a': COPIES / 'renamed_a.py', 'from_known': COPIES / 'from_known.py',
            'bug_no_undo': SUBMISSIONS / 'tictactoe' / 'bug_no_undo.py'}
MALLORY = "<script>document.title='pwned'</script> Mallory"
MALLORY_CODE = ('"""</pre><script>document.title=\'pwned\'</script>"""\n'
                "print('<script>document.title=\"pwned\"</script>')\n")
COPIED = {('honest_a', 'renamed_a'), ('from_known', 'known:tictactoe.py')}


def with_similarity(document):
    document['similarity'] = {'known': 'known', 'template': 'template'}
    document['assignments']['oulu-exercise-1']['late_penalty'] = {
        'deadline': '2026-03-27T10:00:00+02:00', 'per_day': 0.1, 'max': 0.5}


ON_TIME, LATE = '2026-03-26T18:00:00+02:00', '2026-03-28T12:00:00+02:00'
TIMES = {key: LATE if key == 'renamed_a' else ON_TIME for key in HAND_INS}
"""When each hand-in came (from the roster): renamed_a two days late, Mallory's unknown
(so her late penalty cannot be applied: a problem row)."""


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    folder = tmp_path_factory.mktemp('course')
    shutil.copytree(COPIES / 'known', folder / 'known')
    shutil.copytree(ROOT / 'student_template', folder / 'template')
    return quick_course(policy, folder, edit=with_similarity)


@pytest.fixture(scope='module')
def graded(course, tmp_path_factory):
    """The class graded once by a local pool of 2: ``(source, roster, out)``."""
    folder = tmp_path_factory.mktemp('classpage')
    source = folder / 'class'
    for key, path in HAND_INS.items():
        (source / key).mkdir(parents=True)
        shutil.copy(path, source / key / 'tictactoe.py')
    (source / 'mallory').mkdir()
    (source / 'mallory' / 'tictactoe.py').write_text(
        (COPIES / 'honest_a.py').read_text() + MALLORY_CODE)
    roster = folder / 'roster.csv'
    with open(roster, 'w', newline='') as stream:
        csv.writer(stream).writerows([('student_id', 'name', 'submitted_at'),
                                      ('mallory', MALLORY, '')]
                                     + [(key, '', at) for key, at in TIMES.items()])
    out = folder / 'out'
    assert batch_main(['--config', str(course), 'batch', str(source), '--out', str(out),
                       '--workers', '2', '--no-progress', '--roster', str(roster)]) == 0
    return source, roster, out


def similarity_rows(out):
    with open(out / 'similarity.csv', newline='') as stream:
        return list(csv.DictReader(stream))


def test_the_copies_are_listed_and_the_honest_pair_is_not(graded):
    _, _, out = graded
    rows = similarity_rows(out)
    pairs = {(r['a'], r['b']) for r in rows}
    assert COPIED <= pairs
    assert ('honest_a', 'honest_b') not in pairs
    # Mallory's hand-in is honest_a's with two lines added: a copy too
    assert ('honest_a', 'mallory') in pairs
    for row in rows:
        assert row['exercise'] == 'tictactoe'
        assert float(row['share_a']) >= 0.6 or float(row['share_b']) >= 0.6
        assert (out / row['view']).is_file()
    # listed, never penalised: the copy scored as the original (but for its late penalty)
    grades = {r['key']: r for r in csv.DictReader(open(out / 'grades.csv', newline=''))}
    assert grades['renamed_a']['tictactoe'] == grades['honest_a']['tictactoe']


def test_a_resumed_batch_compares_no_pair_again(graded, course, capsys):
    source, roster, out = graded
    before = (out / 'similarity.csv').read_bytes()
    assert batch_main(['--config', str(course), 'batch', str(source), '--out', str(out),
                       '--resume', '--workers', '2', '--no-progress']) == 0
    said = capsys.readouterr().out
    assert '0 pair(s) of files compared now' in said, said
    assert (out / 'similarity.csv').read_bytes() == before


# -- in a browser ------------------------------------------------------------------------
CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason='headless Chromium is not installed (scripts/system-deps.sh '
                             'installs Debian\'s chromium as root)')


def dom(page):
    """The DOM headless Chromium built from ``page`` (scripts run), as HTML text."""
    with tempfile.TemporaryDirectory() as profile:
        command = [CHROMIUM, '--headless', '--disable-gpu', '--no-first-run',
                   f'--user-data-dir={profile}', '--dump-dom', page.as_uri()]
        if os.geteuid() == 0:
            command.insert(1, '--no-sandbox')       # Chromium refuses root without it
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Tables(HTMLParser):
    """The title, the scripts and every table (id, rows of cell texts) of a page."""

    def __init__(self, text):
        super().__init__()
        self.title, self.scripts, self.tables, self.text = None, [], [], []
        self.marks = {}
        """``{(table id, row number): the row's class}``."""
        self._in = None
        self.feed(text)
        self.tables = [(id_, [[cell.strip() for cell in row] for row in rows])
                       for id_, rows in self.tables]

    def handle_starttag(self, tag, attrs):
        if tag == 'table':
            self.tables.append((dict(attrs).get('id'), []))
        elif tag == 'tr' and self.tables:
            self.tables[-1][1].append([])
            self.marks[self.tables[-1][0], len(self.tables[-1][1]) - 1] = \
                dict(attrs).get('class') or ''
        elif tag in ('td', 'th') and self.tables and self.tables[-1][1]:
            self.tables[-1][1][-1].append('')
        self._in = tag

    def handle_data(self, data):
        self.text.append(data)
        if self._in == 'title' and self.title is None:   # the page's (not an SVG's)
            self.title = data
        elif self._in == 'script':
            self.scripts.append(data)
        if self.tables and self.tables[-1][1] and self.tables[-1][1][-1]:
            self.tables[-1][1][-1][-1] += data

    def handle_endtag(self, tag):
        self._in = None

    def table(self, name):
        return next(rows for id_, rows in self.tables if id_ == name)


@needs_chromium
def test_index_html_renders_with_its_tables(graded):
    _, _, out = graded
    html = dom(out / 'index.html')
    page = Tables(html)
    assert page.title == 'Class results'
    grades = page.table('grade-table')
    assert len(grades) == 1 + len(HAND_INS) + 1          # heading, every student
    assert grades[0][:3] == ['Key', 'Name', 'Status']
    keys = {row[0] for row in grades[1:]}
    assert keys == set(HAND_INS) | {'mallory'}
    assert page.title == 'Class results'
    assert not any('pwned' in script for script in page.scripts)   # Mallory's name is text
    assert MALLORY in {row[1] for row in grades}
    marks = {row[0]: page.marks['grade-table', i] for i, row in enumerate(grades) if i}
    assert marks == dict({key: '' for key in HAND_INS}, renamed_a='late', mallory='problem')
    late = next(row for row in grades if row[0] == 'renamed_a')
    assert 'late' in late[2] and late[-2].startswith('yes')
    checks = page.table('check-table')
    values = next(row for row in checks if row[1] == 'values')
    assert values[0] == 'tictactoe' and values[4] == str(len(HAND_INS) + 1)
    moves = next(row for row in checks if row[1] == 'moves')
    assert 'move' in moves[6]                             # bug_no_undo's failure message
    alike = page.table('similarity-table')
    assert {(row[1], row[2]) for row in alike[1:]} >= COPIED
    assert '<svg' in html                                  # the histogram


@needs_chromium
def test_a_students_page_holds_their_feedback(graded):
    _, _, out = graded
    page = Tables(dom(out / 'students' / 'bug_no_undo.html'))
    assert page.title == 'Feedback for bug_no_undo'
    checks = page.table('checks')
    assert [row[1] for row in checks[1:3]] == ['values', 'moves']
    text = ''.join(page.text)
    feedback = (out / 'feedback' / 'bug_no_undo.md').read_text()
    # the boards drawn, what came back and what was expected, as in the Markdown file
    blocks = feedback.split('```text\n')[1:]
    assert blocks
    for block in blocks:
        assert block.split('```')[0].strip() in text


@needs_chromium
def test_a_hand_in_holding_script_runs_nothing(graded):
    _, _, out = graded
    view = out / 'similarity' / 'tictactoe' / 'honest_a--mallory.html'
    titles = {out / 'students' / 'mallory.html': f'Feedback for {MALLORY}',
              view: 'tictactoe: honest_a and mallory'}   # the index: see the test above
    for path, title in titles.items():
        page = Tables(dom(path))
        assert page.title == title, path          # her script would have set it to 'pwned'
        # Mallory's code and name are on the page as text, and no script of hers is in it
        assert "document.title='pwned'" in ''.join(page.text), path
        assert not any('pwned' in script for script in page.scripts), path


@needs_chromium
def test_the_grade_table_sorts_by_the_column_clicked(graded, tmp_path):
    """index.html with two clicks on the Score heading added to its script (and the page's
    policy allowing that script): the rows come by score, highest first."""
    _, _, out = graded
    html = (out / 'index.html').read_text()
    script = html.split('<script>')[1].split('</script>')[0]
    clicked = script + "var th = document.querySelectorAll('#grade-table th')[3];\n" \
                       "th.click(); th.click();\n"

    def digest(text):
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    assert digest(script) in html               # the page's policy allows its own script
    page = tmp_path / 'index.html'
    page.write_text(html.replace(script, clicked).replace(digest(script), digest(clicked)))
    table = Tables(dom(page)).table('grade-table')
    scores = [float(row[3]) for row in table[1:]]
    assert scores == sorted(scores, reverse=True) and scores != [float(row[3]) for row in sorted(
        table[1:])]                              # not the order of the keys
    assert len(table) == 1 + len(HAND_INS) + 1   # every row still there
