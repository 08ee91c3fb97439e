"""How many times a probe runs one search: ``grader.child.runs.runs``'s budget."""
from grader.child.runs import clock, runs


def test_without_a_budget_every_rep_runs_after_those_already_done():
    assert list(runs({'reps': 4})) == [0, 1, 2, 3]
    assert list(runs({'reps': 4}, done=1)) == [1, 2, 3]
    assert list(runs({})) == [0]
    assert list(runs({'reps': 1}, done=1)) == []


def test_a_spent_budget_leaves_the_least_runs_and_an_unspent_one_the_most():
    spent = clock() - 10.0
    assert list(runs({'reps': 9, 'at_least': 2, 'work': 0.5}, began=spent)) == [0, 1]
    assert list(runs({'reps': 9, 'at_least': 2, 'work': 0.5}, began=spent, done=1)) == [1]
    assert list(runs({'reps': 9, 'at_least': 1, 'work': 0.5}, began=spent, done=1)) == []
    assert list(runs({'reps': 5, 'at_least': 1, 'work': 60.0}, done=1)) == [1, 2, 3, 4]
    assert list(runs({'reps': 5, 'at_least': 9, 'work': 0.0})) == [0, 1, 2, 3, 4]


def test_the_budget_counts_from_where_the_caller_says_the_search_began():
    """Time spent before ``began`` (building what the search needs) is not in the budget."""
    payload = {'reps': 4, 'at_least': 1, 'work': 0.05}
    before = clock()
    while clock() - before < 0.08:      # longer than the whole budget
        pass
    assert list(runs(payload, began=clock(), done=1)) == [1, 2, 3]
    assert list(runs(payload, began=before, done=1)) == []
