"""The first exercises' main sandboxes start while the schedule plans them.

With more than one worker, the main lane of each of the first exercises (one
per worker) grades in a sandbox started, and its module loaded, while the
positions drawn for the submission are answered by the reference
(:class:`grader.engine.EarlyStart`).  The verdicts, the output the import
printed and the retry of an import stopped under the limit known early are
those of a lane that starts its own sandbox (``--jobs 1`` never starts early).
"""
from grader import engine
from gradertest import ROOT, fewer_cases, with_exercise
from test_early_calls import SlowCalibration


def checks(result):
    return [(c.name, c.score, c.cases_passed, c.message) for c in result.checks]


def early_starts(monkeypatch):
    """Record each early start made ({exercise: session}) and each one a lane took."""
    made, taken = {}, []
    begin, take = engine.EarlyStart.begin.__func__, engine.Sandboxes.take_early

    def beginning(cls, run, name, submission_dir, started=None):
        early = begin(cls, run, name, submission_dir, started)
        made[name] = early.session if early is not None else None
        return early

    def taking(self):
        early = take(self)
        if early is not None:
            taken.append(early.session)
        return early
    monkeypatch.setattr(engine.EarlyStart, 'begin', classmethod(beginning))
    monkeypatch.setattr(engine.Sandboxes, 'take_early', taking)
    return made, taken


def graded(policy, run, folder, jobs, calibration=None, only=None):
    lane_run = engine.Run(policy, calibration=calibration or dict(run.calibration),
                          isolation=run.isolation, jobs=jobs)
    return engine.grade_many(policy, folder, [engine.ALL], run=lane_run, only=only)


def test_the_first_main_lanes_grade_in_the_sandboxes_started_while_planning(
        policy, run, tmp_path, monkeypatch):
    folder = tmp_path / 'references'
    folder.mkdir()
    for name in ('tictactoe', 'connect4', 'eightpuzzle'):
        (folder / f'{name}.py').write_text((ROOT / 'reference' / f'{name}.py').read_text())
        policy = fewer_cases(policy, name, tmp_path / 'course')
    alone = graded(policy, run, folder, jobs=1)
    made, taken = early_starts(monkeypatch)
    early = graded(policy, run, folder, jobs=2)
    # one per worker, the exercises with the most requests first, each taken by its main lane
    assert len(made) == 2 and all(made.values()), made
    assert sorted(map(id, taken)) == sorted(map(id, made.values()))
    assert all(not session.alive() for session in taken)      # and stopped at the end
    for one, two in zip(alone, early):
        assert one.score == two.score == one.max_score
        for exercise in one.exercises:
            assert checks(exercise) == checks(two.exercise(exercise.name)), exercise.name
        assert {e.name: e.facts['child_starts'] for e in one.exercises} == \
            {e.name: e.facts['child_starts'] for e in two.exercises}


def test_what_the_import_printed_is_reported_as_without_an_early_start(policy, run, tmp_path,
                                                                      monkeypatch):
    folder = tmp_path / 'prints'
    folder.mkdir()
    source = (ROOT / 'reference' / 'tictactoe.py').read_text()
    # (written to the sandbox's own stdout, past the capture of print)
    (folder / 'tictactoe.py').write_text(
        source + '\nimport os as _os\n_os.write(1, b"loaded " * 40)\n')
    alone = graded(policy, run, folder, jobs=1, only=['tictactoe'])[0].exercise('tictactoe')
    made, taken = early_starts(monkeypatch)
    early = graded(policy, run, folder, jobs=2, only=['tictactoe'])[0].exercise('tictactoe')
    assert list(made) == ['tictactoe'] and taken
    assert alone.facts['direct_output_bytes'] == early.facts['direct_output_bytes'] > 40 * 7
    assert checks(alone) == checks(early)


def test_an_import_stopped_under_the_early_limit_is_loaded_again_under_the_true_one(
        policy, run, tmp_path, monkeypatch):
    """Started before the calibration is known, the import runs under min_seconds; one that
    needs more is stopped there, and the lane loads it again in a sandbox of its own under
    the import limit the unit gives, as a lane that starts its own sandbox does."""
    settings = policy.exercises['tictactoe']
    unit = run.unit
    slow = with_exercise(policy, 'tictactoe', min_seconds=0.15,
                         factors=dict(settings.factors, **{'import': 1.5 / unit}))
    assert slow.exercises['tictactoe'].import_limit(unit) >= 1.0
    folder = tmp_path / 'slow-import'
    folder.mkdir()
    source = (ROOT / 'reference' / 'tictactoe.py').read_text()
    # 0.4 s of CPU at the load (under its alarm), none when each case runs the module again
    spin = ('\nimport signal as _signal, time as _time\n'
            'if _signal.getitimer(_signal.ITIMER_PROF)[0] > 0:\n'
            '    _end = _time.process_time() + 0.4\n'
            '    while _time.process_time() < _end:\n        pass\n')
    (folder / 'tictactoe.py').write_text(source + spin)
    alone = graded(slow, run, folder, jobs=1, only=['tictactoe'])[0].exercise('tictactoe')
    made, taken = early_starts(monkeypatch)
    never = SlowCalibration(dict(run.calibration), 10 ** 6)     # early for every call
    early = graded(slow, run, folder, jobs=2, calibration=never,
                   only=['tictactoe'])[0].exercise('tictactoe')
    assert made['tictactoe'] is not None and taken
    assert engine._import_stopped(taken[0].loaded)     # stopped at min_seconds, early
    assert not alone.warnings and not early.warnings, (alone.warnings, early.warnings)
    assert checks(alone) == checks(early)
    assert early.score == early.max_score



def test_the_request_counts_the_schedule_orders_by_are_the_requests_made(policy):
    """What the schedule counts before any child starts (``request_count``, from the case
    alone) is what a lane then asks: fixture, drawn and derived cases of every exercise."""
    from grader import exercises, fixtures, generated
    for name, settings in policy.exercises.items():
        plugin = exercises.get(name)
        cases = fixtures.load_cases(plugin, settings)[0]
        cases += generated.draw(policy, name, generated.seed_for(policy.course, name, '0' * 64))
        cases += plugin.extra_cases(cases, settings)
        assert len(cases) > 10, name
        for case in cases:
            assert plugin.request_count(case, settings) == \
                len(plugin.requests(case, settings)), (name, case.name)
