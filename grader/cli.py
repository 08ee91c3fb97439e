"""Command line: ``grader check | grade | batch | regrade | fixtures | doctor | dist``.

Exit status: 0 graded (whatever the score); 1 graded but below
``--fail-under``; 2 a usage, configuration, fixture or submission error,
reported in one line that names the file (and line) and what to fix.
"""
import argparse
import gc
import importlib
import os
import sys
from pathlib import Path

from grader import __version__, scoring
from grader.errors import UserError
from grader.sandbox import leftovers


def _add_outputs(p):
    out = p.add_argument_group('reports (any number; FILE - is standard output)')
    out.add_argument('--json', metavar='FILE',
                     help='the JSON result (schema: grader/schemas/result.schema.json)')
    out.add_argument('--gradescope', metavar='FILE',
                     help="Gradescope's results.json (e.g. /autograder/results/results.json)")
    out.add_argument('--junit', metavar='FILE', help='JUnit XML, one testcase per check')
    out.add_argument('--prairielearn', metavar='FILE',
                     help="PrairieLearn's external-grader results.json "
                          '(e.g. /grade/results/results.json)')
    out.add_argument('--markdown', metavar='FILE',
                     help='a Markdown summary table '
                          '(check also appends it to $GITHUB_STEP_SUMMARY)')
    p.add_argument('--fail-under', type=float, metavar='X', help='exit 1 when the score is below X')
    p.add_argument('--verbose', '-v', action='store_true',
                   help='draw every failed case in full (terminal and --markdown); by default '
                        'each cause is drawn once and the other cases are named')
    p.add_argument('--quiet', '-q', action='store_true', help='print nothing but errors')
    p.add_argument('--jobs', '-j', type=int, default=os.cpu_count() or 1, metavar='N',
                   help='sandboxed workers at once: exercises, and cases given their own '
                        'worker in grading.yaml (default: one per core)')
    p.add_argument('--color', choices=('auto', 'always', 'never'), default='auto',
                   help='colour the terminal report (default: only on a terminal; '
                        'NO_COLOR is honoured)')


def iso_time(text):
    """argparse type: an ISO 8601 time, kept as text."""
    try:
        scoring.parse_time(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.message) from None
    return text


CORE_COMMANDS = ('check', 'grade', 'fixtures', 'doctor', 'dist')
BATCH_COMMANDS = ('batch', 'regrade')
"""The sub-commands of :mod:`grader.batch.cli`, in the order it adds them."""


def parser(light=False):
    """The command-line parser.

    ``light`` leaves :mod:`grader.batch.cli` unimported: ``batch`` and
    ``regrade`` are then placeholders that take any arguments, so the usage
    line and every message about the other commands read the same, and
    :func:`main` parses again with the full parser if one is chosen.
    """
    top = argparse.ArgumentParser(prog='grader', description='Grade search exercises in a sandbox.')
    top.add_argument('--version', action='version', version=f'grader {__version__}')
    top.add_argument('--config', metavar='FILE',
                     help='grading.yaml to use (default: found upward from here)')
    sub = top.add_subparsers(dest='command', required=True)

    p = sub.add_parser('check', help='self-check the submission in a folder (public checks)')
    p.add_argument('path', nargs='?', default='.', help='submission folder (default: here)')
    p.add_argument('--assignment', help="assignment name, or 'all' (default: every assignment "
                                        'whose files are found)')
    p.add_argument('--full', action='store_true',
                   help='also run the long calls of information-only checks (the eight '
                        "puzzle's hard and unsolvable starts), each stopped at the self-check's "
                        'limit')
    _add_outputs(p)

    p = sub.add_parser('grade', help='grade a submission folder (all checks, hidden included)')
    p.add_argument('path', help='submission folder')
    p.add_argument('--assignment', help="assignment name, or 'all': every assignment whose files "
                                        'are found, one report file each '
                                        '(default: the first found)')
    p.add_argument('--submitted-at', metavar='TIME', type=iso_time,
                   help='ISO 8601 submission time, for the late penalty')
    _add_outputs(p)

    p = sub.add_parser('fixtures', help='regenerate or verify expected answers from the reference')
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument('--regenerate', action='store_true', help='recompute every expected block')
    group.add_argument('--verify', action='store_true',
                       help='check every expected block against the reference')
    group.add_argument('--select', action='store_true',
                       help='run the library of buggy variants on the position space and '
                            'write the pool of positions that catch them (grader/selection.py)')
    p.add_argument('--exercise', action='append', help='only this exercise (repeatable)')
    p.add_argument('--hidden', metavar='N', type=int,
                   help='with --select: also put positions meeting every buggy variant N '
                        "times in the exercise's first hidden fixture file")
    p.add_argument('--bugs', metavar='DIR', default='tests/bugs',
                   help='the library of buggy variants, one folder per exercise '
                        '(with --select; default tests/bugs)')
    p.add_argument('--create', action='store_true',
                   help='make missing fixture files from the oracle')

    p = sub.add_parser('doctor', help='show isolation layers, the search counter, calibration '
                                      'and policy')
    p.add_argument('--require-counter', action='store_true',
                   help='exit 2 when the search counter is not in force (an image build, a '
                        "platform's setup)")

    p = sub.add_parser('dist', help='write the student distribution (no reference/, no hidden '
                                    "fixtures), or Gradescope's autograder zip")
    p.add_argument('out', nargs='?', help='a new folder to write the student distribution into')
    p.add_argument('--gradescope', metavar='FILE.zip',
                   help="write Gradescope's autograder zip (setup.sh, run_autograder, the "
                        'grader and the whole course, hidden fixtures and reference included: '
                        'for Gradescope only, never for students)')
    p.add_argument('--assignment', help='the assignment the Gradescope autograder grades '
                                        '(default: the first whose files a submission holds)')

    if light:
        for name in BATCH_COMMANDS:
            sub.add_parser(name).add_argument('rest', nargs=argparse.REMAINDER)
    else:
        # on demand: each sub-command loads only its own modules (start-up time)
        from grader.batch import cli as batch_cli
        batch_cli.add_parsers(sub)
    return top


def _named_command(argv):
    """The sub-command ``argv`` names, skipping the top-level options; '' if none."""
    takes_value = False
    for arg in argv:
        if takes_value:
            takes_value = False
        elif arg == '--':
            return ''
        elif arg.startswith('-'):
            # --config FILE, also abbreviated (--conf FILE); --config=FILE is one word
            takes_value = '=' not in arg and len(arg) > 2 and '--config'.startswith(arg)
        else:
            return arg
    return ''


def main(argv=None):
    """The ``grader`` command on ``argv`` (default: the command line): its exit status.

    As the program itself (no ``argv``), ``grade`` and ``check`` run without the cyclic
    garbage collector and end the process when done (:func:`end_now`) instead of
    returning (:data:`ENDED_AT_ONCE`).
    """
    from grader.sandbox import interrupts
    at_once = argv is None and _named_command(sys.argv[1:]) in ENDED_AT_ONCE
    if at_once:
        gc.disable()
    code = interrupts.leave(_main(argv), program=argv is None)
    if at_once:
        end_now(code)
    return code


ENDED_AT_ONCE = frozenset({'grade', 'check'})
"""The commands whose program collects no reference cycles and ends without the
interpreter's teardown (:func:`end_now`).  One grade is short and makes little cyclic
garbage (the peak memory of a grade of all four is 70 MB either way), while the collector's
passes over the oracles' tables, the cases and the replies held the interpreter lock for
85-180 ms of such a grade, the lanes' threads waiting."""


def end_now(code):
    """End the process with ``code`` now: the exit functions run (``atexit``) and the output
    flushed, but not the interpreter's teardown, which frees every object one by one (about
    50 ms after a grade of the four exercises, the oracles' tables among them).

    Only where nothing is left for that teardown to do: every sandbox, spare, worker
    thread, measuring process and file of a grade or a check is stopped, reaped or closed
    before :func:`main` returns (an interrupted one's too).
    """
    import atexit
    run_exit_functions = getattr(atexit, '_run_exitfuncs', None)
    if run_exit_functions is not None:
        run_exit_functions()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code if isinstance(code, int) else 1)


def _main(argv):
    # first thing: the signal handlers are set before any work
    from grader.sandbox import interrupts
    args = None
    with interrupts.handling(program=argv is None):   # SIGINT, SIGTERM: sandbox.interrupts
        try:
            argv = sys.argv[1:] if argv is None else list(argv)
            light = _named_command(argv) in CORE_COMMANDS
            args = parser(light).parse_args(argv)
            if light and args.command in BATCH_COMMANDS:  # only if the guess above was wrong
                args = parser().parse_args(argv)
            leftovers.sweep_and_say(quiet=getattr(args, 'quiet', False))
            _say_if_uncounted(args.command)
            return command(args.command)(args)
        except UserError as error:
            print(f'grader: error: {error}', file=sys.stderr)
            if args is not None:
                _prairielearn_ungradable(args, error)
            return 2
        except KeyboardInterrupt as stop:
            code = interrupts.finish(stop)
            print(f'grader: interrupted by {interrupts.describe(stop)}; every sandboxed child '
                  'was stopped and its private copy removed', file=sys.stderr)
            return code


def _prairielearn_ungradable(args, error):
    """PrairieLearn still gets a results.json (``gradable: false``) saying why."""
    path = getattr(args, 'prairielearn', None)
    if path and path != '-':
        # on demand: each sub-command loads only its own modules (start-up time)
        from grader import instruments
        from grader.report import prairielearn
        if isinstance(error, instruments.MissingInstrument):
            prairielearn.write_ungradable(path, instruments.broken_autograder(error))
            return
        given = str(getattr(args, 'path', ''))
        # a sentence about the submission itself reads without its path
        message = error.message if error.path in (given, given.rstrip('/')) else \
            str(error).replace(given, 'your submission')
        prairielearn.write_ungradable(path, f'Your submission could not be graded: {message}')


def _policy(args):
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import config
    return config.load(args.config)


def _grade(args, include_hidden):
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import calibrate, instruments
    if include_hidden:      # an official grade: refused at once without its counter
        instruments.require_counter()

    # on demand: each sub-command loads only its own modules (start-up time)
    from grader.sandbox import layers
    layers.start()      # bubblewrap's trial run goes on while the modules load,
    calibrate.start()   # and the calibration workload in a process of its own
    try:
        return _grade_started(args, include_hidden)
    finally:
        # on demand: each sub-command loads only its own modules (start-up time)
        from grader.sandbox import spare
        spare.discard()
        calibrate.discard()


def _grade_started(args, include_hidden):
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import config, submission

    # on demand: each sub-command loads only its own modules (start-up time)
    from grader.sandbox import layers, session

    # The first child starts as soon as the isolation and the sandbox settings
    # are known, while the plug-ins and the engine load.
    graded = submission.folder_of(args.path)    # one that does not exist: refused at once
    document = config.read(args.config, graded=graded)   # never the graded folder's own
    note = config.ignored_note(graded, document[0])
    if note and not args.quiet:
        print(f'grader: note: {note}', file=sys.stderr)
    sandbox = config.sandbox_settings(document[1])
    isolation = layers.detect(sandbox)
    config.mount_plugins(document)      # their probes go into the spare's archive
    session.start_spare(isolation, sandbox)
    policy = config.load(document=document)
    graded = submission.folder(args.path, policy)   # a file: its folder, or refused by name
    # after the first child has started: plug-ins and engine load meanwhile
    from grader import engine
    requested = args.assignment or (engine.ALL if not include_hidden else None)
    chosen = engine.pick_assignments(policy, graded, requested)
    if len(chosen) > 1 and '-' in _report_paths(args):
        raise UserError('several assignments found: write reports to files (one per assignment) '
                        'or pick one with --assignment NAME', args.path)
    # A sandbox for each worker the run will keep busy, booting while the first exercise
    # is planned (the one spawned above serves the first lane).
    full = getattr(args, 'full', False)        # `grader check --full`
    quick = not include_hidden and not full
    session.keep_spares(min(args.jobs, engine.lanes_expected(policy, graded, chosen, quick)),
                        isolation, sandbox)
    run = engine.Run(policy, include_hidden=include_hidden, jobs=args.jobs, isolation=isolation,
                     full=full)
    if not args.quiet:
        for missing in run.isolation.missing:
            print(f'grader: note: isolation layer unavailable: {missing}', file=sys.stderr)
    # A self-check on a terminal: a line on standard error says how far it has got.
    live = None
    if not include_hidden and not args.quiet:
        from grader.report import live as live_line
        live = live_line.on_terminal(sys.stderr)
    try:
        results = engine.grade_many(policy, graded, [a.name for a in chosen], run=run,
                                    submitted_at=getattr(args, 'submitted_at', None),
                                    progress=live)
    finally:
        if live is not None:
            live.clear()
    write_reports(results, args, job_summary=not include_hidden)
    if args.fail_under is not None and any(r.score < args.fail_under for r in results):
        return 1
    return 0


def _report_paths(args):
    return [args.json, args.gradescope, args.junit, args.markdown,
            getattr(args, 'prairielearn', None)]


def per_assignment(path, assignment):
    """``result.json`` -> ``result.<assignment>.json``: one report file per assignment."""
    path = Path(path)
    return path.with_name(f'{path.stem}.{assignment}{path.suffix}')


def write_reports(results, args, job_summary=False):
    """Every report the options ask for; the terminal one unless --quiet.

    ``results`` holds one :class:`~grader.model.Result` per assignment graded;
    with several, or with ``--assignment all``, each report file is written
    once per assignment, named by :func:`per_assignment`.  With ``job_summary``
    and $GITHUB_STEP_SUMMARY set, the Markdown summary is appended there too
    (GitHub Actions shows it on the run's page).
    """

    def writer(name):  # only the writers asked for are imported
        return importlib.import_module(f'grader.report.{name}')

    writers = tuple(zip(_report_paths(args),
                        ('jsonout', 'gradescope', 'junit', 'markdown', 'prairielearn')))
    options = {'markdown': {'verbose': args.verbose}}     # the human views draw per --verbose
    for result in results:
        for path, name in writers:
            if path == '-':
                sys.stdout.write(writer(name).render(result, **options.get(name, {})))
            elif path:
                writer(name).write(result, per_assignment(path, result.assignment)
                                   if len(results) > 1 or args.assignment == 'all' else path,
                                   **options.get(name, {}))
        summary = os.environ.get('GITHUB_STEP_SUMMARY')
        if job_summary and summary:
            writer('files').append_text(summary, writer('markdown').render(result,
                                                                           args.verbose))
        if not args.quiet and '-' not in [path for path, _ in writers]:
            if result is not results[0]:
                print()
            writer('terminal').write(result, verbose=args.verbose, colour=args.color)


def cmd_check(args):
    return _grade(args, include_hidden=False)


def cmd_grade(args):
    return _grade(args, include_hidden=True)


def cmd_fixtures(args):
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import fixtures, selection
    policy = _policy(args)
    names = args.exercise or list(policy.exercises)
    for name in names:
        if name not in policy.exercises:
            raise UserError(f'unknown exercise {name!r}', policy.path)
    if args.select:
        return _select(policy, names, args.bugs, args.hidden)
    if args.regenerate:
        for name in names:
            for path, count in fixtures.regenerate(policy, name, create=args.create).items():
                print(f'{path}: {count} cases regenerated')
            pool = selection.refresh_answers(policy, name)
            if pool:
                print(f'{pool[0]}: the answers to {pool[1]} positions regenerated')
        return 0
    failures = []
    for name in names:
        problems = fixtures.verify(policy, name) + selection.answer_problems(policy, name)
        failures += problems
        print(f'{name}: {"OK" if not problems else f"{len(problems)} case(s) differ"}')
    for line in failures:
        print(line, file=sys.stderr)
    return 2 if failures else 0


def _say_if_uncounted(name):
    """A self-check without the search counter: one line on standard error (an official
    grade refuses instead: :func:`grader.instruments.require_counter`)."""
    if name == 'check':
        from grader import instruments
        if instruments.counter() is None:
            print(f'grader: warning: {instruments.missing_counter_line(official=False)}',
                  file=sys.stderr)


def _select(policy, names, bugs, hidden=None):
    """``grader fixtures --select``: the exercises that have trials and a bug library."""
    from grader import selection
    if not Path(bugs).is_dir():
        raise UserError(f'no library of buggy variants at {bugs} (--bugs DIR)')
    names = [n for n in names if (Path(bugs) / n).is_dir()
             and (Path(policy.reference) / 'trials' / f'{n}.py').is_file()]
    for name in names:
        counts, (pool, record) = selection.select(policy, name, bugs,
                                                  log=lambda line: print(line, file=sys.stderr))
        print(f"{name}: {', '.join(f'{n} {verdict}' for verdict, n in sorted(counts.items()))}; "
              f'pool {pool}, record {record}')
        if hidden:
            path, count = selection.write_hidden(policy, name, hidden)
            print(f'{path}: {count} positions that catch known bugs')
    return 0


def cmd_doctor(args):
    """The machine as the grader sees it; with ``--require-counter``, exit 2 (after saying
    everything else) when the search counter is not in force."""
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import calibrate, instruments

    # on demand: each sub-command loads only its own modules (start-up time)
    from grader.sandbox import layers
    print(f'grader {__version__}, Python {sys.version.split()[0]} at {sys.executable}')
    counter = instruments.counter()
    print(f'search counter: {counter.describe()}' if counter else
          f'search counter: none: {instruments.missing_counter_line()}')
    try:
        policy = _policy(args)
    except UserError as error:
        if not args.require_counter:
            raise
        print(f'policy: none ({error})')
        return _counter_required(counter)
    isolation = layers.detect(policy.sandbox)
    print(f'policy: {policy.path}')
    print(f'isolation: {isolation.level}')
    for layer in isolation.layers:
        print(f'  + {layer}')
    for missing in isolation.missing:
        print(f'  - {missing}')
    cal = calibrate.measure(policy.calibration_repeats)
    print(f"calibration unit: {cal['unit_seconds']:.4f} s ({cal['workload']})")
    for name, settings in policy.exercises.items():
        limits = ', '.join(f'{k} {settings.limit(k, cal["unit_seconds"]):.2f} s'
                           for k in settings.factors)
        print(f'  {name}: time limits {limits}; max {settings.max_score:g} points')
    return _counter_required(counter) if args.require_counter else 0


def _counter_required(counter):
    """``doctor --require-counter``'s status: 0 with the counter, else 2 and the one line."""
    if counter is not None:
        return 0
    from grader import instruments
    print(f'grader: error: {instruments.missing_counter_line()}', file=sys.stderr)
    return 2


def cmd_dist(args):
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader import dist
    if not args.out and not args.gradescope:
        raise UserError('give a folder for the student distribution, or --gradescope FILE.zip '
                        "for Gradescope's autograder")
    policy = _policy(args)
    if args.out:
        written = dist.build(policy, args.out)
        print(f'{args.out}: {len(written)} entries ({", ".join(written)})')
    if args.gradescope:
        # on demand: each sub-command loads only its own modules (start-up time)
        from grader.platforms import gradescope
        names = gradescope.build(policy, args.gradescope, args.assignment)
        print(f'{args.gradescope}: {gradescope.described(policy, args.assignment, names)}')
        for path in gradescope.missing_hidden(policy, args.assignment):
            print(f'note: {path} does not exist: the autograder grades without it',
                  file=sys.stderr)
    return 0


COMMANDS = {'check': cmd_check, 'grade': cmd_grade, 'fixtures': cmd_fixtures,
            'doctor': cmd_doctor, 'dist': cmd_dist}
"""The core commands; ``batch`` and ``regrade`` live in :mod:`grader.batch.cli`."""


def command(name):
    """The function that runs sub-command ``name`` (batch ones imported on demand)."""
    if name in COMMANDS:
        return COMMANDS[name]
    # on demand: each sub-command loads only its own modules (start-up time)
    from grader.batch import cli as batch_cli
    return batch_cli.COMMANDS[name]
