"""Trusted eight-puzzle pieces: fixture file, distance table, oracle, reference A*, template.

Everything here runs in-process: it is instructor code (and the untouched
student template), not student submissions.
"""
import collections
import contextlib
import importlib.util
import io
import itertools
import json
import random
from pathlib import Path

import jsonschema
import pytest
import yaml

import puzzletally
from grader import fixtures
from grader.exercises.eightpuzzle import puzzle
from reference import eightpuzzle as reference
from reference.oracles import eightpuzzle as oracle
from reference.oracles import puzzle_table

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "eightpuzzle.yaml"
SCHEMA = ROOT / "grader" / "exercises" / "eightpuzzle" / "fixtures.schema.json"
SUBMISSIONS = ROOT / "tests" / "submissions" / "eightpuzzle"
CHECKS = {"validity", "optimality", "heuristic", "timeouts", "hard", "unsolvable"}


@pytest.fixture(scope="module")
def fixture_cases():
    return yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))["cases"]


def solve(state, solver=None):
    """(result, printed text) of Astar on ``state``."""
    solver = solver or reference.EightPuzzle()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = solver.Astar(list(state))
    return result, out.getvalue()


# --- fixture file ---------------------------------------------------------

def test_fixture_file_matches_its_schema():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(FIXTURE.read_text(encoding="utf-8")))


def test_schema_rejects_a_state_with_a_repeated_tile():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    document = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    document["cases"][0]["input"]["state"] = [1, 1, 3, 4, 5, 6, 7, 8, 0]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_the_oracle_writes_the_fixture_file_byte_for_byte(tmp_path):
    path = tmp_path / "eightpuzzle.yaml"
    oracle.write(path)
    assert path.read_bytes() == FIXTURE.read_bytes()


def test_grader_regeneration_leaves_the_fixture_file_unchanged(policy, tmp_path):
    path = tmp_path / "eightpuzzle.yaml"
    path.write_bytes(FIXTURE.read_bytes())
    assert fixtures.regenerate(policy, "eightpuzzle", paths=[path]) == {path: 19}
    assert path.read_bytes() == FIXTURE.read_bytes()


def test_case_names_are_unique_and_groups_are_present(fixture_cases):
    names = [case["name"] for case in fixture_cases]
    assert len(names) == len(set(names))
    tags = collections.Counter(tag for case in fixture_cases for tag in case["tags"])
    assert all(tags[tag] >= 2 for tag in ("required", "hard", "heuristic", "unsolvable"))
    lengths = {case["expected"]["optimal_length"] for case in fixture_cases}
    assert {0, 1, 2, 5, 10, 15, 20, 25, 28, 29, 30, 31} <= lengths


# --- distance table -------------------------------------------------------

def independent_distance(start):
    """Moves from ``start`` to the goal by a plain breadth-first search over strings."""
    goal = "123456780"
    neighbours = {0: (1, 3), 1: (0, 2, 4), 2: (1, 5), 3: (0, 4, 6), 4: (1, 3, 5, 7),
                  5: (2, 4, 8), 6: (3, 7), 7: (4, 6, 8), 8: (5, 7)}
    start = "".join(map(str, start))
    seen = {start: 0}
    queue = collections.deque([start])
    while queue:
        state = queue.popleft()
        if state == goal:
            return seen[state]
        blank = state.index("0")
        for other in neighbours[blank]:
            tiles = list(state)
            tiles[blank], tiles[other] = tiles[other], tiles[blank]
            following = "".join(tiles)
            if following not in seen:
                seen[following] = seen[state] + 1
                queue.append(following)
    return None


def test_table_holds_every_solvable_state_with_the_known_extremes():
    layers = puzzle_table.layers()
    assert len(puzzle_table.distances()) == 181440
    assert sum(len(layer) for layer in layers) == 181440
    assert len(layers) - 1 == 31 and len(layers[31]) == 2  # the 8-puzzle's diameter is 31


def test_table_agrees_with_an_independent_search_on_a_sample():
    rng = random.Random(2024)
    sample = rng.sample(sorted(puzzle_table.distances()), 8) + puzzle_table.layers()[31]
    sample.append(tuple(rng.sample(range(9), 9)))  # may be unsolvable
    for state in sample:
        assert puzzle_table.distance(state) == independent_distance(state), state


def test_parity_test_agrees_with_the_table_on_all_permutations():
    table = puzzle_table.distances()
    for state in itertools.permutations(range(9)):
        assert puzzle.is_solvable(state) == (state in table), state


def test_heuristics_never_overestimate_and_the_handouts_manhattan_is_weaker():
    weaker = 0
    for state, distance in puzzle_table.distances().items():
        assert puzzle.hamming(state) <= distance
        assert puzzle.handout_manhattan(state) <= puzzle.manhattan(state) <= distance
        weaker += puzzle.handout_manhattan(state) < puzzle.manhattan(state)
    assert weaker > 0


# --- oracle ---------------------------------------------------------------

def blind_expansions(state, goal_test_on_generation):
    """Expansions of a breadth-first search (all moves cost 1, so also uniform-cost)."""
    start = tuple(state)
    if start == puzzle.GOAL:
        return 0
    seen = {start}
    queue = collections.deque([start])
    expansions = 0
    while queue:
        current = queue.popleft()
        if not goal_test_on_generation and current == puzzle.GOAL:
            return expansions
        expansions += 1
        for neighbor in puzzle.successors(current):
            if goal_test_on_generation and neighbor == puzzle.GOAL:
                return expansions
            if neighbor not in seen:
                seen.add(neighbor)
                queue.append(neighbor)
    return expansions


def test_blind_search_expansions_are_lower_bounds(fixture_cases):
    for case in fixture_cases:
        expected = case["expected"]
        if expected["solvable"] and expected["optimal_length"] <= 22:
            state = case["input"]["state"]
            assert blind_expansions(state, False) >= expected["ucs_expansions"], case["name"]
            assert blind_expansions(state, True) >= expected["bfs_expansions"], case["name"]


def test_the_expectation_of_a_case_follows_from_the_table():
    state = [1, 2, 3, 4, 5, 6, 0, 7, 8]
    expected = oracle.expect({"state": state}, {})
    assert expected["optimal_length"] == 2 and expected["solvable"]
    assert (expected["hamming"], expected["manhattan"], expected["handout_manhattan"]) == (2, 2, 2)
    assert expected["ucs_expansions"] == 1 + 2  # the states 0 and 1 moves from the goal
    unsolvable = oracle.expect({"state": [2, 1, 3, 4, 5, 6, 7, 8, 0]}, {})
    assert unsolvable["optimal_length"] is None and unsolvable["ucs_expansions"] == 181440


def test_heuristic_cases_separate_informed_from_blind_search(fixture_cases):
    for case in fixture_cases:
        expected = case["expected"]
        if "heuristic" in case["tags"]:
            assert "required" in case["tags"], case["name"]
            assert expected["astar_expansions"]["hamming"] < 0.3 * expected["bfs_expansions"], \
                case["name"]
            assert expected["ucs_expansions"] >= expected["bfs_expansions"], case["name"]


def test_groups_follow_the_optimal_length(fixture_cases):
    for case in fixture_cases:
        length = case["expected"]["optimal_length"]
        if length is None:
            assert case["tags"] == ["unsolvable"], case["name"]
        else:
            group = "required" if length <= oracle.REQUIRED_MAX_LENGTH else "hard"
            assert group in case["tags"], case["name"]


# --- reference solution ---------------------------------------------------

def test_reference_astar_returns_optimal_valid_paths(fixture_cases):
    for case in fixture_cases:
        state, expected = case["input"]["state"], case["expected"]
        path, printed = solve(state)
        if not expected["solvable"]:
            assert path is None, case["name"]
            continue
        assert path[0] == state and tuple(path[-1]) == puzzle.GOAL, case["name"]
        assert all(puzzle.is_single_slide(a, b) for a, b in zip(path, path[1:])), case["name"]
        assert len(path) - 1 == expected["optimal_length"], case["name"]
        assert "Used total {} moves".format(expected["optimal_length"]) in printed


def test_the_oracles_a_star_expands_as_the_reference_does(fixture_cases):
    """The oracle answers drawn starts with its own copy of the reference A* (tuples, the
    heuristic updated slide by slide): the same path length and the same expansions as the
    reference itself, with either heuristic, on every fixture start and on drawn ones."""
    rng = random.Random(2026)
    drawn = [tuple(case["input"]["state"]) for case in oracle.generate(rng, 26)]
    starts = [tuple(case["input"]["state"]) for case in fixture_cases
              if case["expected"]["solvable"] and case["expected"]["optimal_length"] <= 24]
    odd = (1, 2, 3, 4, 5, 6, 8, 7, 0)
    assert len(drawn) == 26 and starts
    for state in drawn + starts:
        for name in ("hamming", "manhattan"):
            path, expansions = oracle.reference_expansions(state, getattr(puzzle, name))
            assert oracle.counted_astar(state, name) == (len(path) - 1, expansions), (state, name)
    assert oracle.reference_expansions(odd, puzzle.manhattan) == (None, 0)
    assert oracle.counted_astar(odd, "manhattan") == (None, 0)


def test_reference_solves_a_handout_style_game():
    game = reference.EightPuzzle()
    random.seed(7)
    start = game.InitialState(50)
    path, _ = solve(start, game)
    assert len(path) - 1 == puzzle_table.distance(start)


# --- template -------------------------------------------------------------

def load(path):
    spec = importlib.util.spec_from_file_location("eightpuzzle_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_template_has_the_handout_api_a_true_manhattan_and_a_returning_reconstruct_path():
    module = load(ROOT / "student_template" / "eightpuzzle.py")
    game = module.EightPuzzle()
    rng = random.Random(5)
    for state in rng.sample(sorted(puzzle_table.distances()), 200):
        assert game.Manhattan(list(state)) == puzzle.manhattan(state)
        assert game.Hamming(list(state)) == puzzle.hamming(state)
        assert (sorted(map(tuple, game.FindNextStates(list(state))))
                == sorted(puzzle.successors(state)))
    start, middle, goal = [1, 2, 3, 4, 5, 6, 0, 7, 8], [1, 2, 3, 4, 5, 6, 7, 0, 8], game.targetstate
    camefrom = {game.ListToString(middle): start, game.ListToString(goal): middle}
    with contextlib.redirect_stdout(io.StringIO()):
        assert game.ReconstructPath(camefrom, goal) == [start, middle, goal]
    assert solve(start, game)[0] is None


# --- example submissions --------------------------------------------------

def test_every_example_submission_has_a_verdict_naming_known_checks():
    verdicts = yaml.safe_load((SUBMISSIONS / "verdicts.yaml").read_text(encoding="utf-8"))
    files = ({path.name for path in SUBMISSIONS.glob("*.py")}
             | {"../../../student_template/eightpuzzle.py"})
    assert set(verdicts) == files
    for name, verdict in verdicts.items():
        assert verdict["description"] and set(verdict["fails"]) <= CHECKS, name


def test_the_student_template_is_graded():
    verdicts = yaml.safe_load((SUBMISSIONS / "verdicts.yaml").read_text())
    name = "../../../student_template/eightpuzzle.py"
    assert name in verdicts and verdicts[name]["score"] == 0
    assert (SUBMISSIONS / name).resolve() == ROOT / "student_template" / "eightpuzzle.py"


# --- helpers --------------------------------------------------------------

def test_render_draws_the_blank_as_a_dot():
    assert puzzle.render([1, 2, 3, 4, 0, 6, 7, 5, 8]) == "1 2 3\n4 . 6\n7 5 8"
    side_by_side = puzzle.render_side_by_side([puzzle.GOAL, puzzle.GOAL], ["start", "goal"])
    assert side_by_side.splitlines()[1] == "1 2 3   1 2 3"


def test_moves_follow_the_handout_offsets():
    assert puzzle.legal_moves(0) == [1, 3] and puzzle.legal_moves(4) == [1, -1, 3, -3]
    assert puzzle.apply_move(puzzle.GOAL, -1) == (1, 2, 3, 4, 5, 6, 7, 0, 8)
    with pytest.raises(ValueError):
        puzzle.apply_move(puzzle.GOAL, 1)
    assert not puzzle.is_single_slide(puzzle.GOAL, puzzle.GOAL)
    assert not puzzle.is_state([1, 2, 3]) and not puzzle.is_state([0, 1, 2, 3, 4, 5, 6, 7, 7])


# --- reading a printed path -------------------------------------------------

def test_printed_states_reads_the_handouts_print_state_and_other_layouts():
    text = ("The path of solution:\n123\n456\n708\n\n123\n456\n780\n\nUsed total 1 moves\n"
            "[1, 2, 3, 4, 5, 6, 7, 8, 0]\n1 2 3\n4 5 6\n7 8 _\n")
    goal = puzzle.GOAL
    assert puzzle.printed_states(text) == [(1, 2, 3, 4, 5, 6, 7, 0, 8), goal, goal, goal]
    assert puzzle.printed_states("f = 12, g = 3\n") == []


def test_printed_path_skips_debugging_output_before_the_path():
    start = (1, 2, 3, 4, 5, 6, 0, 7, 8)
    middle = (1, 2, 3, 4, 5, 6, 7, 0, 8)
    grids = [puzzle.render(s, blank="0").replace(" ", "")
             for s in (start, middle, start, middle, puzzle.GOAL)]
    text = "expanding\n" + "\n\n".join(grids) + "\nUsed total 2 moves\n"
    assert puzzle.printed_path(text, start) == [start, middle, puzzle.GOAL]
    assert puzzle.printed_path("nothing here", start) is None


# --- judge and probe pieces (synthetic observations, no sandbox) -------------

def observation(states=None, kind="path", rebuilt=None, printed=""):
    states = states or []
    return {"returned": {"kind": kind, "type": "list", "length": len(states), "states": states},
            "reconstructed": rebuilt, "printed": printed}


def judged(case_name, obs, policy, status="ok", counted=None):
    from grader import fixtures as fixture_files
    from grader.exercises.eightpuzzle import judge
    from grader.sandbox.session import Reply
    settings = policy.exercises["eightpuzzle"]
    cases, _, _ = fixture_files.load_cases(judge.EXERCISE, settings)
    case = next(c for c in cases if c.name == case_name)
    if status == "ok":
        assert judge.EXERCISE.observation_validator.is_valid(obs)
    reply = Reply(status=status, observation=obs, wall=0.1, limit=3.0,
                  error="timed out after 3.00 s of CPU time" if status == "timeout" else "",
                  tally=puzzletally.tally(20) if counted is None else counted)
    replies = [Reply(status="ok", observation=observation(
        [[1, 2, 3, 4, 5, 6, 7, 0, 8], list(puzzle.GOAL)]), limit=3.0), reply] \
        if "unsolvable" in case.tags else [reply]
    return {o.check: o for o in judge.EXERCISE.judge(case, replies, settings)}


def test_judge_draws_the_first_step_that_is_not_a_slide(policy):
    jump = [[1, 2, 0, 4, 5, 3, 7, 8, 6], list(puzzle.GOAL)]  # two slides in one step
    outcomes = judged("length-02", observation(jump), policy)
    validity = outcomes["validity"]
    assert not validity.passed and "step 1" in validity.message
    drawing = puzzle.render_side_by_side([tuple(jump[0]), puzzle.GOAL], ["state 0", "state 1"])
    assert drawing in validity.feedback
    assert not outcomes["optimality"].passed and not outcomes["timeouts"].passed


def test_judge_reads_camefrom_then_printed_output(policy):
    path = [[1, 2, 0, 4, 5, 3, 7, 8, 6], [1, 2, 3, 4, 5, 0, 7, 8, 6], list(puzzle.GOAL)]
    rebuilt = judged("length-02", observation(kind="none", rebuilt={"states": path, "calls": 1}),
                     policy)
    assert rebuilt["validity"].passed
    assert rebuilt["validity"].measured["convention"] == "reconstruct_path"
    text = "\n\n".join(puzzle.render(s, blank="0").replace(" ", "") for s in path)
    printed = judged("length-02", observation(kind="none", printed=text), policy)
    assert printed["optimality"].passed and printed["validity"].measured["convention"] == "printed"


def test_judge_does_not_trust_a_tally_the_counter_flagged(policy):
    from reference.oracles import puzzle_table as table
    start = next(case for case in yaml.safe_load(FIXTURE.read_text())["cases"]
                 if case["name"] == "length-10")
    state = tuple(start["input"]["state"])
    path = [state]
    while path[-1] != puzzle.GOAL:
        path.append(min(puzzle.successors(path[-1]), key=lambda s: table.distance(s)))
    good = judged("length-10", observation([list(s) for s in path]), policy)
    assert good["heuristic"].passed and good["optimality"].passed
    hooked = puzzletally.tally(20, flags=1)          # sys.setprofile tried during the search
    bad = judged("length-10", observation([list(s) for s in path]), policy, counted=hooked)
    assert not bad["heuristic"].passed and "profile or trace" in bad["heuristic"].message
    outside = puzzletally.tally(20, process_flags=2048)   # code ran outside the search
    bad = judged("length-10", observation([list(s) for s in path]), policy, counted=outside)
    assert not bad["heuristic"].passed and "outside the search" in bad["heuristic"].message
    unread = judged("length-10", observation([list(s) for s in path]), policy, counted={})
    assert not unread["heuristic"].passed and "could not read" in unread["heuristic"].message
    assert unread["optimality"].passed          # the answer stands without its counts


def test_unsolvable_timeout_says_a_slow_search_looks_like_an_endless_one(policy):
    outcome = judged("unsolvable-swapped-7-8", {}, policy, status="timeout")["unsolvable"]
    assert not outcome.passed
    assert "181,440" in outcome.message and "hours" in outcome.message
    assert "not show a bug" in outcome.message


def test_probe_rebuilds_the_path_from_camefrom_keyed_by_strings():
    from grader.exercises.eightpuzzle import probe
    start, middle = [1, 2, 3, 4, 5, 6, 0, 7, 8], [1, 2, 3, 4, 5, 6, 7, 0, 8]
    goal = list(puzzle.GOAL)
    camefrom = {"123456708": start, "123456780": middle}
    assert probe.rebuild(camefrom, goal, lambda s: "".join(map(str, s))) == [start, middle, goal]
    looping = {"123456708": goal, "123456780": middle}
    assert len(probe.rebuild(looping, goal, lambda s: None)) <= 4
