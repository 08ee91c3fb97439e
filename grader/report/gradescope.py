"""Gradescope's ``results.json`` (``--gradescope FILE``).

Follows Gradescope's autograder specification (schema:
``grader/schemas/gradescope.schema.json``).  One test per check of every
submitted exercise; a check graded on hidden cases becomes two tests, the
public part with the check's visibility and the hidden part with its
``hidden_visibility`` (``after_published`` unless grading.yaml says
otherwise), whose output says only how many of its cases passed, in the
check's words.  A failed public case is drawn once, in the test of the first
check it costs, with a line of everything it costs; the other tests name it
(:func:`grader.report.check_parts`).  ``execution_time`` is the imports' and
the public cases' (:func:`grader.engine.public_duration`).  The top-level
``score`` is the assignment's score, so exercises that do not count (best 2
of 3) are shown without adding to it.
"""
import json

from grader.report import check_parts, summary_lines
from grader.report.files import write_text


def document(result):
    """The results.json document as a dict."""
    tests = [{'name': p['name'], 'number': p['number'], 'tags': p['tags'],
              'score': p['score'], 'max_score': p['max_score'],
              'status': 'passed' if p['passed'] else 'failed',
              'output': p['output'], 'visibility': p['visibility']}
             for p in check_parts(result)]
    return {
        'score': result.score,
        'execution_time': result.duration_seconds,
        'output': '\n'.join(summary_lines(result)),
        'output_format': 'text',
        'test_output_format': 'text',
        'test_name_format': 'text',
        'stdout_visibility': 'hidden',
        'tests': tests,
        'extra_data': {'assignment': result.assignment, 'max_score': result.max_score,
                       'grader_version': result.grader_version,
                       'fixtures_digest': result.fixtures_digest,
                       'counted': [e.name for e in result.exercises if e.counted],
                       # the measured facts in words ("prunes: yes ..."), for the staff
                       'facts': {e.name: [line['text'] for line in e.fact_lines]
                                 for e in result.exercises if e.submitted},
                       'late': result.late},
    }


def render(result):
    return json.dumps(document(result), indent=2) + '\n'


def write(result, path):
    write_text(path, render(result))
