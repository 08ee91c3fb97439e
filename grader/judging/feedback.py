"""Case verdicts with the feedback a teaching assistant would write.

A judge makes one :class:`Note` per case: the lines that draw the position
(the call made, the board or the start), and the expected answer in words.
Every :class:`~grader.contract.Outcome` of the case comes from the
note, so every failed check shows the same block, in the same order:

    the call and the position drawn
    returned: what came back
    (any lines of the check's own: a drawing, a route)
    expected: what was expected
    one sentence on the likely cause

A passed check carries no feedback.  The expected answer is shown on public
cases only, and never for the checks named in ``no_expected`` (checks about
work done, where the position's answer is not the point).
"""
from grader import contract
from grader.judging import tallies

TAMPERED = 'not measured'


def signed(value):
    """A game value with its sign: ``+1``, ``0``, ``-1``."""
    return f'{value:+d}' if value else '0'


def cpu_text(reply, detail=''):
    """``'0.12 s of 3.00 s of CPU time'``: the CPU time of a call against its limit."""
    extra = f' ({detail})' if detail else ''
    return f'{reply.cpu:.2f} s of {reply.limit:.2f} s of CPU time{extra}'


class Note:
    """The feedback of one case; :meth:`outcome` makes each check's verdict."""

    def __init__(self, case, heading, expected=(), no_expected=()):
        self.case = case
        self.heading = [line for line in heading if line]
        self.expected = [expected] if isinstance(expected, str) else list(expected)
        self.no_expected = set(no_expected)

    def outcome(self, check, passed, message, returned='', cause='', measured=None, kind='',
                lines=(), expected=True):
        """The verdict of ``check`` on this case; failed, it carries the feedback block.

        ``returned`` is what came back in words (shown as ``returned: ...``);
        ``lines`` are more lines of this check (drawings, routes); ``cause`` is
        the sentence on the likely cause.  ``expected=False`` leaves the
        expected answer out of this outcome.
        """
        if passed:
            return contract.Outcome(check, self.case.name, True, message, '', measured or {}, kind)
        text = list(self.heading)
        if returned:
            text.append(f'returned: {returned}')
        text += [line for line in lines if line]
        if expected and not self.case.hidden and check not in self.no_expected:
            text += self.expected
        if cause:
            text.append(cause)
        return contract.Outcome(check, self.case.name, False, message, '\n'.join(text),
                            measured or {}, kind)

    def fail(self, checks, message, **details):
        """The same failed verdict for every check in ``checks`` (a call with no usable answer).

        Each outcome gets its own copy of ``measured``.
        """
        measured = details.pop('measured', None) or {}
        return [self.outcome(check, False, message, measured=dict(measured), **details)
                for check in checks]

    def fail_reply(self, checks, reply, timeout_cause='', error_cause=None, **details):
        """Every check of ``checks`` failed for a reply that carries no observation.

        The message is the reply's failure in one line; the cause is
        ``timeout_cause`` for a time-out, else ``error_cause`` (default none).
        """
        cause = timeout_cause if reply.status == 'timeout' else (error_cause or '')
        return self.fail(checks, contract.failure_message(reply), cause=cause, **details)

    def timed(self, check, reply, right, wrong, detail='', **details):
        """The ``timeouts`` verdict: the CPU time against the limit, earned only with ``right``.

        ``wrong`` says what is wrong otherwise (``'the value is wrong'``).
        """
        seconds = cpu_text(reply, detail)
        return self.outcome(check, right, seconds if right else f'{seconds}, but {wrong}',
                            **details)

    def tampered(self, check, what, measured, where='', **details):
        """A count the submission interfered with: no verdict on it, ``not measured``.

        On a machine without the search counter (a self-check: an official grade refuses
        to run) nothing was counted and nobody interfered: the check says it is not
        checked here, never "tampered"."""
        if tallies.counter_missing():
            return self.outcome(check, False, f'{where}{check} is {contract.NOT_CHECKED}: '
                                'the grader could count no search here; the official grade '
                                'counts it', measured=measured, kind=TAMPERED, **details)
        measured['tampered'] = True
        return self.outcome(check, False, f'{where}measurement tampered: {what}',
                            measured=measured, kind=TAMPERED, **details)
