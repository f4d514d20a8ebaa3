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

import contextlib
import math
import shutil
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from benchsmith.agents.backups import TailBackups
from benchsmith.agents.execution import Draft, distinct_texts, execute
from benchsmith.agents.orchestration import (
    TemplateMissingError,
    orchestrate,
)
from benchsmith.agents.slot_queue import SlotQueue
from benchsmith.agents.sources import catalog_sources, run_config
from benchsmith.agents.templates import answer_field_for, question_slot
from benchsmith.agents.verification import ReviewContext, verify
from benchsmith.catalog.cards import MEDIA_MODALITIES, field_value, value_text
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, InputRejectedError, ToolError, ToolParamError
from benchsmith.graph.state import Failure, Slot, SlotState, SlotStatus
from benchsmith.ledger import Ledger
from benchsmith.spec import COMPUTED, BenchmarkSpec, Grounding, Subtask
from benchsmith.stopping import check_stop, stop_requested
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
        if not config.paths.out_dir or not config.paths.run_dir:
            raise ConfigError("a build needs an output folder (--out)")
        self.config = config
        self.spec = spec
        self.bench_dir = Path(config.paths.out_dir)
        self.run_dir = Path(config.paths.run_dir)
        self.subtasks: dict[str, Subtask] = {s.id: s for s in spec.subtasks}
        self.groundings: dict[str, Grounding] = {g.id: g for g in spec.groundings}
        self.ledger = Ledger(self.run_dir)
        self.duplicates = DuplicateIndex(media_root=self.bench_dir)
        for item in self.ledger.accepted_items():
            self.duplicates.add(item)
        self._lock = threading.Lock()
        self._records: dict[str, list[dict[str, Any]]] = {}
        self._answers: dict[tuple[str, str], list[str]] = {}
        self._answers_lock = threading.Lock()
        self._sources = catalog_sources(config)
        self._cards: dict[str, Any] = {}
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
        self._voices_lock = threading.Lock()
        self.queue = SlotQueue()
        """The round's slots no slot task has taken yet (set by ``collect``)."""
        self.reserve: dict[str, Any] = {}
        """Per grounding, this round's :class:`~benchsmith.agents.collect.Reserve` (set by
        ``collect``): the records a rejected slot replaces itself with."""
        self._computed: dict[str, list[Any]] = {}
        self._computed_lock = threading.Lock()
        self._tables: dict[str, Any] = {}
        self._warm_started = False
        budgeted = config.budget_usd is not None or config.budget_tokens is not None
        self.backups = TailBackups(
            enabled=config.tail_backups == "on" or (config.tail_backups == "auto" and not budgeted)
        )
        """Speculative slots at the end of each fan-out (:mod:`benchsmith.agents.backups`)."""
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
                        "answer_fields": picked.answer_fields,
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
        """A dataset's card, read once per build (every slot step asks for it)."""
        if dataset_id not in self._cards:
            card = None
            for source in self._sources:
                if dataset_id in source:
                    card = source.get(dataset_id)
                    break
            self._cards[dataset_id] = card
        return self._cards[dataset_id]

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
        """The distinct values of a field across a dataset, as text (the distractor pool).

        Computed once: the first slot computes it while the others wait (every slot of the
        first wave asked at once, and each computed the whole pool, 13 of them in a 500-item
        build, all in its first second).
        """
        key = (dataset_id, answer_field)
        cached = self._answers.get(key)
        if cached is not None:
            return cached
        with self._answers_lock:
            if key not in self._answers:
                records = self.records(dataset_id)
                self._answers[key] = distinct_texts([field_value(r, answer_field) for r in records])
            return self._answers[key]

    def media_fields(self, dataset_id: str) -> set[str]:
        """Record fields holding image/audio paths."""
        card = self._card(dataset_id)
        if card is None:
            return set()
        return {f.path for f in card.fields if f.modality in MEDIA_MODALITIES}

    def reference_path(self, dataset_id: str) -> Path:
        """The document behind a reference card.

        Its original file when it is still there, else one rebuilt (as Markdown sections)
        from the passages the catalog kept.
        """
        card = self._card(dataset_id)
        if card is None:
            raise ConfigError(f"reference {dataset_id!r} of the plan is in no catalog")
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
        references = [self.reference_path(grounding.dataset_id)]
        options: dict[str, Any] = {
            "answer_formats": formats,
            "model": None if wording.spec.provider == "local" else wording,
            "solver": None if solver.spec.provider == "local" else solver,
            "subtask_id": subtask.id,
        }
        if self.config.difficulty_mix:
            # The graph is built once for the candidates of every label.
            from benchsmith.solution.knowledge import build_knowledge

            options["knowledge"] = build_knowledge(references, model=options["model"])
        result = generate_items(
            references,
            min(grounding.available_records, wanted),
            seed=stable_seed(self.config.seed, grounding.id) % (2**31),
            **options,
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
        from benchsmith.files import atomic_write

        items = interleave_cells(result.items)
        if self.config.difficulty_mix:
            more = self._problems_for_mix(grounding, items, quota, references, options)
            items += more
            summary["difficulty_mix_candidates"] = len(more)

        atomic_write(
            self.run_dir / f"computed-{grounding.id}.json",
            json.dumps(summary, indent=2, default=str) + "\n",
        )
        return items

    def take_computed(self, slot: Slot, grounding: Grounding) -> Draft | Failure:
        """A solution-graph slot's computed problem, as a draft.

        There is no local fix: the generator already rewords what its solver check rejects.
        """
        problems = self.computed_items(grounding)
        index = slot.record_index
        if index >= len(problems):
            reason = (
                f"the reference's solution graph gave {len(problems)} problems, "
                f"fewer than {index + 1}"
            )
            return Failure(reason=reason, check="source", counts=False)
        item = problems[index].model_copy(deep=True)
        item.id = slot.item_id
        reference = item.metadata.pop("source", None)
        item.metadata["reference"] = reference
        item.metadata["source"] = {
            "dataset": grounding.dataset_id,
            "record_index": index,
            "grounding": grounding.id,
            "strategy": "solution_graph",
        }
        item.metadata.setdefault("language", slot.language)
        return Draft(item=item, question=item.input_text(), answer=item.target, trace=[])

    def table(self, dataset_id: str) -> Any:
        """A dataset as a question-program table (built once per build)."""
        with self._computed_lock:
            cached = self._tables.get(dataset_id)
            if cached is not None:
                return cached
        from benchsmith.programs import build_table

        card = self._card(dataset_id)
        table = build_table(
            dataset_id,
            self.records(dataset_id),
            card.fields if card is not None else [],
            card_entity=card.entity if card is not None else {},
            intent=self.spec.intent,
        )
        with self._computed_lock:
            return self._tables.setdefault(dataset_id, table)

    def program_tables(self, grounding: Grounding) -> dict[str, Any]:
        """Every table a program reads (its own and those its hops lead to)."""
        assert grounding.program is not None
        ids = [grounding.program.table, *(h.table for h in grounding.program.hops)]
        return {i: self.table(i) for i in dict.fromkeys(ids)}

    def program_instances(self, grounding: Grounding, language: str) -> list[Any]:
        """The instances a question-program grounding draws from, per language (made once).

        ``max_slots_factor`` times the quota (at least 16) are generated with a seed from
        the run's and the grounding's, so a new seed gives fresh items; the same seed gives
        the same records in every language.
        """
        from benchsmith.programs import generate
        from benchsmith.tools.context import stable_seed

        key = f"{grounding.id}@{language}"
        with self._computed_lock:
            cached = self._computed.get(key)
        if cached is not None:
            return cached
        assert grounding.program is not None
        quota = sum(a.quota for a in self.spec.allocations if a.grounding_id == grounding.id)
        wanted = max(16, math.ceil(quota * self.config.max_slots_factor))
        if self.config.difficulty_mix:
            # More of the program's own candidates to choose from (the first ones are
            # those a build without a mix draws: generation is prefix-stable).
            wanted = max(wanted, 2 * quota)
        made = generate(
            grounding.program,
            self.program_tables(grounding),
            n=min(grounding.available_records, wanted),
            seed=stable_seed(self.config.seed, grounding.id) % (2**31),
            language=language,
        )
        if self.config.difficulty_mix:
            # Only the first ``available_records`` candidates are ever drawn.
            made += self._instances_for_mix(grounding, made, quota, language)
            made = made[: grounding.available_records]
        with self._computed_lock:
            return self._computed.setdefault(key, made)

    # -- a difficulty mix ------------------------------------------------------------------------
    def _mix_goals(self, quota: int, have: Counter[str]) -> dict[str, int]:
        """Candidates still wanted per label: twice its share of the quota, less those made.

        Twice: the candidates of a label must also cover its rejections.
        """
        from benchsmith.difficulty_mix import apportion

        wanted = apportion(quota, self.config.difficulty_mix or {})
        return {k: max(0, 2 * n - have[k]) for k, n in wanted.items() if n}

    def _problems_for_mix(
        self,
        grounding: Grounding,
        items: list[Any],
        quota: int,
        references: list[Path],
        options: dict[str, Any],
    ) -> list[Any]:
        """Further computed problems of the labels the first candidates lack.

        A short label gets problems of chains that tend to it (:data:`MIX_STEPS`), drawn
        with seeds of their own, kept only when their predicted label is the one wanted
        and their solution graph is new; :data:`MIX_ATTEMPTS` draws per label at most.
        """
        import json

        from benchsmith.solution import generate_items
        from benchsmith.tools.context import stable_seed

        have = Counter(str(i.metadata.get("difficulty")) for i in items)
        seen = {json.dumps(i.metadata.get("solution_graph"), sort_keys=True) for i in items}
        extra: list[Any] = []
        for label, goal in self._mix_goals(quota, have).items():
            for attempt in range(MIX_ATTEMPTS):
                if goal <= 0:
                    break
                seed = stable_seed(self.config.seed, grounding.id, "mix", label, attempt)
                result = generate_items(
                    references,
                    max(16, 3 * goal),
                    seed=seed % (2**31),
                    difficulties=MIX_STEPS[label],
                    **options,
                )
                for item in result.items:
                    key = json.dumps(item.metadata.get("solution_graph"), sort_keys=True)
                    if goal > 0 and item.metadata.get("difficulty") == label and key not in seen:
                        seen.add(key)
                        extra.append(item)
                        goal -= 1
        return extra

    def _instances_for_mix(
        self, grounding: Grounding, made: list[Any], quota: int, language: str
    ) -> list[Any]:
        """Further program instances of the labels the first candidates lack.

        Made with the program's variants (:func:`program_variants`: more or fewer records
        ranked, rows shown or aggregated), kept only when their predicted label is one
        still wanted and their prompt is new; each keeps its variant's parameters.
        """
        from benchsmith.programs import ProgramError, WordsMissing, generate
        from benchsmith.tools.context import stable_seed

        assert grounding.program is not None
        tables = self.program_tables(grounding)
        table = tables[grounding.program.table]
        have = Counter(str(i.difficulty.get("label")) for i in made)
        goals = self._mix_goals(quota, have)
        seen = {i.prompt(language) for i in made}
        extra: list[Any] = []
        for number, variant in enumerate(program_variants(grounding.program, len(table.records))):
            if not any(goals.values()):
                break
            spec = grounding.program.model_copy(update=variant)
            try:
                found = generate(
                    spec,
                    tables,
                    n=max(16, 2 * quota),
                    seed=stable_seed(self.config.seed, grounding.id, "mix", number) % (2**31),
                    language=language,
                )
            except (ProgramError, WordsMissing):
                continue
            for instance in found:
                label = str(instance.difficulty.get("label"))
                prompt = instance.prompt(language)
                if goals.get(label, 0) > 0 and prompt not in seen:
                    seen.add(prompt)
                    instance.variant = dict(variant)
                    extra.append(instance)
                    goals[label] -= 1
        return extra

    def candidate_labels(self) -> dict[str, list[str | None]]:
        """Per computed grounding, the predicted label of each candidate, by record index.

        A question program's candidates are those of its subtask's first language (the
        same seed draws the same records in every language).
        """
        from benchsmith.programs import ProgramError, WordsMissing

        out: dict[str, list[str | None]] = {}
        for grounding in self.spec.groundings:
            if grounding.strategy == "solution_graph":
                items = self.computed_items(grounding)
                out[grounding.id] = [i.metadata.get("difficulty") for i in items]
            elif grounding.strategy == "question_program":
                subtask = self.subtasks[grounding.subtask_id]
                language = (subtask.languages or list(self.config.languages) or ["en"])[0]
                try:
                    made = self.program_instances(grounding, language)
                except (ProgramError, WordsMissing):
                    made = []
                out[grounding.id] = [i.difficulty.get("label") for i in made]
        return out

    def take_program(self, slot: Slot, grounding: Grounding) -> Draft | Failure:
        """A question-program slot's item, computed by executing the program."""
        from benchsmith.programs import ProgramError, WordsMissing
        from benchsmith.programs.items import to_item
        from benchsmith.tools.context import stable_seed

        language = slot.language or "en"
        try:
            instances = self.program_instances(grounding, language)
        except (ProgramError, WordsMissing) as exc:
            return Failure(reason=f"source: {exc}", check="source", counts=False)
        index = slot.record_index
        if index >= len(instances):
            reason = (
                f"the {grounding.program.kind if grounding.program else ''} program over "
                f"{grounding.dataset_id} gave {len(instances)} distinct items, "
                f"fewer than {index + 1}"
            )
            return Failure(reason=reason, check="source", counts=False)
        instance = instances[index]
        assert grounding.program is not None
        # A candidate made for a difficulty mix carries its own parameters (rows, k).
        program = grounding.program.model_copy(update=instance.variant)
        item = to_item(
            instance,
            program,
            item_id=slot.item_id,
            language=language,
            seed=stable_seed(self.config.seed, slot.id, "choices"),
            subtask=self.subtasks[grounding.subtask_id],
        )
        item.metadata["source"] = {
            "dataset": grounding.dataset_id,
            "record_index": instance.rows[0] if instance.rows else index,
            "grounding": grounding.id,
            "strategy": "question_program",
        }
        return Draft(item=item, question=instance.question, answer=instance.answer, trace=[])

    def _check_program(
        self, slot: Slot, grounding: Grounding, draft: Draft, common: dict[str, Any]
    ) -> Any:
        """Verify a question-program item: the usual checks and the program re-executed."""
        from benchsmith.verify.programs import check_program

        program = draft.item.metadata.get("program") or {}
        kind = program.get("kind")
        names = tuple(program.get("named") or ())
        # A lookup names its record; a comparison names every record it ranks (the answer
        # is one of them by construction); an open-book item shows its rows.
        entity = names[0] if kind in ("lookup", "filtered_lookup", "multihop") and names else None
        aliases = names if kind in ("compare", "superlative") else ()
        review = ReviewContext(
            language=slot.language or "en",
            entity=entity,
            alternatives=tuple(a for a in aliases if a != entity),
            dedupe_key=f"{kind}:{program.get('rows')}",
        )
        return verify(
            draft.item,
            question=draft.question,
            source_text=None,
            review=review,
            context_shown=program.get("book") == "open",
            # The program executed again, among the checks before the judge and duplicates.
            recomputed=check_program(draft.item, self.program_tables(grounding)),
            **common,
        )

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
        """espeak-ng voice name to language (loaded once, by one thread)."""
        if self._voices is None:
            with self._voices_lock:
                if self._voices is None:
                    try:
                        from benchsmith.tools.tts import available_voices

                        self._voices = available_voices()
                    except ToolError:
                        self._voices = {}
        return self._voices

    def voices_for(self, grounding: Grounding) -> dict[str, str] | None:
        """The voices a grounding's plan may choose among; None when it chooses no voice."""
        chooses = any(
            name == "voice" and rng.choices
            for step in grounding.plan
            for name, rng in step.ranges.items()
        )
        return self.voices() if chooses else None

    def source_text(self, record: dict[str, Any], media: set[str]) -> str:
        """The record's text, which an item must not copy verbatim."""
        parts = [value_text(v) for k, v in record.items() if k not in media]
        return "\n".join(p for p in parts if p)[:MAX_SOURCE_CHARS]

    # -- one slot: the steps the slot subgraph's nodes take ------------------------------------
    def answer_of(self, slot: Slot) -> str:
        """The record's answer for a records slot (empty when the record has none)."""
        grounding = self.groundings[slot.grounding_id]
        record = self.record(grounding.dataset_id, slot.record_index)
        return value_text(field_value(record, answer_field_for(grounding, slot.language)))

    def decide(self, slot: Slot, feedback: list[str]) -> Any:
        """The orchestration role's decision for a records slot (raises TemplateMissingError)."""
        from benchsmith.llm.registry import get_model

        grounding = self.groundings[slot.grounding_id]
        model = get_model(self.config, "orchestration")
        return orchestrate(
            model,
            slot.record(),
            self.subtasks[grounding.subtask_id],
            grounding,
            self.record(grounding.dataset_id, slot.record_index),
            seed=self.config.seed,
            media_fields=self.media_fields(grounding.dataset_id),
            voices=self.voices_for(grounding),
            feedback=feedback,
            reword=self.rewords(model),
        )

    def rewords(self, model: Any) -> bool:
        """Whether the orchestration model is asked to reword questions (``config.reword``).

        ``auto`` does not ask the embedded 135M model: its rewordings fail the wording checks
        (none of 34 passed in the demo builds), as it words no computed problem either.
        """
        if self.config.reword == "auto":
            return model.spec.provider != "local"
        return self.config.reword == "on"

    def replacement(self, slot: Slot) -> Slot | None:
        """A slot in place of ``slot``: its grounding's next reserved record, in its language.

        A rejected slot goes on with it, and a tail backup races ``slot`` with it.
        """
        reserve = self.reserve.get(slot.grounding_id)
        return reserve.take(like=slot) if reserve is not None else None

    def work_dir(self, slot: Slot) -> Path:
        """Scratch folder of a slot's tools (emptied before each attempt, removed after)."""
        return self.run_dir / "work" / slot.item_id

    def run_tools(self, slot: Slot, decision: Any) -> Draft | Failure:
        """Execute a decision's tools into a draft, or say why not and whether to retry."""
        grounding = self.groundings[slot.grounding_id]
        work = self.work_dir(slot)
        shutil.rmtree(work, ignore_errors=True)
        try:
            return execute(
                slot.record(),
                self.subtasks[grounding.subtask_id],
                grounding,
                self.record(grounding.dataset_id, slot.record_index),
                decision,
                bench_dir=self.bench_dir,
                work_dir=work,
                seed=self.config.seed,
                answer_values=self.answer_values(
                    grounding.dataset_id, answer_field_for(grounding, slot.language)
                ),
                tool_context=self.tool_context,
            )
        except TemplateMissingError as exc:
            return Failure(reason=f"template: {exc}", check="template")
        except InputRejectedError as exc:
            return Failure(reason=f"tool: {exc}", check="tool")
        except ToolParamError as exc:
            # Parameters the model chose can be chosen again; a template's cannot.
            fixable = decision.source == "model" and bool(decision.params)
            return Failure(reason=f"tool: {exc}", check="tool", retry=fixable)
        except ToolError as exc:
            return Failure(reason=f"tool: {exc}", check="tool")

    def check(self, slot: Slot, draft: Draft) -> Any:
        """Verify a draft (structural, reviewer, duplicate and judge checks)."""
        grounding = self.groundings[slot.grounding_id]
        subtask = self.subtasks[grounding.subtask_id]
        judge = self._judge()
        common = {
            "subtask": subtask,
            "bench_dir": self.bench_dir,
            "languages": [slot.language] if slot.language else None,
            "judge": judge,
            "judge_enforced": self._judge_enforced(judge),
            "duplicates": self.duplicates,
            "limits": self.tool_context.limits,
        }
        language = slot.language or "en"
        if grounding.strategy == "question_program":
            return self._check_program(slot, grounding, draft, common)
        if grounding.strategy == "solution_graph":
            review = ReviewContext(language=language, max_words=150)
            return verify(
                draft.item, question=draft.question, source_text=None, review=review, **common
            )
        record = self.record(grounding.dataset_id, slot.record_index)
        media = self.media_fields(grounding.dataset_id)
        spoken = draft.item.metadata.get("spoken_text")
        # The entity as the slot language's template names it (``names.fr`` in French).
        entity = question_slot(
            grounding.question_templates, slot.language, grounding.question_field
        )
        review = ReviewContext(
            language=language,
            entity=value_text(field_value(record, entity)) or None,
            expected=self.answer_of(slot),
            texts={"shown": draft.shown_text, "spoken": spoken or ""},
            clean_speech=draft.clean_speech,
            spoken_text=spoken,
            rendered_image=draft.rendered_image,
        )
        return verify(
            draft.item,
            question=draft.question,
            source_text=self.source_text(record, media),
            review=review,
            **common,
        )

    def warm_packaging(self) -> None:
        """Load the packaging modules on a background thread, once per build.

        Packaging imports pyarrow's pandas layer, the card and the exports (about 0.5 s of
        CPU) and reads the source the exports copy: once the first item is accepted the
        slots spend most of their time waiting on the model, so this happens then rather
        than after the last item.
        """
        with self._lock:
            if self._warm_started:
                return
            self._warm_started = True

        def warm() -> None:
            with contextlib.suppress(Exception):  # packaging reports its own errors
                from benchsmith.package import card, inspect_export  # noqa: F401
                from benchsmith.package.hf_export import preload
                from benchsmith.package.lmeval_export import render_utils
                from benchsmith.review import journal  # noqa: F401

                preload()
                render_utils()

        threading.Thread(target=warm, name="benchsmith-warm-packaging", daemon=True).start()

    def drop_media(self, draft: Draft) -> None:
        """Remove a failed draft's media from the benchmark folder."""
        for _kind, path in draft.item.media_paths():
            (self.bench_dir / path).unlink(missing_ok=True)


MIX_STEPS: dict[str, tuple[int, ...]] = {"easy": (1,), "medium": (1, 2, 3), "hard": (3, 4)}
"""Chain lengths whose problems tend to each label, for the further candidates of a mix."""
MIX_ATTEMPTS = 2
"""Draws of further problems per short label (each with a seed of its own)."""


def program_variants(spec: Any, n_records: int) -> list[dict[str, Any]]:
    """Parameters of a program that make harder or easier candidates of the same question.

    More or fewer records ranked (a superlative's ``k``), rows counted or aggregated, rows
    shown in an open-book prompt; within the table's size and the parameters' bounds. A
    comparison of two or a closed-book lookup has none (its candidates vary by themselves).
    """
    out: list[dict[str, Any]] = []
    if spec.kind == "superlative":
        for k in (3, 4, 5, 6, 8, 10):
            if k != spec.k and k <= n_records:
                same = spec.rows_shown == spec.k
                out.append({"k": k, **({"rows_shown": k} if same else {})})
    elif spec.kind in ("count", "aggregate") or (spec.book == "open" and spec.kind != "compare"):
        for rows in (3, 4, 6, 8, 10, 12):
            low = 4 if spec.kind in ("count", "aggregate") else 2
            if rows != spec.rows_shown and low <= rows <= min(12, n_records):
                out.append({"rows_shown": rows})
    return out


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


_WORKSPACES: dict[str, tuple[RunConfig, tuple[int, int], Workspace]] = {}
_LOCK = threading.Lock()
_LAST: tuple[RunConfig, tuple[int, int], Workspace] | None = None
"""The workspace last opened, with its config object and plan version (see
:func:`open_workspace`)."""


def open_workspace(config: RunConfig) -> Workspace:
    """The workspace of the build ``config`` describes, opened from its ``spec.json``.

    Idempotent: the slots of a build share one workspace (its ledger, duplicate index and
    loaded records), reopened only when the configuration or the plan on disk changes.
    ``collect`` writes ``spec.json`` before the first slot is sent.

    Raises:
        ConfigError: No output folder, or no ``spec.json`` in it yet.
    """
    if not config.paths.out_dir:
        raise ConfigError("a build needs an output folder (--out)")
    spec_path = Path(config.paths.out_dir) / "spec.json"
    try:
        stat = spec_path.stat()
    except OSError as exc:
        raise ConfigError(
            f"{spec_path} is missing: the build's plan is written there before any slot runs"
        ) from exc
    version = (stat.st_mtime_ns, stat.st_size)
    # Every slot step opens the workspace: the same config object comes back each time,
    # so the identity test spares comparing it field by field and resolving its path.
    global _LAST
    fast = _LAST
    if fast is not None and fast[0] is config and fast[1] == version:
        return fast[2]
    key = str(Path(config.paths.out_dir).resolve())
    with _LOCK:
        cached = _WORKSPACES.get(key)
        if cached is not None and cached[0] == config and cached[1] == version:
            _LAST = (config, version, cached[2])
            return cached[2]
        spec = BenchmarkSpec.model_validate_json(spec_path.read_text(encoding="utf-8"))
        ws = Workspace(config, spec)
        _WORKSPACES[key] = (config, version, ws)
        _LAST = (config, version, ws)
        return ws


def close_workspace(config: RunConfig) -> None:
    """Let go of a build's workspace (its loaded records) once the folder is packaged."""
    global _LAST
    with _LOCK:
        _LAST = None
        _WORKSPACES.pop(str(Path(config.paths.out_dir or "").resolve()), None)


# -- the slot subgraph's nodes ---------------------------------------------------------------
# Each takes the slot's typed state and the run configuration; the routers in
# ``graph/routers.py`` read only the state. ``accept`` and ``discard`` write the ledger, the
# source of truth for resume.


def _tally(slot: Slot, status: SlotStatus) -> dict[str, Any]:
    return {"status": status, "tallies": {slot.subtask_id: {status: 1}}}


SUPERSEDED = "superseded"
"""The check of a slot stopped because a tail backup filled its place (not a rejection)."""


def _claim(state: SlotState, ws: Workspace) -> str:
    """The place in the quota the slot works for; a fresh slot's first step counts."""
    claim = state.get("claim")
    if claim is None:
        ws.backups.fresh_started()
        claim = state["slot"].id
    return claim


def _superseded(claim: str) -> dict[str, Any]:
    """The update of a slot whose place another slot filled: it stops (to ``discard``)."""
    reason = "another slot filled this place in the quota first (tail backup)"
    return {"claim": claim, "failure": Failure(reason=reason, check=SUPERSEDED, counts=False)}


def _next_job(ws: Workspace) -> dict[str, Any]:
    """After a slot ends: the round's next slot, or a tail backup, to realize in place.

    ``carry_on`` sends the slot task back to the start with it; with neither left (or a
    stop asked for) the task ends.
    """
    if stop_requested():
        return {"carry_on": False}
    fresh = ws.queue.take()
    if fresh is not None:
        claim, slot, backup = fresh.id, fresh, False
    else:
        job = ws.backups.take(ws.replacement)
        if job is None:
            return {"carry_on": False}
        (claim, slot), backup = job, True
    return _carry_on(slot, claim, backup=backup, replaced=0)


def _carry_on(slot: Slot, claim: str, *, backup: bool, replaced: int) -> dict[str, Any]:
    """The update that sends a slot task back to the start with ``slot``, afresh."""
    return {
        "slot": slot,
        "claim": claim,
        "backup": backup,
        "carry_on": True,
        "replaced": replaced,
        "attempt": 0,
        "feedback": [],
        "history": [],
        "decision": None,
        "draft": None,
        "failure": None,
    }


def _failed(
    state: SlotState, failure: Failure, config: RunConfig, attempt: int | None = None
) -> dict[str, Any]:
    """The update for a failed attempt: history, feedback, and whether a fix is allowed.

    ``attempt`` is the number of the attempt that failed (default: the state's).
    """
    attempt = state.get("attempt", 0) if attempt is None else attempt
    history = list(state.get("history") or [])
    if failure.counts:
        history.append({"attempt": attempt, "check": failure.check, "reason": failure.reason[:300]})
    retry = failure.retry and len(history) <= config.max_fix_attempts
    feedback = list(state.get("feedback") or [])
    if retry:
        feedback.append(failure.reason[:300])
    return {
        "attempt": attempt,
        "failure": failure.model_copy(update={"retry": retry}),
        "history": history,
        "feedback": feedback,
        "draft": None,
    }


def _chain_if_fixing(ws: Workspace, state: SlotState, update: dict[str, Any]) -> dict[str, Any]:
    """Note a slot that goes on to a fix as a chain a tail backup may race."""
    if update["failure"].retry:
        ws.backups.note_chain(state.get("claim") or state["slot"].id, state["slot"])
    return update


def computed_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Take a solution-graph or question-program slot's computed item as the draft."""
    check_stop()  # Ctrl-C / SIGTERM: no new slot step starts
    config = run_config(runtime)
    ws = open_workspace(config)
    slot = state["slot"]
    claim = _claim(state, ws)
    if ws.backups.is_settled(claim):
        return _superseded(claim)
    grounding = ws.groundings[slot.grounding_id]
    if grounding.strategy == "question_program":
        taken = ws.take_program(slot, grounding)
    else:
        taken = ws.take_computed(slot, grounding)
    if isinstance(taken, Failure):
        return _failed(state, taken, config, attempt=1) | {"claim": claim}
    return {"draft": taken, "failure": None, "attempt": 1, "claim": claim}


def orchestrate_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """The orchestration role decides the question's wording and the tools' parameters."""
    check_stop()  # Ctrl-C / SIGTERM: no new slot step starts
    config = run_config(runtime)
    ws = open_workspace(config)
    slot = state["slot"]
    claim = _claim(state, ws)
    if ws.backups.is_settled(claim):
        return _superseded(claim)
    if not ws.answer_of(slot):
        grounding = ws.groundings[slot.grounding_id]
        field = answer_field_for(grounding, slot.language)
        reason = f"record has no value in the answer field {field!r}"
        failure = Failure(reason=reason, check="record", counts=False)
        return _failed(state, failure, config) | {"claim": claim}
    attempt = state.get("attempt", 0) + 1
    try:
        decision = ws.decide(slot, list(state.get("feedback") or []))
    except TemplateMissingError as exc:
        failure = Failure(reason=f"template: {exc}", check="template")
        return _failed(state, failure, config, attempt=attempt) | {"claim": claim}
    return {"decision": decision, "failure": None, "attempt": attempt, "claim": claim}


def execute_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Run the decision's tools (speech, image, audio, conversion) into a draft."""
    check_stop()  # Ctrl-C / SIGTERM: no new slot step starts
    config = run_config(runtime)
    ws = open_workspace(config)
    done = ws.run_tools(state["slot"], state["decision"])
    if isinstance(done, Failure):
        return _chain_if_fixing(ws, state, _failed(state, done, config))
    return {"draft": done, "failure": None}


def verify_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Check the draft; a failed draft's media leave the folder."""
    check_stop()  # Ctrl-C / SIGTERM: no new slot step starts
    config = run_config(runtime)
    ws = open_workspace(config)
    draft = state["draft"]
    claim = state.get("claim") or state["slot"].id
    if ws.backups.is_settled(claim):  # filled meanwhile: no judge call for nothing
        ws.drop_media(draft)
        return _superseded(claim)
    result = ws.check(state["slot"], draft)
    if result.ok:
        draft.item.metadata["verification"] = result.record()
        return {"failure": None}
    ws.drop_media(draft)
    # A computed problem has no local fix: the generator already reworded what failed.
    records = ws.groundings[state["slot"].grounding_id].strategy not in COMPUTED
    failure = Failure(
        reason=result.reason, check=result.failed_check or "", retry=result.fixable and records
    )
    return _chain_if_fixing(ws, state, _failed(state, failure, config))


def accept_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Write the verified item to the ledger (unless a tail backup filled its place first).

    Then the slot task may go on with a tail backup (see :func:`_next_job`).
    """
    ws = open_workspace(run_config(runtime))
    slot, item = state["slot"], state["draft"].item
    claim = state.get("claim") or slot.id
    if not ws.backups.settle(claim, backup=bool(state.get("backup"))):
        # Verified second: the place is filled, so the item is dropped, never packaged, and
        # leaves the duplicate index (later items are compared with kept items only).
        ws.duplicates.remove(item)
        ws.drop_media(state["draft"])
        shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
        return _tally(slot, "surplus") | _next_job(ws)
    history = list(state.get("history") or [])
    item.metadata["fixes"] = len(history)
    if ws.groundings[slot.grounding_id].strategy not in COMPUTED:
        item.metadata["fix_history"] = history
    ws.ledger.accept(slot.record(), item)
    shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
    ws.warm_packaging()
    return _tally(slot, "accepted") | _next_job(ws)


REPLACEMENTS_PER_SLOT = 4
"""Most records one slot task replaces itself with in place (a dataset whose every record
fails ends in the round's refill instead, and a slot's steps stay far below the graph's
recursion limit)."""


def discard_node(state: SlotState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Record the discarded slot and why in the ledger (its rejects file).

    Then the slot goes on with a replacement record from its grounding's reserve, if any
    is left (see :class:`~benchsmith.agents.collect.Reserve`): the state starts afresh for
    that record, and ``carry_on`` sends it back to the start. A tail backup takes no
    replacement (the slot it backs up goes on), and a slot whose place a backup filled
    (``superseded``) is no rejection: neither writes the ledger. Either may go on with
    another backup (:func:`_next_job`).
    """
    ws = open_workspace(run_config(runtime))
    slot = state["slot"]
    failure = state["failure"]
    assert failure is not None  # the routers send only failed slots here
    shutil.rmtree(ws.work_dir(slot), ignore_errors=True)
    if failure.check == SUPERSEDED:
        ws.backups.superseded()
        return _tally(slot, "superseded") | _next_job(ws)
    history = list(state.get("history") or [])
    extra: dict[str, Any] = {"check": failure.check, "attempts": state.get("attempt", 0)}
    if history:
        extra["history"] = history
    ws.ledger.reject(slot.record(), failure.reason, **extra)
    update = _tally(slot, "rejected")
    replaced = int(state.get("replaced") or 0)
    if state.get("backup") or replaced >= REPLACEMENTS_PER_SLOT or stop_requested():
        return update | _next_job(ws)
    nxt = ws.replacement(slot)
    if nxt is None:
        return update | _next_job(ws)
    claim = state.get("claim") or slot.id
    ws.backups.note_chain(claim, nxt)
    return update | _carry_on(nxt, claim, backup=False, replaced=replaced + 1)
