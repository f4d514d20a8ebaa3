"""Model specs: the strings users write to name a model, and what they resolve to.

Accepted forms (every one is served through the same ``ChatOpenAI`` client path):

* ``local`` - the embedded SmolLM2-135M-Instruct, served by llama.cpp on loopback.
* ``local:reader`` - the embedded reader, Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), served the
  same way by a server of its own: good at small extractive questions about a text, checked
  by code (what a symbol stands for, which column an intent asks about).
* ``openai:MODEL`` - OpenAI (``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` when set).
* ``MODEL@BASE_URL`` - any OpenAI-compatible server, e.g. ``qwen2.5:7b@http://gpu:8000/v1``
  (vLLM, Ollama, llama.cpp, LM Studio, ...). ``BENCHSMITH_API_KEY`` is sent when set.
* ``ollama:MODEL``, ``vllm:MODEL``, ``lmstudio:MODEL``, ``llamacpp:MODEL`` - shortcuts for
  those servers on their default local ports.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal, get_args
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field

from benchsmith.errors import ModelSpecError

Role = Literal[
    "design", "grounding", "allocation", "orchestration", "verification", "judge", "solver",
    "reader",
]  # fmt: skip
ROLES: tuple[Role, ...] = get_args(Role)

StructuredMethod = Literal["json_schema", "function_calling", "json_mode", "json_grammar"]
"""How a reply is asked to match a schema. ``json_grammar`` is llama.cpp's own: the
``json_object`` response format with the schema beside it, which the server compiles into a
grammar as it does a forced function call, but with nothing put before the prompt (a
function's definition goes first), so questions that share a text share its cached prefix."""
STRUCTURED_METHODS: tuple[StructuredMethod, ...] = get_args(StructuredMethod)

LOCAL_MODEL_NAME = "smollm2-135m-instruct-q4_1"
READER_MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
READER_SPEC = "local:reader"

#: The spec a role takes when nothing names one: the embedded SmolLM2, but the reader role
#: takes the embedded reader (SmolLM2 reads nothing; a reader answers small checked questions).
ROLE_DEFAULTS: dict[str, str] = {"reader": READER_SPEC}

#: The embedded models by the name after ``local:`` (``local`` alone is SmolLM2).
LOCAL_MODELS: dict[str, str] = {"reader": READER_MODEL_NAME}

#: Shortcut prefixes for OpenAI-compatible servers on their usual local ports.
SERVER_SHORTCUTS: dict[str, str] = {
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
    "lmstudio": "http://localhost:1234/v1",
    "llamacpp": "http://localhost:8080/v1",
}

_EXAMPLES = "local, local:reader, openai:gpt-4o-mini, ollama:llama3.1, or MODEL@http://host:8000/v1"


class ModelSpec(BaseModel):
    """A parsed model spec: which model, behind which endpoint, reached how."""

    model_config = ConfigDict(frozen=True)

    provider: Literal["local", "openai", "compatible"] = Field(
        description="local: an embedded model; openai: api.openai.com (or OPENAI_BASE_URL); "
        "compatible: any OpenAI-compatible server at base_url."
    )
    model: str = Field(description="The model name sent to the endpoint.")
    base_url: str | None = Field(
        default=None,
        description="The endpoint's /v1 URL; None for local (chosen when the server starts) "
        "and for OpenAI's default endpoint.",
    )
    api_key_env: str | None = Field(
        default=None, description="The environment variable holding the API key, if any."
    )
    text: str = Field(description="The spec as the user wrote it (canonical form).")

    @property
    def default_structured_method(self) -> StructuredMethod:
        """The structured-output method this endpoint supports best.

        OpenAI's own endpoint takes ``json_schema``; llama.cpp's server refuses it but turns a
        forced function call into a grammar, and function calling is the most widely supported
        mode among other OpenAI-compatible servers.
        """
        if self.provider == "openai" and self.base_url is None:
            return "json_schema"
        if self.provider == "local" and self.model == READER_MODEL_NAME:
            # Many small questions about one text: the text stays a cached prefix (a
            # question after the first costs about a second instead of twenty).
            return "json_grammar"
        return "function_calling"

    @property
    def endpoint_key(self) -> str:
        """Identifies the endpoint, for the shared per-endpoint concurrency limit.

        Both embedded models share one key: each server runs on every core, so a request to
        one while the other computes would slow both down rather than overlap.
        """
        if self.provider == "local":
            return "local"
        return self.base_url or "https://api.openai.com/v1"

    @property
    def identity(self) -> str:
        """Stable identity for cache keys: provider and model, never a port or a key."""
        if self.provider == "compatible":
            return f"{self.model}@{self.base_url}"
        return f"{self.provider}:{self.model}"


def parse_model_spec(text: str, env: Mapping[str, str] | None = None) -> ModelSpec:
    """Parse a model spec string.

    Args:
        text: The spec, e.g. ``local``, ``openai:gpt-4o-mini`` or ``llama3@http://h:8000/v1``.
        env: Environment to read ``OPENAI_BASE_URL`` from (defaults to ``os.environ``).

    Returns:
        The parsed spec.

    Raises:
        ModelSpecError: The text is not a spec; the message lists the accepted forms.
    """
    env = os.environ if env is None else env
    raw = (text or "").strip()
    if not raw:
        raise ModelSpecError(f"empty model spec; use one of: {_EXAMPLES}")
    if raw == "local":
        return ModelSpec(provider="local", model=LOCAL_MODEL_NAME, text="local")
    at = max(raw.rfind("@http://"), raw.rfind("@https://"))
    if at > 0:
        model, url = raw[:at], raw[at + 1 :]
        _check_url(url, raw)
        return ModelSpec(
            provider="compatible",
            model=model,
            base_url=url.rstrip("/"),
            api_key_env="BENCHSMITH_API_KEY",
            text=raw,
        )
    prefix, sep, model = raw.partition(":")
    if sep and model:
        if prefix == "local":
            if model not in LOCAL_MODELS:
                known = ", ".join(f"local:{n}" for n in LOCAL_MODELS)
                raise ModelSpecError(
                    f"unknown embedded model {raw!r}; the embedded models are local "
                    f"(SmolLM2-135M) and {known}"
                )
            return ModelSpec(provider="local", model=LOCAL_MODELS[model], text=raw)
        if prefix == "openai":
            base = env.get("OPENAI_BASE_URL") or None
            if base:
                _check_url(base, "OPENAI_BASE_URL")
            return ModelSpec(
                provider="openai",
                model=model,
                base_url=base.rstrip("/") if base else None,
                api_key_env="OPENAI_API_KEY",
                text=raw,
            )
        if prefix in SERVER_SHORTCUTS:
            return ModelSpec(
                provider="compatible",
                model=model,
                base_url=SERVER_SHORTCUTS[prefix],
                api_key_env="BENCHSMITH_API_KEY",
                text=raw,
            )
    raise ModelSpecError(f"unknown model spec {raw!r}; use one of: {_EXAMPLES}")


def _check_url(url: str, where: str) -> None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ModelSpecError(
            f"bad endpoint URL {url!r} in {where!r}; write it like http://host:8000/v1"
        )
