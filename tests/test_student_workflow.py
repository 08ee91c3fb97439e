"""The students' GitHub workflow (student_template/.github/workflows/grade.yml): linted by
zizmor (pinned actions, no credentials left behind, no injection), and its shell steps run
here as GitHub runs them: the grader fetched from a repository whose branch is not `main`,
and the folders it checks found with a grader clone committed inside the submission.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gradertest import ROOT

WORKFLOW = ROOT / 'student_template' / '.github' / 'workflows' / 'grade.yml'


def steps():
    return yaml.safe_load(WORKFLOW.read_text())['jobs']['check']['steps']


def step(name):
    return next(s for s in steps() if s.get('name') == name)


def test_zizmor_finds_nothing():
    zizmor = shutil.which('zizmor', path=str(Path(sys.executable).parent))
    if zizmor is None:
        assert sys.version_info < (3, 11), 'zizmor is in the test extra: pip install -e .[test]'
        pytest.skip('zizmor installs on Python 3.11 and newer only')
    done = subprocess.run([zizmor, '--offline', '--no-progress', str(WORKFLOW)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'No findings' in done.stdout + done.stderr


def test_actions_are_pinned_and_leave_no_credentials():
    text = WORKFLOW.read_text()
    uses = re.findall(r'uses: (\S+)@(\S+)(.*)', text)
    assert uses
    for action, ref, comment in uses:
        assert re.fullmatch(r'[0-9a-f]{40}', ref), action
        assert re.search(r'# v\d+\.\d+\.\d+', comment), f'{action}: say which release'
    checkout = next(s for s in steps() if s.get('uses', '').startswith('actions/checkout@'))
    assert checkout['with']['persist-credentials'] is False
    cache = next(s for s in steps() if s.get('uses', '').startswith('actions/cache@'))
    assert cache['with']['path'] == '~/.cache/pip'
    assert '"$RUNNER_TEMP/grader[sandbox]"' in step('Install the grader')['run']


def bash(script, cwd, **env):
    environment = dict(os.environ, **env)
    return subprocess.run(['bash', '-e', '-c', script], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=60)


def git(*args, cwd):
    subprocess.run(['git', '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', *args],
                   cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize('branch, ref', [('master', ''), ('main', ''),
                                         ('spring-2026', 'spring-2026')])
def test_the_grader_is_fetched_whatever_its_branch_is_called(tmp_path, branch, ref):
    origin = tmp_path / 'origin'
    origin.mkdir()
    git('init', '--quiet', '-b', branch, cwd=origin)
    (origin / 'grading.yaml').write_text('version: 1\n')
    git('add', '.', cwd=origin)
    git('commit', '--quiet', '-m', 'the distribution', cwd=origin)
    runner = tmp_path / 'runner'
    runner.mkdir()
    output = tmp_path / 'output'
    done = bash(step('Fetch the grader')['run'], tmp_path, GRADER_REPO=str(origin),
                GRADER_REF=ref, RUNNER_TEMP=str(runner), GITHUB_OUTPUT=str(output))
    assert done.returncode == 0, done.stderr
    assert (runner / 'grader' / 'grading.yaml').is_file()
    assert re.fullmatch(r'commit=[0-9a-f]{40}\n', output.read_text())


def test_a_grader_clone_inside_the_submission_is_never_graded(tmp_path):
    repo = tmp_path / 'repo'
    for name in ('tictactoe.py', 'travel/src/citymap.py', 'part2/connect4.py',
                 'grader/grading.yaml', 'grader/grader/__init__.py',
                 'grader/student_template/tictactoe.py', 'grader/examples/bob/tictactoe.py',
                 '.git/tictactoe.py'):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text('')
    script = step('Self-check (public checks)')['run']
    found = re.search(r'done < <\((.*?)\)\n\s*if ', script, re.S).group(1)
    done = bash(found, repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['.', './part2', './travel']
