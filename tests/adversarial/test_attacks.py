"""Submissions that attack the grader, graded through the real engine.

Every case in ``submissions/`` is a tic-tac-toe file whose game logic is
otherwise correct.  For each, the test asserts the exact outcome: the grader
finishes; the assignment's other exercises still get the score their
reference gets; the check that fails (or the warning) names the problem; and
no process, file, cgroup or private folder is left behind.

A case that would be dangerous without a layer is skipped, with the reason,
when that layer is missing here.  Cases about process creation, signals, the
network and files outside the sandbox also run with the audit hook switched
off, to show that the kernel layers hold by themselves.
"""
import pytest

from grader.sandbox import layers


def needs(run, *any_of):
    """Skip unless at least one of the layers ``any_of`` is in force."""
    if not any(run.isolation.has(layer) for layer in any_of):
        pytest.skip(f'needs one of the layers {", ".join(any_of)}: '
                    f'{"; ".join(run.isolation.missing) or "unavailable"}')


def full_marks(outcome):
    lost = {c.name: c.message for c in outcome.result.checks
            if c.max_score > 0 and c.score < c.max_score}
    assert outcome.result.score == outcome.result.max_score and not lost, lost


def all_checks_say(outcome, text):
    for check in outcome.result.checks:
        assert not check.passed and text in check.message, (check.name, check.message)
    assert outcome.result.score == 0


def warned(outcome, *texts):
    assert any(all(t in w for t in texts) for w in outcome.result.warnings), \
        outcome.result.warnings


@pytest.fixture
def attack(graded, baseline):
    """Grade a case and assert what holds for every attack."""
    def grade(case, isolation=None):
        outcome = graded(case, isolation)
        assert not outcome.leaks, outcome.leaks
        for name, result in outcome.others.items():
            assert result.score == baseline[name], (name, result.error, result.checks)
        assert outcome.seconds < 60
        return outcome
    return grade


def test_sys_exit_at_import(attack):
    outcome = attack('exit_at_import')
    all_checks_say(outcome, 'does not define Minimax')
    warned(outcome, 'sys.exit()')


def test_os_exit_in_search(attack):
    outcome = attack('os_exit_in_search')
    all_checks_say(outcome, 'exited with status 0 during the call (os._exit')


def test_forged_output_is_only_output(attack, policy):
    outcome = attack('forged_output')
    full_marks(outcome)   # the forged wrong answers (value 7, move 9) were not read
    assert outcome.check('pruning').passed
    assert outcome.result.facts['direct_output_bytes'] <= 2 * policy.sandbox.output_kb * 1024


def test_hidden_tests_and_reference_are_out_of_reach(attack, run):
    needs(run, 'namespaces')
    full_marks(attack('read_hidden_tests'))   # it answers 7 when it finds anything


def test_counter_tampering_is_detected(attack):
    outcome = attack('tamper_counters')
    pruning = outcome.check('pruning')
    assert not pruning.passed and 'measurement tampered' in pruning.message, pruning.message
    assert outcome.result.facts['tampered'] is True
    assert outcome.check('values').passed


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_fork_flood(attack, run, audit_hook):
    needs(run, 'seccomp', 'cgroup', 'namespaces')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    outcome = attack('fork_flood', isolation)
    full_marks(outcome)
    if run.isolation.has('seccomp') or audit_hook:
        warned(outcome, 'PermissionError')


def test_huge_allocation(attack, run):
    needs(run, 'rlimits')
    all_checks_say(attack('huge_allocation'), 'ran out of memory')


def test_endless_import_that_swallows_the_time_limit(attack):
    outcome = attack('import_loop')
    all_checks_say(outcome, 'did not finish importing within')
    # Stopped from outside at the import limit (1 s here) and a half: CPU time, which
    # load from other processes does not lengthen.
    assert outcome.result.facts['import_seconds'] < 3


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_network_is_unreachable(attack, run, audit_hook):
    needs(run, 'namespaces', 'seccomp')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    outcome = attack('network', isolation)
    assert not outcome.connected
    full_marks(outcome)
    warned(outcome, 'when it is imported')


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_writes_outside_the_sandbox_change_nothing(attack, run, audit_hook):
    needs(run, 'namespaces')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    full_marks(attack('write_outside', isolation))


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_killing_the_parent(attack, run, audit_hook):
    needs(run, 'uid-drop', 'seccomp', 'namespaces')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    outcome = attack('kill_parent', isolation)   # this test still runs: the grader survived
    full_marks(outcome)
    if audit_hook or isolation.has('seccomp'):
        warned(outcome, 'PermissionError')


def test_always_equal_objects(attack):
    outcome = attack('always_equal')
    values = outcome.check('values')
    assert not values.passed and 'returned a Always as bestvalue' in values.message
    assert outcome.result.score == 0


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_double_forked_daemon(attack, run, audit_hook):
    needs(run, 'cgroup', 'namespaces', 'seccomp')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    full_marks(attack('daemon', isolation))   # and no file appeared later (leak check)


def test_huge_output(attack, policy):
    outcome = attack('huge_output')
    full_marks(outcome)
    assert outcome.result.facts['direct_output_bytes'] <= 2 * policy.sandbox.output_kb * 1024


def test_input_at_import(attack):
    outcome = attack('input_at_import')
    full_marks(outcome)
    warned(outcome, 'input()')


def test_endless_recursion_with_a_raised_limit(attack, run):
    needs(run, 'rlimits')
    outcome = attack('deep_recursion')
    # A crash of the C stack up to Python 3.11; Python 3.12 and later stop the
    # recursion with RecursionError first. Either way every check fails, saying why.
    for check in outcome.result.checks:
        assert not check.passed and ('SIGSEGV' in check.message or
                                     'recursion limit' in check.message), check.message
    assert outcome.result.score == 0


def test_detecting_the_grader(attack, run):
    needs(run, 'namespaces')
    full_marks(attack('detect_grading'))   # it plays the wrong side when it sees a sign


@pytest.mark.parametrize('audit_hook', [True, False], ids=['all-layers', 'kernel-layers'])
def test_a_case_finds_nothing_an_earlier_case_left(attack, run, audit_hook):
    """Every case leaves a trace wherever it can (files in /tmp, the home folder, the
    project and /dev/shm, its own file changed in place with its size and times put back,
    System V and POSIX IPC objects, an abstract socket) and answers wrong when it finds an
    earlier one: full marks, so no case found any."""
    needs(run, 'namespaces', 'seccomp')
    isolation = run.isolation if audit_hook else layers.weaker(run.isolation, ['audit-hook'])
    full_marks(attack('leave_traces', isolation))


def test_traces_are_found_where_the_runner_does_not_empty_a_folder(attack, run, monkeypatch):
    """The submission above finds an earlier case's trace (and answers 7) in /tmp when the
    runner is not told to empty it: the test above can fail.  (Its IPC objects cannot be
    made at all: the seccomp filter refuses them, and ctypes is refused in every case
    process, the audit hook on or off.)"""
    from grader.sandbox import launch
    needs(run, 'namespaces', 'seccomp')
    plan = launch.plan

    def keeping_tmp(*args, **kwargs):
        made = plan(*args, **kwargs)
        made.paths['scratch'] = [p for p in made.paths['scratch'] if 'tmp' not in p]
        return made
    monkeypatch.setattr(launch, 'plan', keeping_tmp)
    values = attack('leave_traces').check('values')
    assert not values.passed and 'value +7' in values.message, values.message
