"""One grading run: policy + fixtures + submission -> :class:`grader.model.Result`.

For each exercise of the assignment the engine locates the student's file,
starts a sandboxed child (:class:`grader.sandbox.session.Session`), sends the
plug-in's requests case by case under calibrated time limits, lets the
plug-in judge every reply, and scores the outcomes under the policy.  One
slow or crashing case fails only itself: the child is restarted and grading
goes on.
"""
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


from grader import __version__, calibrate, fixtures, scoring
from grader import exercises as plugins
from grader.errors import UserError
from grader.exercises import base
from grader.model import ExerciseResult, Result
from grader.sandbox import layers
from grader.sandbox.session import Reply, Session

LEVELS = ('advisory', 'standard', 'strong')


class Run:
    """Per-run state shared by every submission: calibration, isolation, cases."""

    def __init__(self, policy, include_hidden=True, calibration=None, isolation=None, jobs=1):
        self.policy = policy
        self.include_hidden = include_hidden
        self.jobs = max(1, int(jobs or 1))
        """Exercises of one submission graded at once, each in its own child."""
        self._calibration = calibration
        self._calibrating = None
        if calibration is None:
            # Timed in the background while the first child starts and imports
            # the student module (on another core); joined at the first call.
            self._calibrating = threading.Thread(target=self._calibrate, daemon=True)
            self._calibrating.start()
        self.isolation = isolation or layers.detect(policy.sandbox)
        if LEVELS.index(self.isolation.level) < LEVELS.index(policy.require):
            raise UserError(f'isolation here is {self.isolation.level}, but the policy requires '
                            f'{policy.require} ({"; ".join(self.isolation.missing) or "see grader doctor"})',
                            policy.path)
        self._cases = {}

    def _calibrate(self):
        self._calibration = calibrate.measure(self.policy.calibration_repeats)

    @property
    def calibration(self):
        if self._calibrating is not None:
            self._calibrating.join()
            self._calibrating = None
        return self._calibration

    @property
    def unit(self):
        return self.calibration['unit_seconds']

    def cases(self, name):
        """The exercise's cases (loaded and validated once per run)."""
        if name not in self._cases:
            plugin = plugins.get(name)
            settings = self.policy.exercises[name]
            if not self.include_hidden:
                settings = _public_only(settings)
            self._cases[name] = fixtures.load_cases(plugin, settings)
        return self._cases[name]

    def digest(self, names):
        used = {}
        for name in names:
            used.update(self.cases(name)[1])
        return fixtures.digest(used)


def _public_only(settings):
    from dataclasses import replace
    return replace(settings, hidden_fixtures=())


def pick_assignment(policy, submission_dir, requested=None):
    """The assignment to grade: the requested one, or the one whose files are present."""
    if requested:
        if requested not in policy.assignments:
            raise UserError(f'unknown assignment {requested!r} (known: '
                            f'{", ".join(policy.assignments)})', policy.path)
        return policy.assignments[requested]
    found = [name for name, settings in policy.exercises.items()
             if plugins.get(name).locate(submission_dir, settings)]
    for assignment in policy.assignments.values():
        if found and set(found) & set(assignment.exercises):
            return assignment
    expected = ', '.join(f for s in policy.exercises.values() for f in s.files)
    raise UserError(f'no exercise file found (looked for {expected}, also under src/)',
                    submission_dir)


def grade(policy, submission_dir, assignment=None, run=None, submitted_at=None,
          only=None, progress=None):
    """Grade one submission folder: a :class:`Result`."""
    started = time.monotonic()
    submission_dir = Path(submission_dir)
    if not submission_dir.is_dir():
        raise UserError('not a folder (pass the folder that holds the submission)',
                        submission_dir)
    run = run or Run(policy)
    chosen = pick_assignment(policy, submission_dir, assignment)
    names = [n for n in chosen.exercises if not only or n in only]
    for name in names:
        run.cases(name)          # validate every fixture before any child starts

    def one(name):
        if progress:
            progress(name)
        return grade_exercise(run, name, submission_dir)

    if run.jobs > 1 and len(names) > 1:
        # Each exercise has its own sandboxed child; the parent only waits and judges.
        with ThreadPoolExecutor(max_workers=min(run.jobs, len(names))) as pool:
            results = list(pool.map(one, names))
    else:
        results = [one(name) for name in names]
    counted, total, explanation = scoring.choose(chosen, results)
    for result in results:
        result.counted = result.name in counted
    final, late = scoring.late_penalty(chosen.late_penalty, submitted_at, total)
    if late.get('late'):
        explanation.append(scoring.late_sentence(late, final))
    names = [r.name for r in results]
    hidden = any(run.cases(n)[2] for n in names)
    result = Result(
        grader_version=__version__, assignment=chosen.name, score=final,
        max_score=chosen.max_score, exercises=results,
        isolation={'level': run.isolation.level, 'layers': list(run.isolation.layers),
                   'missing': list(run.isolation.missing)},
        fixtures_digest=run.digest(names), calibration=dict(run.calibration),
        explanation=explanation, hidden_checks_included=hidden,
        submission={'path': str(submission_dir)}, late=late,
        duration_seconds=round(time.monotonic() - started, 3))
    result.hidden_checks_pending = scoring.hidden_pending(run.policy, result, run.include_hidden)
    return result


def grade_exercise(run, name, submission_dir):
    """Grade one exercise of one submission: an :class:`ExerciseResult`."""
    plugin = plugins.get(name)
    settings = run.policy.exercises[name]
    cases, _, hidden_used = run.cases(name)
    hidden_names = {c.name for c in cases if c.hidden}
    relpath = plugin.locate(submission_dir, settings)
    result = ExerciseResult(name=name, title=settings.title, score=0.0,
                            max_score=settings.max_score, submitted=relpath is not None,
                            file=relpath or '', hidden_cases=hidden_used)
    if relpath is None:
        wanted = ' or '.join(settings.files)
        result.checks = [scoring.check_result(c, settings, [base.Outcome(c, '(submission)', False,
                                                                         f'{wanted} not found')])
                         for c in settings.checks]
        result.error = f'{wanted} not found'
        return result

    requests = [(case, plugin.requests(case, settings)) for case in cases]
    # The child's CPU rlimit is a safety net under the per-call limits: every call
    # at the largest factor with a unit of up to one second (far slower than any
    # machine measured), so it never decides a verdict on its own.
    largest = max(settings.factors.values())
    budget = sum(max(settings.min_seconds, largest) for _, rs in requests for _ in rs)
    validator = plugin.observation_validator
    outcomes, elapsed, wall = [], 0.0, 0.0
    with Session(submission_dir, relpath, plugin.probe, options=plugin.child_options(settings),
                 isolation=run.isolation, settings=run.policy.sandbox,
                 load_seconds=run.policy.load_seconds, cpu_seconds=int(budget + 60),
                 prepare=plugin.prepare(settings)) as session:
        loaded = session.start()
        problem = load_problem(plugin, settings, relpath, loaded)
        if loaded.ok:
            result.warnings = list(loaded.observation.get('warnings', []))
            result.warnings += plugin.load_warnings(loaded, settings)
        if problem:
            result.error = problem
            outcomes = [base.Outcome(c, '(module)', False, problem) for c in settings.checks]
        else:
            outcomes += plugin.load_outcomes(loaded, settings)
            for case, case_requests in requests:
                replies = []
                for request in case_requests:
                    reply = session.call(request.payload,
                                         settings.limit(request.limit_key, run.unit))
                    if reply.ok and not validator.is_valid(reply.observation):
                        reply = Reply(status='invalid', wall=reply.wall, limit=reply.limit,
                                      error='the probe reply did not have the expected shape '
                                            '(tampered measurement?)')
                    elapsed += reply.elapsed
                    wall += reply.wall
                    replies.append(reply)
                outcomes += plugin.judge(case, replies, settings)
        output = session.output()
        starts = session.starts
    by_check = {c: [o for o in outcomes if o.check == c] for c in settings.checks}
    # An information-only check with no cases this run (e.g. an optional check
    # switched off in grading.yaml) is not run, rather than failed.
    result.checks = [scoring.check_result(c, settings, by_check[c], hidden_names)
                     for c in settings.checks if by_check[c] or settings.points(c) > 0]
    result.score = scoring.exercise_score(result.checks)
    result.facts = plugin.facts(outcomes, settings) if not problem else {}
    result.facts.update({'student_seconds': round(elapsed, 4), 'wall_seconds': round(wall, 4),
                         'child_starts': starts, 'cases': len(cases)})
    if output:
        result.facts['direct_output_bytes'] = len(output.encode())
    return result


def load_problem(plugin, settings, relpath, loaded):
    """Why nothing can be graded after the import, or None."""
    if not loaded.ok:
        if loaded.status == 'timeout':
            return f'{relpath} did not finish importing in time'
        return f'{relpath} could not be imported: {loaded.error}'
    observation = loaded.observation
    if observation.get('error'):
        return f'{relpath}: {observation["error"]}'
    return plugin.missing_entry(observation.get('probe', {}), relpath)
