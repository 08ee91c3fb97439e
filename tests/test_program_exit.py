"""``grader grade`` and ``grader check`` end their process as soon as they are done.

The program (``main()`` without arguments) runs without the cyclic garbage collector,
then runs the exit functions and flushes its output, and ends without the interpreter's
teardown (:func:`grader.cli.end_now`);
what it printed and wrote is whole, its exit status is the command's, and nothing it
started is left running.  Other commands, and calls with arguments (the tests', the
platforms' in-process ones), return as before.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from gradertest import ROOT

PROGRAM = textwrap.dedent('''
    import atexit, gc, os, sys
    marks = sys.argv.pop(1)
    atexit.register(lambda: open(os.path.join(marks, 'exit-functions-ran'), 'w').close())
    atexit.register(lambda: gc.isenabled() or open(os.path.join(marks, 'collector-off'),
                                                    'w').close())
    from grader.cli import main
    code = main()
    open(os.path.join(marks, 'main-returned'), 'w').close()
    sys.exit(code)
    ''')


def program(tmp_path, *arguments):
    """``grader ARGUMENTS`` as the program runs it, with an exit function and a line after
    ``main()`` that leave marks: (completed process, the marks left)."""
    marks = tmp_path / 'marks'
    marks.mkdir(exist_ok=True)
    for mark in marks.iterdir():
        mark.unlink()
    done = subprocess.run([sys.executable, '-c', PROGRAM, str(marks), '--config',
                           str(ROOT / 'grading.yaml'), *arguments],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, NO_COLOR='1'))
    return done, {mark.name for mark in marks.iterdir()}


@pytest.fixture
def folder(tmp_path):
    found = tmp_path / 'hand-in'
    found.mkdir()
    (found / 'tictactoe.py').write_bytes((ROOT / 'reference' / 'tictactoe.py').read_bytes())
    return found


@pytest.mark.parametrize('command', ['grade', 'check'])
def test_grade_and_check_end_at_once_with_everything_written(tmp_path, folder, command):
    report = tmp_path / 'result.json'
    done, marks = program(tmp_path, command, str(folder), '--json', str(report))
    assert done.returncode == 0, done.stderr
    # ended in main(), after the exit functions, the collector off
    assert marks == {'exit-functions-ran', 'collector-off'}
    assert ('Score: ' if command == 'grade' else 'tictactoe') in done.stdout
    assert done.stdout.endswith('\n') and not done.stderr.strip()
    assert json.loads(report.read_text())['exercises'][0]['name'] == 'tictactoe'


def test_a_failing_grade_ends_with_its_status(tmp_path):
    done, marks = program(tmp_path, 'grade', str(tmp_path / 'nowhere'))
    assert done.returncode == 2 and done.stderr.startswith('grader: error: ')
    assert marks == {'exit-functions-ran', 'collector-off'}


def test_other_commands_and_calls_with_arguments_return(tmp_path, folder):
    done, marks = program(tmp_path, 'doctor')
    assert done.returncode == 0, done.stderr
    assert marks == {'main-returned', 'exit-functions-ran'}   # the collector on
    from grader import cli
    assert cli.main(['--config', str(ROOT / 'grading.yaml'), 'check', str(folder), '-q',
                     '--json', str(tmp_path / 'in-process.json')]) == 0


WATCHER = textwrap.dedent('''
    import ctypes, json, os, signal, subprocess, sys, time
    import psutil
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # PR_SET_CHILD_SUBREAPER: orphans come here
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 2.0
    def running():
        return [p for p in psutil.Process().children(recursive=True)
                if p.status() != psutil.STATUS_ZOMBIE]
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = running()
    print(json.dumps({"status": done.returncode, "left": [p.cmdline() for p in left]}))
    for process in left:
        os.kill(process.pid, signal.SIGKILL)   # what this watcher adopted, by pid
    ''')
"""Runs a command as a child subreaper: whatever the command leaves running is adopted here
and reported (then killed), 2 s after it ended at most."""


def test_nothing_the_program_started_outlives_it(tmp_path, folder):
    """The sandboxes, the spares and the calibration's process all end with the program."""
    done = subprocess.run([sys.executable, '-c', WATCHER, sys.executable, '-m', 'grader',
                           '--config', str(ROOT / 'grading.yaml'), 'grade', str(folder)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report == {'status': 0, 'left': []}, report
