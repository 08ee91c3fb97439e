"""Which isolation layers this machine offers, and the level they add up to.

Levels, recorded in every result:

- ``strong``: namespaces (bubblewrap), an unprivileged uid, seccomp and a
  cgroup for teardown, on top of everything below.
- ``standard``: a child process in its own session and process group, with
  rlimits (CPU, address space, file size, open files, no core dumps), a
  scrubbed environment, closed stdin, capped output and a private copy of the
  submission.
- ``advisory``: a child process with time limits only (no rlimits: macOS or
  Windows laptops).  Good against accidents, not against attacks.
"""
import os
import sys
from dataclasses import dataclass, field


@dataclass
class Isolation:
    """The layers in force for a grading run."""

    level: str
    layers: list = field(default_factory=list)
    missing: list = field(default_factory=list)

    def describe(self):
        text = f'{self.level} ({", ".join(self.layers) or "no layers"})'
        return text


def detect(settings=None):
    """Detect the layers available here; never raises."""
    layers = ['subprocess', 'timeouts', 'private-copy', 'scrubbed-env', 'capped-output']
    missing = []
    if os.name == 'posix':
        layers.append('process-group')
        try:
            import resource  # noqa: F401
            layers.append('rlimits')
        except ImportError:
            missing.append('rlimits: the resource module is unavailable')
    level = 'standard' if sys.platform.startswith('linux') and 'rlimits' in layers else 'advisory'
    return Isolation(level=level, layers=layers, missing=missing)
