"""Running models on every item: bounded concurrency, cached responses, media skips.

Each (model, item) pair is one task of a thread pool of ``concurrency`` workers. Real models
are called through the run's model runtime (``RoleModel.call`` under the ``solver`` role),
so every reply is written to the run records and a rerun is served from them: an
interrupted evaluation resumes where it stopped and a finished one makes no new call.
Each answered response keeps the facts of its call (tokens, cost, latency, sampling
parameters; those of the original call when served from the records).
Baselines (:mod:`benchsmith.evaluate.baselines`) answer without an endpoint.

Images and audio go to the model as content parts. An endpoint that cannot take them is
skipped per item, never failing the run: the embedded SmolLM2-135M is text only, so its
media items are skipped without a request; for any other model, a request with media that
fails is recorded as a skip ("model cannot take image/audio"), and later items with the
same kind of media are skipped without a request. Other failures of one item are recorded
as errors; budget exhaustion and replay misses stop the run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from langchain_core.messages import AIMessage

from benchsmith.errors import ModelError
from benchsmith.evaluate.baselines import baseline_answer, is_baseline
from benchsmith.evaluate.messages import MediaPathError, item_messages
from benchsmith.item import Item
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.specs import parse_model_spec

Status = Literal["answered", "skipped", "error"]

EVAL_ROLE = "solver"
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


class ModelRunner:
    """Asks one model every item (thread-safe; shared by the pool's workers)."""

    def __init__(self, spec: str, runtime: LLMRuntime | None, *, seed: int, bench_dir: Path):
        """Prepare a model.

        Args:
            spec: A model spec, or a baseline (``baseline:random``, ``baseline:first``).
            runtime: The run's model runtime (unused by baselines).
            seed: The run seed (baselines).
            bench_dir: The benchmark folder (media).
        """
        self.spec = spec
        self.seed = seed
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
            if kinds:
                with self._lock:
                    for kind in kinds:
                        self._refused.setdefault(kind, f"the endpoint refused it: {exc}")
                return Response(
                    self.spec,
                    item.id,
                    "skipped",
                    reason=f"model cannot take {'/'.join(sorted(kinds))} (the endpoint refused "
                    f"the request: {exc})",
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

    Returns:
        Model spec to its responses, in item order.

    Raises:
        BudgetExceededError: The budget ran out.
        ReplayMissError: Replaying and a call is not in the records.
    """
    folder = Path(bench_dir)
    runners = {m: ModelRunner(m, runtime, seed=seed, bench_dir=folder) for m in models}
    out: dict[str, list[Response | None]] = {m: [None] * len(items) for m in models}
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {
            pool.submit(runners[m].answer, item): (m, i)
            for m in models
            for i, item in enumerate(items)
        }
        try:
            for future in as_completed(futures):
                model, index = futures[future]
                response = future.result()
                out[model][index] = response
                if on_done is not None:
                    on_done(response)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return {m: [r for r in responses if r is not None] for m, responses in out.items()}
