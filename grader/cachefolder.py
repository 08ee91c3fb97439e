"""Where the grader keeps its cache: one function, imported by the cache (:mod:`grader.doccache`)
and by the sweep of what dead runs left (:mod:`grader.sandbox.leftovers`), so neither imports
the other for it."""
import os


def folder():
    """The cache folder, or ``''`` when caching is off: ``$GRADER_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/grader``, else ``~/.cache/grader`` (``GRADER_CACHE_DIR=``, empty, turns
    the cache off)."""
    if 'GRADER_CACHE_DIR' in os.environ:
        return os.environ['GRADER_CACHE_DIR']
    base = os.environ.get('XDG_CACHE_HOME', '')
    if not os.path.isabs(base):  # unset, or relative: ignored, as the XDG spec says
        base = os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'grader') if os.path.isabs(base) else ''
