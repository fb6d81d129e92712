# Every target works on a fresh Debian/Ubuntu machine: `make setup` is idempotent and the
# other targets depend on it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The JS linter and axe-core (the browser tests' accessibility checks), pinned in package.json and
# package-lock.json (npm ci installs exactly those).
NODE_STAMP := node_modules/.installed
APT_PACKAGES := bubblewrap python3 python3-venv chromium-headless-shell docker-compose nodejs npm \
	g++ openjdk-17-jdk-headless kotlin

.PHONY: setup system-packages bytecode test-bytecode run test test-bench test-fast lint bench bench-scale clean

setup: system-packages $(STAMP) $(NODE_STAMP)

# The sandbox needs bubblewrap, the browser tests Chromium's headless shell, the compose test
# Debian's docker-compose (v1: it validates the file against the compose schema without an
# engine), the JS linter Node.js and npm, and submissions in C++, Java and Kotlin their
# compilers (g++, OpenJDK 17's javac and java, kotlinc: the worker compiles and runs them in
# the sandbox).
# Installed when we can (root on a Debian-like system); otherwise say exactly what is missing.
system-packages:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	command -v docker-compose >/dev/null || missing="$$missing docker-compose"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	command -v g++ >/dev/null || missing="$$missing g++"; \
	command -v javac >/dev/null || missing="$$missing openjdk-17-jdk-headless"; \
	command -v kotlinc >/dev/null || missing="$$missing kotlin"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing system packages:$$missing"; \
	    echo "install them with: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

run: setup
	$(BIN)/python -m api serve

# Most tests wait on a sandbox, a service or a browser, so three processes keep two cores busy;
# a module's tests stay together in one (--dist loadscope: its stack starts once), and the
# costliest modules go first (tests/conftest.py orders them; xdist keeps that order).
TEST_WORKERS ?= 3
test: setup test-bytecode
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m "not bench_smoke"

# The suite and the benchmarks start a few hundred Python processes (the service's, the
# command's): with PYTHONDONTWRITEBYTECODE set and a fresh clone, each would compile the
# project's modules again (0.1 s of CPU apiece). Compiled once here, every process reads them.
# Not problems/ nor the tests' packages: the judge never imports a problem.py (it compiles its
# text), and a __pycache__ in a package folder would be one more file of the package.
COMPILE_PROJECT := $(BIN)/python -m compileall -q -j 0 \
	api bench config judge lti similarity store worker
bytecode: setup
	$(COMPILE_PROJECT)

# Before a run of the suite: the project compiled as `bytecode` does and, at the same time,
# the test modules as pytest's assertion rewriting compiles them (its own cache beside their
# bytecode), in two halves: without it each test process rewrites them all again as it
# starts (10 s of CPU apiece). A module that fails to compile or import is reported by the
# run itself.
test-bytecode: setup
	$(COMPILE_PROJECT) & \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q --collect-only -p no:cacheprovider \
		tests/judge tests/e2e > /dev/null & \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q --collect-only -p no:cacheprovider \
		tests --ignore=tests/judge --ignore=tests/e2e > /dev/null; \
	wait; true

# Every `make bench` group at its smallest, so a change that breaks a benchmark fails CI
# (.ci/run runs it after make test); apart from make test, whose time is the daily loop's.
test-bench: setup test-bytecode
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder -m bench_smoke

# What needs no sandbox, database, broker or browser: the quick loop while changing code.
test-fast: setup
	$(BIN)/python -m pytest -m "not sandbox and not services and not e2e and not slow"

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	node_modules/.bin/eslint

bench: setup bytecode
	$(BIN)/python -m bench

SUBMISSIONS ?= 200000
bench-scale: setup  # a course's history in a fresh PostgreSQL database (minutes)
	$(BIN)/python -m bench scale --submissions $(SUBMISSIONS)

clean:
	rm -rf $(VENV) var tests/artifacts node_modules
