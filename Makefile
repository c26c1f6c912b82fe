# Every target creates .venv when it is missing, so `make run` and `make test` are all a new machine needs.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run` needs only the bot's own dependencies (a first run is quicker); tests and tools need the dev ones.
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed

.PHONY: run test lint bench gallery demo clean

$(RUN_STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# With TELEGRAM_BOT_TOKEN (environment or .env): the Telegram bot. Without: the local sandbox (sandbox/).
run: $(RUN_STAMP)
	$(BIN)/mahjong-bot

# Bytecode is written even where the environment asks for none (PYTHONDONTWRITEBYTECODE): the three workers,
# every bot process the tests start and every search process would each compile the project (and pytest rewrite
# the tests) from source again, about 15 s of the suite's CPU.
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 4 --dist loadgroup

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
