"""Integration-test helpers for child processes and the embedded model.

An offline environment, a checked run, and a small benchmark built by the real
``benchsmith build`` on the embedded model (the CLI's own ``main`` in the calling process,
which shares one embedded-model server between builds).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchsmith.layout import write_spec
from benchsmith.spec import Subtask
from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec
from benchsmith.testing.inprocess import Ran, run_cli_checked

BIN = Path(sys.executable).parent
COUNTRIES = [
    ("France", "Paris"), ("Spain", "Madrid"), ("Italy", "Rome"), ("Japan", "Tokyo"),
    ("Kenya", "Nairobi"), ("Peru", "Lima"), ("Chile", "Santiago"), ("Egypt", "Cairo"),
]  # fmt: skip


def offline_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a child process: no API keys, Hugging Face offline, own caches.

    Its home is its own, but the assembled embedded models are the caller's (one copy).
    """
    from benchsmith.llm.reader_model import models_dir

    out = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "INSPECT_"))}
    out.update(
        BENCHSMITH_MODELS=str(models_dir()),
        BENCHSMITH_HOME=str(tmp / "home"),
        HF_DATASETS_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        HF_HOME=str(tmp / "hf-home"),
        HF_DATASETS_CACHE=str(tmp / "hf-datasets"),
        TRANSFORMERS_OFFLINE="1",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )
    out.update(extra)
    return out


def run_checked(
    cmd: list[str], cwd: Path, environ: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess:
    """Run a command in ``cwd``; fail with its output tails when it exits non-zero."""
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        cmd, cwd=cwd, env=environ, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd[:3])} failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
            f"{done.stderr[-3000:]}"
        )
    return done


def build_capitals_locally(
    tmp: Path, size: int, skills: list[str] | None = None
) -> tuple[Path, Ran]:
    """Build a text multiple-choice capitals benchmark with the embedded model (CLI, in process).

    Returns:
        The benchmark folder and what the build printed (its exit code, stdout, stderr).
    """
    card = jsonl_dataset(tmp, "capitals", [{"name": n, "capital": c} for n, c in COUNTRIES])
    subtask = Subtask(
        id="capitals",
        name="Capitals",
        description="Pick the capital city of the country named in the question.",
        answer_format="multiple_choice",
        skills=list(skills or []),
    )
    spec = one_grounding_spec(
        subtask, card, size=size, answer_field="capital", question_field="name",
        intent="capitals of countries",
    )  # fmt: skip
    spec_path = write_spec(tmp, spec)
    out = tmp / "capitals-bench"
    done = run_cli_checked(
        [
            "build", "--spec", str(spec_path), "--out", str(out),
            "--catalog", str(tmp / "catalog"), "--model", "local", "--quiet",
            # Judged anyway (auto does not ask the 135M model; advisory records its verdicts
            # without enforcing them), so the build makes real calls through the server.
            "--judge", "advisory",
        ],
        tmp,
        offline_env(tmp),
    )  # fmt: skip
    return out, done
