"""Instructor batch grading: a whole class, a gradebook, resume, and Dask.

- :mod:`archives` -- reading submissions safely into memory; packing them;
- :mod:`identity` -- who a submission belongs to (Moodle, GitHub Classroom, rosters);
- :mod:`moodle` -- Moodle's grading worksheet, read and written in the site's language;
- :mod:`course` -- the course checked whole before a batch, and its fixtures digest;
- :mod:`sources` and :mod:`gitrepos` -- the class from a folder, a zip or git;
- :mod:`gradebook` -- the SQLite gradebook (WAL, one transaction per result);
- :mod:`worker` -- grading one packed submission in a worker process;
- :mod:`executors` -- the local process pool and the Dask cluster;
- :mod:`pipeline` -- intake, plan, grade, outputs; regrades;
- :mod:`compare` -- the stable part of a result, and what changed;
- :mod:`exports` and :mod:`overview` -- CSV, Moodle worksheet, feedback, overview;
- :mod:`similarity` -- how much of two files is the same code (names, order and
  comments set aside); :mod:`copies` -- every pair of a class's hand-ins and the known
  solutions compared, ``similarity.csv`` and the side-by-side views;
- :mod:`classpage` and :mod:`pages` -- ``index.html`` and a page per student;
- :mod:`cli` -- ``grader batch`` and ``grader regrade``.

See docs/batch.md.
"""
