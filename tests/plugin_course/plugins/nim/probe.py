"""Nim probe: runs in a case process, next to the student module.

Request: ``{"stones": int, "most": int, "count": bool}``.
Observation: ``{"result": <plain value of Wins(stones, most)>, "calls": int | null}``,
``calls`` being the calls of the submission's recursive functions when ``count``.
"""
from grader.child import counting, values


def load(module, options, ctx):
    entry = options.get('entry', 'Wins')
    return {'entry': entry, 'defined': callable(module.__dict__.get(entry))}


def handle(module, payload, options, ctx):
    search = module.__dict__[options.get('entry', 'Wins')]
    stones, most = int(payload['stones']), int(payload['most'])
    if not payload.get('count'):
        return {'result': values.plain(search(stones, most)), 'calls': None}
    counter = counting.SearchCounter(ctx.submission_codes())
    with counter:
        result = search(stones, most)
    return {'result': values.plain(result), 'calls': counter.report()['search_calls']}
