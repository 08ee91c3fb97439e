"""One run grades every assignment a folder holds (``--assignment all``).

Each assignment's result equals grading it alone, and an exercise that two
assignments share is graded once.  Graded under :func:`gradertest.quick_course`
(fewer cases): what is graded once and what is written where does not depend on
how many cases there are.
"""
import dataclasses
import shutil

import pytest

from grader import config, engine
from grader.config import Assignment
from gradertest import ROOT, quick_course


@pytest.fixture(scope='module')
def course(policy, tmp_path_factory):
    """The grading.yaml of the quick course."""
    return quick_course(policy, tmp_path_factory.mktemp('course'))


@pytest.fixture(scope='module')
def quick(course, run):
    """``(policy, run)`` of the quick course (the session's calibration)."""
    policy = config.load(course)
    return policy, engine.Run(policy, calibration=run.calibration, isolation=run.isolation)


def checks(result):
    return {(e.name, c.name): (c.score, c.cases_passed, c.message)
            for e in result.exercises for c in e.checks}


def both_assignments(tmp_path):
    folder = tmp_path / 'both'
    (folder / 'src').mkdir(parents=True)
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder / 'tictactoe.py')
    shutil.copy(ROOT / 'reference' / 'travel' / 'src' / 'citymap.py', folder / 'src' / 'citymap.py')
    return folder


def test_all_grades_each_assignment_found_as_alone(quick, tmp_path):
    policy, run = quick
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


def test_without_all_the_first_assignment_found_is_graded(quick, tmp_path):
    policy, run = quick
    folder = both_assignments(tmp_path)
    only, = engine.grade_many(policy, folder, [None], run=run)
    assert only.assignment == 'oulu-exercise-1'


def test_an_exercise_in_two_assignments_is_graded_once(quick, tmp_path):
    policy, run = quick
    folder = both_assignments(tmp_path)
    extra = Assignment(name='tictactoe-only', title='Tic-tac-toe alone', exercises=('tictactoe',),
                       count=1, max_score=2.5, requirements=[])
    shared = dataclasses.replace(policy, assignments={**policy.assignments, extra.name: extra})
    started = []

    class Progress:
        def started(self, exercise, cases):
            started.append(exercise)

        def judged(self, exercise, index, passed):
            pass
    results = engine.grade_many(shared, folder, ['oulu-exercise-1', 'tictactoe-only'], run=run,
                                only=['tictactoe'], progress=Progress())
    assert started == ['tictactoe']
    first, second = (r.exercise('tictactoe') for r in results)
    assert first is not second
    assert checks(results[0]) == checks(results[1])
    assert second.counted and second.score == second.max_score


# -- the command line -----------------------------------------------------------
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import jsonschema  # noqa: E402

from grader import yamlio  # noqa: E402


def grader(course, *args, cwd):
    return subprocess.run([sys.executable, '-m', 'grader', '--config', str(course),
                           *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_check_reports_every_assignment_found(course, tmp_path):
    folder = both_assignments(tmp_path)
    done = grader(course, 'check', folder, '--color', 'never', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    scores = [line for line in done.stdout.splitlines() if line.startswith('Score')]
    assert len(scores) == 2, done.stdout
    assert scores[1] == 'Score: 5.00 / 5.00'


def test_grade_all_writes_one_schema_valid_report_per_assignment(course, tmp_path):
    folder = both_assignments(tmp_path)
    done = grader(course, 'grade', folder, '--assignment', 'all', '--json', tmp_path / 'r.json',
                  '-q', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    validator = jsonschema.Draft202012Validator(yamlio.schema('result.schema.json'))
    written = sorted(p.name for p in tmp_path.glob('r.*.json'))
    assert written == ['r.oulu-exercise-1.json', 'r.routeplanner.json']
    assert not (tmp_path / 'r.json').exists()
    for name in written:
        result = json.loads((tmp_path / name).read_text())
        validator.validate(result)
        assert name == f'r.{result["assignment"]}.json'


def test_grade_without_all_keeps_one_result(course, tmp_path):
    folder = both_assignments(tmp_path)
    done = grader(course, 'grade', folder, '--json', '-', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)['assignment'] == 'oulu-exercise-1'


def test_several_assignments_to_standard_output_is_a_usage_error(course, tmp_path):
    folder = both_assignments(tmp_path)
    done = grader(course, 'check', folder, '--json', '-', cwd=tmp_path)
    assert done.returncode == 2
    assert 'several assignments found' in done.stderr and done.stdout == ''


def test_all_names_the_file_by_assignment_even_when_one_is_found(course, tmp_path):
    folder = tmp_path / 'one'
    folder.mkdir()
    shutil.copy(ROOT / 'reference' / 'tictactoe.py', folder / 'tictactoe.py')
    done = grader(course, 'grade', folder, '--assignment', 'all', '--json', tmp_path / 'r.json',
                  '-q', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.glob('r*.json')) == ['r.oulu-exercise-1.json']


def test_an_empty_folder_or_an_unknown_assignment_is_a_one_line_error(course, tmp_path):
    empty = tmp_path / 'empty'
    empty.mkdir()
    for args, text in ((('check', empty), 'your submission is empty'),
                       (('grade', empty, '--assignment', 'all'), 'your submission is empty'),
                       (('check', empty, '--assignment', 'nosuch'), "unknown assignment 'nosuch'")):
        done = grader(course, *args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert text in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert 'Traceback' not in done.stderr
