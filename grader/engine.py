"""One grading run: policy + fixtures + submission -> :class:`grader.model.Result`.

For each exercise of the assignment the engine locates the student's file,
splits its cases into lanes (:class:`ExercisePlan`), and for each lane starts
a sandboxed child (:class:`grader.sandbox.session.Session`), sends the
plug-in's requests case by case under calibrated time limits, and lets the
plug-in judge every reply; then it scores the outcomes under the policy.
Lanes of every exercise run ``jobs`` at a time.  One slow or crashing case
fails only itself: the child is restarted and grading goes on.
"""
import contextlib
import copy
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from grader import __version__, calibrate, fixtures, generated, instruments, scoring, submission
from grader import exercises as plugins
from grader.child import tally as tally_words
from grader.errors import UserError
from grader.exercises import base
from grader.exercises import facts as factwords
from grader.judging import outcomes as outcome_kinds
from grader.judging import tallies
from grader.model import ExerciseResult, Result
from grader.sandbox import layers, registry, spare
from grader.sandbox.session import Reply, Session, keep_spares

LEVELS = ('advisory', 'standard', 'strong')


class Run:
    """Per-run state shared by every submission: calibration, isolation, cases.

    An official run (``include_hidden``) is refused without the search counter
    (:class:`grader.instruments.MissingInstrument`), before anything is graded."""

    def __init__(self, policy, include_hidden=True, calibration=None, isolation=None, jobs=1,
                 full=False):
        if include_hidden:      # an official grade: never without its instruments
            instruments.require_counter()
        tallies.note_counter(instruments.counter() is not None)
        self.policy = policy
        self.include_hidden = include_hidden
        self.jobs = max(1, int(jobs or 1))
        """Lanes of one submission graded at once, each in its own sandboxed child."""
        self.full = bool(full)
        """A full self-check: the calls that decide only an information check and would take
        longer than :data:`SELF_CHECK_UNITS` run too, stopped there.  Without it (a quick
        self-check, the default of ``grader check``) they are not run, and the result says so
        (:func:`self_check_skips`).  An official grade runs every call under the course's
        limits, whatever this says."""
        # A measurement begun by the command line (calibrate.start) goes on in a
        # process of its own while the first child starts; else it is measured
        # here when a time limit is first needed.
        self._calibration = calibration or calibrate.begun(policy.calibration_repeats)
        self._calibration_lock = threading.Lock()
        self.isolation = isolation or layers.detect(policy.sandbox)
        if LEVELS.index(self.isolation.level) < LEVELS.index(policy.require):
            missing = '; '.join(self.isolation.missing) or 'see grader doctor'
            raise UserError(f'isolation here is {self.isolation.level}, but the policy requires '
                            f'{policy.require} ({missing})',
                            policy.path)
        self._cases = {}

    @property
    def calibration(self):
        with self._calibration_lock:   # lanes ask from several threads
            if self._calibration is None:
                self._calibration = calibrate.measure(self.policy.calibration_repeats)
            elif isinstance(self._calibration, calibrate.Pending):
                self._calibration = self._calibration.result()
        return self._calibration

    @property
    def unit(self):
        return self.calibration['unit_seconds']

    def unit_if_measured(self):
        """The unit if it is known now, else None (a measurement still running)."""
        with self._calibration_lock:
            pending = self._calibration
            if isinstance(pending, calibrate.Pending) and not pending.finished():
                return None
        return self.unit

    def cases(self, name):
        """The exercise's cases (loaded and validated once per run)."""
        if name not in self._cases:
            plugin = plugins.get(name)
            settings = self.policy.exercises[name]
            if not self.include_hidden:
                settings = _public_only(settings)
            self._cases[name] = fixtures.load_cases(plugin, settings)
        return self._cases[name]

    def loaded(self, name):
        """Whether the cases of exercise ``name`` are loaded (:meth:`cases`)."""
        return name in self._cases

    def digest(self, names):
        used = {}
        for name in names:
            used.update(self.cases(name)[1])
        return fixtures.digest(used)


def _public_only(settings):
    return replace(settings, hidden_fixtures=())


ALL = 'all'
"""``--assignment all``: every assignment whose files the folder holds."""


def pick_assignments(policy, submission_dir, requested=None):
    """The assignments to grade: the requested one; with None the first, with
    ``all`` every one, whose exercise files are present.

    A submission that holds no file of the assignments looked for is refused
    in one sentence saying why (:func:`grader.submission.absent`): a file one
    folder down, a misnamed file, an empty hand-in.
    """
    if requested not in (None, ALL):
        if requested not in policy.assignments:
            raise UserError(f'unknown assignment {requested!r} (known: '
                            f'{", ".join(policy.assignments)})', policy.path)
        candidates = [policy.assignments[requested]]
    else:
        candidates = list(policy.assignments.values())
    found = {name for name, settings in policy.exercises.items()
             if plugins.get(name).locate(submission_dir, settings)}
    present = [a for a in candidates if found & set(a.exercises)]
    if not present:
        names = [n for a in candidates for n in a.exercises]
        raise UserError(submission.absent(policy, submission_dir, names), submission_dir)
    return present if requested == ALL else present[:1]


def lanes_expected(policy, submission_dir, assignments, quick=False):
    """How many lanes a grade of ``assignments`` is expected to have, told before any
    exercise is planned (for the sandboxes booted ahead: one too many is stopped unused):
    one for each exercise whose file is there, and one more where such an exercise lists
    limits whose cases run in lanes of their own (``time_limit.own_worker``), but for those
    a quick self-check (``quick``) does not run (:func:`information_calls`)."""
    names = dict.fromkeys(n for a in assignments for n in a.exercises)
    located = [n for n in names
               if plugins.get(n).locate(submission_dir, policy.exercises[n])]
    own = any(set(policy.exercises[n].own_worker) -
              (information_calls(plugins.get(n), policy.exercises[n]) if quick else set())
              for n in located)
    return len(located) + (1 if own and located else 0)


def grade(policy, submission_dir, assignment=None, run=None, submitted_at=None,
          only=None, progress=None):
    """Grade one submission folder for one assignment: a :class:`Result`."""
    return grade_many(policy, submission_dir, [assignment], run, submitted_at, only, progress)[0]


def grade_many(policy, submission_dir, assignments=(None,), run=None, submitted_at=None,
               only=None, progress=None):
    """Grade one folder for several assignments in one run: a :class:`Result` for each.

    ``assignments`` holds names (None: the one whose files are present; ``all``:
    every one found).  The lanes of all their exercises share the ``run.jobs``
    workers, and an exercise in two assignments is graded once.

    ``progress``, if given, hears of the grading as it goes (from the lanes' threads):
    ``progress.started(exercise, cases)`` when an exercise's first lane starts, and
    ``progress.judged(exercise, index, passed)`` as each of its cases is judged
    (``passed``: every check with points passed on the case, as judged then; a review
    across the cases, a stop after time-outs in a row or a lane graded again may still
    change it: only the result is final).
    """
    submission_dir = submission.folder(submission_dir, policy)
    run = run or Run(policy)
    chosen = []
    for requested in assignments:
        for found in pick_assignments(policy, submission_dir, requested):
            if found not in chosen:
                chosen.append(found)
    names = [n for a in chosen for n in a.exercises if not only or n in only]
    names = list(dict.fromkeys(names))
    submission.readable(submission_dir)    # one line, before any sandbox copies it
    # Every fixture of a submitted exercise is validated, and the oracle that answers
    # the positions drawn for it found, before any child starts.
    submitted = []
    for name in names:
        settings = run.policy.exercises[name]
        if plugins.get(name).locate(submission_dir, settings):
            submitted.append(name)
            run.cases(name)
            if run.include_hidden and settings.generated.get('count', 0) > 0:
                generated.oracle_of(run.policy, name)
    digest = [None]

    def content():
        if digest[0] is None:
            digest[0] = generated.submission_digest(submission_dir)
        return digest[0]
    schedule = _Schedule(run, submission_dir, names, progress, submitted)
    try:
        done = schedule.lanes_done(
            lambda name: ExercisePlan.make(run, name, submission_dir, content))
    finally:
        schedule.close()
    plans = schedule.plans
    done = {id(lane): outcome for lane, outcome in done}
    graded = {name: plan.result(run, [done[id(lane)] for lane in plan.lanes])
              for name, plan in plans.items()}
    return [_assignment_result(run, assignment, [copy.deepcopy(graded[n])
                                                 for n in assignment.exercises if n in graded],
                               plans, submission_dir, submitted_at)
            for assignment in chosen]


def public_duration(results):
    """The duration a result reports: seconds of the imports (CPU) and of the public cases'
    calls (wall clock), summed over ``results``.

    Not the run's own wall-clock time, which the hidden and drawn cases are part
    of: a submission could make it tell what they hold (by sleeping on one for a
    time its input decides).  What the import and the public cases take, it may
    choose, and it knows their inputs anyway.
    """
    return round(sum(r.facts.get('import_seconds', 0.0) + r.facts.get('wall_seconds', 0.0)
                     for r in results), 3)


SELF_CHECK_UNITS = 15
"""In a full self-check (``grader check --full``, the pytest plug-in's ``--grader-full``), the
CPU limit, in calibration units, of a call that decides only an information check (0 points):
the eight puzzle's hard and unsolvable starts (:attr:`information_limits` of a plug-in).
A quick self-check (the default) does not make those calls (:func:`self_check_skips`).

The official limits of those starts (120 and 150 units) are there to tell a slow
correct search from one that never ends, and a list-based A* like the handout's uses them
up whatever they are: about 13 s of CPU on each self-check, for checks that change no
score.  15 units is enough for a search with a heap and a closed set to answer a 31-move
start (6-13 units), and for a parity test to answer an unsolvable one at once; a search
stopped at it is reported as cut short in the self-check, with the limit an official
grade gives it, never as a time-out of that grade.  An official grade (``grader grade``,
a batch, Gradescope) and a check that carries points keep the course's limits."""

NOT_RUN_QUICK = 'information_not_run'
"""The fact that names the information checks a quick self-check did not run."""

CUT_SHORT = 'cut short'
"""The ``kind`` of a reply whose call was stopped at :data:`SELF_CHECK_UNITS`, below its
official limit (its ``status`` stays ``timeout``)."""


def information_calls(plugin, settings):
    """The limit keys of the calls a self-check caps at :data:`SELF_CHECK_UNITS`, or does not
    make in a quick one.  A plug-in names in ``information_limits`` (``{limit key: check}``)
    the calls that decide one check alone; each is one of them while that check has no
    points and the course's limit is above the cap."""
    return {key for key, check in plugin.information_limits.items()
            if settings.points(check) == 0 and settings.factor(key) > SELF_CHECK_UNITS}


def self_check_caps(run, plugin, settings):
    """``{limit key: units}``: the limits :data:`SELF_CHECK_UNITS` caps in this run (none in
    an official grade; :func:`information_calls`)."""
    if run.include_hidden:
        return {}
    return dict.fromkeys(information_calls(plugin, settings), SELF_CHECK_UNITS)


def self_check_skips(run, caps):
    """The limit keys whose calls this run does not make: those of ``caps``
    (:func:`self_check_caps`) in a quick self-check (not ``run.full``), none otherwise.

    Each such call decides an information check alone (0 points), and a list-based A* like
    the handout's uses up the cap on each: 41 % of the CPU of a self-check of all four
    exercises went on three of them (BENCHMARKS.md).  ``grader check --full`` makes them."""
    return set() if run.full else set(caps)


PLANNING_SWITCH = 0.0005
"""The interpreter's switch interval (seconds) while lanes run beside the planning."""


def _requests_made(run, name):
    """How many requests the fixture cases of exercise ``name`` make (0 when its cases
    were not loaded: its file was not handed in)."""
    if not run.loaded(name):
        return 0
    plugin, settings = plugins.get(name), run.policy.exercises[name]
    return sum(plugin.request_count(case, settings) for case in run.cases(name)[0])


class _Schedule:
    """The lanes of one grade, ``run.jobs`` at a time, as their exercises are planned.

    Each exercise is planned (the positions drawn for the submission answered
    by the reference) in turn, and its main lane starts as soon as it is
    planned, while the next exercise is planned; the lanes of their own
    (``time_limit.own_worker``) come after every main lane, those with the
    largest time limits first (:meth:`Lane.budget_units`), and a main lane of
    hidden cases made to come last (``time_limit.hidden_last``) after them.  With more than
    one worker, the exercises whose fixtures make the most requests go first
    (:func:`_requests_made`): the longest lanes start early, and the short
    ones fill in at the end.  What a lane holds depends on the configuration
    only, never on this order or timing.

    The main lanes of the first exercises in that order, one per worker,
    start their sandboxes and load the module while their exercises are
    planned (:class:`EarlyStart`), and grade in them from their first case.
    A sandbox takes tens of milliseconds to boot (its Python and the runner's
    imports), so as each lane's child starts, spare sandboxes are spawned
    (:func:`grader.sandbox.session.keep_spares`) for the lanes still to come,
    up to ``run.jobs``, but for those that the sandboxes of their exercise's
    earlier lanes will serve (:class:`Sandboxes`): they boot while the lanes
    before them run.  The ones no lane took are stopped at the end
    (:meth:`close`).
    """

    def __init__(self, run, submission_dir, names, progress, submitted):
        self.run, self.submission_dir, self.progress = run, submission_dir, progress
        self.plans = {}
        self.names = names
        self.unplanned = set(submitted)
        """The exercises of ``names`` with a file handed in, not planned yet (the others have
        no lane: no sandbox starts for them, early or spare)."""
        self.started_exercises = set()
        self.spares = []
        self.early = {}
        """``{exercise: future of its EarlyStart}``, until the exercise is planned."""
        self.lock = threading.Lock()

    def lanes_done(self, make):
        """``[(lane, LaneResult)]`` in the order the lanes were handed out."""
        if self.run.jobs == 1:
            lanes = []
            for name in self.names:
                lanes += self._planned(name, make)
            lanes.sort(key=lambda lane: (lane.last, lane.part is None))
            return [(lane, self._one(lane)) for lane in lanes]
        futures, later, last = [], [], []
        names = sorted(self.names, key=lambda name: -_requests_made(self.run, name))
        switch = sys.getswitchinterval()
        with ThreadPoolExecutor(max_workers=self.run.jobs) as pool:
            try:
                # While this thread plans (pure Python), a lane's thread waits for the
                # interpreter at each exchange with its child: a short switch interval
                # keeps those waits short.
                sys.setswitchinterval(PLANNING_SWITCH)
                # The first exercises' main sandboxes start meanwhile (one per worker).
                for name in [name for name in names if name in self.unplanned][:self.run.jobs]:
                    self.early[name] = pool.submit(EarlyStart.begin, self.run, name,
                                                   self.submission_dir, self._spare_ahead)
                for name in names:
                    for lane in self._planned(name, make):
                        if lane.last:
                            last.append(lane)
                        elif lane.part is not None:
                            futures.append((lane, pool.submit(self._one, lane)))
                        else:
                            later.append(lane)
                # Longest first: the lane that may run longest starts on a free worker
                # while the shorter ones share the other (the lanes' contents, and so
                # the verdicts, do not depend on this order); the lanes of hidden cases
                # made to come last fill in at the end.
                later.sort(key=lambda lane: -lane.budget_units())
                futures += [(lane, pool.submit(self._one, lane)) for lane in later + last]
            except BaseException:
                for _, future in futures:
                    future.cancel()
                for future in self.early.values():   # those no plan took: stopped here
                    for session in _early_session(future):
                        session.close()
                raise
            finally:
                sys.setswitchinterval(switch)
            return [(lane, future.result()) for lane, future in futures]

    def _planned(self, name, make):
        plan = make(name)
        plan.progress = self.progress
        with self.lock:
            self.plans[name] = plan
            early = self.early.pop(name, None)
            if early is not None:
                plan.sandboxes.expect_early(early)
            self.unplanned.discard(name)
        return plan.lanes

    def _one(self, lane):
        with self.lock:
            first = lane.plan.name not in self.started_exercises
            self.started_exercises.add(lane.plan.name)
        if self.progress and first:
            self.progress.started(lane.plan.name,
                                  len(lane.plan.cases) - lane.plan.cases_not_run)
        return lane.run(self.run, self.submission_dir, started=self._spare_ahead)

    def _spare_ahead(self):
        """A lane's child has started: sandboxes for the lanes still to come (those the
        sandboxes of their exercise's earlier lanes will not serve, see :class:`Sandboxes`)."""
        with self.lock:
            jobs = self.run.jobs
            to_come = len(self.unplanned - set(self.early)) + \
                sum(plan.sandboxes.needed(jobs) for plan in list(self.plans.values()))
            wanted = min(jobs, to_come)
            if wanted > 0:
                self.spares += keep_spares(wanted, self.run.isolation,
                                                       self.run.policy.sandbox)

    def close(self):
        """Stop the spares spawned for lanes that never came, and the sandboxes lanes kept
        for lanes that did not need them."""
        try:
            spare.withdraw(self.spares)
        finally:
            for plan in list(self.plans.values()):
                plan.sandboxes.close()


def _assignment_result(run, chosen, results, plans, submission_dir, submitted_at):
    """One assignment's :class:`Result` from its graded exercises, under its policy."""
    counted, total, explanation = scoring.choose(chosen, results)
    for result in results:
        result.counted = result.name in counted
    final, late = scoring.late_penalty(chosen.late_penalty, submitted_at, total)
    if late.get('late'):
        explanation.append(scoring.late_sentence(late, final))
    graded = [r.name for r in results if plans[r.name].relpath is not None]
    hidden = any(run.cases(n)[2] for n in graded)
    result = Result(
        grader_version=__version__, assignment=chosen.name, score=final,
        max_score=chosen.max_score, exercises=results,
        isolation={'level': run.isolation.level, 'layers': list(run.isolation.layers),
                   'missing': list(run.isolation.missing)},
        fixtures_digest=run.digest(graded), calibration=dict(run.calibration),
        explanation=explanation, hidden_checks_included=hidden,
        submission={'path': str(submission_dir)}, late=late,
        duration_seconds=public_duration(results))
    result.hidden_checks_pending = scoring.hidden_pending(run.policy, result, run.include_hidden)
    return result


class ExercisePlan:
    """One exercise of one submission: where its file is and how its cases split into lanes.

    A *lane* is a list of cases graded in order by one sandboxed child.  The
    main lane holds every case, except that a case with a request whose limit
    key is listed in ``time_limit.own_worker`` (grading.yaml) gets a lane of
    its own, so a long case, such as a search that runs to its limit, can run
    alongside the others on another core; with ``time_limit.main_lanes`` above
    1, the main lane's cases are dealt in turn to that many main lanes, the
    first of which reports the import.  The split depends on the
    configuration only, never on timing, so each case always runs in a
    fresh process of the same kind of child, and the verdicts do not depend
    on ``--jobs`` (nor, through :class:`Hangs`, on the split).  A lane whose
    sandbox is still sound at its end leaves it to a lane of the exercise
    still to come (:class:`Sandboxes`), but never a sandbox that ran a hidden
    or drawn case to a lane with a public case: in every sandbox, as in every
    lane, the public cases come before the hidden ones.
    """

    def __init__(self, name, plugin, settings, relpath):
        self.name, self.plugin, self.settings, self.relpath = name, plugin, settings, relpath
        self.lanes = []
        self.cases = []
        self.generated = {}
        self.hangs = Hangs(settings.stop_after_timeouts)
        """Set again with the main order when the cases are known (:meth:`make`)."""
        self.sandboxes = Sandboxes()
        self.caps = {}
        """``{limit key: units}`` capped in a self-check (:func:`self_check_caps`)."""
        self.not_run = set()
        """The information checks whose cases a quick self-check does not run
        (:func:`self_check_skips`), and how many cases those are."""
        self.cases_not_run = 0
        self.progress = None
        """What hears of each case judged (``progress`` of :func:`grade_many`), or None."""

    def limit(self, request, unit):
        """CPU seconds ``request`` may use given the calibration ``unit``: its official limit,
        or the self-check's cap (:attr:`caps`) when that is smaller."""
        official = request.limit(self.settings, unit)
        units = self.caps.get(request.limit_key)
        if units is None:
            return official
        return min(official, units * unit * max(1, request.runs))

    def cut_short(self, reply, request, unit):
        """``reply``, marked :data:`CUT_SHORT` when its call ran out of CPU time under a
        self-check's cap that is below its official limit (saying so, with that limit); a call
        not run (:class:`Hangs`) or stopped for waiting keeps its own reply."""
        official = request.limit(self.settings, unit)
        if reply.kind == 'timeout' and not reply.waited and reply.limit < official:
            reply.kind = CUT_SHORT
            reply.error = (f'cut short after {reply.limit:.2f} s of CPU time, the self-check\'s '
                           f'limit for a start that is information only (an official grade '
                           f'gives it {official:.2f} s)')
        return reply

    @classmethod
    def make(cls, run, name, submission_dir, content=None):
        """The plan of exercise ``name``; ``content()`` gives the submission's content digest.

        In an official grade (``run.include_hidden``), the positions drawn
        for this submission (:mod:`grader.generated`) join the fixture cases.
        """
        plugin = plugins.get(name)
        settings = run.policy.exercises[name]
        plan = cls(name, plugin, settings, plugin.locate(submission_dir, settings))
        plan.caps = self_check_caps(run, plugin, settings)
        skips = self_check_skips(run, plan.caps)
        if plan.relpath is None:
            return plan
        cases = run.cases(name)[0]
        if run.include_hidden and settings.generated.get('count', 0) > 0:
            digest = content() if content else generated.submission_digest(submission_dir)
            seed = generated.seed_for(run.policy.course, name, digest)
            drawn = generated.draw(run.policy, name, seed)
            plan.generated = {'seed': seed, 'count': len(drawn)}
            cases = cases + drawn
        cases = cases + plugin.extra_cases(cases, settings)
        plan.cases = cases
        main, own = [], []
        for index, case in enumerate(cases):
            requests = plugin.requests(case, settings)
            skipped = {r.limit_key for r in requests} & skips
            if skipped:     # a quick self-check: its check is named as not run
                plan.not_run.update(plugin.information_limits[key] for key in skipped)
                plan.cases_not_run += 1
                continue
            if any(r.limit_key in settings.own_worker for r in requests):
                own.append(Lane(plan, [(index, case, requests)]))
            else:
                main.append((index, case, requests))
        # The public cases first (the turned public boards too), then the hidden and drawn
        # ones: no public case, whose feedback is shown in full, runs after a hidden one in
        # the lane's sandbox (the runner empties every place a case can write in between
        # anyway).  The outcomes keep the cases' order.
        main.sort(key=lambda item: item[1].hidden)
        # With main_lanes > 1, the cases are dealt in turn (each part keeps the public ones
        # first); which are not run after time-outs in a row is decided in this order, as
        # in one lane (Hangs).
        parts = max(1, min(settings.main_lanes, len(main)))
        plan.hangs = Hangs(settings.stop_after_timeouts, [index for index, _, _ in main])
        public = [item for item in main if not item[1].hidden]
        if settings.hidden_last and parts == 1 and 0 < len(public) < len(main):
            # (time_limit.hidden_last) the hidden and drawn cases, many short calls, fill in
            # after the lanes of their own, which hold one long case each; the main order
            # and so the stop after time-outs in a row are the same.
            plan.lanes = [Lane(plan, public, part=0),
                          Lane(plan, main[len(public):], part=1, last=True)] + own
        else:
            plan.lanes = [Lane(plan, main[part::parts], part=part)
                          for part in range(parts)] + own
        plan.sandboxes = Sandboxes([lane.kind for lane in plan.lanes])
        return plan

    def result(self, run, lane_results):
        """The :class:`ExerciseResult` from the finished lanes (in the order of :attr:`lanes`)."""
        settings = self.settings
        hidden_used = run.cases(self.name)[2] if self.relpath else False
        cases = self.cases
        result = ExerciseResult(name=self.name, title=settings.title, score=0.0,
                                max_score=settings.max_score, submitted=self.relpath is not None,
                                file=self.relpath or '', hidden_cases=hidden_used,
                                generated=dict(self.generated))
        if self.relpath is None:
            wanted = ' or '.join(settings.files)
            result.checks = [scoring.check_result(c, settings, [base.Outcome(
                c, '(submission)', False, f'{wanted} not found')]) for c in settings.checks]
            result.error = f'{wanted} not found'
            return result
        main = lane_results[0]
        stop = self.hangs.stop
        if stop is not None:   # the main order's cases after it, and every own lane's: not run
            for lane, done in zip(self.lanes, lane_results):
                beyond = lane.not_run(run, after=stop)
                kept = {index for index, _ in beyond}
                done.outcomes = [(i, o) for i, o in done.outcomes if i not in kept] + beyond
        problem = main.problem
        result.warnings = main.warnings
        if problem:
            result.error = problem
            outcomes = [base.Outcome(c, '(module)', False, problem) for c in settings.checks]
        else:
            by_case = sorted((i, o) for lane in lane_results for i, o in lane.outcomes)
            outcomes = main.load_outcomes + [o for _, case_outcomes in by_case
                                             for o in case_outcomes]
        reviewed = {}
        labels = outcome_kinds.labels(cases)
        if not problem:
            outcomes, reviewed = review(self.plugin, outcomes, settings,
                                        {'unit': run.unit, 'hidden': set(labels)})
            reviewed = outcome_kinds.scrubbed(reviewed, labels)
        outcomes = outcome_kinds.redacted(outcomes, labels)
        hidden_names = set(labels.values())
        by_check = {c: [o for o in outcomes if o.check == c] for c in settings.checks}
        declared = {check.name: check for check in self.plugin.checks}
        # An information-only check with no cases this run (an optional check switched off
        # in grading.yaml, or one a quick self-check does not run) is not run, rather than
        # failed.
        result.checks = [scoring.check_result(c, settings, by_check[c], hidden_names,
                                              declared.get(c))
                         for c in settings.checks if by_check[c] or settings.points(c) > 0]
        result.score = scoring.exercise_score(result.checks)
        result.facts = self.plugin.facts(outcomes, settings) if not problem else {}
        result.facts.update(reviewed)
        deduction = reviewed.get('deduction')
        if deduction:   # e.g. an answer read the other way round: its interface points
            result.score = round(max(0.0, result.score - float(deduction['points'])), 4)
            result.warnings.append(deduction['reason'])
        result.facts.update({
            'student_seconds': round(sum(lane.elapsed for lane in lane_results), 4),
            'import_seconds': round(main.import_seconds, 4),
            'wall_seconds': round(sum(lane.wall for lane in lane_results), 4),
            'child_starts': 1 + sum(lane.restarts for lane in lane_results),
            'cases': len(cases) - self.cases_not_run})
        if self.not_run:
            result.facts[NOT_RUN_QUICK] = sorted(self.not_run)
        output = ''.join(lane.output for lane in lane_results)
        if output:
            result.facts['direct_output_bytes'] = len(output.encode())
        result.fact_lines = factwords.in_words(factwords.declared(self.plugin) + factwords.ENGINE,
                                               result.facts)
        return result


class LaneResult:
    """What one lane's child did: the import, the judged outcomes per case, the times."""

    def __init__(self):
        self.problem = None
        self.warnings = []
        self.load_outcomes = []
        self.outcomes = []          # [(case index, [Outcome, ...]), ...]
        self.elapsed = self.wall = 0.0
        """CPU seconds of the public cases' calls (measured outside the submission's process),
        and their wall seconds: a hidden or drawn case's are left out, as what it wrote is."""
        self.import_seconds = 0.0
        self.restarts = 0
        """Sandboxes started again after one ended during a call (a crash of the runner)."""
        self.output = ''
        """What the sandbox wrote to its real stdout and stderr during the import and the public
        cases, up to the lane's first hidden or drawn case (what a public case still had in
        the pipe then may be missed; nothing a hidden case wrote is in it)."""
        self.stopped_early = False


class Hangs:
    """Hangs end early: after ``stop_after_timeouts`` cases in a row of an exercise's
    main lanes time out, in the order one lane would take them (the *main order*), the
    cases after them are not run.

    They fail as time-outs whose message is :data:`NOT_RUN`, judged like the
    time-outs waiting would have given, so a submission whose every call
    sleeps, waits for input or loops gets the same score in the time of a few
    limits instead of one per case.  Only cases with calls count; one that
    answers starts the count again.  The *stop* is the first position in the
    main order where the count reaches the limit, found as soon as every case
    up to it is done: with several main lanes (``time_limit.main_lanes``), each
    deals with the cases in turn, and one may already have run a case after the
    stop when it is found; that case fails as not run all the same
    (:meth:`ExercisePlan.result`), as do the cases of the exercise's own lanes,
    whatever they did (their children are stopped at once).  So the verdicts
    depend on the outcomes in the main order alone, never on timing, on
    ``--jobs`` or on how many main lanes there are.
    """

    NOT_RUN = 'not run: earlier cases timed out'

    def __init__(self, limit, order=()):
        self.limit = limit
        self.position = {index: place for place, index in enumerate(order)}
        """``{case index: its position in the main order}``."""
        self.stop = None
        """The position of the stop in the main order, once found (else None)."""
        self.stopped = threading.Event()
        self._replies = {}          # position -> the replies of a main-order case done
        self._known = 0             # positions below this are all done
        self._in_a_row = 0          # time-outs in a row up to there
        self._others = set()
        self._lock = threading.Lock()

    @classmethod
    def reply(cls):
        return Reply(status='timeout', kind='not run', error=cls.NOT_RUN)

    def skips(self, lane, index):
        """Whether ``lane``'s case ``index`` is not run: it comes after the stop (an own
        lane's case: the exercise has stopped)."""
        if not self.limit:
            return False
        if lane.part is None:
            return self.stopped.is_set()
        with self._lock:
            return self.stop is not None and self.position[index] > self.stop

    def passed_over(self, lane):
        """Whether none of ``lane``'s cases is to run: the stop is known, and the lane is one
        of its own, or a main lane whose every case comes after the stop (a lane of hidden
        cases handed out last, ``time_limit.hidden_last``)."""
        with self._lock:
            if self.stop is None:
                return False
            return lane.part is None or all(self.position[index] > self.stop
                                            for index, _, _ in lane.cases)

    def note(self, lane, index, replies):
        """The replies of a main lane's case ``index``; the stop, once every case up to it is
        done, stops the own lanes' children."""
        if lane.part is None or not self.limit:
            return
        with self._lock:
            self._replies[self.position[index]] = replies
            while self.stop is None and self._known in self._replies:
                done = self._replies[self._known]
                if done:    # a case without calls leaves the count as it was
                    timed_out = any(r.status == 'timeout' for r in done)
                    self._in_a_row = self._in_a_row + 1 if timed_out else 0
                if self._in_a_row >= self.limit:
                    self.stop = self._known
                self._known += 1
            if self.stop is None or self.stopped.is_set():
                return
            self.stopped.set()
            for session in self._others:
                registry.kill_child(session)

    @contextlib.contextmanager
    def watching(self, lane, session):
        """While an own lane's ``session`` grades, the stop ends its child."""
        if lane.part is not None:
            yield
            return
        with self._lock:
            self._others.add(session)
        try:
            yield
        finally:
            with self._lock:
                self._others.discard(session)


class Sandboxes:
    """The sandboxes of one exercise's finished lanes, kept for its lanes still to come.

    A lane whose sandbox is sound when its cases are done (its runner still
    answering, the module loaded under the limit the others use) leaves it
    here while another lane of the same exercise waits, and that lane grades
    its cases in it instead of booting one of its own.  Every case runs in a
    fresh process forked from the trusted runner, which puts the private copy
    back as it was before each case, so a case finds the same state in a
    kept sandbox as in a new one: the verdicts do not depend on which lane's
    sandbox it ran in.  :meth:`close` stops those no lane took.

    A sandbox that ran a hidden or drawn case serves only a lane of hidden
    cases: no public case, whose feedback is shown in full, runs after a hidden
    one in the same runner (whose memory held that case's input on its way to
    the case process), whichever lanes they came in.
    """

    def __init__(self, kinds=()):
        """``kinds``: for each lane of the exercise, ``(public, hidden)``: whether it holds a
        public case, and whether a hidden or drawn one (:attr:`Lane.kind`)."""
        self.waiting = len(kinds)           # lanes of the exercise not started yet
        self.waiting_public = sum(1 for public, _ in kinds if public)   # with a public case
        self.running = 0
        self._idle = []     # (session, whether it ran a hidden case)
        self._early = None
        """The main lane's sandbox, started while the exercise was planned (a future of an
        :class:`EarlyStart`), or None."""
        self._lock = threading.Lock()

    def expect_early(self, future):
        """The main lane grades in the sandbox ``future`` gives (:class:`EarlyStart`)."""
        with self._lock:
            self._early = future

    def begin(self, kind):
        """A lane of ``kind`` (``(public, hidden)``) starts: it no longer waits."""
        with self._lock:
            self.waiting -= 1
            self.waiting_public -= bool(kind[0])
            self.running += 1

    def end(self):
        """A lane is done (its sandbox kept or stopped)."""
        with self._lock:
            self.running -= 1

    def needed(self, jobs):
        """How many more sandboxes this exercise's waiting lanes need at most, ``jobs``
        lanes running at a time: those its running lanes and kept sandboxes will not
        serve (a kept one that ran a hidden case serves only a lane of hidden cases; a
        lane that would wait for it boots its own then, which costs less than a sandbox
        booted ahead for nothing)."""
        with self._lock:
            seen = sum(1 for _, hidden in self._idle if hidden)
            usable = len(self._idle) - seen + min(seen, self.waiting - self.waiting_public)
            have = self.running + usable + (self._early is not None)
            return max(0, min(jobs, self.waiting + self.running) - have)

    def take_early(self):
        """The :class:`EarlyStart` made for the main lane (waiting for it to be made), once;
        else None."""
        with self._lock:
            early, self._early = self._early, None
        return early.result() if early is not None else None

    def take(self, public):
        """A kept sandbox for a lane (``public``: it holds a public case) as ``(started
        :class:`Session`, whether it ran a hidden case)``, or None: for a lane with a
        public case, only one that ran none."""
        with self._lock:
            for place in reversed(range(len(self._idle))):
                if not (public and self._idle[place][1]):
                    return self._idle.pop(place)
        return None

    def keep(self, session, hidden_seen):
        """Keep ``session`` (``hidden_seen``: it ran a hidden or drawn case) for a lane still
        to come that may take it: whether it was kept (else the caller stops it)."""
        with self._lock:
            takers = self.waiting - self.waiting_public if hidden_seen else self.waiting
            if takers > 0 and session.alive():
                self._idle.append((session, hidden_seen))
                return True
        return False

    def close(self):
        """Stop every kept sandbox no lane took."""
        with self._lock:
            idle, self._idle = [session for session, _ in self._idle], []
            early, self._early = self._early, None
        if early is not None:
            idle += _early_session(early)
        for session in idle:
            session.close()


class Lane:
    """Cases graded in order by one sandboxed child (see :class:`ExercisePlan`).

    Calls start as soon as the child has imported the module, even while the
    calibration is still being measured: such a call runs under the smallest
    limit it could have, ``min_seconds`` (every limit is at least that), and
    its reply gets its true limit once the unit is known, before it is
    judged.  A call that finishes under the smaller limit finishes the same
    under the true one.  If one times out, the lane is graded again from the
    start, in a fresh sandbox under the true limits, and the first attempt
    is discarded: exactly what grading after the calibration would have done.
    """

    def __init__(self, plan, cases, part=None, last=False):
        self.plan, self.cases = plan, cases
        self.part = part
        """Which of the exercise's main lanes this is (0: the first, which reports the
        import), or None for a lane of its own (``time_limit.own_worker``)."""
        self.last = last
        """Whether the lane is handed out after every other lane (``time_limit.hidden_last``:
        a main lane of hidden and drawn cases only)."""

    @property
    def main(self):
        """Whether this is the exercise's first main lane: the one that reports the import."""
        return self.part == 0

    @property
    def kind(self):
        """``(public, hidden)``: whether the lane holds a public case (its sandbox must not
        have run a hidden one before it), and a hidden or drawn one."""
        return (any(not case.hidden for _, case, _ in self.cases),
                any(case.hidden for _, case, _ in self.cases))

    def run(self, run, submission_dir, started=None):
        """This lane's :class:`LaneResult`; ``started()`` is called once its child is
        importing the module."""
        # A lane of its own holds a long case: called early, under the smallest limit,
        # it would only time out and start again; it waits for the unit instead (its
        # child starts and imports the module meanwhile).
        self.plan.sandboxes.begin(self.kind)
        try:
            if self.plan.hangs.passed_over(self):
                return LaneResult()     # judged as not run (ExercisePlan.result): no sandbox
            done = self._attempt(run, submission_dir, self.main, started)
            if done is None:       # a call timed out under its smaller, early limit
                done = self._attempt(run, submission_dir, False, started)
        finally:
            self.plan.sandboxes.end()
        return done

    def budget_units(self):
        """The most CPU its calls may take, in calibration units (the sum of their
        limits' factors): what orders the lanes of their own, longest first."""
        settings, caps = self.plan.settings, self.plan.caps
        return sum(min(settings.factor(r.limit_key), caps.get(r.limit_key, float('inf')))
                   * max(1, r.runs)
                   for _, _, requests in self.cases for r in requests)

    def not_run(self, run, after=-1):
        """``[(case index, outcomes)]`` of this lane's cases judged as not run (see
        :class:`Hangs`): every one of a lane of its own, a main lane's after position
        ``after`` of the main order."""
        settings, plugin = self.plan.settings, self.plan.plugin
        position = self.plan.hangs.position
        judged = []
        for index, case, requests in self.cases:
            if self.part is not None and position[index] <= after:
                continue
            replies = [Hangs.reply() for _ in requests]
            for reply, request in zip(replies, requests):
                reply.limit = self.plan.limit(request, run.unit)
            judged.append((index, judged_case(plugin, case, replies, settings)))
        return judged

    def _attempt(self, run, submission_dir, early, started=None):
        """A :class:`LaneResult`, or None when ``early`` and an early call timed out."""
        plan, settings, plugin = self.plan, self.plan.settings, self.plan.plugin
        done = LaneResult()
        budget = _runner_budget(settings, sum(len(rs) for _, _, rs in self.cases))
        answered = Answered(plan)
        unit = run.unit_if_measured() if early else run.unit
        import_limit = settings.import_limit(unit) if unit is not None else settings.min_seconds
        ready = plan.sandboxes.take_early() if self.main else None
        public, hidden = self.kind
        kept = plan.sandboxes.take(public) if ready is None else None
        session = ready.session if ready is not None else kept[0] if kept else None
        taken = session is not None      # a sandbox an earlier lane of the exercise left
        # whether the sandbox has run a hidden or drawn case once this lane is done
        hidden_seen = hidden or bool(kept and kept[1])
        if taken and ready is None:   # (were its runner to end, it starts again under
            session.load_seconds = import_limit     # this lane's limit)
        elif not taken:
            session = Session(submission_dir, plan.relpath, plugin.probe,
                              options=plugin.child_options(settings), isolation=run.isolation,
                              settings=run.policy.sandbox, load_seconds=import_limit,
                              cpu_seconds=int(budget + 60), prepare=plugin.prepare(settings))
        left = False        # whether the sandbox was left to a later lane (else it stops here)
        try:
            with plan.hangs.watching(self, session):
                left = self._grade_cases(run, session, done, answered, early, started, taken,
                                         ready, hidden_seen)
        finally:
            if not left:
                session.close()
        if left is None:
            return None     # stopped under the smaller, early limit: again with the true one
        done.outcomes = answered.judged(run.unit)
        return done

    def _grade_cases(self, run, session, done, answered, early, started, taken, ready=None,
                     hidden_seen=True):
        """Load the module in ``session`` (unless ``taken``: loaded by an earlier lane, or by
        the schedule for this lane, ``ready``) and make this lane's calls, noting their
        replies in ``answered``.  Returns whether the session is left to a later lane (as one
        that ran a hidden case, ``hidden_seen``), or None when the import or a call was
        stopped under the smaller, early limit."""
        plan, settings, plugin = self.plan, self.plan.settings, self.plan.plugin
        unit = run.unit_if_measured() if early else run.unit
        starts, written = session.starts, session.output_mark()
        if ready is not None:   # loaded for this lane while the exercise was planned
            loaded, written = session.loaded, ready.written
            if _import_stopped(loaded) and settings.import_limit(run.unit) > ready.limit:
                return None     # under a smaller limit than its own: again under the true one
        elif taken:
            loaded = session.loaded
        else:
            loaded = session.start(meanwhile=_while_loading(plugin, started))
            starts += 1
            if unit is None and _import_stopped(loaded) and \
                    settings.import_limit(run.unit) > settings.min_seconds:
                return None
        done.import_seconds = session.import_seconds
        self._note_load(done, loaded)
        # The main lane reports a failed import once, for the whole exercise.
        cases = [] if self.main and done.problem else self.cases
        public_output = None    # the output mark when the lane's first hidden case began
        for index, case, case_requests in cases:
            registry.check()    # interrupted: no further case
            if case.hidden and public_output is None:
                public_output = session.output_mark()
            replies = self._case_replies(run, session, done, case, case_requests, early,
                                         not_run=plan.hangs.skips(self, index),
                                         answered=answered)
            if replies is None:
                return None     # the true limit is larger: again under it
            plan.hangs.note(self, index, replies)
            answered.add(index, case, replies, case_requests)
        done.stopped_early = self.part is not None and plan.hangs.stopped.is_set()
        done.output = session.output(since=written, until=public_output)
        done.restarts = session.starts - starts
        if loaded.ok and not done.stopped_early and plan.sandboxes.keep(session, hidden_seen):
            return True
        session.request_exit()     # the child exits while the parent judges
        return False

    def _case_replies(self, run, session, done, case, case_requests, early, not_run,
                      answered=None):
        """The replies to one case's requests (a request not needed, or not run after the
        lane stopped, gets a reply saying so), or None when a call was stopped under the
        smaller, early limit.  The public cases' times are added to ``done``."""
        validator = self.plan.plugin.observation_validator
        replies = []
        for request in case_requests:
            if done.problem:
                reply = Reply(status='error', error=done.problem)
            elif not_run:
                reply = Hangs.reply()
            elif request.needed is not None and not request.needed(replies):
                reply = Reply(status='error', kind='not run', error='not needed')
            else:
                reply = self._call(run, session, request, early, answered)
                if reply is None:
                    return None
            if reply.ok and not validator.is_valid(reply.observation):
                reply = Reply(status='invalid', wall=reply.wall, limit=reply.limit,
                              error='the probe reply did not have the expected shape '
                                    '(tampered measurement?)')
            if not case.hidden:     # a hidden case's time could tell what its input was
                done.elapsed += reply.cpu
                done.wall += reply.wall
            replies.append(reply)
        return replies

    def _note_load(self, done, loaded):
        """The load's problem, and on the main lane its warnings and load outcomes, in
        ``done``."""
        plugin, settings = self.plan.plugin, self.plan.settings
        done.problem = load_problem(plugin, settings, self.plan.relpath, loaded)
        if loaded.ok and self.main:
            done.warnings = list(loaded.observation.get('warnings', []))
            done.warnings += missing_module_warnings(loaded.observation.get('missing', []))
            done.warnings += plugin.load_warnings(loaded, settings)
        if not done.problem and self.main:
            done.load_outcomes = plugin.load_outcomes(loaded, settings)

    def _call(self, run, session, request, early, answered=None):
        """The reply to one call, under the limit known now; None when it timed out under
        the smallest limit and its true limit is larger.  While the call runs, the cases
        ``answered`` before it are judged (:meth:`Answered.meanwhile`)."""
        plan = self.plan
        unit = run.unit_if_measured() if early else run.unit
        limit = plan.limit(request, unit) if unit is not None else plan.settings.min_seconds
        meanwhile = (lambda: answered.meanwhile(run)) if answered is not None else None
        # Judged again at each poll: the cases answered wait for the unit no longer than the
        # calibration takes (not until the next reply, a long call later).
        reply = session.call(request.payload, limit, meanwhile=meanwhile, polling=meanwhile)
        if unit is None and reply.status == 'timeout' and plan.limit(request, run.unit) > limit:
            return None
        return reply


class Answered:
    """A lane's answered cases, judged in order: while the lane's next call runs in its
    child, or at the end.

    A case is judged once the calibration unit is known (its replies' true
    limits, :meth:`ExercisePlan.limit`, and the self-check's cut-short
    marks come from it), by the same :func:`judged_case` whenever that is,
    so the outcomes do not depend on when: only the judging's CPU time
    overlaps the student's search in the sandbox instead of following the
    lane's last call.  A lane graded again under the true limits starts a
    new one.
    """

    def __init__(self, plan):
        self.plan = plan
        self.progress = plan.progress
        self._cases = []        # (case index, case, replies, requests)
        self._outcomes = []     # (case index, outcomes) of the first len() of _cases

    def add(self, index, case, replies, requests):
        self._cases.append((index, case, replies, requests))

    def meanwhile(self, run):
        """Judge the cases answered so far, if the unit is known already (never waits).
        Called again and again while a call runs: at once when nothing waits to be judged."""
        if len(self._outcomes) == len(self._cases):
            return
        unit = run.unit_if_measured()
        if unit is not None:
            self._judge(unit)

    def judged(self, unit):
        """``[(case index, outcomes)]`` of every answered case, in the order answered."""
        self._judge(unit)
        return list(self._outcomes)

    def _judge(self, unit):
        plan = self.plan
        for index, case, replies, requests in self._cases[len(self._outcomes):]:
            for reply, request in zip(replies, requests):
                reply.limit = plan.limit(request, unit)
                plan.cut_short(reply, request, unit)
            outcomes = judged_case(plan.plugin, case, replies, plan.settings)
            self._outcomes.append((index, outcomes))
            if self.progress:       # information checks (no points) aside
                self.progress.judged(plan.name, index, all(
                    o.passed for o in outcomes if plan.settings.points(o.check) > 0))


class EarlyStart:
    """A main lane's sandbox started, and the module loaded in it, while the schedule plans
    the exercise (the positions drawn for the submission answered by the reference).

    The session is the one the lane would start itself (the same probe, options and
    preparation, the import under the limit known then, as a lane's first attempt uses),
    and the lane grades in it from its first case: the verdicts are the same, only the
    sandbox's boot and the import overlap the planning.  ``written`` is the output mark
    from before the import, so the lane reports what the import printed.
    """

    def __init__(self, session, written, limit):
        self.session, self.written, self.limit = session, written, limit

    @classmethod
    def begin(cls, run, name, submission_dir, started=None):
        """Start exercise ``name``'s sandbox and load its module; None without its file."""
        plugin, settings = plugins.get(name), run.policy.exercises[name]
        relpath = plugin.locate(submission_dir, settings)
        if relpath is None:
            return None
        unit = run.unit_if_measured()
        import_limit = settings.import_limit(unit) if unit is not None else settings.min_seconds
        session = Session(submission_dir, relpath, plugin.probe,
                          options=plugin.child_options(settings), isolation=run.isolation,
                          settings=run.policy.sandbox, load_seconds=import_limit,
                          cpu_seconds=int(_runner_budget(settings, _requests_made(run, name))
                                          + 60),
                          prepare=plugin.prepare(settings))
        early = cls(session, session.output_mark(), import_limit)
        try:
            session.start(meanwhile=_while_loading(plugin, started))
        except BaseException:
            session.close()
            raise
        return early


def _early_session(future):
    """The session of an :class:`EarlyStart` future no lane took ([] or [session])."""
    try:
        early = future.result()
    except Exception:  # noqa: BLE001 - its failure was the lane's to report; none came
        return []
    return [early.session] if early is not None else []


def _runner_budget(settings, requests):
    """The runner's CPU rlimit for ``requests`` calls, less its minute of margin: a safety
    net under the per-call limits, every call at the largest factor with a unit of up to
    one second (far slower than any machine measured), so it never decides a verdict."""
    largest = max(settings.factors.values())
    return requests * max(settings.min_seconds, largest)


def _while_loading(plugin, started):
    """What the parent does while a lane's child imports the module: compile the
    plug-in's reply check (once), and call ``started`` (if given)."""
    def meanwhile():
        plugin.observation_validator.compile()
        if started:
            started()
    return meanwhile


def judged_case(plugin, case, replies, settings):
    """The plug-in's outcomes for one case; a judge that fails fails the case, not the run.

    A reply whose process reached into the grader is judged as a failed one
    (:func:`grader.judging.tallies.void_if_reached_in`).  Each outcome gets a kind: the
    judge's own, else the kind of the reply's failure, else ``wrong answer``.
    """
    try:
        replies = [tallies.void_if_reached_in(reply) for reply in replies]
        outcomes = list(plugin.judge(case, replies, settings))
    except Exception as exc:  # noqa: BLE001 - any reply, however odd, is graded
        why = f'the grader could not judge this reply ({type(exc).__name__})'
        return [base.Outcome(check, case.name, False, why, kind='invalid reply')
                for check in settings.checks]
    failed = next((r for r in replies if not r.ok), None)
    for outcome in outcomes:
        if not outcome.kind:
            outcome.kind = ('right' if outcome.passed else
                            base.failure_kind(failed) if failed is not None else 'wrong answer')
    return outcomes


def review(plugin, outcomes, settings, context):
    """The plug-in's judgement across cases (:meth:`Exercise.review`); never raises."""
    try:
        return plugin.review(outcomes, settings, context)
    except Exception as exc:  # noqa: BLE001 - the per-case outcomes stand
        return outcomes, {'review_error': f'{type(exc).__name__}: {exc}'[:200]}


def _import_stopped(loaded):
    """Whether the import was stopped by its CPU limit (a warning of the load, or a time-out)."""
    if loaded.status == 'timeout':
        return True
    return loaded.ok and any('s of CPU time when it was imported' in w
                             for w in loaded.observation.get('warnings', []))


def missing_module_warnings(missing):
    """One sentence per module the submission imports that the sandbox does not have."""
    sentences = []
    for entry in missing:
        name, line = entry.get('name'), entry.get('line')
        if not isinstance(name, str) or not isinstance(line, int):
            continue
        use = ('it is used, so the code that uses it fails' if entry.get('used') else
               'it is never used, so your code was graded with a stand-in in its place')
        sentences.append(f'`{name}` is not available where your code is graded (line {line}); '
                         f'remove the import. {use[0].upper()}{use[1:]}.')
    return sentences


def load_problem(plugin, settings, relpath, loaded):
    """Why nothing can be graded after the import, or None."""
    if not loaded.ok:
        if loaded.status == 'timeout':
            return f'{relpath} {loaded.error}'
        if loaded.kind == 'sandbox':
            if tally_words.NOT_LOADED in (loaded.error or ''):   # the grader's, never the student's
                raise instruments.MissingInstrument(
                    f'{tally_words.NOT_LOADED} (the extension this grader ships does not load '
                    f'there): nothing was graded; fix: {instruments.fix_command()}')
            return loaded.error
        return f'{relpath} could not be imported: {loaded.error}'
    observation = loaded.observation
    if observation.get('error'):
        return f'{relpath}: {observation["error"]}'
    return plugin.missing_entry(observation.get('probe', {}), relpath)
