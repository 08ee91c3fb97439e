"""The compiled part of the package: the search counter of a case process (grader/child/_tally.c).

Everything else is in pyproject.toml.  The extension is required: an official grade
refuses to run without it (grader/instruments.py).  Where it cannot be built (no C compiler,
no Python headers) the install fails with one message saying what to install, and never
installs a grader without its counter.  A wheel (``make wheels``) carries it built.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HOW = ("install a C compiler and the headers of this Python (Debian/Ubuntu: apt-get install "
       "gcc python3-dev; Fedora/Amazon Linux: dnf install gcc python3-devel), or install a "
       "wheel of search-grader built by `make wheels`")


class build_counter(build_ext):
    """build_ext that fails in one clear message: the grader is useless without its counter."""

    def run(self):
        try:
            super().run()
        except Exception as error:      # CompileError, DistutilsExecError, PlatformError ...
            raise SystemExit(f'search-grader: the search counter (grader/child/_tally.c) could '
                             f'not be built ({error}); an official grade refuses to run '
                             f'without it: {HOW}') from None


EXTENSIONS = [Extension('grader.child._tally', ['grader/child/_tally.c'])]

setup(ext_modules=EXTENSIONS, cmdclass={'build_ext': build_counter})
