"""Nim probe: runs in a case process, next to the student module.

Request: ``{"stones": int, "most": int, "count": bool}``.
Observation: ``{"result": <plain value of Wins(stones, most)>, "calls": null}``.  With
``count`` the search runs through the counter's trampoline: the calls of the submission's
recursive functions are read by the runner from outside (``Reply.tally``), not reported here.
"""
from grader.child import tally, values


def load(module, options, ctx):
    entry = options.get('entry', 'Wins')
    return {'entry': entry, 'defined': callable(module.__dict__.get(entry))}


def handle(module, payload, options, ctx):
    search = module.__dict__[options.get('entry', 'Wins')]
    stones, most = int(payload['stones']), int(payload['most'])
    if not payload.get('count'):
        return {'result': values.plain(search(stones, most)), 'calls': None}
    return {'result': values.plain(tally.search(search, stones, most)), 'calls': None}
