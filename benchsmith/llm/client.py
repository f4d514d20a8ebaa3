"""Model access for a run: one client path for every model spec.

``LLMRuntime`` owns what a run shares: the resolved model of each role, the usage ledger
and budget, the run records (which are also the cache), the retry policy and the chat
clients. ``RoleModel`` is what an agent holds: ``invoke`` for text and ``structured`` for
a validated pydantic object. Every call goes through ``RoleModel.invoke``, in this order:
cache lookup, replay check, budget reservation, per-endpoint concurrency limit, the request
with transient retries, usage and cost accounting, and the record.

An embedded model's server that dies during a run (killed, out of memory, a crash in
llama.cpp) is started again once and the failed call is sent again (:meth:`LLMRuntime.revive`;
the run records get a ``server_restart`` line); a second death stops the run with a message
that says how it ended and how to resume.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    convert_to_messages,
    convert_to_openai_messages,
    message_to_dict,
    messages_from_dict,
)
from pydantic import BaseModel

from benchsmith.config import FileConfig, LLMSettings, Price, RunConfig, load_file_config
from benchsmith.errors import (
    ConfigError,
    LocalModelError,
    ModelError,
    ModelUnavailableError,
    ReplayMissError,
)
from benchsmith.files import canonical_json, sha256_text
from benchsmith.llm.records import RunRecords, request_key
from benchsmith.llm.retry import RetryPolicy, endpoint_semaphore
from benchsmith.llm.roles import ResolvedModel, resolve_role_models
from benchsmith.llm.specs import ModelSpec, Role, StructuredMethod
from benchsmith.llm.structured import structured_call
from benchsmith.llm.usage import UsageLedger, price_for
from benchsmith.stopping import check_stop

T = TypeVar("T", bound=BaseModel)

#: Builds the chat model of a spec: ``factory(spec, base_url=..., api_key=..., **params)``.
ChatFactory = Callable[..., BaseChatModel]

LOCAL_DEFAULT_MAX_TOKENS = 512


def preload() -> None:
    """Import what the first model call of a process imports (about 0.8 s on this machine).

    langchain-openai, and the openai SDK's resources and transports (imported lazily by a
    first client; no request is made). A build's timing harness calls this with its other
    imports, so that the time to its first model request measures the build, not Python's
    module loading.
    """
    from langchain_openai import ChatOpenAI

    # A first client imports the SDK's resources and transports and builds their classes.
    ChatOpenAI(model="preload", base_url="http://127.0.0.1:9/v1", api_key="preload")


def openai_chat_factory(
    spec: ModelSpec,
    *,
    base_url: str | None,
    api_key: str | None,
    timeout: float,
    temperature: float | None,
    max_tokens: int | None,
) -> BaseChatModel:
    """The real client: ``ChatOpenAI`` with its own retries off (ours are the only layer)."""
    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {}
    if temperature is not None:
        kwargs["temperature"] = temperature
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    transport = GatedTransport()
    chat = ChatOpenAI(
        model=spec.model,
        base_url=base_url,
        api_key=api_key or "not-needed",
        max_retries=0,
        timeout=timeout,
        use_responses_api=False,
        http_client=openai.DefaultHttpxClient(transport=transport),
        # Not used (calls are sync), but built by ChatOpenAI all the same: with the
        # shared TLS context rather than a CA bundle loaded for it alone.
        http_async_client=openai.DefaultAsyncHttpxClient(verify=shared_ssl_context()),
        **kwargs,
    )
    chat.client = JsonBodyCompletions(
        chat.client, transport, direct=DirectChatRequests.for_client(chat.root_client)
    )
    return chat


@functools.cache
def shared_ssl_context() -> Any:
    """The default TLS context of the HTTP library, built once per process and shared.

    Every client built its own, loading the CA bundle each time (about 20 ms of CPU, with
    the GIL held, twice per chat client: its sync and async HTTP clients), on the way to
    a build's first model call. An ``SSLContext`` is safe to share between connections
    and threads. It is the library's default (``SSL_CERT_FILE`` and ``SSL_CERT_DIR``
    honoured), so verification is unchanged.
    """
    return _http_module().create_ssl_context()


def _http_module() -> Any:
    """The HTTP library the openai SDK is built on (httpx2 from openai 3, httpx before)."""
    try:
        import httpx2
    except ImportError:  # an SDK still on httpx
        import httpx as httpx2
    return httpx2


class GatedTransport:
    """The SDK's HTTP transport with the endpoint's concurrency limit around the exchange.

    ``gate`` (set by :class:`LLMRuntime` to the endpoint's semaphore) is taken just before
    the request's bytes are written and given back once the response's last byte is read:
    the SDK builds its request before and parses the reply after, outside the limit, so a
    concurrency slot is held for the time the endpoint works and no longer. A stop asked
    for while the request waited for its place (Ctrl-C) is raised before anything is sent.

    Args:
        inner: The transport that does the work (default: the SDK's, with its pool limits).
    """

    def __init__(self, inner: Any = None) -> None:
        """Wrap ``inner``; no limit until ``gate`` is set."""
        if inner is None:
            from openai._constants import DEFAULT_CONNECTION_LIMITS

            inner = _http_module().HTTPTransport(
                limits=DEFAULT_CONNECTION_LIMITS, verify=shared_ssl_context()
            )
        self.inner = inner
        self.gate: Any = None

    def handle_request(self, request: Any) -> Any:
        """Send ``request`` and read its whole response while holding the gate."""
        with self.gate if self.gate is not None else contextlib.nullcontext():
            check_stop()
            response = self.inner.handle_request(request)
            try:
                response.read()
            except BaseException:
                response.close()
                raise
        return response

    def close(self) -> None:
        """Close the inner transport (its connection pool)."""
        self.inner.close()

    def __enter__(self) -> GatedTransport:
        """Context manager protocol of an httpx transport."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close on exit."""
        self.close()


_JSON_BODY_KEYS = ("messages", "tools", "tool_choice", "response_format")


class JsonBodyCompletions:
    """``client.chat.completions`` for ``ChatOpenAI``, sending the bulky request fields as is.

    The openai SDK walks every request through its ``TypedDict`` annotations (for field
    aliases and dates); for a chat request with a tool schema that walk was a tenth of a
    build's CPU, on the one core its threads share. The messages, tools, tool choice and
    response format langchain builds are JSON-ready dicts already: they travel in
    ``extra_body``, which the SDK merges into the body unchanged, so the JSON sent is the
    same (tests/test_structured.py compares the bodies). Everything else is the SDK's.

    ``gate`` is the endpoint's concurrency semaphore (set by :class:`LLMRuntime`); it is
    held by the client's :class:`GatedTransport` around the HTTP exchange alone.

    Args:
        completions: The SDK's ``chat.completions`` resource (or its raw-response view).
        transport: The transport of the SDK client behind ``completions``.
    """

    def __init__(
        self,
        completions: Any,
        transport: GatedTransport | None = None,
        *,
        raw: bool = False,
        direct: DirectChatRequests | None = None,
    ) -> None:
        """Wrap ``completions``.

        ``raw``: it is the SDK's raw-response view. ``direct``: the sender of its raw
        requests (see :class:`DirectChatRequests`).
        """
        self._completions = completions
        self.transport = transport
        self._raw = raw
        self._direct = direct

    @property
    def gate(self) -> Any:
        """The endpoint's concurrency semaphore (None: no limit here)."""
        return self.transport.gate if self.transport is not None else None

    @gate.setter
    def gate(self, value: Any) -> None:
        if self.transport is None:
            raise ConfigError("this client has no transport to hold a concurrency limit")
        self.transport.gate = value

    def create(self, **payload: Any) -> Any:
        """``completions.create`` with the bulky fields in ``extra_body``."""
        check_stop()  # Ctrl-C / SIGTERM: no new request is built
        if self._raw and self._direct is not None and self._direct.can_send(payload):
            return self._direct.send(payload)
        extra = dict(payload.pop("extra_body", None) or {})
        for key in _JSON_BODY_KEYS:
            if key in payload and isinstance(payload[key], list | dict):
                extra[key] = payload.pop(key)
        # ``messages`` is a required argument: an empty list, overridden by extra_body's.
        payload.setdefault("messages", [])
        reply = self._completions.create(extra_body=extra, **payload)
        return JsonReply(reply) if self._raw else reply

    @property
    def with_raw_response(self) -> JsonBodyCompletions:
        """The raw-response view, wrapped the same way (the same transport)."""
        return JsonBodyCompletions(
            self._completions.with_raw_response, self.transport, raw=True, direct=self._direct
        )

    def __getattr__(self, name: str) -> Any:
        """Anything else is the SDK resource's own."""
        return getattr(self._completions, name)


class JsonReply:
    """The SDK's raw response, whose ``parse()`` gives the reply's JSON object as a dict.

    ``ChatOpenAI`` reads a reply as a dict: given the SDK's typed ``ChatCompletion`` it
    dumps it to one first. The SDK builds that object field by field in Python and
    langchain dumps it again, a fifth of the client's CPU time a call that changes nothing
    (langchain's own code path for dict replies reads the same keys). A body that is not a
    JSON object is left to the SDK's own ``parse()`` (and to langchain's error for it).
    Everything else (``http_response``, ``headers``) is the SDK response's.

    Args:
        response: The SDK's ``LegacyAPIResponse``.
    """

    def __init__(self, response: Any) -> None:
        """Wrap ``response``."""
        self._response = response

    def parse(self) -> Any:
        """The reply's JSON object (the SDK's parse of it when it is not one)."""
        try:
            body = self.http_response.json()
        except ValueError:
            body = None
        return body if isinstance(body, dict) else self._sdk_parse()

    def _sdk_parse(self) -> Any:
        """The SDK's own parse of the reply (for a body that is not a JSON object)."""
        return self._response.parse()

    def __getattr__(self, name: str) -> Any:
        """Anything else is the SDK response's own."""
        return getattr(self._response, name)


class DirectChatRequests:
    """Sends a chat request through the SDK client's own HTTP client, past its request layer.

    For each request the SDK copies its options model twice, walks the parameters through
    its ``TypedDict`` annotations, merges and validates the headers, and wraps the reply
    in response objects: about 0.6 ms of CPU a call here, as much as the HTTP exchange
    itself, on the one core every slot thread shares (benchmarks/llm_overhead.py). For a
    client that needs none of it (benchsmith's own: a fixed API key, no query parameters,
    no provider hooks) the request is built here once per call from what the SDK would
    send: the same URL, the client's own headers (key, user agent, platform), the body as
    the SDK serializes it (``openapi_dumps``) and the client's timeout; it goes through the
    same ``httpx`` client (so the same transport, pool, proxies and concurrency gate). The
    errors are the SDK's: a status error is made by the client's own
    ``_make_status_error_from_response`` (so ``RateLimitError``, ``BadRequestError``, ...),
    a timeout is ``APITimeoutError`` and a failed connection ``APIConnectionError``.

    Streaming requests, and requests with extra headers or query parameters, go through
    the SDK as before.

    Args:
        root: The SDK client (``openai.OpenAI``).
    """

    def __init__(self, root: Any) -> None:
        """Read the client's URL, headers and timeout once (its headers do not change)."""
        from openai._utils._json import openapi_dumps

        self._root = root
        self._http = root._client
        self._dumps = openapi_dumps
        self._url = str(root.base_url).rstrip("/") + "/chat/completions"
        merged = {**root.auth_headers, **root.default_headers}
        self._headers = {k: v for k, v in merged.items() if isinstance(v, str)}
        self._headers["X-Stainless-Retry-Count"] = "0"
        self._timeout = root.timeout
        http = _http_module()
        self._timeout_errors: tuple[type[BaseException], ...] = (http.TimeoutException,)
        self._request_errors: tuple[type[BaseException], ...] = (http.RequestError,)

    @classmethod
    def for_client(cls, root: Any) -> DirectChatRequests | None:
        """The sender for ``root``, or None when its requests need the SDK's own layer.

        That is any client but a plain ``openai.OpenAI`` (Azure's, say), and one with
        default query parameters, an API-key provider, workload identity or a provider
        runtime (its auth is computed per request).
        """
        if type(root) is not openai.OpenAI:
            return None
        hooks = ("_api_key_provider", "_workload_identity_auth", "_provider_runtime")
        if any(getattr(root, name, None) is not None for name in hooks):
            return None
        needed = ("_client", "_make_status_error_from_response", "auth_headers")
        if not all(hasattr(root, name) for name in needed) or root.default_query:
            return None
        try:
            return cls(root)
        except (AttributeError, ImportError):  # an SDK whose layout differs: use its own path
            return None

    def can_send(self, payload: Mapping[str, Any]) -> bool:
        """Whether this request is one sent here (not streamed, nothing but body fields)."""
        if payload.get("stream"):
            return False
        return not any(k.startswith("extra_") and k != "extra_body" for k in payload)

    def send(self, payload: dict[str, Any]) -> DirectReply:
        """POST ``payload`` (``create``'s keyword arguments) and return the raw reply.

        Raises:
            openai.APIStatusError: The endpoint answered with an error status (the SDK's
                subclass for it).
            openai.APITimeoutError: The request timed out.
            openai.APIConnectionError: The endpoint could not be reached.
        """
        timeout = payload.pop("timeout", self._timeout)
        if isinstance(timeout, openai.NotGiven):
            timeout = self._timeout
        body = {
            k: v for k, v in payload.items() if not isinstance(v, openai.NotGiven | openai.Omit)
        }
        body.update(body.pop("extra_body", None) or {})
        headers = self._headers
        if timeout is not None:
            read = getattr(timeout, "read", timeout)
            if read is not None:
                headers = {**headers, "X-Stainless-Read-Timeout": str(read)}
        request = self._http.build_request(
            "POST", self._url, content=self._dumps(body), headers=headers, timeout=timeout
        )
        try:
            response = self._http.send(request)
        except self._timeout_errors as err:
            raise openai.APITimeoutError(request=request) from err
        except self._request_errors as err:
            raise openai.APIConnectionError(request=request) from err
        if response.status_code >= 400:
            raise self._root._make_status_error_from_response(response)
        return DirectReply(response, self._root)


class DirectReply(JsonReply):
    """A reply sent by :class:`DirectChatRequests`, read as :class:`JsonReply` reads one.

    There is no SDK response behind it: ``headers`` and ``http_response`` are the HTTP
    response's, and a body that is not a JSON object gets the SDK's parse of that response
    (so the same error as a plain client).

    Args:
        response: The HTTP response (read).
        root: The SDK client that sent it.
    """

    _response = None

    def __init__(self, response: Any, root: Any) -> None:
        """Wrap ``response``."""
        self.http_response = response
        self.headers = response.headers
        self._root = root

    def _sdk_parse(self) -> Any:
        from openai._legacy_response import LegacyAPIResponse
        from openai._models import FinalRequestOptions
        from openai.types.chat import ChatCompletion

        return LegacyAPIResponse(
            raw=self.http_response,
            cast_to=ChatCompletion,
            client=self._root,
            stream=False,
            stream_cls=None,
            options=FinalRequestOptions.construct(method="post", url="/chat/completions"),
        ).parse()


@dataclass(frozen=True)
class CallFacts:
    """What one model call cost and how it was made (from the call, or from its record)."""

    input_tokens: int
    output_tokens: int
    tokens_estimated: bool
    """The endpoint reported no usage; the tokens are estimated (4 characters a token)."""
    cost_usd: float | None
    """None when the model's price is unknown."""
    latency_s: float | None
    """Seconds the request took when it was made (None for records that predate it)."""
    cached: bool
    """Served from the run records: nothing was spent by this call."""
    params: dict[str, Any]
    """The request's sampling parameters (``temperature``, ``max_tokens``, ...)."""

    @classmethod
    def from_record(cls, record: Mapping[str, Any], params: dict[str, Any]) -> CallFacts:
        """The facts of a recorded call served again from the records."""
        usage = record.get("usage") or {}
        latency = record.get("latency_s")
        return cls(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            tokens_estimated=bool(usage.get("estimated", not usage)),
            cost_usd=record.get("cost_usd"),
            latency_s=None if latency is None else float(latency),
            cached=True,
            params=params,
        )

    def record_fields(self) -> dict[str, Any]:
        """The fields a call's record keeps of these facts (what :meth:`from_record` reads)."""
        return {
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "estimated": self.tokens_estimated,
            },
            "cost_usd": self.cost_usd,
            "latency_s": self.latency_s,
        }

    def as_dict(self) -> dict[str, Any]:
        """The facts as a JSON-ready dict."""
        return asdict(self)


def resume_command(config: RunConfig) -> str | None:
    """The command that continues a build, with its model and catalog; None for other runs.

    A resumed build takes its models and catalog from the command line again (the folder
    keeps only what shapes its items: intent, size, seed, languages, ...), so a build on a
    remote endpoint resumed with ``--resume --out`` alone would go on with the embedded model.
    """
    out_dir = config.paths.out_dir  # set by a build alone
    if not out_dir:
        return None
    words = ["benchsmith"]
    if config.config_file:
        words += ["--config", str(config.config_file)]
    words += ["build", "--resume", "--out", out_dir]
    if config.model:
        words += ["--model", config.model]
    for role, text in sorted(config.role_models.items()):
        words += ["--role-model", f"{role}={text}"]
    if config.paths.catalog_dir:
        words += ["--catalog", config.paths.catalog_dir]
    return shlex.join(words)


class LLMRuntime:
    """Everything a run's model calls share."""

    def __init__(
        self,
        *,
        models: Mapping[Role, ResolvedModel],
        settings: LLMSettings | None = None,
        records: RunRecords | None = None,
        ledger: UsageLedger | None = None,
        prices: Mapping[str, Price] | None = None,
        replay: bool = False,
        chat_factory: ChatFactory | None = None,
        sleep: Callable[[float], None] = time.sleep,
        env: Mapping[str, str] | None = None,
        resume: str | None = None,
    ) -> None:
        """Create a runtime; most callers use :meth:`from_config`.

        Args:
            models: The resolved model of every role.
            settings: How calls are made (timeouts, retries, concurrency, method).
            records: The run records; in-memory when None.
            ledger: Usage counters and budget; no budget when None.
            prices: Extra prices (configuration file) over the shipped table.
            replay: Serve every call from the records and never touch the network.
            chat_factory: Builds chat models; tests pass a scripted fake.
            sleep: Sleep used between retries (tests record it).
            env: Environment for API keys; defaults to ``os.environ``.
            resume: The command that continues this run (a build's ``--resume``), said when
                an endpoint stops answering mid-build; None for other runs.
        """
        self.models = dict(models)
        self.settings = settings or LLMSettings()
        self.records = records if records is not None else RunRecords(None)
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.prices = dict(prices or {})
        self.replay = replay
        self.chat_factory = chat_factory or openai_chat_factory
        self.env = os.environ if env is None else env
        self.retry = RetryPolicy(
            max_retries=self.settings.max_retries,
            max_wait_s=self.settings.max_retry_wait_s,
            sleep=sleep,
            resume=resume,
        )
        self.resume = resume
        self._chat_models: dict[str, BaseChatModel] = {}
        self._chat_lock = threading.Lock()
        self._revive_lock = threading.Lock()
        self.restarted: dict[str, str] = {}
        """Embedded model name -> how its server died before its one restart in this run."""
        self._timeout_scale = 1.0
        self.inflight: dict[str, threading.Event] = {}  # request key -> its reply is coming
        self.inflight_lock = threading.Lock()
        self._seed_ledger_from_records()

    @classmethod
    def from_config(
        cls,
        config: RunConfig,
        *,
        file_config: FileConfig | None = None,
        env: Mapping[str, str] | None = None,
        chat_factory: ChatFactory | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> LLMRuntime:
        """Build the runtime of a run from its configuration.

        Args:
            config: The run configuration (explicit values).
            file_config: The configuration file; read from ``config.config_file`` when None.
            env: Environment; defaults to ``os.environ``.
            chat_factory: Builds chat models; tests pass a scripted fake.
            sleep: Sleep used between retries.

        Returns:
            The runtime, with the run records opened (and the budget already charged with
            what earlier attempts of the same run spent).
        """
        env = os.environ if env is None else env
        file_config = file_config or load_file_config(config.config_file, env)
        settings_data = dict(file_config.llm)
        if config.structured_method is not None:
            settings_data["structured_method"] = config.structured_method
        # A build's --concurrency is the requests in flight unless the file sets a limit.
        settings_data.setdefault("max_concurrency", config.concurrency)
        settings = LLMSettings(**settings_data)
        models = resolve_role_models(
            model=config.model,
            role_models=config.role_models,
            file_config=file_config,
            env=env,
        )
        if config.replay and config.paths.run_dir is None:
            raise ConfigError("--replay needs the run folder whose records it replays")
        return cls(
            models=models,
            settings=settings,
            records=RunRecords(config.paths.run_dir),
            ledger=UsageLedger(budget_usd=config.budget_usd, budget_tokens=config.budget_tokens),
            prices=file_config.prices,
            replay=config.replay,
            chat_factory=chat_factory,
            sleep=sleep,
            env=env,
            resume=resume_command(config),
        )

    def _seed_ledger_from_records(self) -> None:
        """Charge the ledger with calls an earlier (killed) attempt of this run already paid."""
        specs = {m.spec.identity: m.spec for m in self.models.values()}
        for record in self.records.loaded_records:
            if record.get("kind") != "call":
                continue
            usage = record.get("usage") or {}
            spec = specs.get(record.get("model_identity", ""))
            price = price_for(spec, self.prices) if spec else None
            if record.get("cost_usd") is not None and price is None:
                price = Price(input=0.0, output=0.0)
            self.ledger.add(
                record.get("role", "unknown"),
                input_tokens=int(usage.get("input_tokens", 0)),
                output_tokens=int(usage.get("output_tokens", 0)),
                price=price,
            )

    def prewarm(self) -> threading.Thread | None:
        """Build the chat clients of the remote endpoints on a background thread.

        A client's construction (the SDK's HTTP clients and their TLS contexts) took about a
        tenth of a second, and a quarter with the slot threads contending, while every slot
        thread waited on it: built meanwhile (a build starts this before its plan is
        loaded), the first request goes out as soon as a slot has one. The embedded model is
        left alone (its server starts on first use, and a build that never asks it does not
        start it), and so is any factory but the real one (a test's scripted fakes). An
        error is left to the first real call, which reports it.

        Returns:
            The thread, or None when there is nothing to build.
        """
        if self.chat_factory is not openai_chat_factory:
            return None
        specs = {m.spec.text: m.spec for m in self.models.values() if m.spec.provider != "local"}
        todo = [spec for text, spec in specs.items() if text not in self._chat_models]
        if not todo:
            return None

        def build() -> None:
            for spec in todo:
                try:
                    chat = self.chat_model(spec)
                    root = getattr(chat, "root_client", None)
                    if root is not None:
                        root.default_headers  # noqa: B018 (the SDK's platform headers)
                except Exception:  # noqa: BLE001, S112 (the first real call reports it)
                    continue

        thread = threading.Thread(target=build, name="benchsmith-prewarm-clients", daemon=True)
        thread.start()
        return thread

    def for_role(self, role: Role) -> RoleModel:
        """The model an agent of this role uses."""
        if role not in self.models:
            raise ConfigError(f"unknown role {role!r}; roles are {', '.join(self.models)}")
        return RoleModel(self, role, self.models[role].spec)

    def structured_method(self, spec: ModelSpec) -> StructuredMethod:
        """The structured-output method for a spec (configured, else the endpoint's best)."""
        return self.settings.structured_method or spec.default_structured_method

    def call_params(self, spec: ModelSpec) -> dict[str, Any]:
        """Sampling parameters of a spec; part of every cache key."""
        temperature = self.settings.temperature
        max_tokens = self.settings.max_tokens
        if spec.provider == "local":
            temperature = 0.0 if temperature is None else temperature
            max_tokens = max_tokens or LOCAL_DEFAULT_MAX_TOKENS
        return {"temperature": temperature, "max_tokens": max_tokens}

    def chat_model(self, spec: ModelSpec) -> BaseChatModel:
        """The chat client of a spec, built on first use (the embedded server starts here)."""
        if spec.text in self._chat_models:
            return self._chat_models[spec.text]
        with self._chat_lock:  # built once, however many slot threads ask at once
            if spec.text not in self._chat_models:
                self._chat_models[spec.text] = self._new_chat_model(spec)
        return self._chat_models[spec.text]

    def _new_chat_model(self, spec: ModelSpec) -> BaseChatModel:
        base_url = spec.base_url
        api_key = self.env.get(spec.api_key_env) if spec.api_key_env else None
        if spec.provider == "local" and self.chat_factory is openai_chat_factory:
            # Only the real client talks to the server: a test's scripted fake answers
            # without one, so starting it would cost a process and its start-up for nothing.
            # lazy: httpx, ~70 ms that a run on remote models (benchsmith eval) need not pay
            from benchsmith.llm.local import local_server

            server = local_server(self.settings.local_context, model=spec.model)
            base_url = server.ensure_started()
        elif spec.provider == "openai" and not api_key:
            raise ConfigError(
                f"model {spec.text!r} needs OPENAI_API_KEY; export it or put it in .env "
                "(see .env.example)"
            )
        params = self.call_params(spec)
        model = self.chat_factory(
            spec,
            base_url=base_url,
            api_key=api_key,
            timeout=self.settings.timeout_s,
            temperature=params["temperature"],
            max_tokens=params["max_tokens"],
        )
        client = getattr(model, "client", None)
        if isinstance(client, JsonBodyCompletions) and client.transport is not None:
            # The endpoint's semaphore is held around the request alone (see the class).
            client.gate = endpoint_semaphore(spec.endpoint_key, self.concurrency_limit(spec))
        return model

    def revive(self, spec: ModelSpec, used: BaseChatModel, error: ModelError) -> BaseChatModel:
        """The chat model to send a failed call again with, once a dead embedded server runs.

        Once per embedded model and run (a build): a server that dies a second time in the
        same run stops it. One restart covers what happens to a long build now and then (the
        out-of-memory killer, a stray ``kill``); a second death in the same run points at a
        cause a restart does not remove (a request that crashes llama.cpp, too little
        memory), and each restart costs the model's start-up (seconds for SmolLM2, tens of
        seconds for the reader on two cores) and its prompt cache. Calls that failed on the
        same dead server at the same time share the one restart.

        Args:
            spec: The call's model spec.
            used: The chat model the failed call was sent with.
            error: Why the call failed.

        Returns:
            The chat model of the server started again (or of the one another call started).

        Raises:
            ModelError: ``error`` itself when the endpoint is not an embedded server that
                died (a remote one, a timeout, a server that is alive); a
                :class:`~benchsmith.errors.ModelUnavailableError` when it died a second
                time; a :class:`~benchsmith.errors.LocalModelError` when it did not start.
        """
        if spec.provider != "local" or self.chat_factory is not openai_chat_factory:
            raise error
        from benchsmith.llm.local import local_server

        check_stop()  # a server stopped on Ctrl-C is not started again
        server = local_server(self.settings.local_context, model=spec.model)
        label = server.model.label
        with self._revive_lock:
            current = self._chat_models.get(spec.text)
            if current is not None and current is not used and server.running():
                return current  # another call restarted it while this one waited
            if server.running():
                raise error  # alive: a timeout or an error of its own, not a death
            died = server.died()
            note = server.death_note()
            if died and spec.model in self.restarted:
                first = self.restarted[spec.model]
                first = "the same way" if first == note else f"{first} the first time"
                raise ModelUnavailableError(
                    f"{label}'s server ({spec.text}) died again {self._when()} ({note}), after "
                    f"its one restart in this run (it died {first}); {self._how_to_go_on()}",
                    detail=note,
                ) from error
            started = time.monotonic()
            try:
                server.restart()
            except LocalModelError as exc:
                raise LocalModelError(
                    f"{label}'s server ({spec.text}) died {self._when()} ({note}) and did not "
                    f"start again: {exc}; {self._how_to_go_on()}"
                ) from error
            if died:  # one stopped by benchsmith itself is started again without counting
                self.restarted[spec.model] = note
            with self._chat_lock:  # every client of the model knew the old server's port
                for text in [t for t in self._chat_models if self._serves(t, spec)]:
                    del self._chat_models[text]
            self.retry.forget_down(spec)
            self.records.append(
                {
                    "kind": "server_restart",
                    "model": spec.text,
                    "died": note if died else "stopped",
                    "answered_before": self.retry.answered(spec),
                    "restart_s": round(time.monotonic() - started, 3),
                    "ts": round(time.time(), 3),
                }
            )
            return self.chat_model(spec)

    def _serves(self, text: str, spec: ModelSpec) -> bool:
        """Whether the chat model cached under ``text`` talks to ``spec``'s embedded server."""
        specs = [m.spec for m in self.models.values() if m.spec.text == text]
        return any(s.provider == "local" and s.model == spec.model for s in specs) or (
            text == spec.text
        )

    def _when(self) -> str:
        return "mid-build" if self.resume else "mid-run"

    def _how_to_go_on(self) -> str:
        """How to go on after the run stopped for an endpoint (its finished work is kept)."""
        if self.resume:
            return (
                "what is finished is kept; continue the build with its options and --resume: "
                f"{self.resume}"
            )
        return "run the command again (answered calls are served from the run records)"

    def request_timeout(self, spec: ModelSpec) -> dict[str, float]:
        """The timeout of the next request to the embedded model (none for other endpoints).

        The embedded model shares the machine's cores with everything else: each timeout
        doubles the next one (up to 8x ``timeout_s``), so a loaded machine slows the build
        down rather than aborting it.
        """
        if spec.provider != "local":
            return {}
        return {"timeout": self.settings.timeout_s * self._timeout_scale}

    def timed_out(self, spec: ModelSpec) -> None:
        """Note a timeout of the embedded model (the next request waits twice as long)."""
        if spec.provider == "local":
            self._timeout_scale = min(8.0, self._timeout_scale * 2)

    def concurrency_limit(self, spec: ModelSpec) -> int:
        """Requests allowed in flight at once to the spec's endpoint."""
        if spec.provider == "local":
            return self.settings.local_max_concurrency
        return self.settings.max_concurrency


class RoleModel:
    """The model of one role, as an agent uses it."""

    def __init__(self, runtime: LLMRuntime, role: Role, spec: ModelSpec) -> None:
        """Bind a role to its model within a runtime."""
        self.runtime = runtime
        self.role = role
        self.spec = spec

    @property
    def name(self) -> str:
        """The model's spec as text (``local``, ``openai:gpt-4o``)."""
        return self.spec.text

    def structured_method(self) -> StructuredMethod:
        """The structured-output method this role's model takes."""
        return self.runtime.structured_method(self.spec)

    def max_attempts(self) -> int:
        """Attempts at a valid structured reply before giving up."""
        return self.runtime.settings.max_attempts

    def record(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` to the run records."""
        self.runtime.records.append(entry)

    def invoke(self, messages: Sequence[Any], **params: Any) -> AIMessage:
        """Send one chat request (or serve it from the run records).

        The same as :meth:`call` without the facts.
        """
        return self.call(messages, **params)[0]

    def call(self, messages: Sequence[Any], **params: Any) -> tuple[AIMessage, CallFacts]:
        """Send one chat request (or serve it from the run records), with its facts.

        Args:
            messages: Chat messages (langchain messages, or ``(role, text)`` pairs).
            **params: Request parameters such as ``tools``, ``tool_choice`` or
                ``response_format``; they are part of the cache key.

        Returns:
            The reply, and its tokens, cost, latency and parameters (those of the original
            call when it is served from the records).

        Raises:
            ReplayMissError: Replaying and this call is not in the records.
            BudgetExceededError: The budget is spent.
            ModelRequestError: The endpoint refused the request.
            ModelUnavailableError: The endpoint kept failing.
        """
        rt = self.runtime
        msgs: list[BaseMessage] = convert_to_messages(list(messages))
        wire_messages = convert_to_openai_messages(msgs)
        key_params = {**rt.call_params(self.spec), **params}
        key = request_key(self.spec.identity, wire_messages, key_params)
        recorded = rt.records.lookup(key)
        if recorded is not None:
            rt.ledger.add(self.role, input_tokens=0, output_tokens=0, price=None, cached=True)
            return _message_from_record(recorded), CallFacts.from_record(recorded, key_params)
        if rt.replay:
            raise ReplayMissError(self._replay_miss(key))
        # Single flight: the same request already in flight is paid once; the others wait
        # for its reply and are served from the records (or try themselves if it failed).
        with rt.inflight_lock:
            pending = rt.inflight.get(key)
            if pending is None:
                rt.inflight[key] = threading.Event()
        if pending is not None:
            pending.wait()
            return self.call(messages, **params)
        try:
            return self._send(key, msgs, wire_messages, key_params, params)
        finally:
            with rt.inflight_lock:
                rt.inflight.pop(key).set()

    def _replay_miss(self, key: str) -> str:
        """Why a replayed call has no record: no records at all, or not this call."""
        rt = self.runtime
        where = rt.records.path or "memory"
        held = len(rt.records)
        if held == 0:
            return (
                f"replay: {where} holds no recorded model calls (missing, empty or from "
                "another folder), so nothing can be replayed; run it without --replay"
            )
        return (
            f"replay: no recorded reply for a {self.role} call to {self.spec.text} "
            f"(key {key[:12]}) among the {held} call(s) in {where}: the run was stopped before "
            "this call was answered, or its inputs changed since; run it without --replay"
        )

    def _send(
        self,
        key: str,
        msgs: list[BaseMessage],
        wire_messages: list,
        key_params: dict[str, Any],
        params: dict[str, Any],
    ) -> tuple[AIMessage, CallFacts]:
        """Send one request (with retries), charge it and record it; the reply and its facts."""
        rt = self.runtime
        # Ctrl-C / SIGTERM: no new request once a stop is asked for (those in flight finish).
        check_stop()
        price = price_for(self.spec, rt.prices)
        with rt.ledger.reserve(self.role, price):
            started = time.monotonic()
            try:
                chat = rt.chat_model(self.spec)
                revived = 0
                while True:
                    try:
                        request = self._request(chat, msgs, params)
                        reply, attempts = rt.retry.call(request, self.spec)
                        break
                    except ModelUnavailableError as exc:
                        # An embedded server that died is started again, once a run; one
                        # that dies again (on this very call, say) stops the run with why.
                        revived += 1
                        if revived > 2:
                            raise
                        chat = rt.revive(self.spec, chat, exc)
            except ModelError as exc:
                rt.ledger.add_failure(self.role)
                rt.records.append(
                    self._base_record(key, wire_messages, key_params)
                    | {
                        "kind": "error",
                        "error": str(exc),
                        "error_type": type(exc).__name__,
                    }
                )
                raise
            latency = round(time.monotonic() - started, 4)
            usage = reply.usage_metadata or {}
            input_tokens = int(usage.get("input_tokens") or 0)
            output_tokens = int(usage.get("output_tokens") or 0)
            estimated = not usage
            if estimated:
                # No usage in the reply: estimate (4 characters a token) so budgets still hold.
                input_tokens = max(1, len(canonical_json(wire_messages)) // 4)
                output_tokens = max(1, len(canonical_json(message_to_dict(reply))) // 4)
            cost = rt.ledger.add(
                self.role, input_tokens=input_tokens, output_tokens=output_tokens, price=price
            )
        facts = CallFacts(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            tokens_estimated=estimated,
            cost_usd=cost,
            latency_s=latency,
            cached=False,
            params=key_params,
        )
        rt.records.append(
            self._base_record(key, wire_messages, key_params)
            | {"kind": "call", "response": message_to_dict(reply)}
            | facts.record_fields()
            | {"attempts": attempts}
        )
        return reply, facts

    def _request(
        self, chat: BaseChatModel, msgs: list[BaseMessage], params: dict[str, Any]
    ) -> Callable[[], AIMessage]:
        """One request of this call to ``chat``, for the retry policy to make."""
        rt = self.runtime
        # The real client holds the endpoint's semaphore around its request alone; any
        # other chat model (a test's fake) is held to it around the whole call.
        client = getattr(chat, "client", None)
        semaphore = (
            contextlib.nullcontext()
            if isinstance(client, JsonBodyCompletions) and client.gate is not None
            else endpoint_semaphore(self.spec.endpoint_key, rt.concurrency_limit(self.spec))
        )

        def one_request() -> AIMessage:
            with semaphore:
                try:
                    reply = chat.invoke(msgs, **params, **rt.request_timeout(self.spec))
                except openai.LengthFinishReasonError as exc:
                    reply = _finish_error_message(exc.completion, "length")
                except openai.APITimeoutError:
                    rt.timed_out(self.spec)
                    raise
                except openai.ContentFilterFinishReasonError:
                    reply = AIMessage(
                        content="",
                        additional_kwargs={"refusal": "blocked by the content filter"},
                        response_metadata={"finish_reason": "content_filter"},
                    )
            if not isinstance(reply, AIMessage):
                raise TypeError(f"chat model returned {type(reply).__name__}")
            return reply

        return one_request

    def _base_record(self, key: str, wire_messages: list, params: dict) -> dict:
        return {
            "key": key,
            "prompt_hash": sha256_text(canonical_json(wire_messages)),
            "role": self.role,
            "model": self.spec.text,
            "model_identity": self.spec.identity,
            "request": {"messages": wire_messages, "params": params},
            "ts": round(time.time(), 3),
        }

    def structured(
        self,
        schema: type[T],
        messages: Sequence[Any],
        *,
        max_attempts: int | None = None,
    ) -> T:
        """Ask for a reply that validates against a pydantic model.

        Args:
            schema: The pydantic model of the decision.
            messages: The prompt.
            max_attempts: Attempts before giving up (default from the settings).

        Returns:
            The validated object.

        Raises:
            StructuredOutputError: Every attempt was invalid, refused, truncated or empty.
        """
        return structured_call(self, schema, messages, max_attempts=max_attempts).value


def _finish_error_message(completion: Any, finish_reason: str) -> AIMessage:
    """The reply inside an error the OpenAI client raises for a cut-off parsed completion."""
    content = ""
    try:
        content = completion.choices[0].message.content or ""
    except (AttributeError, IndexError):
        pass
    usage = getattr(completion, "usage", None)
    usage_metadata = None
    if usage is not None:
        usage_metadata = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens,
        }
    return AIMessage(
        content=content,
        response_metadata={"finish_reason": finish_reason},
        usage_metadata=usage_metadata,
    )


def _message_from_record(record: dict) -> AIMessage:
    (message,) = messages_from_dict([record["response"]])
    assert isinstance(message, AIMessage)
    return message
