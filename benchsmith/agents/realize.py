"""Sample realization: orchestrate, execute, verify, fix locally or discard (one slot).

A *slot* is one attempt at one item: a grounding, a raw record (by index), a language and
the item id it would get. :func:`realize_node` is the target of the executor's ``Send``
fan-out; it realizes one slot and returns a small outcome (ids and a reason, never the
item), while the accepted item itself goes to the build ledger on disk.

:class:`Workspace` holds what the slots of one build share: the spec, the ledger, the
duplicate index, the loaded records of each dataset and the tool context. There is one per
benchmark folder in a process (:func:`workspace_for`), so parallel slots share it.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

from benchsmith.agents.execution import Draft, distinct_texts, execute
from benchsmith.agents.orchestration import field_value, orchestrate, value_text
from benchsmith.agents.sources import catalog_sources, run_config
from benchsmith.agents.verification import verify
from benchsmith.catalog.cards import MEDIA_MODALITIES
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, InputRejectedError, ToolError, ToolParamError
from benchsmith.package.ledger import Ledger
from benchsmith.spec import BenchmarkSpec, Grounding, Subtask
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.verify.duplicates import DuplicateIndex

MAX_SOURCE_CHARS = 20_000


class Workspace:
    """Shared state of one build in this process.

    Args:
        config: The run configuration (``out_dir`` and ``run_dir`` must be set).
        spec: The plan being realized.
    """

    def __init__(self, config: RunConfig, spec: BenchmarkSpec) -> None:
        """Open the ledger and rebuild the duplicate index from the accepted items."""
        if not config.out_dir or not config.run_dir:
            raise ConfigError("a build needs an output folder (--out)")
        self.config = config
        self.spec = spec
        self.bench_dir = Path(config.out_dir)
        self.run_dir = Path(config.run_dir)
        self.subtasks: dict[str, Subtask] = {s.id: s for s in spec.subtasks}
        self.groundings: dict[str, Grounding] = {g.id: g for g in spec.groundings}
        self.ledger = Ledger(self.run_dir)
        self.duplicates = DuplicateIndex(media_root=self.bench_dir)
        for item in self.ledger.accepted_items():
            self.duplicates.add(item)
        self._lock = threading.Lock()
        self._records: dict[str, list[dict[str, Any]]] = {}
        self._answers: dict[tuple[str, str], list[str]] = {}
        self._sources = catalog_sources(config)
        roots = [self.bench_dir, self.run_dir, *(Path(s.root) for s in self._sources)]
        self.tool_context = ToolContext(
            media_dir=self.run_dir / "work",
            seed=config.seed,
            limits=Limits(),
            run_dir=self.run_dir,
            allowed_roots=tuple(p.resolve() for p in roots),
        )
        self._voices: dict[str, str] | None = None

    # -- data -------------------------------------------------------------------------------
    def records(self, dataset_id: str) -> list[dict[str, Any]]:
        """Every record of a dataset (loaded once per build, from the first catalog having it)."""
        with self._lock:
            cached = self._records.get(dataset_id)
            if cached is not None:
                return cached
            for source in self._sources:
                if dataset_id in source:
                    loaded = list(source.records(dataset_id))
                    self._records[dataset_id] = loaded
                    return loaded
        raise ConfigError(
            f"dataset {dataset_id!r} of the plan is in no catalog; add it with "
            "`benchsmith catalog add` or pass it with --dataset"
        )

    def record(self, dataset_id: str, index: int) -> dict[str, Any]:
        """One record by index."""
        return self.records(dataset_id)[index]

    def answer_values(self, dataset_id: str, answer_field: str) -> list[str]:
        """The distinct values of a field across a dataset, as text (the distractor pool)."""
        key = (dataset_id, answer_field)
        with self._lock:
            if key in self._answers:
                return self._answers[key]
        values = distinct_texts([field_value(r, answer_field) for r in self.records(dataset_id)])
        with self._lock:
            self._answers[key] = values
        return values

    def media_fields(self, dataset_id: str) -> set[str]:
        """Record fields holding image/audio paths."""
        for source in self._sources:
            if dataset_id in source:
                card = source.get(dataset_id)
                return {f.path for f in card.fields if f.modality in MEDIA_MODALITIES}
        return set()

    def voices(self) -> dict[str, str]:
        """espeak-ng voice name to language (loaded once)."""
        if self._voices is None:
            try:
                from benchsmith.tools.tts import available_voices

                self._voices = available_voices()
            except ToolError:
                self._voices = {}
        return self._voices

    def source_text(self, record: dict[str, Any], media: set[str]) -> str:
        """The record's text, which an item must not copy verbatim."""
        parts = [value_text(v) for k, v in record.items() if k not in media]
        return "\n".join(p for p in parts if p)[:MAX_SOURCE_CHARS]

    # -- one slot ---------------------------------------------------------------------------
    def realize(self, slot: dict[str, Any]) -> dict[str, Any]:
        """Realize one slot: up to ``max_fix_attempts`` local fixes, then accept or discard.

        Returns:
            The outcome: ``{"slot", "grounding_id", "subtask_id", "status", "item_id",
            "reason", "attempts"}``.
        """
        from benchsmith.llm.registry import get_model

        outcome = {
            "slot": slot["id"],
            "grounding_id": slot["grounding_id"],
            "subtask_id": slot["subtask_id"],
        }
        if self.ledger.is_done(slot["id"]):
            return outcome | {"status": "skipped", "reason": "finished in an earlier attempt"}
        config = self.config
        grounding = self.groundings[slot["grounding_id"]]
        subtask = self.subtasks[grounding.subtask_id]
        record = self.record(grounding.dataset_id, slot["record_index"])
        media = self.media_fields(grounding.dataset_id)
        answer = value_text(field_value(record, grounding.answer_field))
        if not answer:
            reason = f"record has no value in the answer field {grounding.answer_field!r}"
            self.ledger.reject(slot, reason, check="record", attempts=0)
            return outcome | {"status": "rejected", "reason": reason, "attempts": 0}
        orchestrator = get_model(config, "orchestration")
        judge = get_model(config, "verification") if config.judge != "off" else None
        enforce = config.judge == "enforce" or (
            config.judge == "auto" and judge is not None and judge.spec.provider != "local"
        )
        languages = [slot["language"]] if slot.get("language") else None
        source_text = self.source_text(record, media)
        feedback: list[str] = []
        history: list[dict[str, Any]] = []
        work = self.run_dir / "work" / slot["item_id"]
        check = "tool"
        for attempt in range(config.max_fix_attempts + 1):
            decision = orchestrate(
                orchestrator,
                slot,
                subtask,
                grounding,
                record,
                seed=config.seed,
                media_fields=media,
                voices=self.voices(),
                feedback=feedback,
            )
            shutil.rmtree(work, ignore_errors=True)
            draft: Draft | None = None
            try:
                draft = execute(
                    slot,
                    subtask,
                    grounding,
                    record,
                    decision,
                    bench_dir=self.bench_dir,
                    work_dir=work,
                    seed=config.seed,
                    answer_values=self.answer_values(grounding.dataset_id, grounding.answer_field),
                    tool_context=self.tool_context,
                )
            except InputRejectedError as exc:
                reason, fixable, check = f"tool: {exc}", False, "tool"
            except ToolParamError as exc:
                reason, check = f"tool: {exc}", "tool"
                fixable = decision.source == "model" and bool(decision.params)
            except ToolError as exc:
                reason, fixable, check = f"tool: {exc}", False, "tool"
            if draft is not None:
                result = verify(
                    draft.item,
                    question=draft.question,
                    subtask=subtask,
                    bench_dir=self.bench_dir,
                    languages=languages,
                    source_text=source_text,
                    judge=judge,
                    judge_enforced=enforce,
                    duplicates=self.duplicates,
                    limits=self.tool_context.limits,
                )
                if result.ok:
                    item = draft.item
                    item.metadata["verification"] = result.record()
                    item.metadata["fixes"] = attempt
                    item.metadata["fix_history"] = history
                    self.ledger.accept(slot, item)
                    shutil.rmtree(work, ignore_errors=True)
                    return outcome | {
                        "status": "accepted",
                        "item_id": item.id,
                        "attempts": attempt + 1,
                    }
                reason, fixable, check = result.reason, result.fixable, result.failed_check or ""
                self._drop_media(draft)
            history.append({"attempt": attempt + 1, "check": check, "reason": reason[:300]})
            if not fixable:
                break
            feedback.append(reason[:300])
        shutil.rmtree(work, ignore_errors=True)
        self.ledger.reject(slot, reason, check=check, attempts=len(history), history=history)
        return outcome | {"status": "rejected", "reason": reason, "attempts": len(history)}

    def _drop_media(self, draft: Draft) -> None:
        for _kind, path in draft.item.media_paths():
            (self.bench_dir / path).unlink(missing_ok=True)


_WORKSPACES: dict[str, Workspace] = {}
_LOCK = threading.Lock()


def workspace_for(config: RunConfig, spec: BenchmarkSpec | dict[str, Any]) -> Workspace:
    """The workspace of a build (one per benchmark folder in this process)."""
    key = str(Path(config.out_dir or "").resolve())
    with _LOCK:
        ws = _WORKSPACES.get(key)
        if ws is None or ws.config != config:
            parsed = spec if isinstance(spec, BenchmarkSpec) else BenchmarkSpec.model_validate(spec)
            ws = _WORKSPACES[key] = Workspace(config, parsed)
        return ws


def forget_workspace(config: RunConfig) -> None:
    """Drop a build's workspace (after it is packaged, or in tests)."""
    with _LOCK:
        _WORKSPACES.pop(str(Path(config.out_dir or "").resolve()), None)


def realize_node(slot: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Graph node (a ``Send`` target): realize one sample slot.

    The workspace was opened by the collect node of this build (which holds the spec).
    """
    config = run_config(runtime)
    with _LOCK:
        ws = _WORKSPACES.get(str(Path(config.out_dir or "").resolve()))
    if ws is None:
        raise ConfigError("realize ran before collect opened the build's workspace")
    outcome = ws.realize(slot)
    return {"tallies": {f"{outcome['subtask_id']}:{outcome['status']}": 1}}
