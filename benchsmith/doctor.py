"""``benchsmith doctor``: what is installed and reachable.

Each check returns a :class:`Check`; nothing here raises for a missing component, so the
report is always complete. ``probe_structured`` sends one real structured request.
"""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

import httpx
from pydantic import BaseModel, Field

from benchsmith.errors import LocalModelError
from benchsmith.llm.local import (
    EMBEDDED_MODELS,
    INSTALL_HINT,
    local_model_path,
    server_available,
)
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import READER_MODEL_NAME, ModelSpec
from benchsmith.prompts import UNTRUSTED_CLOSE, UNTRUSTED_OPEN, render, untrusted

if TYPE_CHECKING:  # the model clients' SDKs take seconds to import; only --probe uses one
    from benchsmith.llm.client import RoleModel

Status = Literal["ok", "missing", "unreachable", "warn", "info"]

SYSTEM_PACKAGES = {"espeak-ng": "espeak-ng", "ffmpeg": "ffmpeg", "ffprobe": "ffmpeg"}


@dataclass
class Check:
    """One line of the doctor's report."""

    name: str
    status: Status
    detail: str
    required: bool = False

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def _version_line(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"(could not run: {exc})"
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0][:120] if text else "(no output)"


def check_program(name: str, version_flag: str) -> Check:
    """Whether a system program is on PATH, with its version."""
    path = shutil.which(name)
    if path is None:
        package = SYSTEM_PACKAGES.get(name, name)
        return Check(
            name, "missing", f"not found; install with: apt-get install {package}", required=True
        )
    return Check(name, "ok", _version_line([path, version_flag]), required=True)


def check_python() -> Check:
    """The interpreter and benchsmith's version."""
    try:
        version = importlib.metadata.version("benchsmith")
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed as a package)"
    return Check("python", "ok", f"Python {platform.python_version()}, benchsmith {version}")


def check_embedded_model() -> Check:
    """Whether the embedded model and its server are installed (nothing is started)."""
    try:
        path = local_model_path()
    except LocalModelError as exc:
        return Check("embedded model", "missing", str(exc))
    if not server_available():
        return Check(
            "embedded model", "missing", f"llama-cpp-python[server] missing; {INSTALL_HINT}"
        )
    size_mb = path.stat().st_size / 1e6
    llama = importlib.metadata.version("llama_cpp_python")
    return Check(
        "embedded model",
        "ok",
        f"SmolLM2-135M-Instruct Q4_1 ({size_mb:.0f} MB), llama-cpp-python {llama}, "
        f"spec local: {path}",
    )


def check_reader_model() -> Check:
    """Whether the reader model's parts are installed and joined (nothing is read or started).

    Assembly is left to ``benchsmith models --prepare`` (``make`` runs it) or the first use:
    hashing 1.1 GB has no place in a check meant to take a second.
    """
    status = EMBEDDED_MODELS[READER_MODEL_NAME].status()
    name = "reader model"
    if status.state == "missing":
        return Check(name, "missing", status.detail)
    if not server_available():
        return Check(name, "missing", f"llama-cpp-python[server] missing; {INSTALL_HINT}")
    if not status.ready:
        return Check(name, "info", f"{status.title}: {status.detail}")
    size_mb = (status.size_bytes or 0) / 1e6
    return Check(
        name,
        "ok",
        f"{status.title} ({size_mb:.0f} MB), {status.detail}, spec {status.spec}: {status.path}",
    )


def check_endpoint(spec: ModelSpec, env: Mapping[str, str], timeout: float = 3.0) -> Check:
    """Whether a remote endpoint answers ``GET /models`` (a 401 still proves it is reachable)."""
    base = spec.base_url or "https://api.openai.com/v1"
    headers = {}
    if spec.api_key_env and env.get(spec.api_key_env):
        headers["Authorization"] = f"Bearer {env[spec.api_key_env]}"
    name = f"endpoint {spec.text}"
    try:
        response = httpx.get(f"{base}/models", headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        return Check(name, "unreachable", f"{base}: {type(exc).__name__}: {exc}")
    if response.status_code == 401:
        key = spec.api_key_env or "the API key"
        return Check(name, "warn", f"{base} answers but rejects the key (401): set {key}")
    if response.status_code >= 400:
        return Check(name, "warn", f"{base} answered {response.status_code}")
    return Check(name, "ok", f"{base} answers")


def check_network(host: str = "duckduckgo.com", timeout: float = 2.0) -> Check:
    """Whether the internet is reachable (web search needs it; everything else works offline)."""
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return Check("network", "ok", f"{host}:443 reachable (web search available)")
    except OSError as exc:
        return Check("network", "info", f"offline ({host}: {exc}); offline sources only")


def run_checks(models: Mapping[str, ResolvedModel], env: Mapping[str, str]) -> list[Check]:
    """Every check, in report order."""
    checks = [
        check_python(),
        check_program("espeak-ng", "--version"),
        check_program("ffmpeg", "-version"),
        check_program("ffprobe", "-version"),
        check_embedded_model(),
        check_reader_model(),
    ]
    seen: set[str] = set()
    for resolved in models.values():
        spec = resolved.spec
        if spec.provider != "local" and spec.text not in seen:
            seen.add(spec.text)
            checks.append(check_endpoint(spec, env))
    checks.append(check_network())
    return checks


class ProbeAnswer(BaseModel):
    """A tiny structured decision used to prove a model answers schema-valid JSON."""

    capital: str = Field(max_length=40, description="The capital city of the country asked about.")
    continent: Literal[
        "Africa", "Asia", "Europe", "North America", "South America", "Oceania", "Antarctica"
    ] = Field(description="The continent the country is on.")


def probe_messages(country: str) -> list[tuple[str, str]]:
    """The probe's prompt about one country."""
    system = render(
        "probe",
        untrusted_open=UNTRUSTED_OPEN.format(label="..."),
        untrusted_close=UNTRUSTED_CLOSE,
        country=untrusted(country, "country"),
    )
    return [("system", system), ("user", f"What is the capital of {country}, and its continent?")]


def probe_structured(role_model: RoleModel, country: str = "France") -> tuple[ProbeAnswer, float]:
    """Send one structured request; return the answer and its latency in seconds."""
    started = time.monotonic()
    answer = role_model.structured(ProbeAnswer, probe_messages(country))
    return answer, time.monotonic() - started
