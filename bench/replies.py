"""Cost of checking the child's replies against their JSON Schemas (parent side).

    python bench/replies.py [--repeats N]

Grades the reference solutions of every exercise once (or ``--folder``), in
this process as the parent, recording every document the reply checks see (the runner's
envelopes, the case processes' replies and the probes' observations).  Then
checks each recorded document again, N times, with the same compiled checks,
and prints the median microseconds per document, for each schema, and the
total per grading run.  Every recorded document must still be valid.
"""
import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'bench'))

from run import REFERENCE, folder_of  # noqa: E402 - bench/ is on the path only now

from grader import config, engine  # noqa: E402
from grader import exercises as plugins  # noqa: E402
from grader.replycheck import ReplyCheck  # noqa: E402
from grader.sandbox import protocol  # noqa: E402


def recorded_replies(folder=None, assignments=('oulu-exercise-1', 'routeplanner')):
    """{label: (check, [documents])} seen while grading ``folder`` (default: the reference
    solutions) for ``assignments``."""
    seen = defaultdict(list)
    checks, labels = {}, {}
    original = ReplyCheck.is_valid

    def recording(self, document):
        label = labels.setdefault(id(self), _label(self.schema))
        checks[label] = self
        seen[label].append(document)
        return original(self, document)

    ReplyCheck.is_valid = recording
    try:
        policy = config.load(ROOT / 'grading.yaml')
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(folder) if folder else folder_of(tmp, 'all', REFERENCE)
            for assignment in assignments:
                engine.grade(policy, folder, assignment)
    finally:
        ReplyCheck.is_valid = original
    return {label: (checks[label], documents) for label, documents in seen.items()}


def _label(schema):
    """Which schema this is: the runner's envelope, a case's reply or an exercise's observation."""
    named = [(protocol.ENVELOPE_SCHEMA, 'runner envelope'), (protocol.CASE_SCHEMA, 'case reply')]
    named += [(plugins.get(name).observation_schema, f'observation: {name}')
              for name in ('tictactoe', 'connect4', 'eightpuzzle', 'travel')]
    return next(label for candidate, label in named if _bare(candidate) == _bare(schema))


def _bare(schema):
    return {key: value for key, value in schema.items() if key != '$schema'}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--folder', help='a submission folder instead of the reference')
    parser.add_argument('--assignment', action='append',
                        help='the assignment(s) to grade it for (default: both)')
    args = parser.parse_args(argv)
    replies = recorded_replies(args.folder, args.assignment or ('oulu-exercise-1',
                                                                'routeplanner'))
    print('schema | documents | median per document | per grading run')
    total = 0.0
    for label, (check, documents) in sorted(replies.items()):
        assert all(check.is_valid(document) for document in documents), label
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            for document in documents:
                check.is_valid(document)
            runs.append(time.perf_counter() - start)
        run = statistics.median(runs)
        total += run
        print(f'{label} | {len(documents)} | {run / len(documents) * 1e6:.1f} us | '
              f'{run * 1e3:.2f} ms')
    print(f'all replies of one grading | | | {total * 1e3:.2f} ms')


if __name__ == '__main__':
    main()
