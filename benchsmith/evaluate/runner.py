"""Running models on every item: bounded concurrency, cached responses, media skips.

Each (model, item) pair is one task of a thread pool of ``concurrency`` workers. Real models
are called through the run's model runtime (``RoleModel.call`` under the ``solver`` role),
so every reply is written to the run records and a rerun is served from them: an
interrupted evaluation resumes where it stopped and a finished one makes no new call.
Each answered response keeps the facts of its call (tokens, cost, latency, sampling
parameters; those of the original call when served from the records).
Baselines (:mod:`benchsmith.evaluate.baselines`) answer without an endpoint.

A failure that every item would meet ends the run with that typed error (the CLI prints it
as one line and exits non-zero): nothing listens at the endpoint, its host is unknown
(:class:`~benchsmith.errors.ModelUnreachableError`), it rejects the key or denies access
(401, 403), has no such model (404), the quota is spent, or the embedded model cannot start;
so do budget exhaustion and replay misses. Answers received before are in the run records.

Images and audio go to the model as content parts. Only an explicit refusal counts as "model
cannot take image/audio" and skips the item: the embedded SmolLM2-135M is text only, so its
media items are skipped without a request; any other endpoint must say so in its error (an
HTTP error whose message says the media is not supported, e.g. a 400 "image input is not
supported"), and later items with the same kind of media are then skipped without a request.
Any other failure of one item (a 500 after every retry, a timeout, a 400 that names no
media) is recorded as an error of that item.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from langchain_core.messages import AIMessage

from benchsmith.errors import (
    LocalModelError,
    ModelError,
    ModelRequestError,
    ModelUnreachableError,
)
from benchsmith.evaluate.baselines import baseline_answer, is_baseline
from benchsmith.evaluate.messages import MediaPathError, item_messages
from benchsmith.item import Item
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.specs import parse_model_spec

Status = Literal["answered", "skipped", "error"]

EVAL_ROLE = "solver"
SAMPLE_TEMPERATURE = 0.7
"""Temperature of the extra samples of ``calibrate --epochs`` (a common sampling default)."""
"""The role under which models under evaluation are called (and counted in the ledger)."""


@dataclass
class Response:
    """What one model answered to one item."""

    model: str
    item_id: str
    status: Status
    answer: str = ""
    reason: str = ""
    call: dict | None = None
    """The call's :class:`~benchsmith.llm.client.CallFacts` as a dict (None: no model call)."""

    def as_dict(self) -> dict:
        """The response as a JSON-ready dict."""
        return asdict(self)


def reply_text(message: AIMessage) -> str:
    """The text of a reply (text parts joined when the content is a list)."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
    return "".join(parts)


def media_kinds(item: Item) -> set[str]:
    """The media kinds (``image``, ``audio``) of an item's input."""
    return {kind for kind, _path in item.media_paths()}


FATAL_STATUSES = frozenset({401, 402, 403, 404, 429})
"""HTTP statuses that no item can get past: bad key, no credit, no access, no such model,
spent quota (a transient 429 is retried and never reaches here as a request error)."""


def ends_the_run(exc: ModelError) -> bool:
    """Whether a model's failure on one item means it cannot be evaluated on any.

    Args:
        exc: The error of one request (after the retry layer's retries).

    Returns:
        True for an unreachable endpoint, a 401/402/403/404 or spent quota, or an embedded
        model that cannot start.
    """
    if isinstance(exc, ModelUnreachableError | LocalModelError):
        return True
    return isinstance(exc, ModelRequestError) and exc.status_code in FATAL_STATUSES


_REFUSAL = re.compile(
    r"not supported|unsupported|(?:does|do) not (?:support|accept)|"
    r"(?:doesn't|don't) (?:support|accept)|no support|only supported|not enabled|"
    r"not a multi-?modal|\btext[- ]only\b|only (?:takes|accepts|supports) text",
    re.IGNORECASE,
)
_KIND_WORDS = {
    "image": re.compile(r"image|vision|picture|photo", re.IGNORECASE),
    "audio": re.compile(r"audio|speech|sound", re.IGNORECASE),
}
_ANY_MEDIA = re.compile(
    r"multi-?modal|modalit|media|content (?:part|type)|\btext[- ]only\b|only (?:takes|accepts|"
    r"supports) text",
    re.IGNORECASE,
)


def refused_kinds(exc: ModelError, kinds: set[str]) -> set[str]:
    """The media kinds an endpoint's error explicitly refuses, among an item's.

    An error counts when the endpoint answered with an HTTP status and a message that says
    some input is not supported (``image input is not supported``, ``image_url is only
    supported by certain models``, ``... is not a multimodal model``); it refuses the kinds
    it names, or all the item's kinds when it names only multimodal input or content types.

    Args:
        exc: The error of a request that held media.
        kinds: The item's media kinds.

    Returns:
        The refused kinds (empty when the error is no explicit refusal).
    """
    status = getattr(exc, "status_code", None)
    detail = str(getattr(exc, "detail", "") or "")
    if not kinds or status is None or status in FATAL_STATUSES or not _REFUSAL.search(detail):
        return set()
    named = {kind for kind in kinds if _KIND_WORDS[kind].search(detail)}
    if named:
        return named
    return set(kinds) if _ANY_MEDIA.search(detail) else set()


class ModelRunner:
    """Asks one model every item (thread-safe; shared by the pool's workers)."""

    def __init__(
        self,
        spec: str,
        runtime: LLMRuntime | None,
        *,
        seed: int,
        bench_dir: Path,
        epoch: int = 0,
    ):
        """Prepare a model.

        Args:
            spec: A model spec, or a baseline (``baseline:random``, ``baseline:first``).
            runtime: The run's model runtime (unused by baselines).
            seed: The run seed (baselines).
            bench_dir: The benchmark folder (media).
            epoch: Which sample of each item this is: 0 is the reproducible answer
                ``benchsmith eval`` asks for; each later epoch is one more sample, drawn at
                :data:`SAMPLE_TEMPERATURE` (unless ``[llm] temperature`` is set) with the
                request's ``seed`` set to the epoch, so that it is its own record.
        """
        self.spec = spec
        self.seed = seed + epoch
        self.bench_dir = bench_dir
        self.model: RoleModel | None = None
        self._refused: dict[str, str] = {}
        self._lock = threading.Lock()
        self.local = False
        if not is_baseline(spec):
            if runtime is None:
                raise ValueError(f"model {spec!r} needs a model runtime")
            parsed = parse_model_spec(spec, runtime.env)
            self.model = RoleModel(runtime, EVAL_ROLE, parsed)
            self.local = parsed.provider == "local"
            # Reproducible answers: greedy decoding unless [llm] temperature says otherwise.
            self.params = {"temperature": 0.0} if runtime.settings.temperature is None else {}
            if epoch:
                self.params = {
                    **({"temperature": SAMPLE_TEMPERATURE} if self.params else {}),
                    "seed": epoch,
                }

    def answer(self, item: Item) -> Response:
        """The model's response to one item (never raises for a per-item failure)."""
        if self.model is None:
            answer = baseline_answer(self.spec, item, seed=self.seed)
            return Response(self.spec, item.id, "answered", answer)
        kinds = media_kinds(item)
        if kinds and self.local:
            return Response(
                self.spec,
                item.id,
                "skipped",
                reason=f"model cannot take {'/'.join(sorted(kinds))}: the embedded model "
                "(SmolLM2-135M) reads text only",
            )
        with self._lock:
            refused = {k: self._refused[k] for k in kinds if k in self._refused}
        if refused:
            kind, why = next(iter(sorted(refused.items())))
            return Response(
                self.spec, item.id, "skipped", reason=f"model cannot take {kind} ({why})"
            )
        try:
            messages = item_messages(item, self.bench_dir)
        except MediaPathError as exc:
            return Response(self.spec, item.id, "error", reason=str(exc))
        try:
            reply, facts = self.model.call(messages, **self.params)
        except ModelError as exc:
            if ends_the_run(exc):
                raise
            refused = refused_kinds(exc, kinds)
            if refused:
                why = f"the endpoint refused it: HTTP {exc.status_code}: {exc.detail}"
                with self._lock:
                    for kind in refused:
                        self._refused.setdefault(kind, why)
                return Response(
                    self.spec,
                    item.id,
                    "skipped",
                    reason=f"model cannot take {'/'.join(sorted(refused))} ({why})",
                )
            return Response(self.spec, item.id, "error", reason=str(exc))
        return Response(self.spec, item.id, "answered", reply_text(reply), call=facts.as_dict())


def run_models(
    items: Sequence[Item],
    models: Sequence[str],
    *,
    bench_dir: str | Path,
    runtime: LLMRuntime | None,
    seed: int = 0,
    concurrency: int = 4,
    on_done: Callable[[Response], None] | None = None,
    epoch: int = 0,
) -> dict[str, list[Response]]:
    """Run every model on every item.

    Args:
        items: The items.
        models: Model specs (and baselines), each run once.
        bench_dir: The benchmark folder (media paths are relative to it).
        runtime: The run's model runtime (None only when every model is a baseline).
        seed: The run seed (baselines).
        concurrency: Pairs in flight at once (the endpoint's own limit also applies).
        on_done: Called after each pair (progress bars).
        epoch: Which sample of each item (see :class:`ModelRunner`); 0 is ``eval``'s.

    Returns:
        Model spec to its responses, in item order.

    Raises:
        ModelUnreachableError: Nothing answers at a model's endpoint.
        ModelRequestError: An endpoint rejects the key, denies access, has no such model
            or no quota left (see :func:`ends_the_run`).
        LocalModelError: The embedded model cannot start.
        BudgetExceededError: The budget ran out.
        ReplayMissError: Replaying and a call is not in the records.
    """
    folder = Path(bench_dir)
    runners = {m: ModelRunner(m, runtime, seed=seed, bench_dir=folder, epoch=epoch) for m in models}
    out: dict[str, list[Response | None]] = {m: [None] * len(items) for m in models}
    stop = threading.Event()

    def ask(model: str, item: Item) -> Response | None:
        if stop.is_set():  # a failure ends the run: a worker that is free asks nothing more
            return None
        try:
            return runners[model].answer(item)
        except BaseException:
            stop.set()
            raise

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {
            pool.submit(ask, m, item): (m, i) for m in models for i, item in enumerate(items)
        }
        try:
            for future in as_completed(futures):
                model, index = futures[future]
                response = future.result()
                if response is None:
                    continue
                out[model][index] = response
                if on_done is not None:
                    on_done(response)
        except BaseException:
            # Stop at the first failure that ends the run: nothing not yet started starts.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return {m: [r for r in responses if r is not None] for m, responses in out.items()}
