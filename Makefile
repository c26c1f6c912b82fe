# Every target creates .venv when it is missing, so `make run` and `make test` are all a new machine needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench gallery demo clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/mahjong-bot

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict game bot rendering storage sandbox

bench: $(STAMP)
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

gallery: $(STAMP)
	$(BIN)/python -m rendering.gallery build/gallery

demo: gallery

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache
