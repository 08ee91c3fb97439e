"""The canary: no hidden or generated input leaves through any report.

A course copy with hidden fixtures for tic-tac-toe and connect four and
positions drawn at grading time (``generated: {count: N}``) grades one
submission per *channel*.  Each submission turns every position it is
given into a mark of its own, carried out by one channel only:

- ``exception-type``: raises an exception of a class made on the spot,
  named after the board;
- ``exception-message``: raises ``ValueError`` with the board in its text;
- ``sys-exit``: calls ``sys.exit`` with the board as its text;
- ``value``: returns the board as a number (base 3 for tic-tac-toe) for its
  value;
- ``move``: returns that number as its move; ``move-text``: a text naming the
  board as its move;
- ``class-name``: returns for its value an object of a class made on the
  spot, named after the board;
- ``counts``: makes as many counted calls (tic-tac-toe: calls of a
  recursive function; connect four: moves made, calls of a recursive function below
  the search's first) as that number says;
- ``evidence``: answers right (tic-tac-toe: a search that is not counted;
  connect four: the reference's), with steady counts on the public
  positions and, on the others, counts that change when a position is
  searched again (the number, then half of it), so the check of the counts
  fails there and says why; ``evidence-public`` does the same the other way
  round, on one public position of each game (its twin, whose marks the
  search must find);
- ``stdout``, ``stderr`` (``os.write`` to descriptor 2), ``warnings``: says
  the board there;
- ``exit-status``: ``os._exit`` with a status made from the board;
- ``files``: leaves the board's mark in every place a case can write (files
  in /tmp, the home folder, the project folder and /dev/shm, and the end of
  its own file, overwritten with its size and times put back), after reading
  back what earlier cases left there, and raises both in its message.

Every submission is graded with ``grader grade`` into every format
(terminal, JSON, Markdown, JUnit, Gradescope, PrairieLearn), and the whole
class with ``grader batch`` (feedback files, the Moodle worksheet, the
CSV files and the overview).  Every output is searched for the mark of
every hidden and generated position, and for the names and sources the
instructor gave the hidden cases: none may appear.

The search is shown to work: the same channel marks the public positions
too, whose feedback is complete, and those marks are found in every format
that shows a case's message (a redaction removed would show the hidden
marks just as well).  Prints, warnings and descriptor 2 are shown for no
case at all; for them the test asserts that no mark of any position
appears.

Some channels cannot be searched for a mark: which way a case fails, and
what a case does while keeping its points (leaving files, sleeping).  Their
submissions (:data:`DECODED`) are decoded by comparison: each differs from
an honest twin only on the positions that are not public, and every output
of the two, set aside the seeds, times and names, must be the same.  Of a
hidden or drawn case, every output says per check only how many passed.

Below: the sentence of the check of the counts names no count, floor, name
or time of a hidden case (:mod:`grader.judging.evidence`); and neither the
amount a submission writes to its real stdout and stderr
(``direct_output_bytes``) nor the CPU and wall-clock time it spends
(``student_seconds``, ``wall_seconds``) on a drawn position shows in its
result: those facts are of the import and the public cases.
"""
import difflib
import functools
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from grader import config, fixtures, generated
from grader.exercises.connect4 import rules as c4rules
from grader.exercises.tictactoe import board as boards
from gradertest import ROOT, one_of_each_kind

GENERATED = 7
"""Tic-tac-toe positions drawn per submission: one of each phase of the game (one to seven
marks)."""
GENERATED_CONNECT4 = 3
"""Connect-four positions drawn per submission (the course draws 8)."""

CHANNELS = ('exception-type', 'exception-message', 'sys-exit', 'value', 'move', 'class-name',
            'counts', 'evidence', 'evidence-public', 'move-text', 'stdout', 'stderr', 'warnings',
            'exit-status', 'files')
SILENT = ('stdout', 'stderr', 'warnings')
"""Channels no report shows for any case, public or hidden."""

SECRET = 'zqx'
"""Part of every hidden case's name and source: an instructor's words, never reported."""

# -- the marks ----------------------------------------------------------------------
# The submissions compute these in the sandbox; the test computes them from the cases.
# Connect four's counts are moves made, 5000-5999 a search: a range of their own, which
# no other number in the reports or the batch's files falls in (the nearest: 4564, plain
# minimax's count on a public tic-tac-toe position, and 6162, from a public case's
# source), and cheap: with 30000-39999 the connect-four part of that submission's grade
# took about 4.8 s of CPU, now about 1.7 s.
MARKS = r'''
import hashlib


def tictactoe_text(board):
    return ''.join('e' if mark == '-' else mark for mark in board)


def tictactoe_number(board):
    number = 0
    for mark in board:
        number = 3 * number + '-XO'.index(mark)
    return number


def connect4_cells(board):
    return ''.join(''.join('e' if cell == ' ' else cell for cell in row) for row in board)


def connect4_text(board):
    return hashlib.sha256(connect4_cells(board).encode()).hexdigest()[:12]


def connect4_number(board):
    return int(connect4_text(board)[:8], 16) % 900000


def marks(exercise, board):
    """{channel: mark} of one position: text marks, or numbers."""
    if exercise == 'tictactoe':
        text, number, tag = tictactoe_text(board), tictactoe_number(board), 'T'
    else:
        text, number, tag = connect4_text(board), connect4_number(board), 'C'
    return {
        'exception-type': f'CnryType{tag}{text}',
        'exception-message': f'cnry-message-{tag}{text}',
        'sys-exit': f'cnry-exit-{tag}{text}',
        'value': (1000000 if tag == 'T' else 3000000) + number,
        'move': (2000000 if tag == 'T' else 4000000) + number,
        'class-name': f'CnryClass{tag}{text}',
        'move-text': f'cnry-move-{tag}{text}',
        'counts': 10000 + number % 20000 if tag == 'T' else 5000 + number % 1000,
        'evidence': 10000 + number % 20000 if tag == 'T' else 3000 + number % 1000,
        'evidence-public': 10000 + number % 20000 if tag == 'T' else 3000 + number % 1000,
        'stdout': f'cnry-stdout-{tag}{text}',
        'stderr': f'cnry-stderr-{tag}{text}',
        'warnings': f'cnry-warning-{tag}{text}',
        'exit-status': 1 + number % 120,
        'files': f'cnry-file-{tag}{text}',
    }
'''
_marks = {}
# The very text the submissions run, so that both sides make the same marks.
exec(compile(MARKS, 'canary marks', 'exec'), _marks)  # noqa: S102
marks = _marks['marks']

# -- the submissions ----------------------------------------------------------------
ACT = r'''

def _spin(depth):
    """A recursive function: each call is a counted search call."""
    if depth > 0:
        _spin(depth - 1)


def _calls(count):
    while count > 0:
        step = min(count, 400)
        _spin(step - 1)
        count -= step


TRAILER = 64
"""Bytes at the end of each submission file that a case may overwrite in place (its size and
times put back): the last mark written there."""


def _places():
    import os
    return ['/tmp', os.path.expanduser('~'), os.path.dirname(os.path.abspath(__file__)),
            '/dev/shm']


def traces(mark):
    """The marks earlier cases left, read back from every place a case can write; then
    ``mark`` left there: a file in /tmp, the home folder, the project folder and /dev/shm,
    and the end of this very file, overwritten in place with its size and times put back."""
    import os
    found = []
    for place in _places():
        try:
            found += [name[6:] for name in os.listdir(place) if name.startswith('trace-')]
        except OSError:
            pass
        try:
            with open(os.path.join(place, 'trace-' + mark), 'w') as stream:
                stream.write(mark)
        except OSError:
            pass
    own = os.path.abspath(__file__)
    try:
        times = os.stat(own)
        with open(own, 'r+b') as stream:
            stream.seek(-TRAILER, 2)
            tail = stream.read().decode().strip('# \n')
            if tail:
                found.append(tail)
            stream.seek(-TRAILER, 2)
            stream.write(('# ' + mark).ljust(TRAILER - 1).encode() + b'\n')
        os.utime(own, ns=(times.st_atime_ns, times.st_mtime_ns))
    except OSError:
        pass
    return sorted(set(found))


def act(channel, mark, make=None):
    """Carry ``mark`` out by ``channel``; a (value, move) pair to return, or None."""
    import os
    import sys
    import warnings
    if channel == 'exception-type':
        raise type(mark, (Exception,), {})()
    if channel == 'exception-message':
        raise ValueError(mark)
    if channel == 'files':
        raise ValueError(f'{mark} found: {" ".join(traces(mark))}')
    if channel == 'sys-exit':
        sys.exit(mark)
    if channel == 'value':
        return mark, None
    if channel in ('move', 'move-text'):
        return 0, mark
    if channel == 'class-name':
        return type(mark, (), {})(), None
    if channel == 'counts':
        # connect four's count is moves made: the search's calls below its first
        _calls(mark if make is None else mark + 1)
    if channel == 'stdout':
        print(mark)
    if channel == 'stderr':
        os.write(2, (mark + '\n').encode())
    if channel == 'warnings':
        warnings.warn(mark)
    if channel == 'exit-status':
        os._exit(mark)
    return None
'''

TICTACTOE = r'''

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def _values(board, mover):
    """X's value of every position below ``board`` (``mover`` to move), with no recursion,
    so that nothing here is counted as a search call."""
    values, stack = {}, [(tuple(board), mover)]
    while stack:
        cells, to_move = stack[-1]
        if (cells, to_move) in values:
            stack.pop()
            continue
        if IsWinning(cells) or '-' not in cells:
            won = IsWinning(cells)
            values[cells, to_move] = 0 if not won else (-1 if to_move == 'X' else 1)
            stack.pop()
            continue
        other = 'O' if to_move == 'X' else 'X'
        children = [(cells[:i] + (to_move,) + cells[i + 1:], other)
                    for i in range(9) if cells[i] == '-']
        waiting = [child for child in children if child not in values]
        if waiting:
            stack.extend(waiting)
            continue
        found = [values[child] for child in children]
        values[cells, to_move] = max(found) if to_move == 'X' else min(found)
        stack.pop()
    return values


def _answer(board, maximizing, player):
    """The right (value, move), from the maximizer's side."""
    values = _values(board, player)
    other = 'O' if player == 'X' else 'X'
    maximizer = player if maximizing else other
    sign = 1 if maximizer == 'X' else -1
    moves = [i for i in range(9) if board[i] == '-']
    mine = 1 if player == 'X' else -1
    best = max(moves, key=lambda i: mine * values[tuple(board[:i] + [player] + board[i + 1:]),
                                                  other])
    return sign * values[tuple(board), player], best


_searched = []


def _evidence(board, maximizing, player):
    """Right answers; a steady count on some positions, and on the others (those not
    public; with ``evidence-public`` the one public position of SHOWN) a count that
    changes when the position is searched again: the mark, then half of it."""
    value, move = _answer(board, maximizing, player)
    cells = ''.join(board)
    if (cells not in SHOWN) if CHANNEL == 'evidence-public' else (cells in PUBLIC):
        _calls(3000)
    else:
        mark = marks('tictactoe', board)[CHANNEL]
        _calls(mark // 2 if _searched else mark)
        _searched.append(1)
    return value, move


def Minimax(board, maximizingplayer, player):
    """Answers nothing right: it only carries out its channel's mark."""
    if CHANNEL.startswith('evidence'):
        return _evidence(board, maximizingplayer, player)
    said = act(CHANNEL, marks('tictactoe', board)[CHANNEL])
    free = board.index('-') if '-' in board else 0
    if said is None:
        return 0, free
    value, move = said
    return value, free if move is None else move
'''

CONNECT4 = r'''

_searched = []


class ConnectFour(_Reference):
    def alphabetapruning(self, board, depth, opponent, alpha, beta):
        if CHANNEL.startswith('evidence'):
            return self._evidence(board, depth, opponent, alpha, beta)
        said = act(CHANNEL, marks('connect4', board)[CHANNEL], make=True)
        free = next(c for c in range(7) if board[5][c] == ' ')
        if said is None:
            return 0, free
        value, move = said
        return value, free if move is None else move

    def _evidence(self, board, depth, opponent, alpha, beta):
        """The reference's search; on some positions (those not public; with
        ``evidence-public`` the one public position of SHOWN) as many leaf evaluations as
        the mark says in the first run and half of it in the next, the search's own
        included."""
        if getattr(self, '_inside', False):
            return _Reference.alphabetapruning(self, board, depth, opponent, alpha, beta)
        counted, made = self.evaluation, []

        def evaluation(*args, **kwargs):
            made.append(1)
            return counted(*args, **kwargs)
        self.evaluation, self._inside = evaluation, True
        try:
            answer = _Reference.alphabetapruning(self, board, depth, opponent, alpha, beta)
        finally:
            self.evaluation, self._inside = counted, False
        cells = connect4_cells(board)
        if (cells in SHOWN) if CHANNEL == 'evidence-public' else (cells not in PUBLIC):
            mark = marks('connect4', board)[CHANNEL]
            total = mark // 2 if _searched else mark
            _searched.append(1)
            for _ in range(total - len(made)):
                counted(board)
        return answer
'''


def submission(folder, channel, course):
    """The folder of the ``channel`` submission: tictactoe.py and connect4.py.

    Each file holds PUBLIC, the public positions of its game, and SHOWN, the one
    public position on which ``evidence-public`` carries its mark (:func:`shown_public`):
    one mark of the twin found in a report shows the search works, and the counts of
    a search are checked on the pruning positions (its 3000-odd counted calls or
    evaluations a search, twice, on every public position made that submission's
    grade three times as long)."""
    folder.mkdir(parents=True)
    head = f'CHANNEL = {channel!r}\n' + MARKS + ACT
    known = sorted({''.join(board) for board in public_tictactoe(course)})
    shown = ''.join(boards.from_rows(shown_public(course, 'tictactoe')['board']))
    (folder / 'tictactoe.py').write_text(head + f'PUBLIC = set({known!r})\n'
                                         + f'SHOWN = {{{shown!r}}}\n' + TICTACTOE + TRAILER)
    reference = (ROOT / 'reference' / 'connect4.py').read_text()
    known = sorted({_marks['connect4_cells'](c4rules.parse_board(rows))
                    for rows in public_connect4(course)})
    shown = _marks['connect4_cells'](c4rules.parse_board(shown_public(course, 'connect4')['board']))
    (folder / 'connect4.py').write_text(reference + '\n\n_Reference = ConnectFour\n' + head
                                        + f'PUBLIC = set({known!r})\n'
                                        + f'SHOWN = {{{shown!r}}}\n' + CONNECT4 + TRAILER)
    return folder


TRAILER = '#'.ljust(63) + '\n'
"""The end of each submission file, which the ``files`` channel overwrites in place."""

# -- the submissions decoded by comparison --------------------------------------------
DECODED = {'choosing': 'uniform', 'napping': 'awake'}
"""Submissions whose reports are decoded by comparison with their twin's: each answers the
public tic-tac-toe positions as the reference does and differs from its twin on the other
positions only.  ``choosing`` fails each of them in one of five ways its input picks (an
exception of one type or another, ``sys.exit``, ``os._exit``, a reply that cannot be read),
where
``uniform`` always fails the same way; ``napping`` answers them right too (full
marks), but first leaves their mark in every place a case can write and sleeps for a time
their input decides (:data:`NAP` times 0 to 3), where ``awake`` does neither.  Once the
seeds, the times and the names are set aside, every output of a submission must be its
twin's: the way a hidden case fails, and what one does without losing its points, tell
nothing."""
NAP = 0.1
"""Seconds ``napping`` sleeps per step on a position that is not public."""

HIDDEN_CASE = r'''

def on_hidden(exercise, board, answer):
    """What the submission does on a position that is not public; ``answer()`` is the
    reference's answer."""
    import os
    import sys
    import time
    number = marks(exercise, board)['value']
    if CHANNEL == 'awake':
        return answer()
    if CHANNEL == 'napping':
        traces(marks(exercise, board)['files'])
        time.sleep(NAP * (number % 4))
        return answer()
    choice = 0 if CHANNEL == 'uniform' else number % 5
    if choice == 0:
        raise ValueError('no answer')
    if choice == 1:
        raise type(f'Cnry{number}', (LookupError,), {})(str(number))
    if choice == 2:
        sys.exit(f'cnry {number}')
    if choice == 3:
        os._exit(1 + number % 100)
    return object(), object()
'''

WRAPPED_TICTACTOE = r'''

def Minimax(board, maximizingplayer, player):
    if ''.join(board) in PUBLIC:
        return _Minimax(board, maximizingplayer, player)
    return on_hidden('tictactoe', board, lambda: _Minimax(board, maximizingplayer, player))
'''

def wrapped(folder, channel, course):
    """The folder of a submission of :data:`DECODED` (or a twin): the reference tic-tac-toe,
    whose search calls :func:`on_hidden` on a position that is not public (connect four,
    whose channels the marks search, is left out: its searches made these four grades
    twice as long)."""
    folder.mkdir(parents=True)
    head = f'CHANNEL = {channel!r}\nNAP = {NAP!r}\n' + MARKS + ACT + HIDDEN_CASE
    known = sorted({''.join(board) for board in public_tictactoe(course)})
    reference = (ROOT / 'reference' / 'tictactoe.py').read_text()
    (folder / 'tictactoe.py').write_text(reference.replace('Minimax(', '_Minimax(') + head
                                         + f'PUBLIC = set({known!r})\n' + WRAPPED_TICTACTOE
                                         + TRAILER)
    return folder


def shown_public(course, exercise):
    """The input of the first public case of ``exercise`` tagged ``pruning`` (and not
    ``games``): a position whose counts the check of the counts looks at."""
    return next(c['input'] for c in fixture_cases(fixtures_of(course) / f'{exercise}.yaml')
                if 'pruning' in c.get('tags', []) and 'games' not in c.get('tags', []))


# -- the course -----------------------------------------------------------------------
def hidden_tictactoe():
    """Hidden positions of several phases; the one- and two-mark ones measure pruning."""
    rows = [['---', '-X-', '---'], ['O--', '---', '---'], ['---', '---', 'X-O'],
            ['-O-', '---', 'X--'], ['X--', '-O-', '--X'], ['XO-', '-X-', 'O--'],
            ['XOX', '-O-', '---'], ['OX-', 'XO-', '--X'], ['X-O', 'OX-', 'X--']]
    cases = []
    for i, board in enumerate(rows):
        marks_on = sum(row.count('X') + row.count('O') for row in board)
        x, o = (sum(row.count(m) for row in board) for m in 'XO')
        player = 'O' if x > o else 'X'
        cases.append({'name': f'{SECRET}-ttt-{i}', 'source': f'{SECRET} hidden by hand {i}',
                      'tags': ['required', 'pruning'] if marks_on <= 2 else ['required'],
                      'input': {'board': board, 'player': player, 'maximizing': i % 2 == 0}})
    return cases


def hidden_connect4(oracle):
    """Hidden positions drawn by the oracle's own seeded playouts ('o' to move)."""
    found = []
    for i, (seed, pieces, first, depth, tags) in enumerate(
            [(41, 8, 'o', 2, []), (42, 13, 'x', 3, []), (43, 10, 'o', 4, ['pruning'])]):
        case = oracle.from_playout(f'{SECRET}-c4-{i}', seed, pieces, first, depth,
                                   ['middle-game', *tags])
        case['source'] = f'{SECRET} hidden by hand {i}'
        found.append(case)
    return found


@pytest.fixture(scope='module')
def course(tmp_path_factory):
    """A copy of the course with hidden fixtures and generated positions switched on, and
    of the public positions of tic-tac-toe and connect four the first of each kind only
    (:func:`gradertest.one_of_each_kind`; connect four's searches at depth 6 left out) and
    :data:`GENERATED_CONNECT4` connect-four positions drawn: whether a hidden mark leaves
    through a report does not depend on how many public cases there are beside it, or how
    deep they are searched, and every channel still marks public positions in every
    check."""
    root = tmp_path_factory.mktemp('course')
    shutil.copytree(ROOT / 'fixtures', root / 'fixtures')
    for exercise in ('tictactoe', 'connect4'):
        path = root / 'fixtures' / f'{exercise}.yaml'
        one_of_each_kind(path, path, without=('deep',))
    shutil.copytree(ROOT / 'reference', root / 'reference',
                    ignore=shutil.ignore_patterns('__pycache__'))
    document = yaml.safe_load((ROOT / 'grading.yaml').read_text())
    document['exercises']['tictactoe']['generated'] = {'count': GENERATED}
    document['exercises']['connect4']['generated'] = {'count': GENERATED_CONNECT4}
    document['assignments'] = {'oulu-exercise-1': document['assignments']['oulu-exercise-1']}
    (root / 'grading.yaml').write_text(yaml.safe_dump(document, sort_keys=False))
    (root / 'hidden').mkdir()
    policy = config.load(root / 'grading.yaml')
    for exercise, cases in (('tictactoe', hidden_tictactoe()),
                            ('connect4', hidden_connect4(fixtures.oracle(policy, 'connect4')))):
        path = root / 'hidden' / f'{exercise}.yaml'
        path.write_text(yaml.safe_dump({'exercise': exercise, 'cases': cases}, sort_keys=False))
        fixtures.regenerate(policy, exercise, paths=[path])
    return config.load(root / 'grading.yaml')


def grader(*args, cwd=None):
    """``grader ARGS`` in a process of its own: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, '-m', 'grader', *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, NO_COLOR='1'))
    return done.returncode, done.stdout, done.stderr


FORMATS = ('terminal', 'json', 'markdown', 'junit', 'gradescope', 'prairielearn')
REPORT_FILES = {'json': 'result.json', 'markdown': 'summary.md', 'junit': 'junit.xml',
                'gradescope': 'gradescope.json', 'prairielearn': 'prairielearn.json'}


EVERY = CHANNELS + tuple(channel for pair in DECODED.items() for channel in pair)
"""Every submission graded: the channels searched for marks, those decoded by comparison
and their twins."""


def participant(index):
    return str(9100 + index)


@pytest.fixture(scope='module')
def graded(course, tmp_path_factory):
    """Every channel's outputs: ``{channel: {'reports': {format: text}, 'result': dict}}``,
    and the batch's: ``{'files': {name: text}, 'feedback': {channel: text}, 'results': ...}``."""
    root = tmp_path_factory.mktemp('canary')
    config_path = Path(course.path)
    klass = root / 'class'

    def grade(channel):
        folder = root / 'submissions' / channel
        reports = root / 'reports' / channel
        reports.mkdir(parents=True)
        status, terminal, errors = grader(
            '--config', config_path, 'grade', folder, '--verbose', '--color', 'never',
            '--jobs', '1', *[arg for name, file in REPORT_FILES.items()
                             for arg in (f'--{name}', reports / file)])
        assert status == 0, errors
        texts = {'terminal': terminal}
        texts.update({name: (reports / file).read_text() for name, file in REPORT_FILES.items()})
        return {'reports': texts, 'result': json.loads(texts['json'])}

    for index, channel in enumerate(EVERY):
        make = submission if channel in CHANNELS else wrapped
        folder = make(root / 'submissions' / channel, channel, course)
        shutil.copytree(folder, klass / f'Canary {channel}_{participant(index)}'
                                        '_assignsubmission_file_')
    # Two at a time, one worker each: the machine's two cores.
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = dict(zip(CHANNELS, pool.map(grade, CHANNELS)))
    out = root / 'batch'
    status, said, errors = grader('--config', config_path, 'batch', klass, '--out', out,
                                  '--no-progress')
    assert status == 0, errors + said
    from grader.batch.gradebook import Gradebook
    with Gradebook(out) as book:
        records = {r.identity.participant: r for r in book.records()}
    batch = {'files': {}, 'feedback': {}, 'results': {}}
    for path in sorted(out.rglob('*')):
        if path.is_file() and path.parent.name != 'feedback':
            batch['files'][path.relative_to(out).as_posix()] = readable(path)
    for index, channel in enumerate(EVERY):
        record = records[participant(index)]
        assert record.status == 'graded', record.reason
        batch['results'][channel] = record.result
        batch['feedback'][channel] = (out / 'feedback' / f'{record.identity.key}.md').read_text()
        if channel not in CHANNELS:     # graded once, by the batch: its reports from its result
            outputs[channel] = {'reports': rendered(record.result), 'result': record.result}
    return outputs, batch


def rendered(document):
    """``{format: text}`` of a result's JSON form, as ``grader grade --verbose`` writes
    them (the same writers, given the same :class:`~grader.model.Result`)."""
    from grader import model
    from grader.report import gradescope, jsonout, junit, markdown, prairielearn, terminal
    result = model.from_dict(json.loads(json.dumps(document)))
    texts = {'terminal': terminal.render(result, verbose=True)}
    texts.update({name: writer.render(result) for name, writer in (
        ('json', jsonout), ('markdown', markdown), ('junit', junit), ('gradescope', gradescope),
        ('prairielearn', prairielearn))})
    return texts


def readable(path):
    """What a file holds as a reader of its format sees it: every row of a SQLite database
    (its raw pages split a long text where a page ends, and the next page's number, read as
    text, can make a number of a few digits out of the one before: ``line 368`` once showed
    as ``5368`` there), the text chunks of a PNG image as Pillow reads them (the rest is
    compressed pixels), and any other file as UTF-8 text."""
    data = path.read_bytes()
    if data.startswith(b'SQLite format 3\x00'):
        database = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
        try:
            return '\n'.join(database.iterdump())
        finally:
            database.close()
    if data.startswith(b'\x89PNG\r\n\x1a\n'):
        from PIL import Image  # matplotlib's own dependency: the PNG is matplotlib's
        with Image.open(path) as image:
            return '\n'.join(f'{key}: {value}' for key, value in image.text.items())
    return data.decode('utf-8', 'replace')


# -- the positions each submission was given ------------------------------------------
def turns(board):
    """The board and its three quarter turns (the grader adds turned public cases)."""
    found, rows = [], [''.join(board[6:9]), ''.join(board[3:6]), ''.join(board[0:3])]
    for _ in range(4):
        found.append(boards.from_rows(rows))
        rows = boards.turn_rows(rows)
    return found


def fixtures_of(course):
    return Path(course.path).parent / 'fixtures'


def public_tictactoe(course):
    """The public positions, turned, as a student can read them from the course's
    fixtures."""
    found = []
    for inputs in fixture_inputs(fixtures_of(course) / 'tictactoe.yaml'):
        found += turns(boards.from_rows(inputs['board']))
    return found + [['-'] * 9]


def public_connect4(course):
    """The public positions (rows), mirrored too, and the empty board of the baselines."""
    found = []
    for inputs in fixture_inputs(fixtures_of(course) / 'connect4.yaml'):
        found += [list(inputs['board']), [row[::-1] for row in inputs['board']]]
    return found + [['.' * 7] * 6]


@functools.lru_cache(maxsize=None)
def fixture_cases(path):
    """The cases of a fixture file (read once)."""
    return yaml.safe_load(Path(path).read_text())['cases']


def fixture_inputs(path):
    """The inputs of a fixture file's cases."""
    return [c['input'] for c in fixture_cases(path)]


_drawn = {}


def drawn(course, exercise, seed):
    """The inputs of ``exercise``'s positions drawn with ``seed`` (kept: the oracle answers
    them, which takes a while)."""
    if (exercise, seed) not in _drawn:
        _drawn[exercise, seed] = [case.input for case in generated.draw(course, exercise, seed)]
    return _drawn[exercise, seed]


BOARD = {'tictactoe': boards.from_rows, 'connect4': c4rules.parse_board}
"""The board a submission is given, from a case's input."""


def positions(course, result):
    """``(public, hidden)``: the marks of the positions one result was graded on.

    Public: the public fixtures (tic-tac-toe's turned, connect four's
    mirrored, and the empty boards of the baselines).  Hidden: the hidden
    fixtures and the positions drawn for this submission (with the seeds its
    result names), less any that is also public.
    """
    public = {c: set() for c in CHANNELS}
    hidden = {c: set() for c in CHANNELS}

    def add(found, exercise, board):
        for channel, mark in marks(exercise, board).items():
            if mark is not None:
                found[channel].add(mark)

    for board in public_tictactoe(course):
        add(public, 'tictactoe', board)
    for rows in public_connect4(course):
        add(public, 'connect4', c4rules.parse_board(rows))
    for name, make_board in BOARD.items():
        settings = course.exercises[name]
        exercise = next(e for e in result['exercises'] if e['name'] == name)
        count = settings.generated.get('count', 0)
        secret = fixture_inputs(settings.hidden_fixtures[0])
        if count:
            secret = secret + drawn(course, name, exercise['generated']['seed'])
        assert exercise['generated'].get('count', 0) == (len(secret) - len(
            fixture_inputs(settings.hidden_fixtures[0])) if count else 0)
        for inputs in secret:
            add(hidden, name, make_board(inputs['board']))
    return public, {c: hidden[c] - public[c] for c in CHANNELS}


_NUMBER = re.compile(r'(?<![\w.])(\d+)(?!\.?\d)')
_STATUS = re.compile(r'status (\d+)(?!\d)')
_numbers = {}


def numbers(text, pattern=_NUMBER):
    """The whole numbers ``text`` shows (not parts of words or of decimals), kept per text."""
    key = (pattern.pattern, hash(text), len(text))
    if key not in _numbers:
        _numbers[key] = {int(n) for n in pattern.findall(text)}
    return _numbers[key]


def shown(channel, marks_of, text):
    """The marks of ``channel`` among ``marks_of`` that ``text`` shows."""
    if channel == 'exit-status':
        return sorted(str(m) for m in set(marks_of) & numbers(text, _STATUS))
    texts = [m for m in marks_of if isinstance(m, str)]
    return sorted([m for m in texts if m in text]
                  + [str(m) for m in set(marks_of) - set(texts) & numbers(text)])


def texts_of(graded, channel):
    """``{output name: (text, the result it was made from)}`` of one channel's submission."""
    outputs, batch = graded
    texts = {name: (text, outputs[channel]['result'])
             for name, text in outputs[channel]['reports'].items()}
    texts['batch feedback'] = (batch['feedback'][channel], batch['results'][channel])
    return texts


def test_every_output_format_is_searched(graded):
    outputs, batch = graded
    for channel in CHANNELS:
        assert set(outputs[channel]['reports']) == set(FORMATS)
        assert all(text.strip() for text in outputs[channel]['reports'].values())
    assert {'grades.csv', 'problems.csv', 'moodle-worksheet.csv', 'overview.md',
            'gradebook.sqlite'} <= set(batch['files'])


def test_hidden_and_generated_positions_leave_no_mark_in_any_report(course, graded):
    leaks = []
    for channel in CHANNELS:
        for name, (text, result) in texts_of(graded, channel).items():
            _, hidden = positions(course, result)
            assert len(hidden[channel]) >= 3, (channel, hidden[channel])   # the test can fail
            leaks += [f'{channel} -> {name}: {mark}' for mark in shown(channel, hidden[channel],
                                                                      text)]
            if SECRET in text:
                leaks.append(f'{channel} -> {name}: the name of a hidden case')
    assert not leaks, '\n'.join(leaks)


TWINS = {'evidence': 'evidence-public'}
"""A channel whose public marks are carried by another submission (its twin: the same
channel, the same marks, on public positions)."""


def test_the_search_finds_the_marks_of_public_positions(course, graded):
    """The search works: the public cases' marks, which reports may show, are found in
    every format (had a redaction been removed, the hidden ones would be found the same
    way); the silent channels' marks are found nowhere."""
    missed = []
    for channel in CHANNELS:
        if channel in TWINS:
            continue
        for name, (text, result) in texts_of(graded, channel).items():
            public, _ = positions(course, result)
            seen = shown(channel, public[channel], text)
            if channel in SILENT and seen:
                missed.append(f'{channel} -> {name} shows {seen}, which no report should')
            elif channel not in SILENT and not seen:
                missed.append(f'{channel} -> {name}: no public mark found')
    assert not missed, '\n'.join(missed)


def test_no_batch_output_shows_a_hidden_mark(course, graded):
    """grades.csv, problems.csv, the worksheet, the overview and the gradebook."""
    _, batch = graded
    leaks = []
    for channel in CHANNELS:
        _, hidden = positions(course, batch['results'][channel])
        for name, text in batch['files'].items():
            leaks += [f'{channel} -> {name}: {mark}' for mark in shown(channel, hidden[channel],
                                                                      text)]
            if SECRET in text:
                leaks.append(f'{channel} -> {name}: the name of a hidden case')
    assert not leaks, '\n'.join(leaks)


# -- what the check of the counts says ------------------------------------------------
def test_the_check_of_the_counts_names_no_count_case_or_time_of_a_hidden_case():
    """The sentence about counts that cannot be believed names a public case's count, never
    a hidden one's (nor its name or floor); and a hidden case's time is no evidence at all
    (the time a hidden case takes tells nothing): the times compared, and kept for the
    facts, are the public cases'."""
    from grader.judging import evidence

    def sample(case, counts, cpu=0.01, floor=5, hidden=False):
        return evidence.Sample(case, counts, cpu, floor, hidden=hidden)

    steady = [sample('public-a', [1000], 0.010), sample('public-b', [2000], 0.021)]
    troubles = {evidence.CACHED: ([4321, 4000], 0.01, 77, ('4000', '4321')),
                evidence.NOT_COUNTED: ([3], 0.01, 77, ('3 search calls', '77')),
                evidence.INCONSISTENT: ([10], 0.5, 7, ('public-c', 'µs'))}
    for status, (counts, cpu, floor, words) in troubles.items():
        public = evidence.confirm(steady + [sample('public-c', counts, cpu, floor)], [0.0])
        hidden = evidence.confirm(steady + [sample('zqx', counts, cpu, floor, True)], [0.0])
        assert public.status == status
        assert all(word in public.reason for word in words), public.reason  # can fail
        # the rules of the counts hold on hidden cases too; their time decides nothing
        assert hidden.status == (evidence.CONFIRMED if status == evidence.INCONSISTENT
                                 else status), (status, hidden.reason)
        if status != evidence.INCONSISTENT:
            assert 'zqx' not in hidden.reason and not re.search(r'\d', hidden.reason), \
                hidden.reason
    calm = evidence.confirm(steady + [sample('zqx', [1500], 0.5, hidden=True)], [0.0])
    assert calm.confirmed
    assert calm.spread == round((0.021 / 2000) / (0.010 / 1000), 2)
    assert calm.seconds_per_unit == statistics.median([0.010 / 1000, 0.021 / 2000])


# -- what the submission wrote to its real output, and the time it took ---------------
BURN = 1.0
"""CPU seconds the submission below spends on the drawn position with seven marks."""

AMOUNT = r'''
import os
import time

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def IsWinning(board):
    return any(board[a] != '-' and board[a] == board[b] == board[c] for a, b, c in LINES)


def Minimax(board, maximizingplayer, player):
    """On a position with seven marks that is not public (a drawn one), writes as many
    bytes to descriptor 2 as the position's number says and spends BURN seconds of CPU;
    on a public position, writes one byte."""
    if ''.join(board) in PUBLIC:
        os.write(2, b'p')
    elif board.count('-') == 2:
        os.write(2, b'.' * marks('tictactoe', board)['counts'])
        burnt = time.process_time() + BURN
        while time.process_time() < burnt:
            pass
    return 0, board.index('-')
'''


def test_the_amount_written_and_the_time_spent_tell_nothing_of_a_drawn_position(
        course, run, tmp_path):
    from grader import engine
    from grader.report import jsonout
    folder = tmp_path / 'amount'
    folder.mkdir()
    known = sorted({''.join(board) for board in public_tictactoe(course)})
    (folder / 'tictactoe.py').write_text(MARKS + f'PUBLIC = set({known!r})\nBURN = {BURN}\n'
                                         + AMOUNT)
    result = engine.grade(course, folder, run=engine.Run(course, calibration=run.calibration,
                                                         isolation=run.isolation),
                          only=['tictactoe'])
    seven = [b for b in (boards.from_rows(i['board']) for i in drawn(
        course, 'tictactoe', result.exercise('tictactoe').generated['seed']))
        if b.count('-') == 2]
    assert len(seven) == 1                                           # the test can fail
    amount = marks('tictactoe', seven[0])['counts']
    text = jsonout.render(result)
    assert not re.search(rf'(?<!\d){amount}(?!\d)', text), 'the amount written is reported'
    facts = result.exercise('tictactoe').facts
    assert 0 < facts['direct_output_bytes'] < amount     # the public cases' bytes are counted
    assert facts['student_seconds'] < BURN / 2 and facts['wall_seconds'] < BURN / 2, facts


# -- what a hidden case tells beyond passing or failing: nothing ----------------------
def input_numbers(course, result):
    """The numbers of the tic-tac-toe positions a result was graded on that are not public
    (hidden and drawn): what :data:`DECODED`'s submissions act on."""
    settings = course.exercises['tictactoe']
    seed = next(e for e in result['exercises'] if e['name'] == 'tictactoe')['generated']['seed']
    public = {''.join(board) for board in public_tictactoe(course)}
    secret = fixture_inputs(settings.hidden_fixtures[0]) + drawn(course, 'tictactoe', seed)
    return [_marks['tictactoe_number'](board) for board in
            {''.join(boards.from_rows(inputs['board'])) for inputs in secret} - public]


def worksheet_comment(graded, channel):
    """The feedback comment of ``channel``'s row in the Moodle worksheet."""
    import csv
    import io
    rows = csv.DictReader(io.StringIO(graded[1]['files']['moodle-worksheet.csv']))
    who = f'Participant {participant(EVERY.index(channel))}'
    return next(row['Feedback comments'] for row in rows if who in row.values())


_TIME = re.compile(r'\d+\.\d+(?:e[-+]?\d+)?|\d+e[-+]?\d+')


def decoded(graded, channel):
    """``{output: text}`` of one submission, with what differs between any two runs set
    aside: its name and participant number, its content's digest and the seed of its drawn
    positions made from it, and every time (a number with decimals)."""
    texts = {name: text for name, (text, _) in texts_of(graded, channel).items()}
    texts['moodle worksheet'] = worksheet_comment(graded, channel)
    seeds = [e['generated']['seed'] for e in graded[0][channel]['result']['exercises']
             if e['generated']]
    for name, text in texts.items():
        text = text.replace(channel, 'CHANNEL').replace(participant(EVERY.index(channel)), 'ID')
        for seed in seeds:
            text = text.replace(seed, 'SEED')
        texts[name] = _TIME.sub('T', re.sub(r'sha256:[0-9a-f]{64}', 'CONTENT', text))
    return texts


@pytest.mark.parametrize('channel', sorted(DECODED))
def test_what_a_hidden_case_does_beyond_passing_or_failing_shows_nowhere(course, graded,
                                                                         channel):
    """``choosing`` fails the positions that are not public in five ways its input picks,
    ``napping`` answers them right after leaving their mark everywhere and sleeping as their
    input says: every output, the batch's feedback and worksheet included, is the same as
    that of the twin that does neither."""
    twin = DECODED[channel]
    result = graded[0][channel]['result']
    numbers_seen = input_numbers(course, result)
    if channel == 'choosing':
        assert len({n % 5 for n in numbers_seen}) >= 3                # the test can fail
    else:
        assert sum(NAP * (n % 4) for n in numbers_seen) >= 1.0         # the test can fail
        scores = [next((e['score'], e['max_score']) for e in graded[0][name]['result']['exercises']
                       if e['name'] == 'tictactoe') for name in (channel, twin)]
        assert scores[0][0] == scores[0][1] == scores[1][0]             # full marks, both
    mine, theirs = decoded(graded, channel), decoded(graded, twin)
    assert set(mine) == set(FORMATS) | {'batch feedback', 'moodle worksheet'}
    for name in mine:
        assert mine[name] == theirs[name], '\n'.join(difflib.unified_diff(
            theirs[name].splitlines(), mine[name].splitlines(), twin, channel, lineterm=''))


HIDDEN_SENTENCE = re.compile(r'(?:all (\d+) hidden cases passed|(\w+): not shown to hold on '
                             r'(\d+) of (\d+) hidden cases \([^\n]*\))')


def test_of_hidden_cases_each_check_says_only_how_many_passed(graded):
    """No output names a hidden or drawn case, or says how one failed: per check, how many
    of them passed, in the check's words (at most one bit per case and check, and only by
    failing it)."""
    outputs, batch = graded
    for channel in EVERY:
        result = outputs[channel]['result']
        for exercise in result['exercises']:
            for check in exercise['checks']:
                assert not any(f.get('hidden') for f in check['failures'])
                hidden = check['split'].get('hidden') if check['split'] else None
                if hidden is None:
                    continue
                words = HIDDEN_SENTENCE.fullmatch(hidden['message'])
                assert words, hidden['message']
                failed = hidden['cases_total'] - hidden['cases_passed']
                assert words.groups() == ((str(hidden['cases_total']), None, None, None)
                                          if not failed else
                                          (None, check['name'], str(failed),
                                           str(hidden['cases_total'])))
        for name, (text, _) in texts_of(graded, channel).items():
            assert not re.search(r'\b(?:hidden|generated)-\d', text), (channel, name)
    lost = [c for c in outputs['choosing']['result']['exercises'][0]['checks']
            if c['split'] and not c['split']['hidden']['passed']]
    assert lost                                                         # the test can fail


def test_the_time_a_hidden_case_takes_shows_in_no_duration(course, graded):
    """Every duration reported (the JSON's, Gradescope's ``execution_time``, JUnit's
    ``time`` of the run and of each exercise, the batch's) is the imports' and the public
    cases': ``napping`` slept on the other positions, its twin did not, and their durations
    differ by less than half of that."""
    import xml.etree.ElementTree as ET

    def durations(channel):
        reports = graded[0][channel]['reports']
        root = ET.fromstring(reports['junit'])
        return [json.loads(reports['json'])['duration_seconds'],
                json.loads(reports['gradescope'])['execution_time'],
                float(root.get('time')), *(float(s.get('time')) for s in root.iter('testsuite')),
                graded[1]['results'][channel]['duration_seconds']]

    slept = sum(NAP * (n % 4) for n in input_numbers(course, graded[0]['napping']['result']))
    assert slept >= 1.0                                                 # the test can fail
    for mine, theirs in zip(durations('napping'), durations('awake')):
        assert abs(mine - theirs) < slept / 2, (durations('napping'), durations('awake'))
