"""Fixture files validate, and every expected block matches the reference."""
import pytest

from grader import fixtures
from grader.errors import UserError
from gradertest import ROOT


@pytest.mark.parametrize('exercise', ['tictactoe', 'connect4', 'eightpuzzle', 'travel'])
def test_expected_values_match_the_reference(policy, exercise):
    assert exercise in policy.exercises, f'{exercise} is not configured in grading.yaml'
    assert fixtures.verify(policy, exercise) == []


def test_verify_reports_a_hand_edited_value(policy, tmp_path):
    from dataclasses import replace
    text = (ROOT / 'fixtures' / 'tictactoe.yaml').read_text()
    edited = text.replace('value: -1', 'value: 1', 1)
    assert edited != text
    path = tmp_path / 'tictactoe.yaml'
    path.write_text(edited)
    settings = replace(policy.exercises['tictactoe'], fixtures=(path,), hidden_fixtures=())
    patched = replace(policy, exercises={**policy.exercises, 'tictactoe': settings})
    problems = fixtures.verify(patched, 'tictactoe')
    assert len(problems) == 1 and 'max-despair' in problems[0] and 'value' in problems[0]


def test_broken_fixture_names_file_and_line(tmp_path):
    text = (ROOT / 'fixtures' / 'tictactoe.yaml').read_text()
    path = tmp_path / 'tictactoe.yaml'
    path.write_text(text.replace('player: X', 'player: Z', 1))
    with pytest.raises(UserError) as info:
        fixtures.read(path, 'tictactoe')
    message = str(info.value)
    line = next(i for i, row in enumerate(path.read_text().splitlines(), 1) if 'player: Z' in row)
    assert f'tictactoe.yaml:{line}' in message and 'player' in message


def test_case_without_expected_asks_for_regeneration(tmp_path):
    path = tmp_path / 't.yaml'
    path.write_text('exercise: tictactoe\ncases:\n- name: a\n'
                    '  input: {board: [---, ---, ---], player: X, maximizing: true}\n')
    with pytest.raises(UserError) as info:
        fixtures.read(path, 'tictactoe')
    assert 'grader fixtures --regenerate' in str(info.value)


def test_digest_changes_with_content(tmp_path):
    a = tmp_path / 'a.yaml'
    a.write_text('x: 1\n')
    first = fixtures.digest([a])
    a.write_text('x: 1  # comment only\n')
    assert fixtures.digest([a]) == first
    a.write_text('x: 2\n')
    assert fixtures.digest([a]) != first


def test_hidden_fixtures_used_only_when_present(policy, tmp_path):
    from dataclasses import replace

    from grader import exercises
    plugin = exercises.get('tictactoe')
    settings = replace(policy.exercises['tictactoe'], hidden_fixtures=(tmp_path / 'absent.yaml',))
    cases, used, hidden = fixtures.load_cases(plugin, settings)
    assert not hidden and all(not c.hidden for c in cases)
    hidden_file = tmp_path / 'hidden.yaml'
    hidden_file.write_text((ROOT / 'fixtures' / 'tictactoe.yaml').read_text())
    settings = replace(settings, hidden_fixtures=(hidden_file,))
    cases, used, hidden = fixtures.load_cases(plugin, settings)
    assert hidden and any(c.hidden for c in cases) and hidden_file in used


@pytest.mark.parametrize('exercise', ['tictactoe', 'connect4'])
def test_regenerating_keeps_the_files_own_comments_and_changes_nothing(policy, tmp_path, exercise):
    """`grader fixtures --regenerate` on the shipped files writes them back byte for byte."""
    from dataclasses import replace
    shipped = ROOT / 'fixtures' / f'{exercise}.yaml'
    path = tmp_path / shipped.name
    path.write_text('# a note of the course staff\n# kept on regeneration\n'
                    + ''.join(row for row in shipped.read_text().splitlines(keepends=True)
                              if not row.startswith('#')))
    before = path.read_text()
    settings = replace(policy.exercises[exercise], fixtures=(path,), hidden_fixtures=())
    patched = replace(policy, exercises={**policy.exercises, exercise: settings})
    fixtures.regenerate(patched, exercise)
    assert path.read_text() == before
    fresh = tmp_path / 'fresh.yaml'
    fresh.write_text(''.join(row for row in shipped.read_text().splitlines(keepends=True)
                             if not row.startswith('#')))
    fixtures.regenerate(patched, exercise, paths=[fresh])
    assert fresh.read_text().startswith(f'# {exercise} fixture cases.')
