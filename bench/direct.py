"""Baseline: the same student calls as a grading run, in one plain process.

The calls of an official grade: the fixture cases, the positions drawn for
this submission (the engine's seed, from the folder's content) and the
plug-in's derived cases (baselines, turned and mirrored boards), each search
run as many times as the grade runs it (``reps``).

Usage: python bench/direct.py EXERCISE SUBMISSION_FOLDER
Prints the seconds spent in the student's calls (no sandbox, no instrumentation,
no judging) as JSON. Trusted submissions only: this runs code in-process and
with no time limit (a list-style eight puzzle on an unsolvable start would run
for hours), so it is used on the reference solutions.
"""
import contextlib
import importlib.util
import io
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def repeated(call, payload):
    """Make ``call`` as many times as the probe runs the search for ``payload``
    (:func:`grader.child.runs.runs`).  Returns the number of runs."""
    from grader.child.runs import runs
    made = 0
    for _ in runs(payload):
        call()
        made += 1
    return made


def main():
    exercise, folder = sys.argv[1], Path(sys.argv[2])
    from grader import config, fixtures, generated
    from grader import exercises as plugins
    policy = config.load(ROOT / 'grading.yaml')
    plugin = plugins.get(exercise)
    settings = policy.exercises[exercise]
    cases, _, _ = fixtures.load_cases(plugin, settings)
    if settings.generated.get('count', 0) > 0:
        seed = generated.seed_for(policy.course, exercise, generated.submission_digest(folder))
        cases = cases + generated.draw(policy, exercise, seed)
    cases = cases + plugin.extra_cases(cases, settings)
    relpath = plugin.locate(folder, settings)
    probe = importlib.import_module(plugin.probe)
    path = folder / relpath
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    direct = getattr(probe, 'direct_call', None)
    # A probe that repeats a search on what it built once says how (the route planner).
    direct_runs = getattr(probe, 'direct_runs', None)
    total = 0.0
    calls = 0
    options = plugin.child_options(settings)
    printed = io.StringIO()   # what the student prints is kept aside, as the sandbox does
    with contextlib.redirect_stdout(printed):
        for case in cases:
            for request in plugin.requests(case, settings):
                payload = dict(request.payload, count=False)
                start = time.perf_counter()
                calls += direct_runs(module, payload, options) if direct_runs else \
                    repeated(lambda: direct(module, payload, options), payload)
                total += time.perf_counter() - start
                printed.seek(0)
                printed.truncate()
    print(json.dumps({'seconds': total, 'calls': calls}))


if __name__ == '__main__':
    main()
