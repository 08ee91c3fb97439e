"""Paths and helpers shared by the tests (imported by name: ``from gradertest import ROOT``).

Kept out of ``conftest.py`` because several conftest modules exist in the
tree and only one of them can be imported as ``conftest``.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / 'tests' / 'submissions'


def spawns(monkeypatch):
    """Record each sandbox booted (:meth:`Session.spawn`, spares included) in the list
    returned."""
    from grader.sandbox.session import Session
    booted, spawn = [], Session.spawn

    def recording(self):
        booted.append(self)
        return spawn(self)
    monkeypatch.setattr(Session, 'spawn', recording)
    return booted
