"""A probe for checking the sandbox itself (tests, ``grader doctor``): child side.

``handle`` calls the module-level function named in the request with no
arguments and reports what it returned as plain data, or the exception the
runner turns into an ``error`` reply.
"""
from grader.child import values


def load(module, options, ctx):
    return {'defined': True}


def handle(module, payload, options, ctx):
    result = module.__dict__[payload['function']]()
    if isinstance(result, (list, tuple)):
        return {'value': [values.plain(item) for item in result]}
    return {'value': values.plain(result)}
