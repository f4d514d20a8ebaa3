"""Typed errors, one family per kind of failure.

Every error carries a message written for the person running benchsmith: it names the
input that caused it and says what to do. The CLI prints ``str(error)`` as one line and
exits non-zero; it never shows a traceback for these.
"""

from __future__ import annotations

from pydantic import ValidationError


def describe_validation_error(exc: ValidationError, *, limit: int | None = None) -> str:
    """``field.path: message`` for each error of a pydantic validation (the first ``limit``)."""
    errors = exc.errors()[:limit] if limit else exc.errors()
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors
    )


class BenchsmithError(Exception):
    """Base class of every error benchsmith raises on purpose."""

    exit_code = 1


class ConfigError(BenchsmithError):
    """A configuration file, flag or environment variable is wrong."""

    exit_code = 2


class ModelSpecError(ConfigError):
    """A model spec string cannot be understood (e.g. ``--model opneai:gpt-4o``)."""


class ModelError(BenchsmithError):
    """A model endpoint failed in a way the caller should know about."""


class ModelRequestError(ModelError):
    """The endpoint refused the request itself (400, 401, 403, 404, quota): retrying won't help."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        """Create the error.

        Args:
            message: What went wrong and what to fix.
            status_code: The HTTP status the endpoint answered, when there was one.
        """
        super().__init__(message)
        self.status_code = status_code


class ModelUnavailableError(ModelError):
    """The endpoint could not be reached, or kept failing after every transient retry."""


class LocalModelError(ModelError):
    """The embedded model is not installed or its server did not start."""


class StructuredOutputError(ModelError):
    """Every attempt at a structured reply failed validation, was refused, empty or cut off."""

    def __init__(self, message: str, *, failures: list | None = None) -> None:
        """Create the error.

        Args:
            message: A summary naming the schema, the role and the failure classes.
            failures: The recorded failed attempts (class, error and raw text of each).
        """
        super().__init__(message)
        self.failures = failures or []


class BudgetExceededError(BenchsmithError):
    """The run's budget (USD or tokens) is spent; no further model call is made."""


class ReplayMissError(BenchsmithError):
    """A replayed run asked for a model call that is not in the run records."""


class SystemDependencyError(BenchsmithError):
    """A system program benchsmith needs (espeak-ng, ffmpeg) is missing."""


class ToolError(BenchsmithError):
    """Base of the errors a tool raises; the message names the tool and the input."""


class UnknownToolError(ToolError):
    """No tool is registered under that name."""

    exit_code = 2


class ToolParamError(ToolError):
    """A tool's parameters do not validate against its parameter model."""

    exit_code = 2


class UnsafePathError(ToolError):
    """An output name tries to leave the media folder (``..``, absolute, NUL, symlink)."""

    exit_code = 2


class InputRejectedError(ToolError):
    """An input file is refused: missing, empty, too large, undecodable or truncated."""


class ToolTimeoutError(ToolError):
    """An external program (ffmpeg, espeak-ng) did not finish within its time limit."""


class ToolUnavailableError(ToolError):
    """A tool's backend is not installed or not reachable (e.g. offline web search)."""


class PostconditionError(ToolError):
    """A tool's output missed its own post-condition (e.g. SNR off by more than 0.5 dB)."""


class ExportError(BenchsmithError):
    """A benchmark folder cannot be exported (missing or malformed ``data/test.jsonl``, media)."""
