"""Hidden fixtures authored as README.md ("Hidden fixtures") says: inputs only, written by
hand, then `grader fixtures --regenerate` fills in the expected answers, for every
exercise of the course; `grader fixtures --verify` agrees, and grading reads them.

The course copy keeps two public cases of each kind (gradertest.quick_course), so
regenerating its public files too stays cheap; the hidden cases are the first public
case of each exercise, renamed and with its expected block left out.
"""
import os
import subprocess
import sys

import pytest
import yaml

from grader import config, fixtures
from grader import exercises as plugins
from gradertest import ROOT, quick_course


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    return quick_course(policy, tmp_path_factory.mktemp('course'))


def grader(course, *args):
    env = {k: v for k, v in os.environ.items() if k != 'GRADER_CONFIG'}
    return subprocess.run([sys.executable, '-m', 'grader', '--config', str(course), *args],
                          capture_output=True, text=True, timeout=300, env=env)


def hand_written(policy, exercise):
    """A hidden file as an instructor writes it: name, source, tags and input only."""
    public = yaml.safe_load(policy.exercises[exercise].fixtures[0].read_text())
    case = public['cases'][0]
    written = {'name': f"hidden-{case['name']}", 'source': 'hand-made for the hidden checks',
               'tags': case.get('tags', []), 'input': case['input']}
    return {'exercise': exercise, 'cases': [written]}


def test_the_readme_says_how(course):
    readme = (ROOT / 'README.md').read_text()
    section = readme[readme.index('### Hidden fixtures'):]
    assert 'grader fixtures --regenerate' in section and 'hidden_fixtures' in section
    assert 'input' in section and 'expected' in section


def test_inputs_only_then_regenerate_fills_the_expected_answers(course):
    policy = config.load(course)
    for exercise, settings in policy.exercises.items():
        assert settings.hidden_fixtures, exercise          # grading.yaml names one each
        path = settings.hidden_fixtures[0]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(hand_written(policy, exercise), sort_keys=False))
    done = grader(course, 'fixtures', '--regenerate')
    assert done.returncode == 0, done.stderr
    for exercise, settings in policy.exercises.items():
        path = settings.hidden_fixtures[0]
        assert f'{path}: 1 cases regenerated' in done.stdout
        data, _ = fixtures.read(path, exercise)             # expected answers now required
        assert data['cases'][0]['expected'] and data['cases'][0]['name'].startswith('hidden-')
        cases, _, hidden_used = fixtures.load_cases(plugins.get(exercise), settings)
        assert hidden_used and any(c.hidden for c in cases)
    done = grader(course, 'fixtures', '--verify')
    assert done.returncode == 0, done.stdout + done.stderr
