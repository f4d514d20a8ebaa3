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


EXIT_CODES: dict[int, str] = {
    0: "success (for a build: every quota met)",
    1: "a model, tool or build failure (an endpoint, the plan)",
    2: "a usage or input error (a flag, a file, a folder, the configuration)",
    3: "the build ended short of its size (the summary and report.md say why)",
    4: "the budget ran out (what was accepted is written)",
    130: "interrupted (Ctrl-C or SIGTERM; a build says how to resume)",
}
"""One exit code per failure family; every command's errors use these (``benchsmith --help``)."""


def exit_codes_help() -> str:
    """The exit-code table as ``--help`` text."""
    return "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items())


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

    def __init__(self, message: str, *, status_code: int | None = None, detail: str = "") -> None:
        """Create the error.

        Args:
            message: What went wrong and what to fix.
            status_code: The HTTP status the endpoint answered, when there was one.
            detail: The endpoint's own error message, as it gave it.
        """
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail


class ModelUnavailableError(ModelError):
    """The endpoint could not be reached, or kept failing after every transient retry."""

    def __init__(self, message: str, *, status_code: int | None = None, detail: str = "") -> None:
        """Create the error.

        Args:
            message: What went wrong and what to check.
            status_code: The HTTP status of the last failed attempt, when it got one.
            detail: The endpoint's own error message (or the connection failure).
        """
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail


class ModelUnreachableError(ModelUnavailableError):
    """Nothing answers at the endpoint's address: connection refused, unknown host, no route.

    Every request to that endpoint would fail the same way, so a run that needs it stops.
    """


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

    exit_code = 4


class ReplayMissError(BenchsmithError):
    """A replayed run asked for a model call that is not in the run records."""


class SystemDependencyError(BenchsmithError):
    """A system program benchsmith needs (espeak-ng, ffmpeg) is missing."""

    exit_code = 2


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

    exit_code = 2


class ToolTimeoutError(ToolError):
    """An external program (ffmpeg, espeak-ng) did not finish within its time limit."""


class ToolUnavailableError(ToolError):
    """A tool's backend is not installed or not reachable (e.g. offline web search)."""


class PostconditionError(ToolError):
    """A tool's output missed its own post-condition (e.g. SNR off by more than 0.5 dB)."""


class ExportError(BenchsmithError):
    """A benchmark folder cannot be exported (missing or malformed ``data/test.jsonl``, media)."""
