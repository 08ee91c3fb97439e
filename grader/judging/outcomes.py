"""The kind of a case's outcome, and what a report may say of a hidden case.

Every :class:`grader.contract.Outcome` has a ``kind`` from
:data:`KINDS`.  A public case keeps its whole message and feedback.  For a
hidden case (a hidden fixture) or a generated one (a position drawn at
grading time) a report shows its number and its kind, nothing else:
nothing the submission chose (an exception's type or text, a returned
value or move, a count, an exit status, an output) and nothing of the
input (a board, a case name an instructor wrote) can reach any output
format through it.
"""
from grader.contract import Outcome

KINDS = {
    'right': 'right',
    'wrong value': 'the value is wrong',
    'wrong move': 'the move is wrong',
    'wrong answer': 'the answer is wrong',
    'timeout': 'it ran past its time limit',
    'crash': 'the process crashed or exited',
    'invalid reply': 'the reply could not be read',
    'exception': 'your code raised an exception',
    'not run': 'not run: earlier cases timed out',
    'no search': 'answered without a search',
    'not measured': 'could not be measured',
}
"""Every kind a hidden case's outcome can have, with the sentence a report shows."""



def kind_of(outcome):
    """The outcome's kind (``right`` when it passed; its own kind if it is one of :data:`KINDS`)."""
    if outcome.passed:
        return 'right'
    return outcome.kind if outcome.kind in KINDS else 'wrong answer'


def redact(outcome, label):
    """The outcome as a report may show it for a hidden or generated case called ``label``."""
    kind = kind_of(outcome)
    return Outcome(outcome.check, label, outcome.passed, KINDS[kind], '', {}, kind=kind)


def labels(cases):
    """``{case name: label}`` for the hidden and generated cases: ``hidden-1``,
    ``generated-1`` ...
    """
    found, counters = {}, {}
    for case in cases:
        if not case.hidden:
            continue
        prefix = 'generated' if case.generated else 'hidden'
        counters[prefix] = counters.get(prefix, 0) + 1
        found[case.name] = f'{prefix}-{counters[prefix]}'
    return found
