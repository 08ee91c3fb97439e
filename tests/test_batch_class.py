"""A generated class of 200: the batch grades every submission as it would be
graded alone, and the CSV round-trips.

The class mixes the reference, every example submission of tests/submissions
(each at least once) and, for the rest, correct alpha-beta submissions, the
most common hand-in; students of other configured exercises of the same
assignment hand in a second file.  It takes minutes on two cores, so it runs
when GRADER_SLOW_TESTS=1 (``GRADER_CLASS_SIZE`` changes the size).
"""
import os

import pytest

from bench.batch import make_class, zip_class
from grader.batch import archives, compare, exports
from grader.batch.gradebook import Gradebook
from test_batch_run import run_cli

SIZE = int(os.environ.get('GRADER_CLASS_SIZE', '200'))

pytestmark = [
    pytest.mark.skipif(not os.environ.get('GRADER_SLOW_TESTS'),
                       reason='grades 200 submissions (minutes); set GRADER_SLOW_TESTS=1'),
    pytest.mark.timeout(1800),
]


def test_a_class_of_200(tmp_path, policy, run):
    from grader import engine
    made = make_class(tmp_path / 'class', SIZE, policy, seed=2024,
                      fill=lambda name: name == 'reference' or name.startswith('alphabeta'))
    source = zip_class(tmp_path / 'class', tmp_path / 'download.zip')
    out = tmp_path / 'out'
    assert run_cli('batch', source, '--out', out, '--workers', 2, '--no-progress') == 0

    with Gradebook(out) as book:
        records = book.records()
        assert len(records) == len(made) == SIZE
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
