"""Errors that reach the user as one line naming the file and what to fix.

A :class:`UserError` is raised for bad input from a person (a malformed
grading.yaml, a broken fixture, an unreadable submission, a wrong option).
The command line prints ``str(error)`` and exits with status 2; it never
shows a traceback for these.
"""


class UserError(Exception):
    """Bad input from a user: ``file:line: message``."""

    def __init__(self, message, path=None, line=None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self):
        where = self.path or ''
        if self.path and self.line:
            where += f':{self.line}'
        return f'{where}: {self.message}' if where else self.message
