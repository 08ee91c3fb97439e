"""The reference solutions score full marks through the whole sandboxed path."""
import pytest

from gradertest import ROOT


def reference_of(exercise, files):
    folder = ROOT / 'reference' / exercise
    if folder.is_dir():
        return folder
    for name in files:
        if (ROOT / 'reference' / name).is_file():
            return ROOT / 'reference' / name
    return None


def exercises():
    from grader import config
    policy = config.load(ROOT / 'grading.yaml')
    return [pytest.param(name, id=name) for name in policy.exercises]


@pytest.mark.parametrize('exercise', exercises())
def test_reference_scores_full_marks(exercise, policy, submission, grade_one):
    source = reference_of(exercise, policy.exercises[exercise].files)
    assert source is not None, f'no reference solution for {exercise}'
    result = grade_one(submission(exercise, source), exercise)
    lost = {c.name: c.message for c in result.checks if not c.passed}
    assert result.score == result.max_score and not lost, lost
    assert not result.warnings
