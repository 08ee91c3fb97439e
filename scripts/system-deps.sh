#!/usr/bin/env bash
# Install the system packages the strongest sandbox level uses (bubblewrap, libseccomp),
# and headless Chromium, with which the tests look at the class's HTML pages.
# Needs root and apt-get; elsewhere it says what is missing and carries on:
# the grader then runs at a lower isolation level and says so in every result, and the
# browser tests are skipped with the reason.
set -u
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# seccomp filters are loaded through libseccomp (pyseccomp is a ctypes wrapper)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || need+=(libseccomp2)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# the C search counter (grader/child/_tally.c) is built by the setup: a compiler and the
# headers of the Python the setup uses
command -v gcc >/dev/null 2>&1 || need+=(gcc)
"${PYTHON:-python3}" -c 'import os, sysconfig, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  2>/dev/null || need+=(python3-dev)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null 2>&1
    apt-get install -y -qq "${need[@]}" >/dev/null 2>&1
  } || echo "note: could not install ${need[*]}; grading may run at a lower isolation level" >&2
else
  echo "note: ${need[*]} not installed (needs root and apt-get); grading may run at a lower isolation level" >&2
fi
exit 0
