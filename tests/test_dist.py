"""The student distribution holds no reference solutions and no hidden fixtures."""
import os
import subprocess
import sys

import pytest

from grader import dist
from grader.errors import UserError

from gradertest import ROOT


def test_distribution_is_public_and_works(policy, tmp_path):
    out = tmp_path / 'dist'
    written = dist.build(policy, out)
    files = [p.relative_to(out).as_posix() for p in out.rglob('*') if p.is_file()]
    assert 'grading.yaml' in written and 'grader' in written
    assert not any(f.startswith('reference/') or '/reference/' in f for f in files)
    assert not any(f.startswith('hidden/') for f in files)
    for settings in policy.exercises.values():
        for fixture in settings.fixtures:
            assert (out / fixture.relative_to(ROOT)).is_file()
    # Grading works from the distribution alone, with the same verdict.
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
