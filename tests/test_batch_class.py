"""A generated class: the batch grades every submission as it would be graded
alone, and the CSV round-trips.

The class mixes the reference and the example tic-tac-toe submissions of
tests/submissions (a seeded draw of :data:`CLASS_SIZE`, each once); a share of
the students also hand in a file of another configured exercise of the same
assignment.  With GRADER_SLOW_TESTS=1
(``make slow``) the class has 200 students: the rest are correct alpha-beta
submissions, the most common hand-in, which add grading time, not verdicts
(``GRADER_CLASS_SIZE`` sets any size), graded under the course's own settings;
otherwise under :func:`class_course`, with fewer positions drawn.
"""
import os

import pytest
import yaml

from bench.batch import make_class, variants, zip_class
from grader import config
from grader.batch import archives, bundle, compare, exports
from grader.batch.gradebook import Gradebook
from gradertest import one_of_each_kind
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


DRAWN = 2
"""Positions drawn per exercise in the class's course (the slow run: the course's own)."""


def class_course(policy, folder):
    """The course the class is graded under, by the batch and alone alike: the
    repository's (copied as the batch ships it), with :data:`DRAWN` positions drawn
    per exercise, two public cases of each kind in the games' fixtures
    (:func:`gradertest.one_of_each_kind`) and imports stopped after 2 s.  Whether the
    batch gives the grade of grading alone does not depend on how many cases there are
    or how long an import may run; the verdicts under the course's own settings are
    tests/test_submissions.py's.
    """
    blob, _ = bundle.make(policy)
    archives.unpack(blob, folder, archives.Limits(max_bytes=500 * 2**20, max_files=10**5))
    for exercise in ('tictactoe', 'connect4'):
        for fixture in policy.exercises[exercise].fixtures:
            path = folder / fixture.relative_to(policy.root)
            one_of_each_kind(path, path, per_kind=2)
    path = folder / 'grading.yaml'
    data = yaml.safe_load(path.read_text())
    data['sandbox']['load_seconds'] = 2
    for exercise in data['exercises'].values():
        if exercise.get('generated', {}).get('count', 0) > DRAWN:
            exercise['generated']['count'] = DRAWN
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_class(tmp_path, policy, run):
    from grader import engine
    size = class_size(policy)
    if os.environ.get('GRADER_SLOW_TESTS'):
        path = policy.path
    else:
        path = class_course(policy, tmp_path / 'course')
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
