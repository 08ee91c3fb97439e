"""The reference's answers stored in the pools: current, used only while they hold, and the
same cases either way (grader/poolanswers.py)."""
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from grader import generated, poolanswers, selection
from gradertest import ROOT

EXERCISES = ['tictactoe', 'connect4', 'eightpuzzle', 'travel']


@pytest.mark.parametrize('exercise', EXERCISES)
def test_every_pool_holds_the_references_answers(policy, exercise):
    pool = generated.pool_of(policy, exercise)
    assert poolanswers.stored(pool, poolanswers.key(policy, exercise)) is not None, \
        'run grader fixtures --regenerate'
    assert selection.answer_problems(policy, exercise) == []


@pytest.mark.parametrize('exercise', ['connect4', 'eightpuzzle'])
def test_the_drawn_cases_are_the_same_with_the_stored_answers_or_without(policy, exercise,
                                                                         monkeypatch):
    seeds = [generated.seed_for(policy.course, exercise, f'{n:064x}') for n in range(3)]
    oracle, answered = generated.oracle_of(policy, exercise), []
    expect = oracle.expect
    monkeypatch.setattr(oracle, 'expect', lambda *a: answered.append(a) or expect(*a))
    kept = [generated.draw(policy, exercise, seed) for seed in seeds]
    drawn_by_the_oracle = len(seeds) * policy.exercises[exercise].generated['count']
    assert len(answered) == drawn_by_the_oracle      # the pool's positions: stored answers
    monkeypatch.setattr(poolanswers, 'stored', lambda pool, under: None)
    fresh = [generated.draw(policy, exercise, seed) for seed in seeds]
    assert len(answered) == drawn_by_the_oracle + sum(len(cases) for cases in fresh)
    assert kept == fresh and all(any(c.tags for c in cases) for cases in kept)


def _copied_course(policy, tmp_path):
    """The course with its reference folder copied (same folder name: the oracles import
    by it), so its pools and sources can be edited."""
    folder = tmp_path / 'reference'
    shutil.copytree(ROOT / 'reference', folder,
                    ignore=shutil.ignore_patterns('__pycache__'))
    return replace(policy, reference=str(folder)), folder


def test_answers_under_other_options_or_sources_are_not_used(policy, tmp_path):
    course, folder = _copied_course(policy, tmp_path)
    pool = generated.pool_of(course, 'connect4')
    assert poolanswers.stored(pool, poolanswers.key(course, 'connect4')) is not None
    settings = course.exercises['connect4']
    other = replace(course, exercises={**course.exercises, 'connect4': replace(
        settings, options=dict(settings.options, depth_note='changed'))})
    assert poolanswers.stored(pool, poolanswers.key(other, 'connect4')) is None
    with open(folder / 'oracles' / 'connect4.py', 'a') as f:
        f.write('\n# an edit\n')
    assert poolanswers.stored(pool, poolanswers.key(course, 'connect4')) is None
    [line] = selection.answer_problems(course, 'connect4')
    assert 'connect4.json' in line and 'grader fixtures --regenerate' in line
    assert selection.refresh_answers(course, 'connect4') == (folder / 'pools' / 'connect4.json',
                                                       len(pool['positions']))
    assert selection.answer_problems(course, 'connect4') == []


def test_the_key_is_the_same_in_every_checkout_and_follows_the_data(policy, tmp_path):
    """Config resolves the data files' options against the checkout: the key digests the
    files named, so a clone elsewhere (CI's) uses the stored answers, and other data not."""
    course, _ = _copied_course(policy, tmp_path)
    settings = course.exercises['travel']
    elsewhere = tmp_path / 'elsewhere'
    options = dict(settings.options)
    for option, value in settings.options.items():
        if isinstance(value, str) and Path(value).is_absolute():
            copied = elsewhere / option / Path(value).name
            copied.parent.mkdir(parents=True)
            shutil.copyfile(value, copied)
            options[option] = str(copied)
    assert options != settings.options
    moved = replace(course, exercises={**course.exercises,
                                       'travel': replace(settings, options=options)})
    assert poolanswers.key(moved, 'travel') == poolanswers.key(policy, 'travel')
    assert poolanswers.stored(generated.pool_of(moved, 'travel'),
                              poolanswers.key(moved, 'travel')) is not None
    with open(options['stops_file'], 'a') as f:
        f.write(' ')
    assert poolanswers.key(moved, 'travel') != poolanswers.key(policy, 'travel')


def test_answers_of_another_shape_are_not_used(policy):
    pool = generated.pool_of(policy, 'tictactoe')
    under = poolanswers.key(policy, 'tictactoe')
    assert poolanswers.stored(pool, under) is not None
    for broken in ([None] + pool['answers']['expected'][1:], pool['answers']['expected'][1:],
                   'not a list'):
        assert poolanswers.stored(dict(pool, answers={'under': under, 'expected': broken}),
                                  under) is None


def test_a_hand_edited_answer_is_reported(policy, tmp_path):
    course, folder = _copied_course(policy, tmp_path)
    path = folder / 'pools' / 'tictactoe.json'
    pool = json.loads(path.read_text())
    pool['answers']['expected'][3]['value'] = 7
    path.write_text(json.dumps(pool))
    assert selection.answer_problems(course, 'tictactoe') == [
        f'{path}: position 4: the stored answer differs from the reference']


def test_a_course_that_draws_no_killers_leaves_the_pool_alone(policy, tmp_path):
    course, folder = _copied_course(policy, tmp_path)
    settings = course.exercises['connect4']
    drawn = {k: v for k, v in settings.generated.items() if k != 'killers'}
    other = replace(course, exercises={**course.exercises, 'connect4': replace(
        settings, generated=drawn, options=dict(settings.options, depth_note='changed'))})
    before = (folder / 'pools' / 'connect4.json').read_bytes()
    assert selection.refresh_answers(other, 'connect4') is None
    assert selection.answer_problems(other, 'connect4') == []
    assert (folder / 'pools' / 'connect4.json').read_bytes() == before
