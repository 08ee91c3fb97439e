# make demo  -- set everything up (first use) and grade the bundled example submissions
# make test  -- run the whole test suite, on two cores (pytest-xdist)
# make quick -- the suite without the batch class
# make slow  -- the whole suite with the batch class of 200 submissions, every verdict
#              graded under the course's own draws and limits
# make lint  -- ruff's checks (pyproject.toml [tool.ruff]); CI runs it before the tests
# make matrix -- the verdict tests under every Python 3.9-3.13 found (pyenv)
# make wheels -- wheels with the search counter built, for every Python 3.9-3.13 (dist/wheels)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: setup demo test quick slow lint matrix wheels bench fixtures clean

$(VENV)/.installed: pyproject.toml setup.py grader/child/_tally.c
	@# first: the install builds the C search counter (a compiler and Python's headers)
	@PYTHON=$(PYTHON) scripts/system-deps.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@# the distribution was named `grader` before it became search-grader: never both
	$(BIN)/python -m pip uninstall -q -y grader 2>/dev/null || true
	$(BIN)/python -m pip install -q -e '.[all]'
	@# bytecode now, as a regular install has it (an editable one compiles at each start
	@# when PYTHONDONTWRITEBYTECODE is set), and the reference's, whose oracles every
	@# official grade imports (20 ms of compiling at each start otherwise)
	$(BIN)/python -m compileall -q grader reference
	@# and the test modules as pytest rewrites them for their asserts (tests/conftest.py
	@# keeps them where PYTHONDONTWRITEBYTECODE is set): 2.3 s of each worker's start;
	@# a cache only, so a collection that fails here is the test run's to report
	-@$(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1
	touch $@

setup: $(VENV)/.installed
	@PYTHON=$(PYTHON) scripts/system-deps.sh

demo: setup
	@for folder in examples/*/; do \
	  echo "== $$folder"; $(BIN)/grader grade "$$folder" || exit $$?; \
	done

# Two workers: grading a submission runs one sandboxed child at a time, so each
# worker keeps one core busy.  TEST_WORKERS=0 runs the suite in one process.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

test: setup
	$(PYTEST)

quick: setup
	$(PYTEST) --deselect tests/test_batch_class.py::test_a_class

slow: setup
	GRADER_SLOW_TESTS=1 $(PYTEST)

lint: setup
	$(BIN)/ruff check grader tests reference bench scripts

matrix: setup
	scripts/matrix.sh

wheels: setup
	scripts/wheels.sh

bench: setup
	$(BIN)/python bench/run.py

fixtures: setup
	$(BIN)/grader fixtures --regenerate

clean:
	rm -rf $(VENV) .matrix
