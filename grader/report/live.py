"""The line a self-check keeps up to date on the terminal while it runs.

``grader check`` writes its report once every exercise is graded.  Meanwhile,
when standard error is a terminal, one line there tells how far each exercise
has got and how many of its cases failed so far::

    checking: connect4 29/34 · travel 61/63 · tictactoe 12/29, 1 failed · eightpuzzle 0/25

It is drawn again as cases are judged (at most every :data:`INTERVAL` seconds)
and erased before the report is written, so the report reads the same as
without it.  The counts are the cases as judged when their calls ended; the
report, which reviews the cases together, is what counts.  An official grade
shows no such line: when its hidden cases end would tell something of them.
"""
import os
import shutil
import threading
import time

INTERVAL = 0.05
"""Seconds between two drawings of the line (an exercise that ends is drawn at once)."""


def on_terminal(stream):
    """A :class:`Live` line on ``stream`` when it is a terminal that can redraw a line,
    else None."""
    if not (hasattr(stream, 'isatty') and stream.isatty()) or os.environ.get('TERM') == 'dumb':
        return None
    return Live(stream)


class Live:
    """The progress of a self-check, as ``progress`` of :func:`grader.engine.grade_many`:
    ``started(exercise, cases)`` and ``judged(exercise, index, passed)``, from any thread;
    :meth:`clear` erases the line."""

    def __init__(self, stream, width=None):
        self.stream = stream
        self.width = width
        try:        # a terminal that cannot show them gets plain ASCII
            '·…'.encode(getattr(stream, 'encoding', None) or 'ascii')
            self.between, self.cut = ' · ', '…'
        except (LookupError, UnicodeError):
            self.between, self.cut = ' | ', '...'
        self.cases = {}         # exercise -> number of its cases, in the order started
        self.judged_cases = {}  # exercise -> {case index: passed}
        self.drawn_at = None
        self.shown = False
        self.lock = threading.Lock()

    def started(self, exercise, cases):
        with self.lock:
            self.cases[exercise] = cases
            self.judged_cases.setdefault(exercise, {})
            self._draw(force=True)

    def judged(self, exercise, index, passed):
        with self.lock:
            seen = self.judged_cases.setdefault(exercise, {})
            seen[index] = passed
            self._draw(force=len(seen) == self.cases.get(exercise))

    def line(self):
        """The text of the line (not cut to the terminal's width)."""
        parts = []
        for exercise, total in self.cases.items():
            seen = self.judged_cases.get(exercise, {})
            failed = sum(1 for passed in seen.values() if not passed)
            parts.append(f'{exercise} {len(seen)}/{total}' +
                         (f', {failed} failed' if failed else ''))
        return 'checking: ' + self.between.join(parts)

    def clear(self):
        """Erase the line, if one was drawn."""
        with self.lock:
            if self.shown:
                self._write('\r\033[K')
                self.shown = False
            self.cases = {}

    def _draw(self, force=False):
        now = time.monotonic()
        if not force and self.drawn_at is not None and now - self.drawn_at < INTERVAL:
            return
        self.drawn_at = now
        width = self.width or self._columns()
        text = self.line()
        if len(text) >= width:
            text = text[:max(0, width - 1 - len(self.cut))] + self.cut
        self._write('\r' + text + '\033[K')
        self.shown = True

    def _columns(self):
        """The width of the line's own terminal (standard output may be a file), else
(a terminal that does not say) of ``$COLUMNS`` or 80."""
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        return columns or shutil.get_terminal_size((80, 24)).columns

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):   # a closed or broken terminal: the report still comes
            pass
