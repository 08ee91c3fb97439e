"""Command line: ``grader check | grade | fixtures | doctor``.

Exit status: 0 graded (whatever the score); 1 graded but below
``--fail-under``; 2 a usage, configuration, fixture or submission error,
reported in one line that names the file (and line) and what to fix.
"""
import argparse
import sys
from pathlib import Path

from grader import __version__
from grader.errors import UserError


def _add_outputs(p):
    p.add_argument('--json', metavar='FILE', help='write the JSON result (schema: grader/schemas/result.schema.json)')
    p.add_argument('--fail-under', type=float, metavar='X', help='exit 1 when the score is below X')
    p.add_argument('--verbose', '-v', action='store_true', help='show every failed case')
    p.add_argument('--quiet', '-q', action='store_true', help='print nothing but errors')


def parser():
    top = argparse.ArgumentParser(prog='grader', description='Grade search exercises in a sandbox.')
    top.add_argument('--version', action='version', version=f'grader {__version__}')
    top.add_argument('--config', metavar='FILE', help='grading.yaml to use (default: found upward from here)')
    sub = top.add_subparsers(dest='command', required=True)

    p = sub.add_parser('check', help='self-check the submission in a folder (public checks)')
    p.add_argument('path', nargs='?', default='.', help='submission folder (default: here)')
    p.add_argument('--assignment', help='assignment name (default: picked from the files found)')
    _add_outputs(p)

    p = sub.add_parser('grade', help='grade a submission folder (all checks, hidden included)')
    p.add_argument('path', help='submission folder')
    p.add_argument('--assignment', help='assignment name (default: picked from the files found)')
    p.add_argument('--submitted-at', metavar='TIME', help='ISO 8601 submission time, for the late penalty')
    _add_outputs(p)

    p = sub.add_parser('fixtures', help='regenerate or verify expected answers from the reference')
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument('--regenerate', action='store_true', help='recompute every expected block')
    group.add_argument('--verify', action='store_true', help='check every expected block against the reference')
    p.add_argument('--exercise', action='append', help='only this exercise (repeatable)')
    p.add_argument('--create', action='store_true', help='make missing fixture files from the oracle')

    sub.add_parser('doctor', help='show isolation layers, calibration and policy')
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UserError as error:
        print(f'grader: error: {error}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('grader: interrupted', file=sys.stderr)
        return 130


def _policy(args):
    from grader import config
    return config.load(args.config)


def _grade(args, include_hidden):
    from grader import engine
    from grader.report import jsonout, terminal

    policy = _policy(args)
    run = engine.Run(policy, include_hidden=include_hidden)
    if not args.quiet:
        for missing in run.isolation.missing:
            print(f'grader: note: isolation layer unavailable: {missing}', file=sys.stderr)
    result = engine.grade(policy, Path(args.path), assignment=args.assignment, run=run,
                          submitted_at=getattr(args, 'submitted_at', None))
    if args.json:
        jsonout.write(result, args.json)
    if not args.quiet:
        hidden_configured = any(policy.exercises[e.name].hidden_fixtures for e in result.exercises)
        terminal.write(result, verbose=args.verbose,
                       public_only_note=not include_hidden and hidden_configured)
    if args.fail_under is not None and result.score < args.fail_under:
        return 1
    return 0


def cmd_check(args):
    return _grade(args, include_hidden=False)


def cmd_grade(args):
    return _grade(args, include_hidden=True)


def cmd_fixtures(args):
    from grader import fixtures
    policy = _policy(args)
    names = args.exercise or list(policy.exercises)
    for name in names:
        if name not in policy.exercises:
            raise UserError(f'unknown exercise {name!r}', policy.path)
    if args.regenerate:
        for name in names:
            for path, count in fixtures.regenerate(policy, name, create=args.create).items():
                print(f'{path}: {count} cases regenerated')
        return 0
    failures = []
    for name in names:
        problems = fixtures.verify(policy, name)
        failures += problems
        print(f'{name}: {"OK" if not problems else f"{len(problems)} case(s) differ"}')
    for line in failures:
        print(line, file=sys.stderr)
    return 2 if failures else 0


def cmd_doctor(args):
    from grader import calibrate
    from grader.sandbox import layers
    policy = _policy(args)
    isolation = layers.detect(policy.sandbox)
    print(f'grader {__version__}, Python {sys.version.split()[0]} at {sys.executable}')
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
    return 0


COMMANDS = {'check': cmd_check, 'grade': cmd_grade, 'fixtures': cmd_fixtures, 'doctor': cmd_doctor}
