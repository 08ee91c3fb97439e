"""A generated class: the batch grades every submission as it would be graded
alone, and the CSV round-trips.

The class mixes the reference and every example tic-tac-toe submission of
tests/submissions, each once; a share of the students also hand in a file of
another configured exercise of the same assignment.  With GRADER_SLOW_TESTS=1
(``make slow``) the class has 200 students: the rest are correct alpha-beta
submissions, the most common hand-in, which add grading time, not verdicts
(``GRADER_CLASS_SIZE`` sets any size).
"""
import os

import pytest

from bench.batch import make_class, variants, zip_class
from grader.batch import archives, compare, exports
from grader.batch.gradebook import Gradebook
from test_batch_run import run_cli

pytestmark = pytest.mark.timeout(1800)


def class_size(policy):
    """Every tic-tac-toe variant once; 200 students for the slow run."""
    if os.environ.get('GRADER_CLASS_SIZE'):
        return int(os.environ['GRADER_CLASS_SIZE'])
    return 200 if os.environ.get('GRADER_SLOW_TESTS') else len(variants(policy)['tictactoe'])


def test_a_class(tmp_path, policy, run):
    from grader import engine
    size = class_size(policy)
    made = make_class(tmp_path / 'class', size, policy, seed=2024,
                      fill=lambda name: name == 'reference' or name.startswith('alphabeta'))
    source = zip_class(tmp_path / 'class', tmp_path / 'download.zip')
    out = tmp_path / 'out'
    assert run_cli('batch', source, '--out', out, '--workers', 2, '--no-progress') == 0

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
