"""``grader batch`` and ``grader regrade``: the instructor's commands.

Wired into :mod:`grader.cli` by :func:`add_parsers` and :data:`COMMANDS`.
"""
import argparse
import os
import sys
from pathlib import Path

from grader.errors import UserError
from grader.sandbox import interrupts, leftovers
from grader.scoring import fmt


def _executor_options(p):
    group = p.add_argument_group('where to grade (default: a local pool, one worker per core)')
    where = group.add_mutually_exclusive_group()
    where.add_argument('--workers', '-j', type=int, metavar='N',
                       help='local worker processes (default: one per core)')
    where.add_argument('--scheduler', metavar='ADDRESS',
                       help='grade on the Dask cluster of this scheduler (tcp://host:8786)')
    where.add_argument('--dask-local', type=int, metavar='N',
                       help='start a local Dask cluster of N workers and grade on it')
    p.add_argument('--assignment', help='assignment to grade (default: picked per submission '
                                        'from the files found)')
    p.add_argument('--feedback', choices=('md', 'html', 'none'), default='md',
                   help='format of the per-student feedback files (default: md)')
    bar = p.add_mutually_exclusive_group()
    bar.add_argument('--progress', dest='progress', action='store_true', default=None,
                     help='show the progress bar (default: when stderr is a terminal)')
    bar.add_argument('--no-progress', dest='progress', action='store_false')


def add_parsers(subparsers):
    """Register ``batch`` and ``regrade`` on the top-level sub-command parsers."""
    p = subparsers.add_parser(
        'batch', help='grade a whole class into a gradebook, feedback files and an overview',
        description='Grade every submission of SOURCE in parallel and write the gradebook '
                    '(SQLite), grades.csv, a Moodle worksheet, feedback files, an overview and '
                    'the problems into DIR. SOURCE is a folder of submission folders or zips, '
                    'a zip of them (Moodle "Download all submissions" included), or a text '
                    'file listing git repositories. See docs/batch.md.')
    p.add_argument('source', metavar='SOURCE', help='folder, zip, or list of git repositories')
    p.add_argument('--out', '-o', required=True, metavar='DIR', help='output folder')
    mode = p.add_mutually_exclusive_group()
    mode.add_argument('--resume', action='store_true',
                      help="reuse DIR's gradebook: grade only what is missing or changed")
    mode.add_argument('--regrade', action='store_true',
                      help="reuse DIR's gradebook and grade every submission again")
    p.add_argument('--source-kind', choices=('folder', 'zip', 'git'),
                   help='how to read SOURCE (default: guessed)')
    p.add_argument('--moodle-worksheet', metavar='CSV',
                   help="Moodle's grading worksheet: names, e-mails and submission times in; "
                        'the same worksheet with grades filled in out')
    p.add_argument('--roster', metavar='CSV',
                   help='student_id,name,email,submitted_at for the submissions')
    p.add_argument('--max-submission-mb', type=float, default=50, metavar='MB',
                   help='refuse a submission larger than this unpacked (default: 50)')
    p.add_argument('--max-files', type=int, default=2000, metavar='N',
                   help='refuse a submission with more files than this (default: 2000)')
    _executor_options(p)

    p = subparsers.add_parser(
        'regrade', help="grade a gradebook's submissions again (e.g. after a fixture fix)",
        description="Grade the submissions stored in DIR's gradebook again with today's policy "
                    'and fixtures. --diff shows whose result would change and writes nothing.')
    p.add_argument('out', metavar='DIR', help='the output folder of an earlier grader batch')
    p.add_argument('--diff', action='store_true',
                   help='show whose score would change; write nothing')
    p.add_argument('--resume', action='store_true', help='finish an interrupted regrade')
    p.add_argument('--student', action='append', metavar='KEY',
                   help='only this submission key (repeatable)')
    _executor_options(p)


def _policy(args):
    from grader import config  # on demand: only a batch run reads the course
    return config.load(getattr(args, 'config', None))


def _settings(args, policy):
    from grader.batch import archives, executors, pipeline  # on demand: only a batch run needs them
    if args.workers is not None and args.workers < 1 or (args.dask_local or 1) < 1:
        raise UserError('the number of workers must be at least 1')
    limits = archives.Limits(
        max_bytes=int(getattr(args, 'max_submission_mb', 50) * 1024 * 1024),
        max_files=getattr(args, 'max_files', 2000))
    if args.assignment and args.assignment not in policy.assignments:
        raise UserError(f'unknown assignment {args.assignment!r} (known: '
                        f'{", ".join(policy.assignments)})', policy.path)
    return pipeline.Settings(
        out=Path(args.out),
        executor=executors.make(policy, args.workers, args.scheduler, args.dask_local),
        limits=limits, assignment=args.assignment, feedback=args.feedback,
        progress=args.progress, worksheet=getattr(args, 'moodle_worksheet', None),
        roster=getattr(args, 'roster', None), kind=getattr(args, 'source_kind', None))


def _interruptible(run):
    """Run ``run()``; on SIGINT or SIGTERM (to this process or its whole group) stop the
    workers and their children, remove every private copy, and exit 130 / 143."""
    with interrupts.handling():
        try:
            return run()
        except KeyboardInterrupt as stop:
            code = interrupts.finish(stop)
            leftovers.sweep()    # what a worker stopped by force left behind
            print(f'grader: interrupted by {interrupts.describe(stop)}; every result finished '
                  'so far is saved. Run the same command with --resume to grade the rest.',
                  file=sys.stderr)
            return code


def cmd_batch(args):
    from grader.batch import pipeline  # on demand: only a batch run needs it
    policy = _policy(args)
    settings = _settings(args, policy)
    mode = 'resume' if args.resume else 'regrade' if args.regrade else 'new'

    def run():
        summary = pipeline.batch(policy, args.source, settings, mode)
        _report(summary, settings)
        return 0
    return _interruptible(run)


def cmd_regrade(args):
    from grader.batch import pipeline  # on demand: only a batch run needs it
    policy = _policy(args)
    settings = _settings(args, policy)

    def run():
        summary = pipeline.regrade(policy, settings, diff=args.diff, resume=args.resume,
                                   only=args.student)
        _changes(summary, diff=args.diff, folder=args.out)
        if not args.diff:
            _report(summary, settings)
        return 0
    return _interruptible(run)


def _report(summary, settings):
    rate = summary.planned / summary.seconds * 60 if summary.seconds else 0
    print(f'{summary.submissions} submissions: {summary.planned} graded now with '
          f'{settings.executor.describe()}'
          + (f' in {summary.seconds:.1f} s ({rate:.0f} per minute)' if summary.planned else '')
          + f', {summary.kept} kept from the gradebook.')
    if summary.problems:
        print(f'{summary.problems} submission(s) could not be graded: see '
              f'{Path(settings.out) / "problems.csv"}'
              + (' (grader failures are retried by --resume)' if summary.errors else '') + '.')
    if summary.untimed:
        print(f'{summary.untimed} graded submission(s) have no submission time, so their late '
              'penalty could not be applied: listed in '
              f'{Path(settings.out) / "problems.csv"} (give the times with --moodle-worksheet '
              'or --roster).')
    if summary.similarity is not None:
        found = summary.similarity
        print(f'{len(found.pairs)} pair(s) of similar code (see '
              f'{Path(settings.out) / "similarity.csv"}; no score changed): '
              f'{found.compared} pair(s) of files compared now, {found.cached} kept from the '
              f'gradebook, in {found.seconds:.1f} s.')
    for keys in summary.look_alike:
        print(f'note: the names of {", ".join(keys)} reduce to the same text; each is filed '
              'under its own key: check who is who.')
    if summary.stale:
        print(f'note: {summary.stale} result(s) were graded with other fixtures or another '
              f'grader version; `grader regrade {settings.out} --diff` shows whose score '
              'would change.')
    for path in summary.written:
        print(f'  {path}')


def _changes(summary, diff, folder):
    changed = summary.changes
    verb = 'would change' if diff else 'changed'
    print(f'{len(changed)} of {summary.planned} regraded submission(s) {verb}'
          + (':' if changed else '.'))
    for record, status, result, said in changed:
        who = record.identity
        old = fmt(record.score) if record.status == 'graded' else record.status
        new = fmt(result['score']) if status == 'graded' and result else status
        print(f'  {who.key:<16} {who.name[:24]:<24} {old:>8} -> {new:<8} {"; ".join(said)}')
    if diff and changed:
        print(f'Nothing was written. `grader regrade {folder}` applies these.')


COMMANDS = {'batch': cmd_batch, 'regrade': cmd_regrade}


def main(argv=None):
    """Run ``batch``/``regrade`` on their own (``python -m grader.batch.cli``)."""
    return interrupts.leave(_main(argv), program=argv is None)


def _main(argv):
    top = argparse.ArgumentParser(prog='grader')
    top.add_argument('--config', metavar='FILE')
    add_parsers(top.add_subparsers(dest='command', required=True))
    with interrupts.handling(program=argv is None):
        args = top.parse_args(argv)
        try:
            leftovers.sweep_and_say(quiet=getattr(args, 'quiet', False))
            return COMMANDS[args.command](args)
        except UserError as error:
            print(f'grader: error: {error}', file=sys.stderr)
            return 2


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
