"""Benchmarks that print figures (not timed tests; the machines are noisy).

    python bench/run.py [--repeats N] [--only NAME ...]

Every figure is a median of N runs, with ratios where a ratio is the point.
Each benchmark also checks its verdicts, so speed is never bought with a
wrong grade.
"""
import argparse
import contextlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GRADER = [str(BIN / 'grader')] if (BIN / 'grader').exists() else [sys.executable, '-m', 'grader']
sys.path.insert(0, str(ROOT))


def timed(command, **kwargs):
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f'{" ".join(map(str, command))} failed:\n{proc.stderr}')
    return seconds, proc


def on_a_terminal(*args, columns=None):
    """``(what standard error's terminal got, [(seconds, bytes)], standard output, seconds)``
    of ``grader`` run with standard error on a pseudo-terminal (``columns`` wide, if given;
    ``$COLUMNS`` says 200)."""
    import pty
    import select
    leader, follower = pty.openpty()
    if columns:
        import fcntl
        import struct
        import termios
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack('HHHH', 24, columns, 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen([*GRADER, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=follower,
                            env=dict(os.environ, COLUMNS='200', TERM='xterm'))
    os.close(follower)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    data = os.read(leader, 1 << 16)
                except OSError:     # the other end closed (Linux: EIO)
                    break
                if not data:
                    break
                chunks.append((time.perf_counter() - started, data))
            elif proc.poll() is not None:
                break
        out = proc.stdout.read().decode()
        proc.wait(timeout=60)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return b''.join(c for _, c in chunks).decode(), chunks, out, time.perf_counter() - started


def children_cpu():
    """CPU seconds (user and system) of the reaped child processes so far: a grader run's, with
    its sandboxes', measured as the difference around it (the machine's load moves it less
    than the wall time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade_json(folder, extra=(), config=None):
    """Seconds of one `grader grade` and its result (a list of results with --assignment all)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'r.json'
        options = ['--config', str(config)] if config else []
        seconds, _ = timed([*GRADER, *options, 'grade', str(folder), '--json', str(out), '-q',
                            *extra])
        if out.exists():
            return seconds, json.loads(out.read_text())
        return seconds, [json.loads(p.read_text()) for p in sorted(Path(tmp).glob('r.*.json'))]


def machine():
    return (f'{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, '
            f'{platform.system()} {platform.release()}')


# -- submissions used ---------------------------------------------------------
def folder_of(tmp, name, files):
    """A submission folder in ``tmp`` holding ``files`` ({relative path: source path})."""
    folder = Path(tmp) / name
    for relative, source in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(source).read_bytes())
    return folder


SUB = ROOT / 'tests' / 'submissions'
REFERENCE = {
    'tictactoe.py': ROOT / 'reference' / 'tictactoe.py',
    'connect4.py': ROOT / 'reference' / 'connect4.py',
    'eightpuzzle.py': ROOT / 'reference' / 'eightpuzzle.py',
    'src/citymap.py': ROOT / 'reference' / 'travel' / 'src' / 'citymap.py',
}
HANDOUT = {
    'tictactoe.py': SUB / 'tictactoe' / 'minimax_make_undo.py',
    'connect4.py': SUB / 'connect4' / 'alphabeta_make_unmake.py',
    'eightpuzzle.py': SUB / 'eightpuzzle' / 'handout_style.py',
    'src/citymap.py': SUB / 'travel' / 'astar_priorityqueue' / 'src' / 'citymap.py',
}
EXERCISE_OF = {'tictactoe.py': 'tictactoe', 'connect4.py': 'connect4',
               'eightpuzzle.py': 'eightpuzzle', 'src/citymap.py': 'travel'}


def verdicts(result):
    """What must not change between two ways of grading: scores and check outcomes.

    (Not the messages: a time-out names its limit, which follows the calibration.)"""
    results = result if isinstance(result, list) else [result]
    return {(r['assignment'], e['name'], c['name']): (c['score'], c['passed'], c['cases_passed'],
                                                      c['cases_total'])
            for r in results for e in r['exercises'] for c in e['checks']}


def unoptimised_policy(tmp):
    """grading.yaml without ``own_worker``: every case of an exercise in one child, in order.

    Written into a folder of its own beside links to everything else of the project, so
    every path grading.yaml names (the reference and its oracles and pools, fixtures,
    hidden fixtures, network files) resolves as it does from the project."""
    text = (ROOT / 'grading.yaml').read_text()
    kept = [line for line in text.splitlines() if not line.strip().startswith('own_worker:')]
    assert len(kept) < len(text.splitlines()), 'grading.yaml has no own_worker to switch off'
    course = Path(tmp) / 'unoptimised-course'
    course.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != 'grading.yaml':
            (course / entry.name).symlink_to(entry)
    path = course / 'grading.yaml'
    path.write_text('\n'.join(kept) + '\n')
    return path


def median(values):
    return statistics.median(values)


# -- benchmarks -------------------------------------------------------------
def bench_overhead(repeats):
    """1. Wall time of `grader grade` on the reference, against the same calls in-process."""
    walls, separate, direct = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {ex: folder_of(tmp, ex, {rel: src}) for rel, src in REFERENCE.items()
                   for ex in [EXERCISE_OF[rel]]}
        everything = folder_of(tmp, 'all', REFERENCE)
        seen = set()
        for _ in range(repeats):
            seconds, results = grade_json(everything, ['--assignment', 'all'])
            walls.append(seconds)
            seen.add(tuple(sorted(verdicts(results).items())))
            total, alone = 0.0, {}
            for assignment in ('oulu-exercise-1', 'routeplanner'):
                seconds, result = grade_json(everything, ['--assignment', assignment])
                total += seconds
                alone.update(verdicts(result))
            separate.append(total)
            seen.add(tuple(sorted(alone.items())))
            base = 0.0
            for exercise, folder in folders.items():
                _, proc = timed([sys.executable, str(ROOT / 'bench' / 'direct.py'), exercise,
                                 str(folder)])
                base += json.loads(proc.stdout)['seconds']
            direct.append(base)
    if len(seen) != 1:
        differ = sorted({key for one in seen for two in seen
                         for key, value in dict(one).items() if dict(two).get(key) != value})
        raise AssertionError(f'verdicts differ between runs or between one run and two: {differ}')
    full = all(score == max_score for score, max_score in
               [(r['score'], r['max_score']) for r in results])
    assert full, 'the reference did not get full marks'
    wall, two, base = median(walls), median(separate), median(direct)
    return [('1. overhead ratio (reference, all four exercises, '
             'one `grader grade --assignment all`)',
             f'{wall / base:.2f}x', f'grader grade {wall:.2f} s / direct calls {base:.2f} s '
             f'(target <= 1.10)'),
            ('1. the same, one `grader grade` per assignment (two runs)',
             f'{two / base:.2f}x',
             f'{two:.2f} s / {base:.2f} s (target <= 1.25); identical verdicts')]


def bench_check_latency(repeats):
    """2. `grader check` on handout-style correct submissions, each and all together."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(EXERCISE_OF[rel], folder_of(tmp, EXERCISE_OF[rel], {rel: src}))
                 for rel, src in HANDOUT.items()]
        together = folder_of(tmp, 'all-four', HANDOUT)
        for label, folder, *options in [
                *cases, ('all four together (one `grader check`, both assignments)', together),
                ('all four together, `grader check --full` (the information-only starts too)',
                 together, '--full')]:
            samples, cpu, seen = [], [], set()
            for _ in range(repeats):
                before = children_cpu()
                seconds, proc = timed([*GRADER, 'check', str(folder), '--color', 'never',
                                       *options])
                cpu.append(children_cpu() - before)
                samples.append(seconds)
                seen.add(tuple(line for line in proc.stdout.splitlines()
                               if line.startswith('Score')))
            assert len(seen) == 1, f'unstable verdicts for {label}: {seen}'
            first = [first_result(on_a_terminal('check', str(folder), '--color', 'never',
                                                *options)[1])
                     for _ in range(repeats)]
            rows.append((f'2. check latency: {label}', f'{median(samples):.2f} s',
                         f'{median(cpu):.2f} s of CPU; the first case judged on the '
                         f'terminal\'s line after {median(first):.2f} s; ' +
                         '; '.join(seen.pop())))
    return rows


def first_result(chunks):
    """Seconds until the self-check's line on the terminal (:func:`on_a_terminal`'s chunks)
    first showed a judged case."""
    import re
    for seconds, data in chunks:
        if any(int(n) for n in re.findall(rb' (\d+)/\d+', data)):
            return seconds
    return float('nan')


def bench_overhead_share(repeats):
    """Issue 2: the grader's share of `grader check` on a handout-style tic-tac-toe."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, source in (('plain minimax (handout style)', HANDOUT['tictactoe.py']),
                              ('alpha-beta (reference)', REFERENCE['tictactoe.py'])):
            folder = folder_of(tmp, Path(source).stem, {'tictactoe.py': source})
            walls, inside, seen = [], [], set()
            for _ in range(repeats):
                out = Path(tmp) / 'check.json'
                seconds, _ = timed([*GRADER, 'check', str(folder), '--json', str(out), '-q'])
                result = json.loads(out.read_text())
                walls.append(seconds)
                inside.append(sum(e['facts'].get('student_seconds', 0)
                                  for e in result['exercises']))
                seen.add(tuple(sorted(verdicts(result).items())))
            assert len(seen) == 1, f'unstable verdicts for {label}'
            wall, student = median(walls), median(inside)
            rows.append((f'2. grader share of `grader check`, tic-tac-toe {label}',
                         f'{(wall - student) / wall:.1%}',
                         f'{wall:.2f} s wall, {student:.2f} s inside student code '
                         '(wall time of the calls in the child, node counting included; '
                         'target < 25%)'))
    return rows


def bench_route_queries(repeats):
    """3. Per-query cost: the course's unittest style against `grader grade` in the sandbox."""
    submission = HANDOUT['src/citymap.py'].parents[1]
    env = dict(os.environ, TMC_SUBMISSION=str(submission))
    unit, graded = [], []
    with tempfile.TemporaryDirectory() as tmp:
        import yaml

        from bench.routeplanner_tmc import test_astar
        cases = {c['name']: c['input'] for c in
                 yaml.safe_load((ROOT / 'fixtures' / 'travel.yaml').read_text())['cases']}
        expected = Path(tmp) / 'expected.json'
        expected.write_text(json.dumps(test_astar.expected_routes(
            ROOT, str(ROOT / 'fixtures' / 'travel'), cases)))
        env['TMC_EXPECTED'] = str(expected)
        folder = folder_of(tmp, 'travel', {'src/citymap.py': HANDOUT['src/citymap.py']})
        for _ in range(repeats):
            seconds, proc = timed([sys.executable, '-m', 'unittest', '-q',
                                   'bench/routeplanner_tmc/test_astar.py'], env=env)
            assert 'OK' in proc.stderr, proc.stderr
            unit.append(seconds)
            seconds, result = grade_json(folder, ['--assignment', 'routeplanner'])
            graded.append(seconds)
            queries = sum(1 for c in cases.values() if 'start' in c)
    u, g = median(unit), median(graded)
    return [('3. route planner, course unittest (3 queries, in-process, no isolation)',
             f'{u / 3 * 1000:.0f} ms per query', f'{u:.2f} s in all'),
            (f'3. route planner, grader grade ({queries} queries + checks, sandboxed)',
             f'{g / queries * 1000:.0f} ms per query', f'{g:.2f} s in all; score '
             f"{result['score']:.2f}/{result['max_score']:.0f}")]


def bench_start_cost(repeats):
    """5. Milliseconds per child start, per isolation level."""
    from grader.sandbox import layers
    from grader.sandbox.session import Session
    strong = layers.detect()
    levels = {'strong': strong,
              'standard': layers.weaker(strong, ['namespaces', 'seccomp', 'cgroup', 'uid-drop',
                                                 'audit-hook']),
              'advisory': layers.weaker(strong, ['namespaces', 'seccomp', 'cgroup', 'uid-drop',
                                                 'audit-hook', 'rlimits'])}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder_of(tmp, 'ttt', {'tictactoe.py': REFERENCE['tictactoe.py']})
        for name, isolation in levels.items():
            samples = []
            with Session(folder, 'tictactoe.py', 'grader.exercises.tictactoe.probe',
                         isolation=isolation, options={'entry': 'Minimax'}) as box:
                for _ in range(max(5, repeats)):
                    start = time.perf_counter()
                    assert box.start().ok
                    samples.append(time.perf_counter() - start)
            rows.append((f'5. child start, {name} ({isolation.level})',
                         f'{median(samples) * 1000:.0f} ms', ', '.join(isolation.layers)))
    return rows


TRIVIAL = 'def trivial():\n    return 1\n'


def _case_costs(box, payload, calls):
    """``(runner, case, parent, wall)`` samples (seconds) of ``calls`` calls of ``payload``:
    the case process's CPU from the runner's ``wait4`` (its setup before the mark included),
    the runner's the sandbox's cgroup CPU around the call less the case process's, and the
    parent's this thread's CPU clock around ``Session.call``."""
    samples = []
    for _ in range(calls):
        thread, start = time.thread_time(), time.perf_counter()
        reply = box.call(payload, 5.0)
        wall, parent = time.perf_counter() - start, time.thread_time() - thread
        assert reply.ok, (reply.status, reply.error)
        case = reply.cpu + reply.setup_cpu
        samples.append((reply.sandbox_cpu - case, case, parent, wall, reply.cpu))
    return samples


def bench_case_processes(repeats):
    """Issue 42: what one case process costs besides the search, split into the runner's CPU
    (reset, fork, wait, the tally), the case process's (fork, layers, seal, the module run
    again, the probe, the reply) and the parent's (send, poll, decode, check), with the wall
    time of one call: a trivial function through the sandbox's own probe, and tic-tac-toe's
    baseline request (the reference module run again, the counted probe, no search) whose
    after-the-mark CPU is the judges' ``fixed``.  Medians over ``20 * repeats`` calls of each,
    taken in turn so a passing load moves both alike."""
    from grader import config
    from grader import exercises as plugins
    from grader.sandbox import layers
    from grader.sandbox.session import Session
    isolation = layers.detect()
    settings = config.load(ROOT / 'grading.yaml').exercises['tictactoe']
    options = plugins.get('tictactoe').child_options(settings)
    baseline = {'board': ['-'] * 9, 'maximizing': True, 'player': 'X', 'count': True, 'reps': 0}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trivial = Path(tmp) / 'trivial'
        trivial.mkdir()
        (trivial / 'tictactoe.py').write_text(TRIVIAL)
        reference = folder_of(tmp, 'ttt', {'tictactoe.py': REFERENCE['tictactoe.py']})
        subjects = [('a trivial function (sandbox probe)',
                     Session(trivial, 'tictactoe.py', 'grader.child.selftest',
                             isolation=isolation), {'function': 'trivial'}),
                    ('tic-tac-toe baseline request (reference, counted probe, no search)',
                     Session(reference, 'tictactoe.py', 'grader.exercises.tictactoe.probe',
                             isolation=isolation, options=options), baseline)]
        found = {label: [] for label, _, _ in subjects}
        try:
            for _, box, payload in subjects:
                assert box.start().ok
                _case_costs(box, payload, 5)      # warm: the parent's first checks
            for _ in range(max(1, repeats) * 4):
                for label, box, payload in subjects:
                    found[label] += _case_costs(box, payload, 5)
        finally:
            for _, box, _ in subjects:
                box.close()
    for label, samples in found.items():
        runner, case, parent, wall, after = (median(column) * 1000 for column in zip(*samples))
        rows.append((f'case process CPU, {label}',
                     f'{runner + case + parent:.2f} ms',
                     f'runner {runner:.2f} ms, case process {case:.2f} ms (after its mark '
                     f'{after:.2f} ms), parent {parent:.2f} ms; wall {wall:.2f} ms per call '
                     f'({isolation.level}; medians of {len(samples)} calls)'))
    return rows


def _counting_subjects():
    """``(exercise, what, label, module, payloads, options, probe)`` of each search measured
    with and without the counter: tic-tac-toe's pruning cases (the reference's alpha-beta,
    the handout's minimax), the eight puzzle's required starts of 10 moves or more (the
    reference's heap A*, the handout's list style)."""
    import importlib
    import importlib.util

    from grader import config, fixtures
    from grader import exercises as plugins
    policy = config.load(ROOT / 'grading.yaml')
    subjects = []
    for exercise, what, wanted in (('tictactoe', 'pruning positions', {'pruning'}),
                                   ('eightpuzzle', 'starts of 10-20 moves', {'heuristic'})):
        plugin, settings = plugins.get(exercise), policy.exercises[exercise]
        options = plugin.child_options(settings)
        cases, _, _ = fixtures.load_cases(plugin, settings)
        payloads = [dict(r.payload, reps=1) for c in cases if wanted & set(c.tags)
                    for r in plugin.requests(c, settings) if r.payload.get('reps', 1)]
        probe = importlib.import_module(f'grader.exercises.{exercise}.probe')
        for label, path in ((('alpha-beta (reference)' if exercise == 'tictactoe' else
                              'heap A* (reference)'), REFERENCE[f'{exercise}.py']),
                            (('plain minimax (handout style)' if exercise == 'tictactoe' else
                              'list A* (handout style)'), HANDOUT[f'{exercise}.py'])):
            spec = importlib.util.spec_from_file_location(exercise, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            subjects.append((exercise, what, label, module, payloads, options, probe))
    subjects.extend(_route_subjects(policy))
    return subjects


def _route_subjects(policy):
    """The route planner's far-apart trips on the large city (each request builds the
    CityMap, as a case does), searched by the reference's A* and the handout-style one."""
    import importlib.util

    from grader import exercises as plugins
    from grader import fixtures
    from grader.exercises.travel import probe
    plugin, settings = plugins.get('travel'), policy.exercises['travel']
    options = plugin.child_options(settings)
    probe._saved['root'] = str(ROOT / 'fixtures' / 'travel')   # where the data options point
    cases, _, _ = fixtures.load_cases(plugin, settings)
    payloads = [{key: value for key, value in r.payload.items() if key not in ('work', 'at_least')}
                | {'reps': 1} for c in cases if 'efficiency' in c.tags
                for r in plugin.requests(c, settings) if r.payload['kind'] == 'route']
    subjects = []
    for label, path in (('heapq A* (reference)', REFERENCE['src/citymap.py']),
                        ('PriorityQueue A* (handout style)', HANDOUT['src/citymap.py'])):
        spec = importlib.util.spec_from_file_location('citymap', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        subjects.append(('route planner', 'far-apart trips, CityMap built for each', label,
                         module, payloads, options, probe))
    return subjects


class _Output:
    """What a probe's context offers (the printed output), for searches run in this process."""

    student_files = ()
    perf_counter = staticmethod(time.perf_counter)

    def output(self):
        return ''


def bench_instrumentation(repeats):
    """6. The student's search with and without counting (tic-tac-toe's nodes, the eight
    puzzle's and the route planner's expansions): plain, under a frame-evaluation hook that
    only evaluates (the interpreter's own cost of the hook the counter is), under the C
    counter (grader/child/_tally.c) installed in this process as the runner does, and under
    a profile function that does nothing (what the counter cost when it was one) -- taken in
    turn within each repeat, so a load that comes and goes moves them all alike."""
    import io

    from grader.child import tally
    subjects = _counting_subjects()

    def timed_once(call, payloads):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            for payload in payloads:
                call(payload)
        return time.perf_counter() - start
    if not (tally.load(None) and tally.install()):
        return [('6. counting overhead', 'n/a', tally.NOT_BUILT)]
    floor = tally._ext[0].floor
    rows = []
    for exercise, what, label, module, payloads, options, probe in subjects:
        # the functions counted by name, as the runner names them before a case (hold)
        tally.hold({}, probe.units(options) if hasattr(probe, 'units') else (),
                   max((probe.stop_after(p) for p in payloads), default=0)
                   if hasattr(probe, 'stop_after') else 0)
        plain, empty, counted, profiled = [], [], [], []
        for _ in range(repeats):
            plain.append(timed_once(lambda p: probe.direct_call(module, p, options), payloads))
            floor('hook')
            empty.append(timed_once(lambda p: probe.direct_call(module, p, options), payloads))
            tally.watch()       # what a case process's tally.given does
            counted.append(timed_once(lambda p: probe.handle(module, p, options, _Output()),
                                      payloads))
            floor('profile')
            profiled.append(timed_once(lambda p: probe.direct_call(module, p, options),
                                       payloads))
            floor('')

        def ratio(samples):
            return median([s / p for s, p in zip(samples, plain)])
        rows.append((f'6. counting overhead, {exercise} {label}', f'{ratio(counted):.2f}x',
                     f'{median(plain):.3f} s plain, {median(counted):.3f} s counted '
                     f'({len(payloads)} {what}; medians of {repeats} interleaved); an '
                     f'evaluation hook that only evaluates: {ratio(empty):.2f}x; a profile '
                     f'function that does nothing: {ratio(profiled):.2f}x'))
    return rows


def bench_batch(repeats):
    """4. Batch throughput and parallel efficiency (bench/batch.py, local pool), and with
    hanging hand-ins beside the clean class."""
    _, proc = timed([sys.executable, str(ROOT / 'bench' / 'batch.py'), '--size', '20'])
    return [('4. batch (bench/batch.py --size 20)', ' '.join(line.split()), '')
            for line in proc.stdout.splitlines() if line.strip()]


def bench_parallel_verdicts(repeats):
    """The optimised path gives the verdicts of the unoptimised one.

    Optimised: one `grader grade --assignment all`, two workers, the long
    eight-puzzle cases in workers of their own.  Unoptimised: one run per
    assignment, one worker, every case of an exercise in one child in order
    (grading.yaml without ``own_worker``).
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder_of(tmp, 'handout', HANDOUT)
        plain = unoptimised_policy(tmp)
        fast, slow = [], []
        for _ in range(repeats):
            seconds, results = grade_json(folder, ['--assignment', 'all', '--jobs', '2'])
            fast.append((seconds, verdicts(results)))
            total, alone = 0.0, {}
            for assignment in ('oulu-exercise-1', 'routeplanner'):
                seconds, result = grade_json(folder, ['--assignment', assignment, '--jobs', '1'],
                                             config=plain)
                total += seconds
                alone.update(verdicts(result))
            slow.append((total, alone))
    different = [key for _, v in fast + slow for key in v if v[key] != slow[0][1].get(key)]
    assert not different and all(len(v) == len(slow[0][1]) for _, v in fast), \
        f'verdicts differ: {different[:5]}'
    f, q = median(s for s, _ in fast), median(s for s, _ in slow)
    return [('verdicts: optimised (one run, --jobs 2, own workers) vs unoptimised '
             '(a run per assignment, --jobs 1, one child per exercise)',
             f'{f:.2f} s vs {q:.2f} s', f'identical verdicts in every run ({q / f:.2f}x faster)')]


HANGING_ENTRIES = {'tictactoe.py': ['Minimax'],
                   'connect4.py': ['ConnectFour.alphabetapruning', 'ConnectFour.minimax',
                                   'ConnectFour.searchingfunction', 'ConnectFour.evaluation'],
                   'eightpuzzle.py': ['EightPuzzle.Astar'],
                   'src/citymap.py': ['CityMap.search']}
HANG_BODIES = {'sleeps': 'import time\n    time.sleep(3600)', 'loops': 'while True:\n        pass'}


def hanging_folder(tmp, kind, files):
    """The reference solutions of ``files``, every graded entry point made to hang."""
    folder = Path(tmp) / f'hang-{kind}-{len(files)}'
    for relative in files:
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = [REFERENCE[relative].read_text(),
                 f'\ndef _hang(*args, **kwargs):\n    {HANG_BODIES[kind]}\n']
        lines += [f'{entry} = _hang\n' for entry in HANGING_ENTRIES[relative]]
        target.write_text(''.join(lines))
    return folder


def bench_hangs(repeats):
    """Issue 17: seconds of `grader grade` on submissions whose every call hangs (once each)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ('sleeps', 'loops'):
            for files, label in ((['tictactoe.py'], 'tic-tac-toe only'),
                                 (list(REFERENCE), 'all four exercises, --assignment all')):
                folder = hanging_folder(tmp, kind, files)
                seconds, results = grade_json(folder, ['--assignment', 'all'])
                results = results if isinstance(results, list) else [results]
                assert all(r['score'] == 0 for r in results), 'a hanging submission scored'
                rows.append((f'hangs: grade, every call {kind}, {label}', f'{seconds:.1f} s',
                             'score 0; target under 60 s'))
    return rows


BENCHMARKS = {'overhead': bench_overhead, 'check': bench_check_latency,
              'share': bench_overhead_share,
              'routes': bench_route_queries, 'batch': bench_batch,
              'start': bench_start_cost, 'instrument': bench_instrumentation,
              'caseprocess': bench_case_processes,
              'parallel': bench_parallel_verdicts, 'hangs': bench_hangs}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--only', nargs='*', choices=sorted(BENCHMARKS))
    args = parser.parse_args(argv)
    # Bytecode as a regular install has it (pip compiles at install time; an
    # editable install under PYTHONDONTWRITEBYTECODE would compile at every start).
    subprocess.run([sys.executable, '-m', 'compileall', '-q', str(ROOT / 'grader')], check=True)
    print(f'machine: {machine()}')
    print('figure | value | detail')
    for name in args.only or BENCHMARKS:
        for row in BENCHMARKS[name](args.repeats):
            print(' | '.join(row), flush=True)


if __name__ == '__main__':
    main()
