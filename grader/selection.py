"""Positions chosen to catch the bugs students make: ``grader fixtures --select``.

The course keeps a library of buggy variants of each reference solution
(``tests/bugs/<exercise>/``): the classic mistakes of the handouts, one module each, and
the mutants a mutation tool (cosmic-ray, from the package index) makes of the reference
solution.  :func:`select` runs every variant on the exercise's position space
(``reference/trials/<exercise>.py``: every reachable position of tic-tac-toe, many
drawn starts of the eight puzzle), each in a process of its own, and sorts them:

- ``equivalent``: the same answer as the reference on every position tried, set aside
  by that proof (for tic-tac-toe the whole finite space: a proof by exhaustion); a
  mutated line the reference never runs on any position tried is set aside with that
  argument;
- ``honest``: other answers than the reference's, but every one accepted by the checks
  (another optimal move): no bug, and it must not lose points;
- ``buggy``: some answer the checks refuse; the positions that show it are its killers
  (the trial stops at :data:`POOL_PER_VARIANT` of them, or after :data:`SLOW_TRIES`
  time-outs, so only the variants that survive run the whole space);
- ``undecided``: the variant ran past its time on the whole space, or past the trial's
  limit on some positions and right on every one of them given the far limit.

A time-out is no killer by itself: the trial's limit (``LIMIT``, about a second) is below
the grader's, and a variant just past it answers in time on a faster machine.  Only a
variant that answers no position wrongly has its slow positions tried again, at the far
limit (``FAR_LIMIT``, about ten times the grader's): a position it answers wrongly there,
or still not at all, is a killer on every machine.

The pool keeps each variant's cheapest killers (tic-tac-toe's space is run cheapest
position first), so an official grade meets them as little work each; a trial module's
``POOL_COST`` leaves out the killers that cost more, for a variant that has cheaper ones.

From the killers it writes the *pool* ``<reference>/pools/<exercise>.json``: a few
killers of every buggy variant, each position with the set of variants it kills.  An
official grade (:mod:`grader.generated`, ``generated: {killers: n}``) draws from the pool,
seeded like every drawn position, until each variant meets ``n`` of its killers, so every
grade meets several killers of every known bug class, positions the submission has not
seen.  The library's record, ``tests/bugs/<exercise>/library.json``, keeps each
variant's verdict and its proof or its killers.  Re-running the command after a change
of the reference or the rules renews the mutants, the verdicts and the pool.
"""
import difflib
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UserError

COVERAGE_CASES = 100
"""Positions the reference runs with line tracing, to find the lines grading never runs."""
POOL_PER_VARIANT = 12
"""Killers of each buggy variant kept in the pool (fewer when it has fewer)."""
SLOW_TRIES = 20
"""Time-outs at the trial's limit after which a variant's run ends (they are no killers, so
a variant that loops on some positions runs on to find those it answers wrongly); a trial
module's ``SLOW_TRIES`` says otherwise."""
CONFIRM = 2
"""Slow positions of a variant with no other killer that are tried again at the far limit."""


@dataclass
class Variant:
    """One buggy variant of a reference solution: a classic mistake or a mutant."""

    name: str
    kind: str
    source: str
    origin: dict = field(default_factory=dict)
    verdict: str = ''
    detail: dict = field(default_factory=dict)


def trials_of(policy, exercise):
    """The trial module of ``exercise`` (``<reference>/trials/<exercise>.py``)."""
    from grader import fixtures
    fixtures.oracle(policy, exercise)          # puts the reference's parent on sys.path
    folder = Path(policy.reference)
    if not (folder / 'trials' / f'{exercise}.py').is_file():
        raise UserError(f'no trials for {exercise}: expected {folder}/trials/{exercise}.py '
                        '(how its solution is called, what the checks accept)', policy.path)
    import importlib
    return importlib.import_module(f'{folder.name}.trials.{exercise}')


def classic_variants(folder):
    """The classic mistakes of ``folder``: one module each, named after the mistake."""
    return [Variant(path.stem, 'classic', path.read_text(encoding='utf-8'),
                    {'file': path.name}) for path in sorted(Path(folder).glob('*.py'))]


def mutants(source):
    """Every mutant cosmic-ray's core operators make of ``source``, as :class:`Variant`.

    Each is named ``<operator>-<occurrence>`` and records the line it changes and the
    change itself.
    """
    try:
        from cosmic_ray import plugins
        from cosmic_ray.mutating import mutate_code
    except ImportError:
        raise UserError('grader fixtures --select needs the mutation tool: '
                        "pip install '.[select]' in the grader's folder (cosmic-ray)") from None
    found = []
    for operator_name in plugins.operator_names():
        try:
            operator = plugins.get_operator(operator_name)()
        except TypeError:         # operators that need arguments of their own
            continue
        occurrence = 0
        while True:
            mutated = mutate_code(source, operator, occurrence)
            if mutated is None:
                break
            short = operator_name.split('/')[-1]
            found.append(Variant(f'{short}-{occurrence}', 'mutant', mutated,
                                 dict(operator=operator_name, occurrence=occurrence,
                                      **change(source, mutated))))
            occurrence += 1
    return found


def change(before, after):
    """``{line, before, after}``: the first changed line of a mutant and its text."""
    old, new = before.splitlines(), after.splitlines()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != 'equal':
            return {'line': i1 + 1, 'before': '\n'.join(old[i1:i2]),
                    'after': '\n'.join(new[j1:j2])}
    return {'line': 0, 'before': '', 'after': ''}


def run_trial(policy, exercise, source, cases, limit, stop_after=None, timeout=None,
              timeouts=None):
    """Run one variant (its source) on ``cases`` ([[input, expected], ...]) in a process of
    its own: ``{'answers': [...], 'failed': {index: reason}}``, or None when the whole
    run went past ``timeout`` seconds.  The run ends after ``stop_after`` failed cases
    other than time-outs, and after ``timeouts`` time-outs (default three, as a grade)."""
    folder = Path(policy.reference).resolve()
    with tempfile.TemporaryDirectory(prefix='grader-trial-') as tmp:
        path = Path(tmp) / 'variant.py'
        path.write_text(source, encoding='utf-8')
        env = dict(os.environ, PYTHONPATH=str(folder.parent), PYTHONDONTWRITEBYTECODE='1')
        try:
            proc = subprocess.run(
                [sys.executable, '-m', f'{folder.name}.trials', exercise, str(path)],
                input=json.dumps({'cases': cases, 'limit': limit, 'stop_after': stop_after,
                                  'timeouts': timeouts}),
                capture_output=True, text=True, cwd=tmp, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    if proc.returncode != 0:
        return {'answers': [], 'failed': {str(i): f'the trial ended: {proc.stderr[-200:]}'
                                          for i in range(len(cases))}}
    return json.loads(proc.stdout)


def executed_lines(policy, exercise, source, cases):
    """Line numbers of ``source`` the reference runs on ``cases`` (a trial with line
    tracing, in its own process)."""
    folder = Path(policy.reference).resolve()
    with tempfile.TemporaryDirectory(prefix='grader-trial-') as tmp:
        path = Path(tmp) / 'variant.py'
        path.write_text(source, encoding='utf-8')
        env = dict(os.environ, PYTHONPATH=str(folder.parent), PYTHONDONTWRITEBYTECODE='1',
                   GRADER_TRIAL_LINES='1')
        proc = subprocess.run(
            [sys.executable, '-m', f'{folder.name}.trials', exercise, str(path)],
            input=json.dumps({'cases': cases, 'limit': 30.0}), capture_output=True, text=True,
            cwd=tmp, env=env, check=True)
    return set(json.loads(proc.stdout)['lines'])


class Selection:
    """One exercise's variants sorted against its reference on its position space."""

    def __init__(self, policy, exercise, bugs, log=print):
        self.policy, self.exercise, self.log = policy, exercise, log
        self.trials = trials_of(policy, exercise)
        self.solution = Path(policy.reference) / self.trials.SOLUTION
        self.source = self.solution.read_text(encoding='utf-8')
        self.inputs = self.trials.space()
        self.cases = [[i, self.trials.expect(i)] for i in self.inputs]
        self.exhaustive = getattr(self.trials, 'EXHAUSTIVE', False)
        self.limit = getattr(self.trials, 'LIMIT', 2.0)
        self.far_limit = getattr(self.trials, 'FAR_LIMIT', 10 * self.limit)
        self.budget = getattr(self.trials, 'BUDGET', 600)
        self.slow_tries = getattr(self.trials, 'SLOW_TRIES', SLOW_TRIES)
        self.variants = classic_variants(Path(bugs) / exercise) + mutants(self.source)
        self.reference = None

    def sort(self):
        """Give every variant its verdict (see the module docstring)."""
        self.reference = run_trial(self.policy, self.exercise, self.source, self.cases,
                                   self.limit)
        if self.reference['failed']:
            index, reason = next(iter(self.reference['failed'].items()))
            raise UserError(f'the reference solution itself fails position {index} '
                            f'({reason}): fix it or the oracle first', self.solution)
        ran = None if self.exhaustive else executed_lines(
            self.policy, self.exercise, self.source, self.cases[:COVERAGE_CASES])
        for number, variant in enumerate(self.variants, 1):
            line = variant.origin.get('line')
            if ran is not None and variant.kind == 'mutant' and line not in ran:
                variant.verdict = 'equivalent'
                variant.detail = {'proof': f'line {line} of the reference runs on none of '
                                           f'{min(COVERAGE_CASES, len(self.cases))} positions '
                                           'traced'}
                continue
            self._judge(variant)
            if number % 25 == 0:
                self.log(f'{self.exercise}: {number} of {len(self.variants)} variants run')

    def _judge(self, variant):
        result = run_trial(self.policy, self.exercise, variant.source, self.cases, self.limit,
                           stop_after=POOL_PER_VARIANT, timeout=self.budget,
                           timeouts=self.slow_tries)
        if result is None:
            variant.verdict, variant.detail = 'undecided', {'reason': 'ran past its time'}
            return
        failed = {int(k): v for k, v in result['failed'].items() if v != 'timeout'}
        slow = [int(k) for k, v in result['failed'].items() if v == 'timeout']
        if slow and not failed:
            failed = self._confirm(variant, slow[:CONFIRM])
        if failed:
            variant.verdict = 'buggy'
            variant.detail = {'killers': sorted(failed), 'reasons': sorted(set(failed.values())),
                              'tried': len(result['answers'])}
            if slow:
                variant.detail['slow'] = len(slow)
        elif slow:
            variant.verdict = 'undecided'
            variant.detail = {'reason': f'past {self.limit:g} s of CPU on {len(slow)} '
                                        f'positions, right on those tried again at '
                                        f'{self.far_limit:g} s'}
        elif result['answers'] == self.reference['answers']:
            variant.verdict = 'equivalent'
            variant.detail = {'proof': f'the same answers as the reference on all '
                                       f'{len(self.cases)} positions'
                                       + (' of the finite space' if self.exhaustive else '')}
        else:
            variant.verdict = 'honest'
            variant.detail = {'proof': f'other answers, each accepted, on all '
                                       f'{len(self.cases)} positions'}

    def _confirm(self, variant, slow):
        """``{position: reason}`` of the ``slow`` positions (past the trial's limit) that
        ``variant`` answers wrongly, or not at all, at the far limit."""
        result = run_trial(self.policy, self.exercise, variant.source,
                           [self.cases[i] for i in slow], self.far_limit,
                           timeout=4 * self.far_limit * len(slow) + 60, timeouts=len(slow))
        if result is None:
            return dict.fromkeys(slow, f'timeout at {self.far_limit:g} s')
        return {slow[int(k)]: (f'timeout at {self.far_limit:g} s' if v == 'timeout' else v)
                for k, v in result['failed'].items()}

    def buggy(self):
        return [v for v in self.variants if v.verdict == 'buggy']

    def pool(self, seed=33):
        """Up to :data:`POOL_PER_VARIANT` killers of each buggy variant (the cheapest first,
        seeded among equals; none above the trials' ``POOL_COST`` when it has cheaper
        ones), each with the mask of the buggy variants it kills."""
        rng = random.Random(seed)
        cap = getattr(self.trials, 'POOL_COST', None)
        chosen = set()
        for variant in self.buggy():
            killers = list(variant.detail['killers'])
            rng.shuffle(killers)
            killers.sort(key=lambda i: self.trials.cost(self.inputs[i]))
            cheap = [i for i in killers if cap is None or self.trials.cost(self.inputs[i]) <= cap]
            chosen.update((cheap or killers)[:POOL_PER_VARIANT])
        positions = sorted(chosen)
        masks = self._masks(positions)
        return [{'input': self.inputs[i], 'kills': format(masks[i], 'x')} for i in positions]

    def _masks(self, positions):
        """``{position: mask of the buggy variants it kills}``: each variant run on every
        pool position (its first trial may have stopped early), a time-out there no
        kill, and the variant's own killers (time-outs at the far limit among them)."""
        masks = dict.fromkeys(positions, 0)
        cases = [self.cases[i] for i in positions]
        for bit, variant in enumerate(self.buggy()):
            result = run_trial(self.policy, self.exercise, variant.source, cases, self.limit,
                               timeout=self.budget, timeouts=self.slow_tries)
            failed = set() if result is None else \
                {positions[int(k)] for k, v in result['failed'].items() if v != 'timeout'}
            for position in failed | (set(variant.detail['killers']) & set(positions)):
                masks[position] |= 1 << bit
        return masks

    def write(self, bugs):
        """Write the pool and the library's record; returns their paths."""
        pool_path = Path(self.policy.reference) / 'pools' / f'{self.exercise}.json'
        pool_path.parent.mkdir(parents=True, exist_ok=True)
        digest = 'sha256:' + hashlib.sha256(self.source.encode()).hexdigest()
        document = {'exercise': self.exercise, 'solution': digest,
                    'variants': [v.name for v in self.buggy()], 'positions': self.pool()}
        from grader import poolanswers
        from grader.poolanswers import file_digest
        data = {option: file_digest(path)
                for option, path in getattr(self.trials, 'DATA', {}).items()}
        if data:        # the files the space was drawn on: a grade on others draws no killers
            document['data'] = data
        # the reference's answers, for every grade to come
        document['answers'] = poolanswers.computed(self.policy, self.exercise, document)
        write_json(pool_path, document)
        record = Path(bugs) / self.exercise / 'library.json'
        write_json(record, {
            'exercise': self.exercise, 'solution': digest, 'positions': len(self.cases),
            'exhaustive': self.exhaustive,
            'variants': [dict(name=v.name, kind=v.kind, verdict=v.verdict, **v.origin,
                              **_short(v.detail)) for v in self.variants]})
        return pool_path, record


def _short(detail):
    """A variant's detail as the record keeps it: its first killers, not all of them."""
    if 'killers' not in detail:
        return detail
    return dict(detail, killed=len(detail['killers']), killers=detail['killers'][:20])


def write_json(path, document):
    tmp = Path(str(path) + '.tmp')
    tmp.write_text(json.dumps(document, indent=1, sort_keys=False) + '\n', encoding='utf-8')
    tmp.replace(path)


class Library:
    """An exercise's library as ``--select`` last recorded it: every variant (the mutants
    made again from the reference) with its verdict."""

    def __init__(self, policy, exercise, bugs):
        self.trials = trials_of(policy, exercise)
        self.limit = getattr(self.trials, 'LIMIT', 2.0)
        source = (Path(policy.reference) / self.trials.SOLUTION).read_text(encoding='utf-8')
        path = Path(bugs) / exercise / 'library.json'
        try:
            record = json.loads(path.read_text(encoding='utf-8'))
        except (OSError, ValueError):
            raise UserError(f'no library record {path}: run grader fixtures --select') from None
        verdicts = {v['name']: v['verdict'] for v in record['variants']}
        self.variants = classic_variants(Path(bugs) / exercise) + mutants(source)
        for variant in self.variants:
            variant.verdict = verdicts.get(variant.name, '')

    def buggy(self):
        return [v for v in self.variants if v.verdict == 'buggy']


HIDDEN_PREFIX = 'killer-'
"""The names of the hidden fixture cases ``--select --hidden`` writes (and replaces)."""


def write_hidden(policy, exercise, per_variant):
    """Put one cover of the pool (every buggy variant met ``per_variant`` times, drawn with
    a fixed seed) in the exercise's first hidden fixture file, replacing the cases an
    earlier run put there (named ``killer-<n>``) and keeping the instructor's own.  The
    file is made when missing.  Returns its path and the number of cases written."""
    from grader import fixtures, generated
    settings = policy.exercises[exercise]
    if not settings.hidden_fixtures:
        raise UserError(f'exercises.{exercise}: no hidden_fixtures file to write the '
                        'killers to', policy.path)
    path = Path(settings.hidden_fixtures[0])
    kept = []
    if path.is_file():
        data, _ = fixtures.read(path, exercise, require_expected=False)
        kept = [c for c in data['cases'] if not c['name'].startswith(HIDDEN_PREFIX)]
    oracle = fixtures.oracle(policy, exercise)
    chosen = generated.cover(generated.pool_of(policy, exercise), random.Random(0),
                             per_variant)
    cases = kept + [{'name': f'{HIDDEN_PREFIX}{n}',
                     'source': 'grader fixtures --select: a position that catches known bugs',
                     'tags': oracle.tags(input), 'input': input,
                     'expected': oracle.expect(input, settings.options)}
                    for n, input in enumerate(chosen, 1)]
    path.parent.mkdir(parents=True, exist_ok=True)
    fixtures.dump(path, exercise, f'{Path(policy.reference).name}/oracles/{exercise}.py', cases)
    fixtures.read(path, exercise)
    return path, len(chosen)


def select(policy, exercise, bugs, log=print):
    """Sort ``exercise``'s variants and write its pool: ``{verdict: count}`` and the paths."""
    selection = Selection(policy, exercise, bugs, log)
    log(f'{exercise}: {len(selection.variants)} variants on {len(selection.cases)} positions')
    selection.sort()
    paths = selection.write(bugs)
    counts = {}
    for variant in selection.variants:
        counts[variant.verdict] = counts.get(variant.verdict, 0) + 1
    return counts, paths


def answer_problems(policy, exercise):
    """Lines naming the pool's stored answers that are stale or differ from the oracle's
    (none where no answers are stored, or the grade draws none: :func:`_drawn_pool`)."""
    from grader import poolanswers
    path, pool = _drawn_pool(policy, exercise)
    if pool is None or 'answers' not in pool:
        return []
    fresh = poolanswers.computed(policy, exercise, pool)
    kept = poolanswers.stored(pool, fresh['under'])
    if kept is None:
        return [f'{path}: the stored answers were computed under other options or another '
                'reference: run grader fixtures --regenerate']
    return [f'{path}: position {i + 1}: the stored answer differs from the reference'
            for i, (old, new) in enumerate(zip(kept, fresh['expected'])) if old != new]


def refresh_answers(policy, exercise):
    """Store the oracle's answers in ``exercise``'s pool: ``(path, positions)``, or None
    when the grade draws none from it (:func:`_drawn_pool`)."""
    from grader import poolanswers
    path, pool = _drawn_pool(policy, exercise)
    if pool is None:
        return None
    pool['answers'] = poolanswers.computed(policy, exercise, pool)
    write_json(path, pool)
    return path, len(pool['positions'])


def _drawn_pool(policy, exercise):
    """``(path, pool)`` of the pool an official grade of ``exercise`` draws killers from;
    ``(path, None)`` when it draws none: no ``killers`` in grading.yaml, no pool, or a pool
    drawn on other data files than the course grades on (the grade refuses those)."""
    from grader import generated
    path = Path(policy.reference) / 'pools' / f'{exercise}.json'
    settings = policy.exercises[exercise]
    if not settings.generated.get('killers') or not path.is_file():
        return path, None
    try:
        return path, generated.fitting_pool(policy, exercise)
    except UserError:
        return path, None
