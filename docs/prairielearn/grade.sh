#!/bin/sh
# PrairieLearn's external grader runs this in the course's grading image, with
# networking off: everything was installed when the image was built
# (docs/prairielearn.md). It grades /grade/student and always leaves
# /grade/results/results.json: the grader writes it, with "gradable": false and
# the reason when the submission cannot be graded (a misnamed, misplaced,
# unreadable or missing file; exit status 2).
#
# The assignment graded: the first argument, else the one set here.
ASSIGNMENT="${1:-oulu-exercise-1}"
ROOT="${GRADER_PRAIRIELEARN_ROOT:-/grade}"       # another root only for the test suite
COURSE="$ROOT/serverFilesCourse/course"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
rm -f "$RESULTS"
cd "$ROOT" || exit 1
grader --config "$COURSE/grading.yaml" grade "$ROOT/student" --assignment "$ASSIGNMENT" \
  --prairielearn "$RESULTS" --quiet
status=$?
if [ ! -s "$RESULTS" ]; then
  echo "grade.sh: the grader wrote no results (status $status); writing a result that says so" >&2
  printf '%s\n' '{"gradable": false, "score": 0, "message": "The autograder could not grade'\
' this submission. This is a problem of the grader, not of your code: please tell the course'\
' staff.", "tests": []}' > "$RESULTS"
fi
exit "$status"
