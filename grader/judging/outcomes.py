"""The kind of a case's outcome, and what a report may say of a hidden case.

Every :class:`grader.contract.Outcome` has a ``kind`` from
:data:`KINDS`.  A public case keeps its whole message and feedback.  Of a
hidden case (a hidden fixture) or a generated one (a position drawn at
grading time) a report says only, per check, how many such cases passed
(:func:`hidden_sentence`), in words the check fixes: not which case, not how
it failed.  So nothing the submission chose (an exception's type or text, a
returned value or move, a count, an exit status, an output, which way to
fail) and nothing of the input (a board, a case name an instructor wrote)
can reach any output format through it: each such case tells at most
whether it passed each check, and only by losing that check's points.
"""
import re

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
    'tampered': 'the search reached into the grader',
    'not measured': 'could not be measured',
    'hidden': 'not shown to hold on a hidden case',
}
"""Every kind a hidden case's outcome can have, with the sentence a report shows."""



def kind_of(outcome):
    """The outcome's kind (``right`` when it passed; its own kind if it is one of :data:`KINDS`)."""
    if outcome.passed:
        return 'right'
    return outcome.kind if outcome.kind in KINDS else 'wrong answer'


HIDDEN = 'hidden'
"""The kind of every failed outcome of a hidden or generated case, once redacted."""


def redact(outcome, label):
    """The outcome as the scoring keeps it for a hidden or generated case called ``label``:
    whether it passed, nothing else (no message, no kind of failure, no measurement)."""
    return Outcome(outcome.check, label, outcome.passed, '', '', {},
                   kind='right' if outcome.passed else HIDDEN)


def hidden_sentence(check, passed, total):
    """What every report says of a check's hidden and generated cases: that all passed, or
    on how many of them the check (``check``, the plug-in's declaration: its name and
    summary) was not shown to hold.  The words are the check's, never the submission's."""
    if passed == total:
        return f'all {total} hidden cases passed'
    name = f'{check.name}: ' if check is not None else ''
    summary = f' ({check.summary.rstrip(".")})' if check is not None and check.summary else ''
    return f'{name}not shown to hold on {total - passed} of {total} hidden cases{summary}'


def labels(cases):
    """``{case name: label}`` for the hidden and generated cases: ``hidden-1``,
    ``generated-1`` ... (names the scoring tells them apart by, never shown).
    """
    found, counters = {}, {}
    for case in cases:
        if not case.hidden:
            continue
        prefix = 'generated' if case.generated else 'hidden'
        counters[prefix] = counters.get(prefix, 0) + 1
        found[case.name] = f'{prefix}-{counters[prefix]}'
    return found


ON_A_HIDDEN_CASE = 'decided on a hidden case'
"""What a public outcome or a fact says instead of words that name a hidden case."""


def redacted(outcomes, labels):
    """``outcomes`` as the scoring keeps them: a hidden or generated case's redacted
    (:func:`redact`; ``labels`` from :func:`labels`), and any other outcome whose message
    or feedback names such a case (a judgement across cases quoting it, with its counts)
    said without it (:func:`scrubbed`)."""
    names = hidden_names_pattern(labels)
    kept = []
    for outcome in outcomes:
        if outcome.case in labels:
            kept.append(redact(outcome, labels[outcome.case]))
            continue
        if names is not None and names.search(outcome.message + '\n' + outcome.feedback):
            outcome.message = f'{KINDS[kind_of(outcome)]} ({ON_A_HIDDEN_CASE})'
            outcome.feedback = '\n'.join(line for line in outcome.feedback.splitlines()
                                         if not names.search(line))
        kept.append(outcome)
    return kept


def hidden_names_pattern(labels):
    """A pattern that finds the name of a hidden or generated case (or its label) as a
    word of a text, or None when there are none."""
    words = sorted({*labels, *labels.values()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r'(?<![\w-])(?:' + '|'.join(map(re.escape, words)) + r')(?![\w-])')


def scrubbed(value, labels):
    """``value`` (facts: dicts, lists, texts, numbers) with every text that names a hidden
    or generated case replaced by :data:`ON_A_HIDDEN_CASE`."""
    names = hidden_names_pattern(labels)
    if names is None:
        return value

    def scrub(item):
        if isinstance(item, str):
            return ON_A_HIDDEN_CASE if names.search(item) else item
        if isinstance(item, dict):
            return {key: scrub(entry) for key, entry in item.items()}
        if isinstance(item, (list, tuple)):
            return type(item)(scrub(entry) for entry in item)
        return item
    return scrub(value)
