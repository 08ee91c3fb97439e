"""The private channel between the parent and the sandbox's runner.

Messages are single-line JSON objects over a pair of pipes that only the
parent and the runner hold.  Every message carries the per-run random
``token``; a reply also echoes the ``id`` of its request.  A case process's
own reply travels inside the runner's as a string, and is decoded here by
:func:`decode`, which refuses what could hurt the parent: a line past
:data:`MAX_MESSAGE` bytes, deep nesting (see :data:`MAX_DEPTH`), numbers
that are not finite or have more than :data:`MAX_DIGITS` digits.  Nothing
here ever unpickles, and the parent treats any reply that is not a
well-formed JSON object with the right token, id and shape as a failed call.

Student output is never part of this channel: what a submission prints goes
to separate, capped pipes and is shown to the instructor as text only.
"""
import base64
import json
import os
import re
import select
import struct
import sys
import time

MAX_MESSAGE = 8 * 1024 * 1024
"""Largest reply the parent accepts (bytes); anything longer is invalid."""

MAX_DEPTH = 64
"""Most arrays or objects a message may open in a row; deeper nesting of any
shape stops the decoder with RecursionError, and either way the reply is
refused."""
MAX_DIGITS = 40
"""Most digits a number in a decoded message may have."""

ORDERED = 6000
"""Most expansions the counter notes in order (grader/child/_tally.c's ORDERED)."""
RECORDED = 8192
"""Most states the counter notes (grader/child/_tally.c's RECORDED)."""
HIGHEST_STATE = 876543210
"""The largest number nine tiles spell."""


def _packed_text(size):
    """The schema of base64 text of at most ``size`` bytes (see :func:`tally_lists`)."""
    return {'type': 'string', 'maxLength': 4 * -(-size // 3)}


ORDER = _packed_text(16 * ORDERED)
"""An order of expansions the counter noted, as the runner sends it: the stop codes' hashes
(unsigned 64-bit) then the clock times (doubles, NaN where not known), little-endian, as
base64 text."""
ENVELOPE_SCHEMA = {
    'type': 'object',
    'required': ['token', 'id', 'status'],
    'properties': {
        'token': {'type': 'string'},
        'id': {'type': 'integer'},
        'status': {'enum': ['ok', 'sandbox', 'replied', 'stopped', 'signaled', 'exited',
                            'overflow']},
        'runner': {'type': 'object'},
        'error': {'type': 'string', 'maxLength': 2000},
        'cpu': {'type': 'number', 'minimum': 0},
        'setup_cpu': {'type': 'number', 'minimum': 0},
        'reply': {'type': 'string'},
        'reason': {'enum': ['stop', 'wall']},
        'signal': {'type': 'integer'},
        'code': {'type': ['integer', 'null']},
        'tally': {'type': ['object', 'null'], 'required': ['runs', 'flags', 'slots'],
                  'properties': {
                      'runs': {'type': 'integer', 'minimum': 0},
                      'flags': {'type': 'integer', 'minimum': 0},
                      'others_ns': {'type': 'integer', 'minimum': 0},
                      'main_ns': {'type': 'integer', 'minimum': 0},
                      'states': _packed_text(4 * RECORDED),
                      'unread': {'type': 'integer', 'minimum': 0},
                      'order': ORDER,
                      'made_order': ORDER,
                      'slots': {'type': 'array', 'maxItems': 64, 'items': {
                          'type': 'object',
                          'required': ['nodes', 'calls', 'leaves', 'depth', 'recursive',
                                       'flags', 'closed'],
                          'properties': {
                              'nodes': {'type': 'integer', 'minimum': 0},
                              'calls': {'type': 'integer', 'minimum': 0},
                              'leaves': {'type': 'integer', 'minimum': 0},
                              'depth': {'type': 'integer', 'minimum': 0},
                              'recursive': {'type': 'integer', 'minimum': 0},
                              'flags': {'type': 'integer', 'minimum': 0},
                              'closed': {'type': 'boolean'},
                              'units': {'type': 'array', 'maxItems': 4,
                                        'items': {'type': 'integer', 'minimum': 0}},
                              'events': {'type': 'integer', 'minimum': 0},
                              'states': {'type': 'integer', 'minimum': 0},
                              'listings': {'type': 'integer', 'minimum': 0},
                              'stopped': {'type': 'boolean'}},
                          'additionalProperties': False}}},
                  'additionalProperties': False},
    },
    'additionalProperties': False,
}
"""The runner's replies: its start, and how each case process ended."""

FAILURE_KINDS = ('exit', 'recursion', 'memory', 'input', 'disk', 'missing-module', 'exception')
"""How the student's code can fail a call, as a case process says it
(:func:`grader.child.channel.describe`)."""

CASE_SCHEMA = {
    'type': 'object',
    'required': ['id', 'status'],
    'properties': {
        'id': {'type': 'integer'},
        'status': {'enum': ['ok', 'error']},
        'observation': {'type': 'object'},
        'kind': {'enum': list(FAILURE_KINDS)},
        'error': {'type': 'string', 'maxLength': 2000},
        'output': {'type': 'string', 'maxLength': 100000},
        'output_bytes': {'type': 'integer', 'minimum': 0},
    },
    'additionalProperties': False,
}
"""A case process's own reply: a claim, checked before anything reads it."""


_DEEP = re.compile(r'[\[{](?:\s*[\[{]){%d}' % MAX_DEPTH)


class Refused(ValueError):
    """A message that :func:`decode` will not decode."""


def _number(text):
    if len(text) > MAX_DIGITS:
        raise Refused('number too long')
    value = float(text)
    if value != value or value in (float('inf'), float('-inf')):
        raise Refused('number not finite')
    return value


def _integer(text):
    if len(text) > MAX_DIGITS:
        raise Refused('number too long')
    return int(text)


_PARSE_INT = _integer if sys.version_info < (3, 11) else None
"""Python 3.11 and later refuse integers of more than 4300 digits by themselves (and
convert shorter ones fast); earlier versions would spend seconds on a long one."""


def _constant(text):
    raise Refused(f'{text} is not a number JSON allows')


def decode(text, nesting=True):
    """The JSON value of ``text``, or None when it is malformed or refused (never raises).

    ``nesting`` False skips the test for deep nesting: for a message the
    runner wrote, whose only deep parts could be inside strings.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode('utf-8')
        except UnicodeDecodeError:
            return None
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        return None
    if nesting and _DEEP.search(text):
        return None
    try:
        return json.loads(text, parse_float=_number, parse_int=_PARSE_INT,
                          parse_constant=_constant)
    except (ValueError, RecursionError):
        return None


_INFINITY = float('inf')


def tally_lists(tally):
    """A runner's tally with its arrays as lists (the runner sends them packed,
    :func:`grader.child.tally.read`): ``order`` and ``made_order`` as ``[[stop code hash,
    clock time or None]]``, ``states`` as numbers; the tally itself when it is not a dict
    (none was read), :data:`MALFORMED` when an array is not what the counter writes (not
    base64, a ragged length, more items than it notes, an infinite time, a number no tiles
    spell)."""
    if not isinstance(tally, dict):
        return tally
    lists = dict(tally)
    try:
        for key in ('order', 'made_order'):
            data = _unpacked(tally.get(key, ''), 16, ORDERED)
            count = len(data) // 16
            codes = struct.unpack(f'<{count}Q', data[:8 * count])
            times = struct.unpack(f'<{count}d', data[8 * count:])
            if _INFINITY in times or -_INFINITY in times:
                return MALFORMED
            lists[key] = [[code, None if t != t else t] for code, t in zip(codes, times)]
        data = _unpacked(tally.get('states', ''), 4, RECORDED)
        states = list(struct.unpack(f'<{len(data) // 4}I', data))
    except (ValueError, TypeError, struct.error):   # binascii.Error is a ValueError
        return MALFORMED
    if states and max(states) > HIGHEST_STATE:
        return MALFORMED
    lists['states'] = states
    return lists


def _unpacked(text, item, most):
    """The bytes of the base64 ``text`` (strictly: nothing but its alphabet), at most ``most``
    items of ``item`` bytes; ValueError otherwise."""
    data = base64.b64decode(text, validate=True)
    if len(data) % item or len(data) > item * most:
        raise ValueError('not an array the counter writes')
    return data


def encode(message):
    """One message as bytes: compact JSON and a newline."""
    return (json.dumps(message, separators=(',', ':'), allow_nan=False) + '\n').encode()


MALFORMED = object()
"""What :meth:`Reader.read` returns for a complete line that is not a JSON message."""


class ChannelClosed(Exception):
    """The other end closed the pipe (the child died or closed it)."""


class ChannelTimeout(Exception):
    """No complete message arrived before the deadline."""


class ChannelOverflow(Exception):
    """A message exceeded :data:`MAX_MESSAGE` bytes."""


class Reader:
    """Reads newline-framed messages from a file descriptor with deadlines."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = b''

    def read(self, deadline):
        """Return the next message as a decoded object (or raise).

        ``deadline`` is a ``time.monotonic()`` value.  A line that does not
        decode is returned as :data:`MALFORMED`, so the caller can report an
        invalid reply.
        """
        while b'\n' not in self.buffer:
            if len(self.buffer) > MAX_MESSAGE:
                raise ChannelOverflow()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout()
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                raise ChannelTimeout()
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise ChannelClosed()
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b'\n', 1)
        if len(line) > MAX_MESSAGE:
            raise ChannelOverflow()
        message = decode(line, nesting=False)
        return MALFORMED if message is None else message


def write_all(fd, data):
    """Write every byte of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
