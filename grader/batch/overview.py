"""The class overview: the distribution of scores and how often each check passed.

A check that fails for most of the class is flagged: a broken fixture is
more likely than a failing class, so its most failed case is named for the
instructor to look at first.  The same figures are written as a Markdown
table (``overview.md``) and drawn as a PNG (``overview.png``).
"""
import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

from grader.batch import exports, sources
from grader.report.files import write_text
from grader.scoring import fmt

FLAG_BELOW = 0.5
"""A check passed by less than this share of the submissions that have its exercise is flagged."""
FLAG_MIN_SUBMISSIONS = 3


@dataclass
class CheckRate:
    exercise: str
    check: str
    points: float
    passed: int
    total: int
    most_failed: list = field(default_factory=list)
    """``[(case, number of submissions failing it)]``, most frequent first."""

    @property
    def rate(self):
        return self.passed / self.total if self.total else 0.0

    @property
    def flagged(self):
        return self.total >= FLAG_MIN_SUBMISSIONS and self.rate < FLAG_BELOW


@dataclass
class Overview:
    counts: dict
    scores: list
    max_score: float
    checks: list
    bins: list
    """``[(low, high, number of scores in [low, high))]``; the last bin holds the maximum."""

    @property
    def flagged(self):
        return [c for c in self.checks if c.flagged]


def build(records, bins=10):
    counts = Counter(r.status for r in records)
    graded = [r for r in records if r.status == 'graded']
    scores = sorted(r.score for r in graded)
    max_score = max((r.max_score for r in graded), default=0.0)
    rates = {}
    for record in graded:
        for exercise in record.result['exercises']:
            if not exercise['submitted']:
                continue
            for check in exercise['checks']:
                rate = rates.setdefault((exercise['name'], check['name']), CheckRate(
                    exercise['name'], check['name'], check['max_score'], 0, 0, Counter()))
                rate.total += 1
                rate.passed += bool(check['passed'])
                rate.most_failed.update({f['case'] for f in check['failures']})
    checks = []
    for rate in rates.values():
        # Ties broken by case name: the same results always give the same overview.
        rate.most_failed = sorted(rate.most_failed.items(), key=lambda i: (-i[1], i[0]))[:3]
        checks.append(rate)
    return Overview(counts=dict(sorted(counts.items())), scores=scores, max_score=max_score,
                    checks=checks, bins=histogram(scores, max_score, bins))


def histogram(scores, max_score, bins):
    if not scores or max_score <= 0:
        return []
    width = max_score / bins
    counts = [0] * bins
    for score in scores:
        counts[min(bins - 1, max(0, math.floor(score / width + 1e-9)))] += 1
    return [(round(i * width, 4), round((i + 1) * width, 4), n) for i, n in enumerate(counts)]


def render(view, title='Class overview', look_alike=(), untimed=()):
    """The overview as Markdown; ``look_alike`` groups of keys whose names reduce
    to the same text, ``untimed`` keys graded without a submission time although
    a late penalty applies."""
    out = [f'# {title}', '']
    total = sum(view.counts.values())
    graded = view.counts.get('graded', 0)
    out.append(f'{total} submissions: {graded} graded'
               + ''.join(f', {n} {status}' for status, n in sorted(view.counts.items())
                         if status != 'graded') + '.')
    if view.scores:
        out.append(f'Scores out of {fmt(view.max_score)}: '
                   f'mean {fmt(statistics.mean(view.scores))}, '
                   f'median {fmt(statistics.median(view.scores))}, min {fmt(view.scores[0])}, '
                   f'max {fmt(view.scores[-1])}.')
    out.append('')
    if view.flagged:
        out += ['## Checks that fail for most of the class', '',
                'A broken fixture is more likely than a failing class: check these first '
                '(`grader fixtures --verify`, then the cases named).', '']
        for rate in view.flagged:
            cases = ', '.join(f'{case} ({n})' for case, n in rate.most_failed) or '-'
            out.append(f'- **{rate.exercise}/{rate.check}** passed by {rate.passed} of '
                       f'{rate.total} ({rate.rate:.0%}); most failed cases: {cases}')
        out.append('')
    if look_alike:
        out += ['## Names that look alike', '',
                'These names reduce to the same text; each submission is filed under a key '
                'of its own. Check that each student gets their own feedback file.', '']
        out += [f'- {", ".join(keys)}' for keys in look_alike]
        out.append('')
    if untimed:
        out += ['## Submissions without a time', '',
                'Their assignment has a late penalty, but no submission time was known, so '
                'none was applied (give one with --moodle-worksheet or --roster):', '',
                ', '.join(untimed), '']
    if view.bins:
        out += ['## Scores', '', '| Score | Submissions |', '| --- | ---: |']
        for i, (low, high, n) in enumerate(view.bins):
            closing = ']' if i == len(view.bins) - 1 else ')'
            out.append(f'| [{fmt(low)}, {fmt(high)}{closing} | {n} |')
        out.append('')
    if view.checks:
        out += ['## Checks', '',
                '| Exercise | Check | Points | Passed | Of | Rate | Most failed cases |',
                '| --- | --- | ---: | ---: | ---: | ---: | --- |']
        for rate in view.checks:
            flag = ' **flagged**' if rate.flagged else ''
            cases = ', '.join(f'{case} ({n})' for case, n in rate.most_failed)
            out.append(f'| {rate.exercise} | {rate.check} | {fmt(rate.points)} | {rate.passed} | '
                       f'{rate.total} | {rate.rate:.0%}{flag} | {cases} |')
        out.append('')
    return '\n'.join(out)


def plot(view, path):
    """Draw the score histogram and the check pass rates into a PNG."""
    import matplotlib  # optional and slow to import: only when the plot is drawn
    matplotlib.use('Agg')
    from matplotlib import pyplot  # optional and slow to import: only when the plot is drawn

    rows = max(1, len(view.checks))
    figure, (top, bottom) = pyplot.subplots(2, 1, figsize=(8, 4 + 0.3 * rows),
                                            gridspec_kw={'height_ratios': [3, max(2, rows * 0.4)]})
    try:
        if view.bins:
            top.bar([low for low, _, _ in view.bins], [n for *_, n in view.bins],
                    width=view.bins[0][1] - view.bins[0][0], align='edge', color='#4c72b0',
                    edgecolor='white')
            top.set_xlim(0, view.max_score)
        top.set_xlabel('score')
        top.set_ylabel('submissions')
        top.yaxis.get_major_locator().set_params(integer=True)
        top.set_title(f'Scores ({len(view.scores)} graded)')
        labels = [f'{c.exercise}/{c.check}' for c in view.checks]
        bottom.barh(labels, [100 * c.rate for c in view.checks],
                    color=['#c44e52' if c.flagged else '#55a868' for c in view.checks])
        bottom.axvline(100 * FLAG_BELOW, color='grey', linestyle='--', linewidth=1)
        bottom.set_xlim(0, 100)
        bottom.invert_yaxis()
        bottom.set_xlabel('submissions passing the check (%); red: flagged')
        figure.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f'.{path.name}.tmp.png')
        figure.savefig(tmp, dpi=100)
        tmp.replace(path)
    finally:
        pyplot.close(figure)


def write(records, folder, policy=None):
    view = build(records)
    look_alike = sources.look_alike([r.identity for r in records])
    untimed = [r.identity.key for r in exports.untimed(records, policy)]
    write_text(folder / 'overview.md', render(view, look_alike=look_alike, untimed=untimed))
    plot(view, folder / 'overview.png')
    return view
