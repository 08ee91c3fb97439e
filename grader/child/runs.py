"""How many times a probe runs one search (case process side, stdlib only).

A counted search is run several times in its case process so that its CPU
time, which the parent measures from outside, stands well above what the
case costs besides; and running it twice shows a search that remembers
results between calls (its count changes).  A slow search needs neither
repeat: its first two runs take long enough.  So a request may give a
budget: ``reps`` runs at most, at least ``at_least`` (default 2, at most
``reps``), and more only while the runs so far took less than ``work``
seconds of CPU time.

The budget is read on this thread's clock, which is exact (the process's
clock only moves at the kernel's ticks while a CPU limit is armed).  It
counts from where the caller says the search began (by default the first
run's start): a route's first run builds the CityMap before it searches,
and building the large city takes longer than the whole budget on a slow
machine, which left one run of a few milliseconds beside 75 ms of building
in the CPU time the parent measures.  How
many runs were made is the submission's claim like everything a case
process reports: the parent divides the CPU time it measured by the runs
the reply lists, and a search's time limit covers ``at_least`` runs (see
:attr:`grader.exercises.base.Request.runs`), which a search within its
limit never needs more than (the last run starts only while the runs before
it took less than ``work``, which is below any limit).
"""
import time

clock = time.thread_time
"""Taken when the probe is imported, before any student code runs."""


def runs(payload, began=None, done=0):
    """The indices of the runs of one request: ``range(reps)`` (``reps`` default 1) without
    ``work``, else the budget above.  A probe leaves the loop early when a run fails.

    ``done`` runs were already made by the caller (their indices are not given again);
    ``began`` is the :data:`clock` reading the budget counts from (default: now).
    """
    most = max(0, int(payload.get('reps', 1)))
    if 'work' not in payload:
        yield from range(done, most)
        return
    least = min(most, max(1, int(payload.get('at_least', 2))))
    work = float(payload['work'])
    began = clock() if began is None else began
    while done < most and (done < least or clock() - began < work):
        yield done
        done += 1
