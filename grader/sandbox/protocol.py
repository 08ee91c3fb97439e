"""The private channel between the judge (parent) and the probe (child).

Messages are single-line JSON objects over a pair of pipes that only the two
processes hold.  Every message carries the per-run random ``token``; a reply
also echoes the ``id`` of its request.  Nothing here ever unpickles, and the
parent treats any reply that is not a well-formed JSON object with the right
token, id and shape as a failed call.

Student output is never part of this channel: what a submission prints goes
to separate, capped pipes and is shown to the instructor as text only.
"""
import json
import os
import select
import time

MAX_MESSAGE = 8 * 1024 * 1024
"""Largest reply the parent accepts (bytes); anything longer is invalid."""

ENVELOPE_SCHEMA = {
    'type': 'object',
    'required': ['token', 'id', 'status'],
    'properties': {
        'token': {'type': 'string'},
        'id': {'type': 'integer'},
        'status': {'enum': ['ok', 'error', 'timeout']},
        'observation': {'type': 'object'},
        'error': {'type': 'string', 'maxLength': 2000},
        'elapsed': {'type': 'number', 'minimum': 0},
        'cpu': {'type': 'number', 'minimum': 0},
        'output': {'type': 'string', 'maxLength': 100000},
        'output_bytes': {'type': 'integer', 'minimum': 0},
    },
    'additionalProperties': False,
}


def encode(message):
    """One message as bytes: compact JSON and a newline."""
    return (json.dumps(message, separators=(',', ':'), allow_nan=False) + '\n').encode()


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

        ``deadline`` is a ``time.monotonic()`` value.  Decoding errors are
        returned as ``None`` so the caller can report an invalid reply.
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
        try:
            return json.loads(line)
        except ValueError:
            return None


def write_all(fd, data):
    """Write every byte of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
