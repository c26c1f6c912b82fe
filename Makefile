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

# Bytecode is written even where the environment asks for none (PYTHONDONTWRITEBYTECODE): the workers,
# every bot process the tests start and every search process would each compile the project (and pytest rewrite
# the tests) from source again, about 15 s of the suite's CPU. Six workers: the end-to-end tests mostly wait on the
# bot, so six overlap on two cores. Each module's tests run on one worker (loadfile), so a module's shared bot process
# starts once (xdist's own grouping, xdist_group, no longer holds on pytest 9.2, whose node ids it cannot rename), and
# the modules go out in the order tests/conftest.py puts them: those that time a worker's takeover first (mostly
# waiting on leases, each on a worker of its own beside the rest: a stage of their own after the suite took 86–137 s
# more), then the slow ones (not by their number of tests).
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 6 --dist loadfile --no-loadscope-reorder

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
