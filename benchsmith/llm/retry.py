"""The one retry layer: transient endpoint errors, with backoff and a cap.

Transient: 429 (waiting as long as ``Retry-After`` asks), 408, 409, 5xx, timeouts, reset
connections, and a reply body that is not JSON. Final at once: 400, 401, 403, 404, 422 and
an exhausted quota (429 ``insufficient_quota``), each with a message that says what to fix.
Unreachable (a refused connection, an unknown host, no route to it): one quick retry, then
a :class:`~benchsmith.errors.ModelUnreachableError` that says which; once an endpoint is
known to be down, later calls to it fail at once instead of each running the backoff
ladder. An endpoint that answered earlier calls of the run and then stops answering is said
to have stopped mid-build (or mid-run), with how to continue (``--resume``). The OpenAI
client's own retries are switched off (``max_retries=0``) so that no other layer retries.
"""

from __future__ import annotations

import errno
import json
import os
import random
import socket
import threading
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import TypeVar
from urllib.parse import urlparse

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from benchsmith.errors import ModelRequestError, ModelUnavailableError, ModelUnreachableError
from benchsmith.llm.specs import ModelSpec

T = TypeVar("T")

_SEMAPHORES: dict[str, threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def endpoint_semaphore(key: str, limit: int) -> threading.BoundedSemaphore:
    """The process-wide concurrency limit of one endpoint (created on first use)."""
    with _SEMAPHORES_LOCK:
        sem = _SEMAPHORES.get(key)
        if sem is None:
            sem = _SEMAPHORES[key] = threading.BoundedSemaphore(limit)
        return sem


def is_quota_exhausted(exc: BaseException) -> bool:
    """True for a 429 that means the account has no quota left (retrying cannot help)."""
    if not isinstance(exc, openai.RateLimitError):
        return False
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error", body) if isinstance(body.get("error", body), dict) else body
    return "insufficient_quota" in (str(err.get("code")), str(err.get("type")))


def is_transient(exc: BaseException) -> bool:
    """Whether an error from the endpoint is worth retrying."""
    if isinstance(exc, openai.RateLimitError):
        return not is_quota_exhausted(exc)
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409) or exc.status_code >= 500
    return isinstance(
        exc, openai.APIConnectionError | openai.APIResponseValidationError | json.JSONDecodeError
    )


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait an error response asks for (``retry-after-ms`` or ``Retry-After``), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _endpoint_name(spec: ModelSpec) -> str:
    if spec.provider == "local":
        return "the embedded model"
    return f"{spec.endpoint_key} ({spec.model})"


def server_message(exc: BaseException) -> str:
    """The endpoint's own error message (``{"error": {"message": ...}}``), else the error's."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict) and err.get("message"):
        return str(err["message"])
    if isinstance(err, str) and err:
        return err
    return str(getattr(exc, "message", "") or exc)


def request_error(exc: openai.APIStatusError, spec: ModelSpec) -> ModelRequestError:
    """Turn a final endpoint error into a message that says what to fix."""
    where = _endpoint_name(spec)
    detail = getattr(exc, "message", str(exc))
    status = exc.status_code
    if isinstance(exc, openai.RateLimitError):
        text = f"{where}: quota exhausted (429 insufficient_quota); add credit or use another model"
    elif status == 401:
        key = spec.api_key_env or "the API key"
        text = f"{where} rejected the API key (401): set {key} to a valid key"
    elif status == 403:
        text = f"{where} denied access (403) to model {spec.model!r}: check the key's permissions"
    elif status == 404:
        text = f"{where} has no model {spec.model!r} (404): check the name in the model spec"
    elif status == 400:
        text = (
            f"{where} refused the request (400): {detail}; if it names response_format or "
            "tools, set [llm] structured_method in benchsmith.toml"
        )
    else:
        text = f"{where} refused the request ({status}): {detail}"
    return ModelRequestError(text, status_code=status, detail=server_message(exc))


UNREACHABLE_RETRY_WAIT_S = 0.25
"""The one wait before retrying an endpoint nothing answers at."""

_NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL}


def connection_failure(exc: BaseException) -> str | None:
    """Why no connection could be made, when nothing answers at the endpoint's address.

    Args:
        exc: An error of a request (``openai.APIConnectionError`` wraps the socket's).

    Returns:
        ``"connection refused"``, ``"unknown host"`` or ``"no route to host"``; None for
        anything else (timeouts, connections reset or closed by a server that is there).
    """
    if isinstance(exc, openai.APITimeoutError):
        return None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return "unknown host"
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, OSError) and current.errno in _NO_ROUTE:
            return "no route to host"
        current = current.__cause__ or current.__context__
    return None


def _down_key(spec: ModelSpec) -> str:
    """What is down when nothing answers: the endpoint, or one embedded model's own server.

    The embedded models share one concurrency key (``local``) but not a server: the reader's
    server dying says nothing of SmolLM2's.
    """
    return f"local:{spec.model}" if spec.provider == "local" else spec.endpoint_key


def _address(spec: ModelSpec) -> str:
    url = urlparse(spec.endpoint_key if spec.provider != "local" else "")
    if not url.hostname:
        return spec.endpoint_key
    port = url.port or (443 if url.scheme == "https" else 80)
    return f"{url.hostname}:{port}"


class RetryPolicy:
    """Retries transient errors with exponential backoff, honouring Retry-After."""

    def __init__(
        self,
        *,
        max_retries: int = 4,
        max_wait_s: float = 60.0,
        base_wait_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        resume: str | None = None,
    ) -> None:
        """Create a policy.

        Args:
            max_retries: Retries after the first attempt.
            max_wait_s: Cap on one wait.
            base_wait_s: First backoff wait; doubles each retry (with +-20% jitter).
            sleep: The sleep function (tests pass a recorder).
            resume: The command that continues this run (a build's ``benchsmith build
                --resume --out DIR``), said when an endpoint stops answering mid-build;
                None for a run that is not a build.
        """
        self.max_retries = max_retries
        self.max_wait_s = max_wait_s
        self.base_wait_s = base_wait_s
        self.sleep = sleep
        self.resume = resume
        self._rng = random.Random()
        self._down: dict[str, str] = {}  # endpoint -> why nothing answers there
        self._answered: dict[str, int] = {}  # endpoint -> calls it answered in this run
        self._lock = threading.Lock()

    def answered(self, spec: ModelSpec) -> int:
        """Calls the spec's endpoint (an embedded model: its server) answered in this run."""
        return self._answered.get(_down_key(spec), 0)

    def forget_down(self, spec: ModelSpec) -> None:
        """Forget that the spec's endpoint was down (its server was started again)."""
        with self._lock:
            self._down.pop(_down_key(spec), None)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if exc is not None and connection_failure(exc):
            return UNREACHABLE_RETRY_WAIT_S
        asked = retry_after_seconds(exc) if exc else None
        if asked is not None:
            return min(asked, self.max_wait_s)
        backoff = self.base_wait_s * 2 ** (state.attempt_number - 1)
        return min(self.max_wait_s, backoff * self._rng.uniform(0.8, 1.2))

    def call(self, fn: Callable[[], T], spec: ModelSpec) -> tuple[T, int]:
        """Run ``fn`` until it succeeds, fails for good, or the retries run out.

        Args:
            fn: One request to the endpoint.
            spec: The model (named in the error messages).

        Returns:
            The result and the number of attempts made.

        Raises:
            ModelRequestError: The endpoint refused the request (400, 401, ..., quota).
            ModelUnavailableError: Transient failures outlasted every retry.
        """
        key = _down_key(spec)
        if key in self._down:
            raise ModelUnreachableError(self._down[key])
        attempts = 0

        def attempt() -> T:
            nonlocal attempts
            attempts += 1
            result = fn()
            with self._lock:
                self._answered[key] = self._answered.get(key, 0) + 1
            return result

        def worth_retrying(exc: BaseException) -> bool:
            if connection_failure(exc):
                return attempts < 2  # one quick retry: a server may be just starting
            return is_transient(exc)

        retrying = Retrying(
            retry=retry_if_exception(worth_retrying),
            wait=self._wait,
            stop=stop_after_attempt(self.max_retries + 1),
            sleep=self.sleep,
            reraise=True,
        )
        try:
            return retrying(attempt), attempts
        except openai.APIStatusError as exc:
            if not is_transient(exc):
                raise request_error(exc, spec) from exc
            raise self._unavailable(exc, spec, attempts) from exc
        except (
            openai.APIConnectionError,
            openai.APIResponseValidationError,
            json.JSONDecodeError,
        ) as exc:
            error = self._unavailable(exc, spec, attempts)
            if isinstance(error, ModelUnreachableError):
                with self._lock:
                    self._down[key] = str(error)
            raise error from exc

    def _unavailable(
        self, exc: BaseException, spec: ModelSpec, attempts: int
    ) -> ModelUnavailableError:
        failure = connection_failure(exc)
        answered = self.answered(spec)
        if failure is not None and answered and spec.provider != "local":
            return self._stopped_answering(failure, spec, answered)
        if failure is not None:
            if failure == "unknown host":
                what = f"unknown host {urlparse(spec.endpoint_key).hostname!r} (DNS lookup failed)"
                todo = "fix the host in the model spec's URL, or check the network"
            elif failure == "connection refused":
                what = f"connection refused at {_address(spec)} (nothing listens there)"
                todo = "start the server, or fix the URL in the model spec"
            else:
                what = f"no route to {_address(spec)}"
                todo = "check the URL in the model spec and the network"
            return ModelUnreachableError(
                f"{_endpoint_name(spec)}: {what}, {attempts} attempt(s); {todo} "
                "(benchsmith doctor checks endpoints)",
                detail=failure,
            )
        reason = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        if isinstance(exc, openai.APITimeoutError) and spec.provider == "local":
            return ModelUnavailableError(local_timeout_message(attempts))
        status = None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            reason = f"HTTP {exc.status_code}: {reason}"
        elif isinstance(exc, json.JSONDecodeError):
            reason = f"reply was not JSON ({exc})"
        return ModelUnavailableError(
            f"{_endpoint_name(spec)} still failing after {attempts} attempt(s): {reason}; "
            "check that the endpoint is running and reachable (benchsmith doctor)",
            status_code=status,
            detail=server_message(exc),
        )

    def _stopped_answering(
        self, failure: str, spec: ModelSpec, answered: int
    ) -> ModelUnreachableError:
        """An endpoint that answered earlier calls of this run and now cannot be reached.

        Its server died or was stopped (or the network went): the build cannot go on, and
        nothing it finished is lost, so the message says how to continue once it answers.
        """
        where, why = {
            "connection refused": (
                f"connection refused at {_address(spec)}",
                "its server died or was stopped",
            ),
            "unknown host": (
                f"unknown host {urlparse(spec.endpoint_key).hostname!r}",
                "its name no longer resolves",
            ),
        }.get(failure, (f"no route to {_address(spec)}", "the network to it went down"))
        if self.resume:
            when = "mid-build"
            todo = (
                "start it again (or fix the network), then continue the build with its "
                f"options and --resume: {self.resume} (finished items are kept and answered "
                "calls are not paid again)"
            )
        else:
            when = "mid-run"
            todo = (
                "start it again (or fix the network), then run the command again (answered "
                "calls are served from the run records)"
            )
        return ModelUnreachableError(
            f"{_endpoint_name(spec)} stopped answering {when}: {where} after it answered "
            f"{answered} call(s); {why}; {todo}",
            detail=failure,
        )


def local_timeout_message(attempts: int) -> str:
    """Why the embedded model timed out: the machine is busy, not the endpoint down."""
    cores = os.cpu_count() or 1
    try:
        load = f"load average {os.getloadavg()[0]:.1f} on {cores} core(s)"
    except OSError:
        load = f"{cores} core(s)"
    return (
        f"the embedded model did not answer in time ({attempts} attempt(s), each with a longer "
        f"timeout; {load}): the machine is too busy for it; run one build at a time, lower "
        "--concurrency, or raise [llm] timeout_s in benchsmith.toml"
    )
