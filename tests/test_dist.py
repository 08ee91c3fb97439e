"""The student distribution holds no reference solutions and no hidden fixtures."""
import os
import subprocess
import sys

import pytest
import yaml

from grader import dist
from grader.errors import UserError
from gradertest import ROOT, without_long_eightpuzzle_waits


def test_distribution_is_public_and_works(policy, tmp_path):
    out = tmp_path / 'dist'
    written = dist.build(policy, out)
    files = [p.relative_to(out).as_posix() for p in out.rglob('*') if p.is_file()]
    assert 'grading.yaml' in written and 'grader' in written
    assert 'setup.py' in written and (out / 'grader' / 'child' / '_tally.c').is_file()
    assert not any(f.endswith('.so') for f in files)      # an install builds its own
    assert not any(f.startswith('reference/') or '/reference/' in f for f in files)
    assert not any(f.startswith('hidden/') for f in files)
    for settings in policy.exercises.values():
        for fixture in settings.fixtures:
            assert (out / fixture.relative_to(ROOT)).is_file()
    # Grading works from the distribution alone, with the same verdict.  Alice's eight
    # puzzle (the handout's list style) fails the hard and unsolvable information checks
    # under any limit: smaller ones give the same verdict sooner.
    document = yaml.safe_load((out / 'grading.yaml').read_text())
    without_long_eightpuzzle_waits(document)
    (out / 'grading.yaml').write_text(yaml.safe_dump(document, sort_keys=False))
    env = dict(os.environ, PYTHONPATH=str(out))
    proc = subprocess.run([sys.executable, '-m', 'grader', '--config', str(out / 'grading.yaml'),
                           'check', str(ROOT / 'examples' / 'alice'), '-q', '--fail-under', '2.5'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # The oracles are not there, so fixture generation says so in one line.
    proc = subprocess.run([sys.executable, '-m', 'grader', '--config', str(out / 'grading.yaml'),
                           'fixtures', '--verify', '--exercise', 'tictactoe'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and 'no oracle for tictactoe' in proc.stderr


def test_refuses_a_non_empty_folder(policy, tmp_path):
    (tmp_path / 'x').write_text('')
    with pytest.raises(UserError):
        dist.build(policy, tmp_path)


def test_the_distribution_ships_the_students_readme(policy, tmp_path):
    out = tmp_path / 'dist'
    dist.build(policy, out)
    readme = (out / 'README.md').read_text()
    assert readme == (ROOT / 'student_template' / 'README.grader.md').read_text()
    assert readme != (ROOT / 'README.md').read_text()
    for instructor_only in ('grader batch', 'reference/', 'fixtures --regenerate', 'hidden/'):
        assert instructor_only not in readme, instructor_only
    assert 'grader' in readme and 'check' in readme


def test_the_workflow_checks_every_exercise_folder_the_route_planner_included(tmp_path):
    """The workflow's check step, run with a stand-in `grader` that records its calls,
    in a copy of the student template (exercise files at the top, travel/src/citymap.py)."""
    import shutil
    repo = tmp_path / 'repo'
    shutil.copytree(ROOT / 'student_template', repo)
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'grader').write_text('#!/bin/sh\necho "$@" >> "$CALLS"\n')
    (bin_dir / 'grader').chmod(0o755)
    workflow = yaml.safe_load((repo / '.github' / 'workflows' / 'grade.yml').read_text())
    [step] = [s for s in workflow['jobs']['check']['steps']
              if 'grader' in s.get('run', '') and 'check' in s.get('run', '')]
    calls = tmp_path / 'calls'
    env = dict(os.environ, PATH=f'{bin_dir}:{os.environ["PATH"]}', RUNNER_TEMP=str(tmp_path),
               CALLS=str(calls))
    done = subprocess.run(['bash', '-c', step['run']], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    checked = sorted(line.split()[3] for line in calls.read_text().splitlines())
    assert checked == ['.', './travel']
    assert (repo / 'travel' / 'src' / 'citymap.py').is_file()
    # a repository with no exercise file fails the run, saying why
    empty = tmp_path / 'empty'
    empty.mkdir()
    done = subprocess.run(['bash', '-c', step['run']], cwd=empty, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and 'No exercise file found' in done.stderr
