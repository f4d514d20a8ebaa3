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

import math
import shutil
import threading
from pathlib import Path
from typing import Any

from benchsmith.agents.execution import Draft, distinct_texts, execute
from benchsmith.agents.orchestration import (
    TemplateMissingError,
    field_value,
    orchestrate,
    value_text,
)
from benchsmith.agents.sources import catalog_sources, run_config
from benchsmith.agents.verification import ReviewContext, verify
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
        # A dataset's own folder (its media files may sit beside its data file).
        for grounding in spec.groundings:
            for source in self._sources:
                if grounding.dataset_id in source:
                    data = Path(source.data_path(grounding.dataset_id))
                    roots.append(data if data.is_dir() else data.parent)
                    break
        self.tool_context = ToolContext(
            media_dir=self.run_dir / "work",
            seed=config.seed,
            limits=Limits(),
            run_dir=self.run_dir,
            allowed_roots=tuple(p.resolve() for p in roots),
        )
        self._voices: dict[str, str] | None = None
        self._computed: dict[str, list[Any]] = {}
        self._computed_lock = threading.Lock()
        self.template_notes = self._ensure_templates()

    def _ensure_templates(self) -> list[str]:
        """Give groundings of an older plan (no question templates) the card's own templates.

        A plan written by the planner or a person keeps its templates as written. Returns
        what was derived, or why a language could not get a template.
        """
        from benchsmith.agents.grounding import pick_templates

        notes: list[str] = []
        groundings = []
        for g in self.spec.groundings:
            if g.question_templates or g.strategy != "records":
                groundings.append(g)
                continue
            card = self._card(g.dataset_id)
            if card is None:
                groundings.append(g)
                continue
            subtask = self.subtasks[g.subtask_id]
            picked = pick_templates(
                None,
                subtask,
                card,
                question_field=g.question_field,
                answer_field=g.answer_field,
                has_media=any(f.modality in MEDIA_MODALITIES for f in card.fields)
                and g.question_field is None,
            )
            groundings.append(
                g.model_copy(
                    update={
                        "question_templates": picked.templates,
                        "template_source": picked.source,
                    }
                )
            )
            notes.append(f"{g.id}: question templates from the card ({picked.source or 'none'})")
            notes += [f"{g.id}: no {lang} template: {why}" for lang, why in picked.missing.items()]
        # A language no grounding of its subtask has a template for is dropped (and said
        # so), never filled with another language's text or left to fail slot by slot.
        from benchsmith.agents.templates import template_for

        subtasks = []
        for subtask in self.spec.subtasks:
            mine = [g for g in groundings if g.subtask_id == subtask.id and g.strategy == "records"]
            if not subtask.languages or not mine:
                subtasks.append(subtask)
                continue
            kept = [
                lang
                for lang in subtask.languages
                if any(template_for(g.question_templates, lang) for g in mine)
            ]
            for lang in subtask.languages:
                if lang not in kept:
                    notes.append(
                        f"{subtask.id}: language {lang} dropped: no question template in {lang}"
                    )
            subtasks.append(subtask.model_copy(update={"languages": kept or subtask.languages}))
        if notes:
            self.spec = self.spec.model_copy(
                update={"groundings": groundings, "subtasks": subtasks}
            )
            self.subtasks = {s.id: s for s in subtasks}
            self.groundings = {g.id: g for g in groundings}
        return notes

    def _card(self, dataset_id: str) -> Any:
        for source in self._sources:
            if dataset_id in source:
                return source.get(dataset_id)
        return None

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

    def reference_path(self, dataset_id: str) -> Path:
        """The document behind a reference card.

        Its original file when it is still there, else one rebuilt (as Markdown sections)
        from the passages the catalog kept.
        """
        for source in self._sources:
            if dataset_id in source:
                card = source.get(dataset_id)
                original = Path(card.provenance.source) if card.provenance.source else None
                if original is not None and original.is_file():
                    return original
                rebuilt = self.run_dir / "references" / f"{dataset_id}.md"
                if not rebuilt.is_file():
                    rebuilt.parent.mkdir(parents=True, exist_ok=True)
                    text, section = [], None
                    for record in self.records(dataset_id):
                        if record.get("section") != section:
                            section = record.get("section")
                            text.append(f"\n## {section}\n")
                        text.append(str(record.get("text", "")))
                    rebuilt.write_text("\n".join(text), encoding="utf-8")
                return rebuilt
        raise ConfigError(f"reference {dataset_id!r} of the plan is in no catalog")

    def computed_items(self, grounding: Grounding) -> list[Any]:
        """The problems a solution-graph grounding draws from (generated once per build).

        The reference's formulas become a solution graph; ``available_records`` problems are
        generated with a seed derived from the run's and the grounding's, so a new seed gives
        fresh problems. The coverage, rejected formulas and dropped items are written to
        ``.run/computed-<grounding>.json`` for the report.
        """
        with self._computed_lock:  # one generation per grounding; other slots wait for it
            cached = self._computed.get(grounding.id)
            if cached is None:
                cached = self._computed[grounding.id] = self._generate(grounding)
            return cached

    def _generate(self, grounding: Grounding) -> list[Any]:
        import json

        from benchsmith.llm.registry import get_model
        from benchsmith.solution import generate_items
        from benchsmith.tools.context import stable_seed

        subtask = self.subtasks[grounding.subtask_id]
        fmt = subtask.answer_format
        both = ("numeric", "multiple_choice")
        formats = (fmt,) if fmt in both else both
        # The embedded model cannot word or solve problems better than the template can.
        wording = get_model(self.config, "orchestration")
        solver = get_model(self.config, "solver")
        quota = sum(a.quota for a in self.spec.allocations if a.grounding_id == grounding.id)
        wanted = max(16, math.ceil(quota * self.config.max_slots_factor))
        result = generate_items(
            [self.reference_path(grounding.dataset_id)],
            min(grounding.available_records, wanted),
            seed=stable_seed(self.config.seed, grounding.id) % (2**31),
            answer_formats=formats,
            model=None if wording.spec.provider == "local" else wording,
            solver=None if solver.spec.provider == "local" else solver,
            subtask_id=subtask.id,
        )
        summary = {
            "grounding_id": grounding.id,
            "reference": grounding.dataset_id,
            "coverage": result.coverage.to_dict(),
            "coverage_table": result.coverage.table(),
            "rejected_formulas": [r.to_dict() for r in result.rejected_formulas],
            "rejected_items": result.rejected_items,
            "stats": result.stats,
            "solution_report": result.report,
        }
        from benchsmith.package.writer import atomic_write

        items = interleave_cells(result.items)

        atomic_write(
            self.run_dir / f"computed-{grounding.id}.json",
            json.dumps(summary, indent=2, default=str) + "\n",
        )
        return items

    def realize_computed(
        self, slot: dict[str, Any], grounding: Grounding, outcome: dict[str, Any]
    ) -> dict[str, Any]:
        """A solution-graph slot: take the computed problem, verify it, accept or discard.

        No local fix: the generator already rewords a problem its solver check rejects.
        """
        problems = self.computed_items(grounding)
        index = slot["record_index"]
        if index >= len(problems):
            reason = (
                f"the reference's solution graph gave {len(problems)} problems, "
                f"fewer than {index + 1}"
            )
            self.ledger.reject(slot, reason, check="source", attempts=0)
            return outcome | {"status": "rejected", "reason": reason, "attempts": 0}
        item = problems[index].model_copy(deep=True)
        item.id = slot["item_id"]
        reference = item.metadata.pop("source", None)
        item.metadata["reference"] = reference
        item.metadata["source"] = {
            "dataset": grounding.dataset_id,
            "record_index": index,
            "grounding": grounding.id,
            "strategy": "solution_graph",
        }
        item.metadata.setdefault("language", slot.get("language"))
        judge = self._judge()
        result = verify(
            item,
            question=item.input_text(),
            subtask=self.subtasks[grounding.subtask_id],
            bench_dir=self.bench_dir,
            languages=[slot["language"]] if slot.get("language") else None,
            source_text=None,
            judge=judge,
            duplicates=self.duplicates,
            limits=self.tool_context.limits,
            judge_enforced=self._judge_enforced(judge),
            review=ReviewContext(language=slot.get("language") or "en", max_words=150),
        )
        if not result.ok:
            self.ledger.reject(
                slot, result.reason, check=result.failed_check or "", attempts=1, history=[]
            )
            return outcome | {"status": "rejected", "reason": result.reason, "attempts": 1}
        item.metadata["verification"] = result.record()
        item.metadata["fixes"] = 0
        self.ledger.accept(slot, item)
        return outcome | {"status": "accepted", "item_id": item.id, "attempts": 1}

    def _judge(self) -> Any:
        """The verification role's model when the judge runs (None: judging is off).

        ``auto`` skips the judge when that role is the embedded model: its verdicts could
        not be enforced, and asking for them took nearly all of a build's time.
        """
        from benchsmith.llm.registry import get_model

        mode = self.config.judge
        if mode == "off":
            return None
        judge = get_model(self.config, "verification")
        if mode == "auto" and judge.spec.provider == "local":
            return None
        return judge

    def _judge_enforced(self, judge: Any) -> bool:
        mode = self.config.judge
        return judge is not None and mode in ("enforce", "auto")

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
        if grounding.strategy == "solution_graph":
            return self.realize_computed(slot, grounding, outcome)
        subtask = self.subtasks[grounding.subtask_id]
        record = self.record(grounding.dataset_id, slot["record_index"])
        media = self.media_fields(grounding.dataset_id)
        answer = value_text(field_value(record, grounding.answer_field))
        if not answer:
            reason = f"record has no value in the answer field {grounding.answer_field!r}"
            self.ledger.reject(slot, reason, check="record", attempts=0)
            return outcome | {"status": "rejected", "reason": reason, "attempts": 0}
        orchestrator = get_model(config, "orchestration")
        judge = self._judge()
        enforce = self._judge_enforced(judge)
        languages = [slot["language"]] if slot.get("language") else None
        source_text = self.source_text(record, media)
        feedback: list[str] = []
        history: list[dict[str, Any]] = []
        work = self.run_dir / "work" / slot["item_id"]
        check = "tool"
        entity = value_text(field_value(record, grounding.question_field)) or None
        for attempt in range(config.max_fix_attempts + 1):
            try:
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
            except TemplateMissingError as exc:
                reason = f"template: {exc}"
                history.append({"attempt": attempt + 1, "check": "template", "reason": reason})
                self.ledger.reject(slot, reason, check="template", attempts=len(history))
                return outcome | {"status": "rejected", "reason": reason, "attempts": len(history)}
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
            except TemplateMissingError as exc:
                reason, fixable, check = f"template: {exc}", False, "template"
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
                    review=ReviewContext(
                        language=slot.get("language") or "en",
                        entity=entity,
                        expected=answer,
                        texts={
                            "shown": draft.shown_text,
                            "spoken": draft.item.metadata.get("spoken_text") or "",
                        },
                        clean_speech=draft.clean_speech,
                        spoken_text=draft.item.metadata.get("spoken_text"),
                        rendered_image=draft.rendered_image,
                    ),
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


def interleave_cells(items: list[Any]) -> list[Any]:
    """Computed items in round-robin order over (concept, steps) cells.

    Slots take problems in order, so any prefix (the quota, then refills) must spread over
    the concepts and difficulties the generator balanced instead of filling one cell first.
    Cells are visited on diagonals (the p-th cell has concept ``p mod C`` and difficulty
    ``(p + p // C) mod K``), so even the first ``C`` items cover every concept and every
    difficulty.
    """
    cells: dict[tuple[str, Any], list[Any]] = {}
    for item in items:
        concepts = item.metadata.get("concepts") or [""]
        cells.setdefault((str(concepts[0]), item.metadata.get("steps")), []).append(item)
    concepts = list(dict.fromkeys(c for c, _k in cells))
    steps = sorted({k for _c, k in cells}, key=lambda k: (k is None, k))
    keys: list[tuple[str, Any]] = []
    for p in range(len(concepts) * len(steps)):
        key = (concepts[p % len(concepts)], steps[(p + p // len(concepts)) % len(steps)])
        if key in cells and key not in keys:
            keys.append(key)
    keys += [key for key in cells if key not in keys]  # when the diagonals repeat a cell
    order = [cells[key] for key in keys]
    out: list[Any] = []
    depth = max((len(q) for q in order), default=0)
    for i in range(depth):
        out.extend(q[i] for q in order if i < len(q))
    return out


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
