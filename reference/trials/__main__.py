"""Run one variant on many positions: ``python -m reference.trials EXERCISE VARIANT.py``.

Reads ``{"cases": [[input, expected], ...], "limit": CPU seconds per case,
"stop_after": n or null, "timeouts": n or null}`` as JSON on stdin and writes
``{"answers": [...], "failed": {index: reason}}`` on stdout: each case's answer (a plain
JSON value, so two variants' answers compare exactly) and the verdict of the graded checks
on it.  A case past its CPU limit fails as ``timeout``; an exception as ``exception:
Type``.  With ``stop_after``, the run ends after that many failed cases other than
time-outs; it ends after ``timeouts`` time-outs in any case (default
:data:`STOP_AFTER_TIMEOUTS`; the answers then cover the cases tried).  The variant's
printing goes nowhere.

With ``GRADER_TRIAL_LINES=1`` in the environment it writes ``{"lines": [...]}`` instead:
the line numbers of the variant's file that ran on the cases (line tracing).
"""
import contextlib
import importlib
import importlib.util
import io
import json
import os
import signal
import sys

STOP_AFTER_TIMEOUTS = 3
"""A variant past its limit on this many cases is not run on the rest (as the grader stops
an exercise after three time-outs in a row), unless the request says otherwise."""


class _Limit(BaseException):
    """A case past its CPU limit: not an ``Exception``, so no ``except Exception`` of the
    variant (or of a trial's own probing call) can swallow it and run on unlimited."""


def _expired(signum, frame):
    raise _Limit()


def load(path):
    """The variant at ``path`` as a fresh module (its own name: imports do not clash).  Code
    at module level that fails (input() at import) leaves what it defined, as in a grade."""
    spec = importlib.util.spec_from_file_location('variant_under_trial', path)
    module = importlib.util.module_from_spec(spec)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - as the grader does, what was defined is tried
        pass
    return module


def one(trial, module, case, limit):
    """``(answer, reason)`` of one case: reason '' when the checks accept the answer."""
    input, expected = case
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            answer = trial.answer(module, input)
    except _Limit:
        return 'timeout', 'timeout'
    except RecursionError:
        return 'exception', 'exception: RecursionError'
    except Exception as exc:  # noqa: BLE001 - any failure of the variant is its answer
        return 'exception', f'exception: {type(exc).__name__}'
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return answer, trial.verdict(input, expected, answer)


def lines_run(trial, cases, path):
    """The line numbers of ``path`` that run while the variant is loaded (module level, class
    bodies, default values) and answers ``cases``."""
    ran = set()

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != path:
            return None
        if event == 'line':
            ran.add(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        module = load(path)
        for input, _ in cases:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    trial.answer(module, input)
            except Exception:  # noqa: BLE001, S112 - the lines run so far count
                continue
    finally:
        sys.settrace(None)
    return sorted(ran)


def main(argv=None):
    exercise, path = (argv or sys.argv[1:])[:2]
    trial = importlib.import_module(f'reference.trials.{exercise}')
    request = json.load(sys.stdin)
    signal.signal(signal.SIGPROF, _expired)
    sys.setrecursionlimit(5000)
    answers, failed = [], {}
    if os.environ.get('GRADER_TRIAL_LINES'):
        json.dump({'lines': lines_run(trial, request['cases'], path)}, sys.stdout)
        return
    module = load(path)
    stop_after = request.get('stop_after')
    most_timeouts = request.get('timeouts') or STOP_AFTER_TIMEOUTS
    timeouts = 0
    for index, case in enumerate(request['cases']):
        answer, reason = one(trial, module, case, request.get('limit', 2.0))
        answers.append(answer)
        if reason:
            failed[str(index)] = reason
            timeouts += reason == 'timeout'
            if (stop_after and len(failed) - timeouts >= stop_after) or \
                    timeouts >= most_timeouts:
                break
    json.dump({'answers': answers, 'failed': failed}, sys.stdout)


if __name__ == '__main__':
    main()
