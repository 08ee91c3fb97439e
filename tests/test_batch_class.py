"""A generated class: the batch grades every submission as it would be graded
alone, and the CSV round-trips.

The class mixes the reference and the example tic-tac-toe submissions of
tests/submissions (a seeded draw of :data:`CLASS_SIZE`, each once); a share of
the students also hand in a file of another configured exercise of the same
assignment.  With GRADER_SLOW_TESTS=1
(``make slow``) the class has 200 students: the rest are correct alpha-beta
submissions, the most common hand-in, which add grading time, not verdicts
(``GRADER_CLASS_SIZE`` sets any size), graded under the course's own settings;
otherwise under :func:`gradertest.quick_course`, with one public case of each kind.
"""
import os

import pytest

from bench.batch import make_class, variants, zip_class
from grader import config
from grader.batch import archives, compare, exports
from grader.batch.gradebook import Gradebook
from gradertest import quick_course
from test_batch_run import run_cli

pytestmark = pytest.mark.timeout(1800)


CLASS_SIZE = 8
"""Students of the class in ``make test``: a seeded draw of the tic-tac-toe variants
(each graded alone as well).  Every variant's verdict is tests/test_submissions.py's;
here the point is that the batch gives each its grade alone, which does not depend on
how many there are."""


def class_size(policy):
    """:data:`CLASS_SIZE` students (at most one per variant); 200 for the slow run."""
    if os.environ.get('GRADER_CLASS_SIZE'):
        return int(os.environ['GRADER_CLASS_SIZE'])
    if os.environ.get('GRADER_SLOW_TESTS'):
        return 200
    return min(CLASS_SIZE, len(variants(policy)['tictactoe']))


def test_a_class(tmp_path, policy, run):
    from grader import engine
    size = class_size(policy)
    if os.environ.get('GRADER_SLOW_TESTS'):
        path = policy.path
    else:
        path = quick_course(policy, tmp_path / 'course', per_kind=1)
        policy = config.load(path)
        run = engine.Run(policy, calibration=run.calibration, isolation=run.isolation)
    made = make_class(tmp_path / 'class', size, policy, seed=2024,
                      fill=lambda name: name == 'reference' or name.startswith('alphabeta'))
    source = zip_class(tmp_path / 'class', tmp_path / 'download.zip')
    out = tmp_path / 'out'
    assert run_cli('batch', source, '--out', out, '--workers', 2, '--no-progress',
                   config=path) == 0

    with Gradebook(out) as book:
        records = book.records()
        assert len(records) == len(made) == size
        assert all(r.status == 'graded' for r in records), \
            [(r.identity.key, r.reason) for r in records if r.status != 'graded']
        # Every score matches grading the submission alone (once per distinct content).
        alone = {}
        for record in records:
            if record.content_hash not in alone:
                folder = archives.unpack(book.archive(record.identity.key),
                                         tmp_path / 'alone' / record.identity.key)
                alone[record.content_hash] = compare.verdict(
                    engine.grade(policy, folder, run=run).to_dict())
            assert compare.verdict(record.result) == alone[record.content_hash], \
                record.identity.key
    assert exports.read_grades(out / 'grades.csv') == exports.grade_rows(records)
