"""What the counter tallied in a case process, read for the judges (parent side).

The counts come from :attr:`grader.sandbox.session.Reply.tally`: the C counter's block,
read by the runner from the stopped case process (:mod:`grader.child.tally`), never from
the case's own reply.  :func:`counted` turns it into the numbers a judge compares with the
reference's, or a sentence saying why there are none.
"""
from dataclasses import dataclass, field, replace

from grader.contract import NOT_CHECKED

_counter = {'in_force': True}


def note_counter(in_force):
    """Say whether this machine has the search counter (the engine, once per run, from
    :func:`grader.instruments.counter`).  Without it only a self-check runs: every count is
    then missing for that reason, which is nobody's doing."""
    _counter['in_force'] = bool(in_force)


def counter_missing():
    """Whether this machine has no search counter (see :func:`note_counter`)."""
    return not _counter['in_force']

UNTRUSTED = {
    'hook': 'a profile or trace function was set during the search',
    'nested': "the grader's counting entry point was called from inside the search",
    'code-made': 'code was compiled or made during the search (exec, eval, compile, '
                 'code objects)',
    'unnamed-recursion': 'the search recurses only through lambdas or comprehensions',
    'generator-recursion': 'the search recurses through generators',
    'grader-code': "the grader's own game rules were called from the search",
    'overflow': 'the search ran deeper or more often than the counter can follow',
    'refused': 'the search tried something the sandbox refuses (ctypes, reading a '
               "process's memory, links, foreign extension modules)",
    'mismatch': 'the calls and returns of the search did not pair up',
    'foreign-caller': "the search was started from the submission's code, not the grader's",
    'outside-run': "the submission's code ran outside the search once the case's input was "
                   'given',
    'threads-beside': 'a thread of the submission was running beside the search',
}
"""Flags of a run whose counts cannot be trusted, with the sentence a student reads."""
THREAD_WORK = 0.002, 0.1
"""CPU seconds, and share of the search thread's, that other threads may use while the
searches run (a helper thread that checks the board uses microseconds); more is work the
counter does not see."""
PROCESS_FLAGS = ('foreign-caller', 'outside-run', 'threads-beside', 'code-made')
"""Flags of the whole case process that void every run's count."""
REACHED_IN = ('grader-code', 'nested', 'foreign-caller')
"""Flags of a run that only a submission calling into the grader raises (the grader's own
game rules, the counter's entry point, the search started from the submission's code): the
run's answer earns nothing, whatever it is, since part of it may be the grader's work.
Honest code, however odd (threads, generators, lambdas, exec), raises none of them; its
answers are judged and only its counts are withdrawn.  A profile function changed, ctypes or
a process's memory are refused by the sandbox while the search runs: they reach nothing,
and only the counts are withdrawn."""
REACHED_IN_PROCESS = ('foreign-caller',)
"""Flags of the whole case process with the same effect (the search started from the
submission's code at any time, import included)."""
FLAG_BITS = {1: 'hook', 2: 'nested', 4: 'code-made', 8: 'unnamed-recursion',
             16: 'generator-recursion', 32: 'thread', 64: 'grader-code', 128: 'overflow',
             256: 'refused', 512: 'mismatch', 1024: 'foreign-caller', 2048: 'outside-run',
             4096: 'threads-beside'}
"""The C counter's flag bits (``FLAG_*`` in grader/child/_tally.c)."""


@dataclass
class Counted:
    """The runs of one case: ``reps`` (one count per run, in order), ``calls`` (every frame
    started, per run), ``leaves``, ``problem`` ('' when the counts can be trusted)."""

    reps: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    leaves: list = field(default_factory=list)
    depth: int = 0
    flags: list = field(default_factory=list)
    problem: str = ''

    @property
    def traced(self):
        """The first run's count (0 without runs)."""
        return self.reps[0] if self.reps else 0

    @property
    def intact(self):
        return not self.problem


def ran_submission(reply):
    """Whether the submission's code ran in a case that calls none of it (a baseline): a
    run, or a frame of its code once the input was given, means the grader's own code in
    the case process was changed."""
    tally = getattr(reply, 'tally', None)
    if not tally:
        return False
    return tally['runs'] > 0 or bool({'outside-run', 'foreign-caller'}
                                     & set(flag_names(tally['flags'])))


def reached_in(reply):
    """The sentence saying how the case's process reached into the grader (see
    :data:`REACHED_IN`), or '' when it did not or its tally could not be read."""
    tally = getattr(reply, 'tally', None)
    if not tally:
        return ''
    names = [n for n in flag_names(tally['flags']) if n in REACHED_IN_PROCESS]
    for slot in tally.get('slots', ()):
        names += [n for n in flag_names(slot['flags']) if n in REACHED_IN and n not in names]
    return UNTRUSTED[names[0]] if names else ''


def void_if_reached_in(reply):
    """``reply`` itself, or, when it answered but its process reached into the grader, a
    failed reply of kind ``tampered`` that says how (a trick that reads or patches the
    grader earns no point, not even for a right answer)."""
    how = reached_in(reply) if reply.ok else ''
    if not how:
        return reply
    return replace(reply, status='invalid', kind='tampered', observation={},
                   error=f'{how}: an answer found by reaching into the grader earns nothing')


def flag_names(bits):
    return [name for bit, name in sorted(FLAG_BITS.items()) if bits & bit]


def counted(reply, unit='nodes'):
    """The :class:`Counted` of ``reply``; ``unit`` is the slot's field that is the count
    (``nodes``: calls of recursive functions; ``leaves``)."""
    tally = getattr(reply, 'tally', None)
    if not tally:
        if counter_missing():
            return Counted(problem=NOT_CHECKED)
        return Counted(problem="the grader's counter could not read this search")
    slots = tally['slots']
    if tally['runs'] != len(slots):
        return Counted(problem='the search was run more often than the counter can follow')
    found = Counted(reps=[s[unit] for s in slots], nodes=[s['nodes'] for s in slots],
                    calls=[s['calls'] for s in slots],
                    leaves=[s['leaves'] for s in slots],
                    depth=max((s['depth'] for s in slots), default=0))
    bits = 0
    for slot in slots:
        bits |= slot['flags']
        if not slot['closed']:
            found.problem = 'a run of the search did not end'
    found.flags = flag_names(bits)
    process = [name for name in flag_names(tally['flags']) if name in PROCESS_FLAGS]
    bad = [UNTRUSTED[name] for name in process + found.flags if name in UNTRUSTED]
    seconds, share = THREAD_WORK
    others, main = tally.get('others_ns', 0) / 1e9, tally.get('main_ns', 0) / 1e9
    if others > max(seconds, share * main):
        bad.append(f'other threads used {others:.3f} s of CPU while the search ran: work '
                   'the counter does not see')
    if bad and not found.problem:
        found.problem = bad[0]
    return found
