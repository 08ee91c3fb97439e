"""The tally's arrays travel packed from the runner to the parent, and are read back strictly.

The runner reads the counter's block from the stopped case process
(:func:`grader.child.tally.read`) and sends its arrays -- the route planner's expansion
orders (up to 6,000 pairs each) and the eight puzzle's states (up to 8,192) -- as base64 text
of the block's own bytes, not as thousands of JSON numbers each checked one by one.  The
parent (:func:`grader.sandbox.protocol.tally_lists`) makes lists of them again and refuses
a reply whose arrays are not what the counter writes: the reply is then invalid, as a
tampered channel is.
"""
import json
import math
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.child import tally
from grader.sandbox import protocol
from grader.sandbox.session import Session

BIG = 2 ** 64 - 1
"""A stop code's hash may take all 64 bits."""


def packed_order(pairs):
    """An order as the runner sends it: the codes, then the times (NaN: not known)."""
    codes = struct.pack(f'<{len(pairs)}Q', *(code for code, _ in pairs))
    times = struct.pack(f'<{len(pairs)}d', *(math.nan if t is None else t for _, t in pairs))
    return tally._packed(codes + times)


def a_tally(**arrays):
    found = {'runs': 1, 'flags': 0, 'slots': [], 'unread': 0,
             'order': tally._packed(b''), 'made_order': tally._packed(b''),
             'states': tally._packed(b'')}
    found.update(arrays)
    return found


def test_the_arrays_come_back_as_the_counter_noted_them():
    order = [[1, 0.0], [BIG, 12.5], [2 ** 63, None], [7, 1439.0]]
    made = [[3, None]]
    states = [123456780, 876543210, 12345678]
    sent = a_tally(order=packed_order(order), made_order=packed_order(made),
                   states=tally._packed(struct.pack('<3I', *states)))
    assert json.loads(json.dumps(sent)) == sent          # plain JSON text on the channel
    read = protocol.tally_lists(sent)
    assert read['order'] == order and read['made_order'] == made
    assert read['states'] == states
    assert read['runs'] == 1 and read['slots'] == []
    assert isinstance(sent['order'], str)                # the runner's own dict is not changed


def test_no_tally_is_no_tally():
    assert protocol.tally_lists(None) is None


def test_the_packed_arrays_fit_the_schema_of_the_fullest_block():
    from grader.replycheck import ReplyCheck
    envelope = {'token': 't', 'id': 1, 'status': 'replied', 'reply': '',
                'tally': a_tally(order=packed_order([[BIG, 1.0]] * protocol.ORDERED),
                                 made_order=packed_order([[1, None]] * protocol.ORDERED),
                                 states=tally._packed(b'\0' * 4 * protocol.RECORDED))}
    assert ReplyCheck(protocol.ENVELOPE_SCHEMA).is_valid(envelope)
    too_long = dict(envelope, tally=a_tally(
        order=packed_order([[1, 1.0]] * (protocol.ORDERED + 1))))
    assert not ReplyCheck(protocol.ENVELOPE_SCHEMA).is_valid(too_long)


MALFORMED = {
    'not base64': {'order': 'not base64!'},
    'base64 with a line break': {'order': tally._packed(b'\0' * 16)[:8] + '\n' +
                                 tally._packed(b'\0' * 16)[8:]},
    'a ragged order': {'order': tally._packed(b'\0' * 17)},
    'a ragged list of states': {'states': tally._packed(b'\0' * 6)},
    'more expansions than the counter notes': {
        'made_order': tally._packed(b'\0' * 16 * (protocol.ORDERED + 1))},
    'more states than the counter notes': {
        'states': tally._packed(b'\0' * 4 * (protocol.RECORDED + 1))},
    'an infinite time': {'order': packed_order([[1, math.inf]])},
    'a number no tiles spell': {'states': tally._packed(struct.pack('<I', 987654321))},
    'a number for the text': {'order': 12},
    'a list for the text': {'states': [1, 2, 3]},
}


def test_arrays_the_counter_does_not_write_make_the_reply_malformed():
    for name, arrays in MALFORMED.items():
        assert protocol.tally_lists(a_tally(**arrays)) is protocol.MALFORMED, name


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.dictionaries(st.sampled_from(['order', 'made_order', 'states']),
                       st.one_of(st.text(), st.binary().map(tally._packed), st.integers(),
                                 st.none(), st.lists(st.integers()))))
def test_reading_the_arrays_never_raises(arrays):
    read = protocol.tally_lists(a_tally(**arrays))
    assert read is protocol.MALFORMED or (
        isinstance(read['order'], list) and isinstance(read['states'], list))


class _Reader:
    """A runner's channel that answers once with ``message``."""

    def __init__(self, message):
        self.message, self.fd = message, None

    def read(self, deadline):
        return self.message


def answered(tmp_path, packed):
    """The :class:`Reply` a session makes of a runner's answer carrying ``packed``."""
    box = Session(tmp_path, 'tictactoe.py', 'grader.exercises.tictactoe.probe')
    box._send = lambda message: 41
    box._reader = _Reader({'token': box.token, 'id': 41, 'status': 'replied', 'cpu': 0.01,
                           'setup_cpu': 0.0, 'tally': packed,
                           'reply': json.dumps({'id': 41, 'status': 'ok', 'observation': {}})})
    return box._case({'op': 'call', 'wall': 5.0}, 5.0)


def test_a_session_reads_the_arrays_back_or_refuses_the_reply(tmp_path):
    order = [[BIG, 3.0], [5, None]]
    good = answered(tmp_path, a_tally(order=packed_order(order)))
    assert good.status == 'ok', good.error
    assert good.tally['order'] == order and good.tally['states'] == []
    bad = answered(tmp_path, a_tally(order=packed_order([[1, -math.inf]])))
    assert bad.status == 'invalid' and 'malformed' in bad.error
