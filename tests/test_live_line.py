"""The line a self-check keeps up to date on a terminal (grader/report/live.py)."""
import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from bench.run import on_a_terminal
from grader import engine
from grader.report import live
from gradertest import ROOT

BUGGY = ROOT / 'tests' / 'submissions' / 'tictactoe' / 'bug_wrong_sign.py'


class Terminal(io.StringIO):
    encoding = 'utf-8'

    def isatty(self):
        return True


class AsciiTerminal(Terminal):
    encoding = 'ascii'


def test_the_line_counts_the_cases_and_the_failed_and_is_erased(monkeypatch):
    stream = Terminal()
    line = live.Live(stream, width=60)
    monkeypatch.setattr(live, 'INTERVAL', 3600.0)     # only forced drawings
    line.started('tictactoe', 3)
    line.started('connect4', 2)
    line.judged('tictactoe', 0, True)       # not drawn: too soon after the last
    line.judged('tictactoe', 2, False)
    assert stream.getvalue().count('\r') == 2
    line.judged('tictactoe', 1, True)       # the exercise's last case: drawn at once
    assert line.line() == 'checking: tictactoe 3/3, 1 failed · connect4 0/2'
    assert stream.getvalue().endswith('\rchecking: tictactoe 3/3, 1 failed · connect4 0/2\x1b[K')
    line.judged('tictactoe', 2, True)       # judged again (a lane graded again): counted once
    assert line.line().startswith('checking: tictactoe 3/3 ·')
    line.clear()
    assert stream.getvalue().endswith('\r\x1b[K')
    line.clear()                            # nothing drawn since: nothing to erase
    assert stream.getvalue().count('\r\x1b[K') == 1


def test_a_line_wider_than_the_terminal_is_cut():
    stream = Terminal()
    line = live.Live(stream, width=24)
    line.started('eightpuzzle', 25)
    drawn = stream.getvalue()
    assert drawn == '\rchecking: eightpuzzle …\x1b[K'      # 23 characters: the last column free


def test_a_terminal_that_cannot_show_the_dots_gets_ascii():
    stream = AsciiTerminal()
    line = live.Live(stream, width=30)
    line.started('tictactoe', 3)
    line.started('connect4', 2)
    assert line.line() == 'checking: tictactoe 0/3 | connect4 0/2'
    assert stream.getvalue().endswith('\rchecking: tictactoe 0/3 | ...\x1b[K')   # 29 wide
    stream.getvalue().encode('ascii')


def test_no_line_off_a_terminal(monkeypatch):
    assert live.on_terminal(io.StringIO()) is None
    monkeypatch.setenv('TERM', 'dumb')
    assert live.on_terminal(Terminal()) is None
    monkeypatch.setenv('TERM', 'xterm')
    assert isinstance(live.on_terminal(Terminal()), live.Live)


class Recorder:
    """A ``progress`` that notes what it hears."""

    def __init__(self):
        self.cases, self.verdicts = {}, {}

    def started(self, exercise, cases):
        self.cases[exercise] = cases

    def judged(self, exercise, index, passed):
        self.verdicts.setdefault(exercise, {})[index] = passed


def test_every_case_is_heard_of_and_the_failed_ones_are_those_the_result_fails(policy, run,
                                                                              tmp_path):
    (tmp_path / 'tictactoe.py').write_text(BUGGY.read_text())
    heard = Recorder()
    check = engine.Run(policy, include_hidden=False, calibration=run.calibration,
                       isolation=run.isolation)    # a self-check: the public cases only
    result = engine.grade(policy, tmp_path, run=check, progress=heard)
    [exercise] = [e for e in result.exercises if e.submitted]
    assert sorted(heard.verdicts['tictactoe']) == list(range(heard.cases['tictactoe']))
    failed_in_result = {f['case'] for c in exercise.checks if c.max_score > 0
                        for f in c.failures}
    failed_heard = sum(not passed for passed in heard.verdicts['tictactoe'].values())
    assert failed_heard == len(failed_in_result) > 0
    assert exercise.score < exercise.max_score


@pytest.mark.timeout(120)
def test_a_check_on_a_terminal_tells_how_far_it_got_then_erases_the_line(tmp_path):
    (tmp_path / 'tictactoe.py').write_text(BUGGY.read_text())
    report = tmp_path / 'r.json'
    seen, chunks, out, _ = on_a_terminal('check', str(tmp_path), '--color', 'never',
                                          '--json', str(report))
    drawings = [d for d in seen.split('\r') if d.startswith('checking:')]
    assert len(drawings) >= 2 and seen.endswith('\r\x1b[K')
    assert drawings[0].startswith('checking: tictactoe 0/')
    last = re.fullmatch(r'checking: tictactoe (\d+)/(\d+), (\d+) failed\x1b\[K', drawings[-1])
    assert last and last[1] == last[2], drawings[-1]
    checks = json.loads(report.read_text())['exercises'][0]['checks']
    failed = {f['case'] for c in checks if c['max_score'] > 0 for f in c['failures']}
    assert int(last[3]) == len(failed) > 0
    assert 'checking:' not in out and '\r' not in out and 'Score:' in out


@pytest.mark.timeout(120)
def test_the_line_fits_its_own_terminal(tmp_path):
    """The width is the terminal's own (here 30 columns; $COLUMNS says 200)."""
    for name in ('tictactoe.py', 'connect4.py'):
        shutil.copy(ROOT / 'reference' / name, tmp_path / name)
    seen, _, _, _ = on_a_terminal('check', str(tmp_path), columns=30)
    drawings = [d for d in seen.split('\r') if d.startswith('checking:')]
    assert drawings and all(len(d.replace('\x1b[K', '')) < 30 for d in drawings)
    assert any(d.replace('\x1b[K', '').endswith('…') for d in drawings)


@pytest.mark.timeout(120)
def test_no_line_for_an_official_grade_or_off_a_terminal(tmp_path):
    (tmp_path / 'tictactoe.py').write_text(BUGGY.read_text())
    seen, _, out, _ = on_a_terminal('grade', str(tmp_path), '--color', 'never')
    assert 'checking:' not in seen and 'Score:' in out
    done = subprocess.run([sys.executable, '-m', 'grader', 'check', str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert 'checking:' not in done.stderr and '\r' not in done.stderr and 'Score:' in done.stdout
