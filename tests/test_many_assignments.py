"""One run grades every assignment a folder holds (``--assignment all``).

Each assignment's result equals grading it alone, and an exercise that two
assignments share is graded once.
"""
import dataclasses
import shutil

from gradertest import ROOT
from grader import engine
from grader.config import Assignment


def checks(result):
    return {(e.name, c.name): (c.score, c.cases_passed, c.message)
            for e in result.exercises for c in e.checks}


def both_assignments(tmp_path):
    folder = tmp_path / 'both'
    (folder / 'src').mkdir(parents=True)
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder / 'tictactoe.py')
    shutil.copy(ROOT / 'reference' / 'travel' / 'src' / 'citymap.py', folder / 'src' / 'citymap.py')
    return folder


def test_all_grades_each_assignment_found_as_alone(policy, run, tmp_path):
    folder = both_assignments(tmp_path)
    together = engine.grade_many(policy, folder, [engine.ALL], run=run)
    assert [r.assignment for r in together] == ['oulu-exercise-1', 'routeplanner']
    for result in together:
        alone = engine.grade(policy, folder, assignment=result.assignment, run=run)
        assert (result.score, result.max_score) == (alone.score, alone.max_score)
        assert checks(result) == checks(alone)
        assert result.explanation == alone.explanation
        assert result.fixtures_digest == alone.fixtures_digest
    assert together[1].score == together[1].max_score


def test_without_all_the_first_assignment_found_is_graded(policy, run, tmp_path):
    folder = both_assignments(tmp_path)
    only, = engine.grade_many(policy, folder, [None], run=run)
    assert only.assignment == 'oulu-exercise-1'


def test_an_exercise_in_two_assignments_is_graded_once(policy, run, tmp_path):
    folder = both_assignments(tmp_path)
    extra = Assignment(name='tictactoe-only', title='Tic-tac-toe alone', exercises=('tictactoe',),
                       count=1, max_score=2.5, requirements=[])
    shared = dataclasses.replace(policy, assignments={**policy.assignments, extra.name: extra})
    started = []
    results = engine.grade_many(shared, folder, ['oulu-exercise-1', 'tictactoe-only'], run=run,
                                only=['tictactoe'], progress=started.append)
    assert started == ['tictactoe']
    first, second = (r.exercise('tictactoe') for r in results)
    assert first is not second
    assert checks(results[0]) == checks(results[1])
    assert second.counted and second.score == second.max_score
