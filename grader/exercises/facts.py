"""Facts: what a plug-in measures about a whole exercise, declared by the plug-in itself.

A plug-in's judge returns facts as a plain mapping (``review`` and
``facts``); the plug-in *declares* them in ``FACTS``, a tuple of
:class:`Fact` in the module ``facts.py`` of its own package (e.g.
``grader/exercises/tictactoe/facts.py``).  A declaration says

- ``name``: the key in the facts mapping (the JSON result's ``facts``);
- ``meaning``: one sentence for the reader of the JSON and the docs;
- ``words``: how reports say it, a function ``(value, facts) -> str`` (``''``
  when there is nothing to say for this value); None for a fact that stays
  in the JSON only;
- ``own_line``: said on a line of its own, below the line of the other facts;
- ``rule``: a yes/no fact that a course rule of grading.yaml (an assignment's
  ``requirements``) may require.

The engine words the facts of every graded exercise once
(:func:`in_words`, in the order declared, the plug-in's first, then the
engine's own :data:`ENGINE`) into ``ExerciseResult.fact_lines``; every
report writer only prints those lines, and the course rules read facts by
the name grading.yaml gives, which must be a ``rule`` fact of a plug-in
(:func:`rule_facts`).  Nothing outside a plug-in names its facts.
"""
import importlib
from dataclasses import dataclass
from typing import Callable, Optional

from grader.contract import NOT_CHECKED
from grader.judging.evidence import UNAVAILABLE


@dataclass(frozen=True)
class Fact:
    """One exercise-level fact and how it is reported (see the module's docstring)."""

    name: str
    meaning: str
    words: Optional[Callable] = None
    own_line: bool = False
    rule: bool = False

    def say(self, facts):
        """This fact in words for ``facts`` ('' when absent or nothing to say)."""
        if self.words is None or self.name not in facts:
            return ''
        return self.words(facts[self.name], facts) or ''


def declared(plugin):
    """The :class:`Fact` tuple of ``plugin``: ``FACTS`` in the ``facts`` module of its package.

    A plug-in without such a module declares no fact (its facts stay in the
    JSON result, unworded).
    """
    package = type(plugin).__module__.rpartition('.')[0]
    try:
        module = importlib.import_module(f'{package}.facts')
    except ModuleNotFoundError as error:
        if error.name == f'{package}.facts':
            return ()
        raise
    return tuple(getattr(module, 'FACTS', ()))


def in_words(declarations, facts):
    """``[{'fact', 'text', 'own_line'}]``: every declared fact that has something to say."""
    lines = []
    for fact in declarations:
        text = fact.say(facts)
        if text:
            lines.append({'fact': fact.name, 'text': text, 'own_line': fact.own_line})
    return lines


def rule_facts(plugin):
    """Names of the facts of ``plugin`` that a course rule may require."""
    return {fact.name for fact in declared(plugin) if fact.rule}


def yes_no(value):
    return 'yes' if value else 'no'


def verdict_with_ratio(label, ratio_fact, ratio_label):
    """Words for a yes/no fact backed by a measured ratio, e.g. ``prunes: yes (median node
    ratio 0.06)``; counts the evidence could not confirm are said instead of the ratio."""
    def words(value, facts):
        if counter_missing(facts):
            return f'{label}: {NOT_CHECKED}'
        ratio = facts.get(ratio_fact)
        extra = f' ({ratio_label} {ratio:.2f})' if ratio is not None else ''
        if counts_unconfirmed(facts):
            extra = ' (the counts could not be confirmed)'
        return f'{label}: {yes_no(value)}{extra}'
    return words


# -- facts shared by plug-ins that use grader.judging.evidence ---------------
UNCONFIRMED = ('confirmed', 'unmeasured', UNAVAILABLE)
"""Evidence statuses that need no sentence of their own: the counts stand, nothing was
counted, or this machine has no counter (said by the fact it backs)."""


def counter_missing(facts):
    """Whether ``facts['evidence']`` says this machine has no counter."""
    return (facts.get('evidence') or {}).get('status') == UNAVAILABLE


def counts_unconfirmed(facts):
    """Whether the counts of ``facts['evidence']`` were measured and could not be confirmed."""
    status = (facts.get('evidence') or {}).get('status')
    return status not in (None, *UNCONFIRMED)


def _evidence_words(value, facts):
    return f"counts: {(value or {}).get('reason')}" if counts_unconfirmed(facts) else ''


EVIDENCE = Fact('evidence', 'Whether the outside CPU time confirmed the counts the probe '
                'reported: {status, reason, seconds per counted unit, spread}.',
                _evidence_words, own_line=True)
SEARCHED = Fact('searched', 'Whether counted calls or the CPU time show that a search ran '
                'behind the answers (otherwise they earn nothing).')
TAMPERED = Fact('tampered', "Whether the submission changed the probe's counting on some case.")
DEDUCTION = Fact('deduction', '{points, reason}: points taken off the exercise once, with the '
                 'reason given as a warning.')


# -- the engine's own facts (every exercise) ---------------------------------
ENGINE = (
    Fact('student_seconds',
         "CPU seconds of the submission's case processes on the public cases, measured "
         "outside them (a hidden or drawn case's time could tell what its input was).",
         lambda value, facts: f'{value:.2f} s of CPU in your code'),
    Fact('import_seconds', 'CPU seconds the import of the module took.',
         lambda value, facts: f'import {value:.2f} s' if value else ''),
    Fact('wall_seconds', 'Wall-clock seconds of the sandboxed children on the public cases.'),
    Fact('child_starts', 'One, plus each restart of a sandbox that ended during a call '
         '(lanes of their own that booted a sandbox are not restarts).',
         lambda value, facts: f'sandbox restarted {value - 1} time(s)' if value > 1 else ''),
    Fact('cases', 'Cases graded, derived cases included.'),
    Fact('information_not_run',
         'The information checks (0 points) whose long calls a quick self-check does not make '
         '(the eight puzzle\'s hard and unsolvable starts); a full self-check and every official '
         'grade make them.',
         lambda value, facts: (f'{" and ".join(value)}: information only, not run in a quick '
                               f'self-check (`grader check --full` runs '
                               f'{"them" if len(value) > 1 else "it"}; with pytest, '
                               f'--grader-full)'),
         own_line=True),
    Fact('direct_output_bytes', 'Bytes the submission wrote straight to its real stdout and '
         'stderr during its import and public cases (capped).'),
)
