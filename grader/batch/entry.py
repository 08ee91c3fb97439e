"""One submission as a source holds it: whose it is, and its files or why they cannot be read."""
from dataclasses import dataclass

from grader.batch import identity


@dataclass
class Entry:
    identity: identity.Identity
    files: dict = None
    problem: str = ''
    empty: bool = False
    """Nothing to read (only links, or no file at all): merged with another part of the
    same participant's submission, the other part is graded."""
