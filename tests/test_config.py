"""grading.yaml errors are one line naming the file, the line and the key."""
import pytest

from grader import config
from grader.errors import UserError
from gradertest import ROOT


def write(tmp_path, text):
    path = tmp_path / 'grading.yaml'
    path.write_text(text)
    return path


def load_error(tmp_path, text):
    with pytest.raises(UserError) as info:
        config.load(write(tmp_path, text))
    return str(info.value)


def repo_policy_text():
    return (ROOT / 'grading.yaml').read_text()


def test_repository_policy_loads():
    policy = config.load(ROOT / 'grading.yaml')
    assert 'tictactoe' in policy.exercises
    assert policy.exercises['tictactoe'].max_score == pytest.approx(2.5)


def test_yaml_syntax_error_names_line(tmp_path):
    message = load_error(tmp_path, 'version: 1\nexercises: [\n  - a\n')
    assert 'grading.yaml:' in message and 'not valid YAML' in message


def test_unknown_key_names_path_and_line(tmp_path):
    text = repo_policy_text().replace('scoring:\n', 'scoring:\n  bonus: 3\n')
    message = load_error(tmp_path, text)
    line = text.splitlines().index('scoring:') + 1
    assert f'grading.yaml:{line}: scoring' in message
    assert 'bonus' in message


def test_wrong_type_points(tmp_path):
    text = repo_policy_text().replace('values: {points: 1.0}', 'values: {points: many}', 1)
    message = load_error(tmp_path, text)
    assert 'exercises.tictactoe.checks.values.points' in message
    line = next(i for i, row in enumerate(text.splitlines(), 1) if 'points: many' in row)
    assert f':{line}:' in message


def test_unknown_check(tmp_path):
    text = repo_policy_text().replace('values: {points: 1.0}', 'valuez: {points: 1.0}', 1)
    message = load_error(tmp_path, text)
    assert 'unknown check' in message and 'valuez' in message


def test_unknown_exercise_in_assignment(tmp_path):
    text = repo_policy_text().replace('exercises: [tictactoe', 'exercises: [tictac, tictactoe', 1)
    message = load_error(tmp_path, text)
    assert "'tictac' is not configured" in message


def test_missing_file(tmp_path):
    with pytest.raises(UserError) as info:
        config.load(tmp_path / 'nope.yaml')
    assert 'nope.yaml' in str(info.value) and 'not found' in str(info.value)


def test_time_limit_is_factor_of_unit(policy):
    settings = policy.exercises['tictactoe']
    assert settings.limit('default', 1.0) == pytest.approx(settings.factors['default'])
    assert settings.limit('default', 1e-6) == pytest.approx(settings.min_seconds)
