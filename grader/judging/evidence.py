"""Counts confirmed by the CPU time measured outside the submission's process.

A count of search calls, leaf evaluations or expansions is made by the C counter, in
memory no code of the case process can write (:mod:`grader.child.tally`); the CPU time of
each case process comes from outside too (the runner's ``wait4``, the cgroup).  What a
count cannot show is work done out of the counter's sight, so a count is believed only
when both agree:

- every count is at least the fewest units any correct search needs on
  that case (its *floor*, computed by the reference): a count of zero, or
  one below the floor, was not made by the search;
- a case run several times in one process counts the same every time, within
  :func:`again_tolerance` (a search that remembers results between calls is
  caching, not searching less);
- an honest search spends a steady CPU time per counted unit across its
  cases (measured: coefficient of variation about 0.05), so the time per
  unit may not vary by more than ``spread`` (measured: honest alpha-beta
  searches 1.1-2.1 times, counts forged onto plain minimax 7 times and more)
  between public cases with enough work to measure;
- where cases come in groups that only turn the board (the same position
  rotated), a search that cuts branches counts differently depending on
  the order it meets the moves in; counts that never change within any
  group come from a search whose work does not depend on that order
  (remembered positions, or a count scaled from an unpruned search).

:func:`confirm` returns an :class:`Evidence` with one of these statuses and
a sentence for the student.  The measured time per unit is kept for the
facts.

Hidden and generated cases (``Sample.hidden``) take part in the rules of the counts
like the others, but nothing of theirs is said: the sentence names such a case "a hidden
case", with no count or floor.  Their time is no evidence at all: the time a hidden case
takes tells nothing (not even through the CPU time, which grows with the time a process
sleeps: measured here, 1-5 % of it), so the times per unit compared and kept for the facts
are the public cases'.  (A count is what the submission's search did: worded back, it would
carry the position it was given to every report.)
"""
import statistics
from dataclasses import dataclass, field

from grader.contract import NOT_CHECKED
from grader.judging import tallies

CONFIRMED = 'confirmed'
NOT_COUNTED = 'not counted'
CACHED = 'cached'
INCONSISTENT = 'inconsistent'
ORDER_INVARIANT = 'order-invariant'
UNMEASURED = 'unmeasured'
UNAVAILABLE = 'no counter'
"""This machine has no search counter (a self-check; an official grade refuses to run)."""


@dataclass
class Sample:
    """One counted case: the count of each run, the case process's CPU time, the floor."""

    case: str
    counts: list
    cpu: float
    floor: int = 1
    group: str = ''
    """Cases of one group are the same position turned; '' when not part of one."""
    rate_count: int = None
    """The count the CPU time is divided by (default: the first run's count), when another
    count of the same run follows the work more closely (e.g. moves made, beside leaves)."""
    hidden: bool = False
    """A hidden or generated case: its counts decide like the others', its time does not,
    and it is never described."""


@dataclass
class Evidence:
    status: str
    reason: str = ''
    seconds_per_unit: float = None
    spread: float = None
    details: dict = field(default_factory=dict)

    @property
    def confirmed(self):
        return self.status == CONFIRMED


def overhead(baseline):
    """``(fixed, per_run)``: the CPU seconds a case costs besides the search.

    ``baseline`` holds ``(runs, cpu)`` of requests whose search is trivial
    (or not made at all, ``runs`` 0); a bare number is a request with no run.
    ``fixed`` is what every case process costs (the module run again, the
    probe, the reply, the exit; the fork and the layers are not in a call's
    CPU time), ``per_run`` what the instrument costs each time the search is run.
    """
    groups = {}
    for item in baseline:
        runs, cpu = item if isinstance(item, tuple) else (0, item)
        groups.setdefault(runs, []).append(cpu)
    if not groups:
        return 0.0, 0.0
    low, high = min(groups), max(groups)
    fixed = statistics.median(groups[low])
    if high == low:
        return fixed, 0.0
    per_run = max(0.0, (statistics.median(groups[high]) - fixed) / (high - low))
    return max(0.0, fixed - low * per_run), per_run


def spread_of(baseline):
    """How far the CPU seconds of the ``baseline`` requests lie apart (0 with fewer than two)."""
    cpus = [item[1] if isinstance(item, tuple) else item for item in baseline]
    return max(cpus) - min(cpus) if len(cpus) > 1 else 0.0


def typical_spread(baseline):
    """How far the CPU seconds of the ``baseline`` requests typically lie apart: twice the
    distance from the lowest to their median (the whole range of an even spread), 0 with
    fewer than three.

    Load only ever adds CPU time (cache misses, page faults), so the lowest is the quiet
    cost; unlike :func:`spread_of`, requests slowed by a burst of load do not set it as
    long as they are fewer than half, while a module whose every case varies (work at
    import) still does.  For baselines taken all through a lane (see the eight puzzle's
    paired starts).
    """
    cpus = [item[1] if isinstance(item, tuple) else item for item in baseline]
    if len(cpus) < 3:
        return 0.0
    return 2 * (statistics.median(cpus) - min(cpus))


def work(sample, costs):
    """CPU seconds of one run of ``sample``'s search, the costs besides it taken off."""
    fixed, per_run = costs
    runs = max(1, len(sample.counts))
    return (sample.cpu - fixed) / runs - per_run


def confirm(samples, baseline, unit_name='search calls', spread=4.0, min_work=0.0015):
    """The :class:`Evidence` for ``samples`` given the ``baseline`` (see :func:`overhead`).

    ``min_work`` is the CPU time per run below which a case is too small to
    time against the others (it still has to meet its floor).
    """
    if tallies.counter_missing():
        return Evidence(UNAVAILABLE, NOT_CHECKED)
    if not samples:
        return Evidence(UNMEASURED, 'no case was counted')
    found = next(filter(None, (_counted(sample, unit_name) for sample in samples)), None)
    if found is None:
        found = _order_invariant(samples)
    if found is not None:
        return found
    return _steady(_rates(samples, overhead(baseline), min_work), spread)


def _counted(sample, unit_name):
    """NOT_COUNTED (below the floor) or CACHED (another count run again) for one sample, or None."""
    first = sample.counts[0] if sample.counts else 0
    if first < max(1, sample.floor):
        counted = (f'on a hidden case, fewer {unit_name} were counted than any correct '
                   'search needs' if sample.hidden else
                   f'{first} {unit_name} counted where any correct search needs at least '
                   f'{max(1, sample.floor)}')
        return Evidence(NOT_COUNTED, counted + (
            ': the search could not be counted (does it run on another thread, as a '
            'generator, or without calling itself?)'), details={'case': sample.case})
    if any(abs(count - first) > again_tolerance(first) for count in sample.counts[1:]):
        again = ('a hidden position searched again counted a different number of '
                 f'{unit_name}' if sample.hidden else
                 f'the same position searched again counted {min(sample.counts)} '
                 f'{unit_name} instead of {first}')
        return Evidence(CACHED, again + ': the search remembers results between calls, '
                        'which is caching, not pruning', details={'case': sample.case})
    return None


def again_tolerance(count):
    """How far a run's count may stray from the first run's on the same position: 2 %
    (at least 2).  Every frame of a run is counted, the standard library's included, and
    its caches make a first run differ slightly (``abc``'s subclass checks recurse the first
    time a class is checked, measured: 8 calls in 2,346); a search that remembers results
    between calls saves far more."""
    return max(2, count // 50)


def _order_invariant(samples):
    """ORDER_INVARIANT when no group's counts change as its board turns, else None."""
    groups = {}
    for sample in samples:
        if sample.group:
            groups.setdefault(sample.group, set()).add(sample.counts[0])
    if groups and all(len(counts) == 1 for counts in groups.values()):
        return Evidence(ORDER_INVARIANT, (
            'the counts are the same however the board is turned, so the search does the '
            'same work whatever order it meets the moves in: that is a search that remembers '
            'positions or does not cut branches, not alpha-beta'))
    return None


def _rates(samples, costs, min_work):
    """``{case: CPU seconds per counted unit}`` of the public cases with enough work (the
    time of a hidden or generated case is no evidence)."""
    rates = {}
    for sample in (s for s in samples if not s.hidden):
        seconds = work(sample, costs)
        if seconds >= min_work:
            rates[sample.case] = seconds / max(1, sample.rate_count or sample.counts[0])
    return rates


def _steady(rates, spread):
    """CONFIRMED when the time per unit stays within ``spread`` across cases, else INCONSISTENT."""
    if len(rates) < 2:
        median = statistics.median(rates.values()) if rates else None
        return Evidence(CONFIRMED, 'too little work to time against the counts; the floors hold',
                        seconds_per_unit=median)
    median = statistics.median(rates.values())
    ratio = max(rates.values()) / min(rates.values())
    if ratio > spread:
        slow = max(rates, key=rates.get)
        fast = min(rates, key=rates.get)
        said = (f'the counts do not follow the CPU time the search used: '
                f'{1e6 * rates[slow]:.1f} µs per counted call on {slow}, '
                f'{1e6 * rates[fast]:.1f} µs on {fast} ({ratio:.1f} times; an honest count '
                f'stays within {spread:g})')
        return Evidence(INCONSISTENT, said, seconds_per_unit=median, spread=round(ratio, 2))
    return Evidence(CONFIRMED, f'{1e6 * median:.1f} µs per counted call, steady within '
                               f'{ratio:.2f} times', seconds_per_unit=median,
                    spread=round(ratio, 2))


def searched_by_time(works, floor_seconds, baseline=()):
    """Whether the CPU time per run shows a search (not a look-up) on most heavy cases.

    ``works`` are per-run CPU seconds (the baseline already subtracted) of
    cases whose search, done by any correct method, costs far more than
    ``floor_seconds``; a look-up answers in microseconds.  Their median must
    reach the floor and, with ``baseline`` (the requests that search nothing),
    also what the baseline's own CPU times vary by: a case carries the noise
    of everything its process does besides the search, so on a busy machine a
    small search cannot be told from none, and none is shown.  The median (the
    lower of the two middle ones, so with two cases the smaller) keeps one case
    slowed by the load from showing a search that was not made.
    """
    if not works:
        return False
    return statistics.median_low(works) >= max(floor_seconds, spread_of(baseline))


def withdraw(outcomes, checks, kind, message):
    """Fail every passed outcome of ``checks``: credit that rested on evidence that did not hold.

    Each such outcome gets ``kind`` (e.g. ``not measured``, ``no search``) and
    ``message``; the others are left as they are.  Returns how many were failed.
    """
    failed = 0
    for outcome in outcomes:
        if outcome.passed and outcome.check in checks:
            outcome.passed, outcome.kind, outcome.message = False, kind, message
            failed += 1
    return failed


def unit_rates(samples, baseline, min_work=0.0015):
    """``{case: (count, seconds per counted unit)}`` for the samples with enough work to time."""
    costs = overhead(baseline)
    rates = {}
    for sample in samples:
        seconds = work(sample, costs)
        if seconds >= min_work and sample.counts and sample.counts[0] > 0:
            rates[sample.case] = (sample.counts[0], seconds / sample.counts[0])
    return rates


def confirm_growing(samples, baseline, unit_name='expansions', spread=4.0, min_work=0.0015,
                    max_seconds_per_unit=None):
    """:func:`confirm` for searches whose time per unit may grow with the count.

    A search that scans lists (an open list searched for its lowest f, a
    closed list tested with ``in``) spends time per expansion in proportion
    to the states it holds: its time per unit grows with the count, up to
    the count itself (measured: the handout's list style, 37-290 µs per
    expansion from 12 to 834 expansions).  So instead of one steady rate:

    - every count meets its floor and repeats the same (as :func:`confirm`);
    - between two cases, the one with fewer counted units may not cost more
      than ``spread`` times as much per unit as the other (counts that do
      not grow with the work), and the one with more may cost at most
      ``spread`` times its share of the count more per unit (no faster than
      the square of the count);
    - with ``max_seconds_per_unit``, no case spends more per counted unit.
    """
    found = confirm(samples, baseline, unit_name, spread=float('inf'), min_work=min_work)
    if found.status != CONFIRMED:
        return found
    one = unit_name[:-1] if unit_name.endswith('s') else unit_name
    rates = unit_rates(samples, baseline, min_work)
    if max_seconds_per_unit is not None:
        for case, (count, rate) in rates.items():
            if rate > max_seconds_per_unit:
                return Evidence(INCONSISTENT, (
                    f'{1e3 * rate:.2f} ms of CPU time per counted {one} on {case} '
                    f'({count} counted): far more than any search spends on one, so most of '
                    'the work was not counted'), seconds_per_unit=rate,
                    details={'case': case})
    ordered = sorted(rates.items(), key=lambda item: item[1][0])
    worst = 1.0
    for i, (small, (few, slow)) in enumerate(ordered):
        for large, (many, fast) in ordered[i + 1:]:
            if slow > spread * fast:
                return Evidence(INCONSISTENT, (
                    f'the counts do not follow the CPU time the search used: '
                    f'{1e6 * slow:.1f} µs per counted {one} on {small} ({few} '
                    f'counted), {1e6 * fast:.1f} µs on {large} ({many} counted); a search spends '
                    'no more per unit on the smaller search'), seconds_per_unit=fast,
                    details={'case': small})
            allowed = spread * max(1.0, many / few)
            if fast > allowed * slow:
                return Evidence(INCONSISTENT, (
                    f'the counts do not follow the CPU time the search used: '
                    f'{1e6 * fast:.1f} µs per counted {one} on {large} ({many} '
                    f'counted) against {1e6 * slow:.1f} µs on {small} ({few} counted), more than '
                    'the larger count explains'), seconds_per_unit=fast,
                    details={'case': large})
            worst = max(worst, slow / fast, fast / (slow * max(1.0, many / few)))
    if not rates:
        return found
    median = statistics.median(rate for _, rate in rates.values())
    return Evidence(CONFIRMED, f'{1e6 * median:.1f} µs per counted {one}, '
                               f'following the counts within {worst:.2f} times',
                    seconds_per_unit=median, spread=round(worst, 2))
