#!/usr/bin/env bash
# The verdict tests under every Python from 3.9 to 3.13 found on this machine.
#
# Interpreters are looked for in $(pyenv root)/versions/3.X.* (or $PYENV_ROOT, or
# ~/.pyenv); each gets a virtual environment of its own under .matrix/ with the grader
# installed, and runs the verdict tests: tests/test_submissions.py (every example
# submission's verdict), tests/adversarial/test_forging.py (every attempt to win
# points without the work, beside its honest twin) and tests/test_every_call_seen.py
# (the counter sees every call, however this interpreter makes it) and
# tests/adversarial/test_code_routes.py (no code object is made but by the compiler), on two cores
# (TEST_WORKERS). A
# version that is missing fails the matrix: the same verdicts on every Python is what
# it checks.
set -uo pipefail
cd "$(dirname "$0")/.."
root="${PYENV_ROOT:-}"
if [ -z "$root" ] && command -v pyenv >/dev/null 2>&1; then root="$(pyenv root)"; fi
root="${root:-$HOME/.pyenv}"
versions="${MATRIX_VERSIONS:-3.9 3.10 3.11 3.12 3.13}"
failed=()
for version in $versions; do
  python="$(ls -d "$root"/versions/"$version".* 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$python" ] || [ ! -x "$python/bin/python$version" ]; then
    echo "matrix: no Python $version under $root/versions (install it with pyenv)" >&2
    failed+=("$version (missing)")
    continue
  fi
  venv=".matrix/$version"
  if [ ! -f "$venv/.installed" ] || [ pyproject.toml -nt "$venv/.installed" ] || [ grader/child/_tally.c -nt "$venv/.installed" ]; then
    rm -rf "$venv"
    "$python/bin/python$version" -m venv "$venv" &&
      "$venv/bin/python" -m pip install -q --upgrade pip &&
      "$venv/bin/python" -m pip install -q -e '.[all]' &&
      touch "$venv/.installed" || { failed+=("$version (install)"); continue; }
  fi
  echo "== Python $version ($python)"
  if ! "$venv/bin/python" -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-2}" \
      --dist loadgroup tests/test_submissions.py tests/adversarial/test_forging.py \
      tests/adversarial/test_code_routes.py \
      tests/test_every_call_seen.py; then
    failed+=("$version")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "matrix: failed on ${failed[*]}" >&2
  exit 1
fi
echo "matrix: the same verdicts on Python $versions"
