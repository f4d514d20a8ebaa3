"""The computed candidates of a build: solution-graph problems and question-program items.

A solution-graph grounding draws problems generated from its reference's formulas, a
question-program grounding the instances of its program over the dataset's tables. Both
are generated once per build (:class:`Candidates`), with seeds derived from the run's and
the grounding's, so slots take them by index and a new seed gives fresh ones. With a
difficulty mix (``--difficulty``) further candidates of the labels the first ones lack are
generated, and :meth:`Candidates.labels` gives the predicted label of each, which the quota
monitor draws by and packaging reports.
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchsmith.agents.plan_data import PlanData
from benchsmith.agents.references import reference_knowledge
from benchsmith.difficulty_mix import apportion
from benchsmith.files import atomic_write
from benchsmith.llm.registry import get_model
from benchsmith.programs import ProgramError, WordsMissing, build_table, generate
from benchsmith.programs.items import to_item
from benchsmith.spec import Grounding
from benchsmith.state import Draft, Failure, Slot
from benchsmith.tools.context import stable_seed

MIX_STEPS: dict[str, tuple[int, ...]] = {"easy": (1,), "medium": (1, 2, 3), "hard": (3, 4)}
"""Chain lengths whose problems tend to each label, for the further candidates of a mix."""
MIX_ATTEMPTS = 2
"""Draws of further problems per short label (each with a seed of its own)."""


class Candidates:
    """The computed candidates of one build, generated once per grounding (thread-safe).

    Args:
        data: The plan's datasets.
    """

    def __init__(self, data: PlanData) -> None:
        """Generate nothing until a slot asks."""
        self.data = data
        self.config = data.config
        self.spec = data.spec
        self._computed: dict[str, list[Any]] = {}
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._making: dict[str, threading.Lock] = {}

    def _once(self, cache: dict[str, Any], key: str, make: Callable[[], Any]) -> Any:
        """``cache[key]``, made by ``make`` once: other slots asking meanwhile wait for it.

        One lock per key, so a slow generation of one grounding does not hold up another's.
        """
        with self._lock:
            if key in cache:
                return cache[key]
            making = self._making.setdefault(f"{id(cache)}:{key}", threading.Lock())
        with making:
            with self._lock:
                if key in cache:
                    return cache[key]
            made = make()
            with self._lock:
                return cache.setdefault(key, made)

    def _wanted(self, grounding: Grounding) -> int:
        """Candidates to generate: ``max_slots_factor`` times the quota, at least 16."""
        return max(16, math.ceil(self.data.quota(grounding) * self.config.max_slots_factor))

    # -- solution-graph problems -------------------------------------------------------------
    def computed_items(self, grounding: Grounding) -> list[Any]:
        """The problems a solution-graph grounding draws from (generated once per build).

        The reference's formulas become a solution graph; ``available_records`` problems are
        generated with a seed derived from the run's and the grounding's, so a new seed gives
        fresh problems. The coverage, rejected formulas and dropped items are written to
        ``.run/computed-<grounding>.json`` for the report.
        """
        # One generation per grounding; other slots wait for it.
        return self._once(self._computed, grounding.id, lambda: self._generate(grounding))

    def _generate(self, grounding: Grounding) -> list[Any]:
        # Only a solution-graph grounding needs the generator (about 0.8 s to import).
        from benchsmith.solution import generate_items

        subtask = self.data.subtasks[grounding.subtask_id]
        fmt = subtask.answer_format
        both = ("numeric", "multiple_choice")
        formats = (fmt,) if fmt in both else both
        # The embedded model cannot word or solve problems better than the template can.
        wording = get_model(self.config, "orchestration")
        solver = get_model(self.config, "solver")
        quota = self.data.quota(grounding)
        references = [self.data.reference_path(grounding.dataset_id)]
        options: dict[str, Any] = {
            "answer_formats": formats,
            "model": None if wording.spec.provider == "local" else wording,
            "solver": None if solver.spec.provider == "local" else solver,
            "subtask_id": subtask.id,
        }
        # The plan's reading of the reference (the same formulas, read by the reader role's
        # model once per process, its answers cached on disk), shared by every label's
        # candidates; none when nothing is admitted (generate_items then says why).
        knowledge = reference_knowledge(self.config, references[0])
        if knowledge is not None:
            options["knowledge"] = knowledge
        result = generate_items(
            references,
            min(grounding.available_records, self._wanted(grounding)),
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
        items = interleave_cells(result.items)
        if self.config.difficulty_mix:
            more = self._problems_for_mix(grounding, items, quota, references, options)
            items += more
            summary["difficulty_mix_candidates"] = len(more)

        atomic_write(
            self.data.run_dir / f"computed-{grounding.id}.json",
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

    # -- question programs -------------------------------------------------------------------
    def table(self, dataset_id: str) -> Any:
        """A dataset as a question-program table (built once per build)."""

        def make() -> Any:
            card = self.data.card(dataset_id)
            return build_table(
                dataset_id,
                self.data.records(dataset_id),
                card.fields if card is not None else [],
                card_entity=card.entity if card is not None else {},
                intent=self.spec.intent,
            )

        return self._once(self._tables, dataset_id, make)

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
        assert grounding.program is not None
        program = grounding.program

        def make() -> list[Any]:
            quota = self.data.quota(grounding)
            wanted = self._wanted(grounding)
            if self.config.difficulty_mix:
                # More of the program's own candidates to choose from (the first ones are
                # those a build without a mix draws: generation is prefix-stable).
                wanted = max(wanted, 2 * quota)
            made = generate(
                program,
                self.program_tables(grounding),
                n=min(grounding.available_records, wanted),
                seed=stable_seed(self.config.seed, grounding.id) % (2**31),
                language=language,
            )
            if self.config.difficulty_mix:
                # Only the first ``available_records`` candidates are ever drawn.
                made += self._instances_for_mix(grounding, made, quota, language)
                made = made[: grounding.available_records]
            return made

        return self._once(self._computed, f"{grounding.id}@{language}", make)

    def take_program(self, slot: Slot, grounding: Grounding) -> Draft | Failure:
        """A question-program slot's item, computed by executing the program."""
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
            subtask=self.data.subtasks[grounding.subtask_id],
        )
        item.metadata["source"] = {
            "dataset": grounding.dataset_id,
            "record_index": instance.rows[0] if instance.rows else index,
            "grounding": grounding.id,
            "strategy": "question_program",
        }
        return Draft(item=item, question=instance.question, answer=instance.answer, trace=[])

    # -- a difficulty mix --------------------------------------------------------------------
    def labels(self) -> dict[str, list[str | None]]:
        """Per computed grounding, the predicted label of each candidate, by record index.

        A question program's candidates are those of its subtask's first language (the
        same seed draws the same records in every language).
        """
        out: dict[str, list[str | None]] = {}
        for grounding in self.spec.groundings:
            if grounding.strategy == "solution_graph":
                items = self.computed_items(grounding)
                out[grounding.id] = [i.metadata.get("difficulty") for i in items]
            elif grounding.strategy == "question_program":
                subtask = self.data.subtasks[grounding.subtask_id]
                language = (subtask.languages or list(self.config.languages) or ["en"])[0]
                try:
                    made = self.program_instances(grounding, language)
                except (ProgramError, WordsMissing):
                    made = []
                out[grounding.id] = [i.difficulty.get("label") for i in made]
        return out

    def _mix_goals(self, quota: int, have: Counter[str]) -> dict[str, int]:
        """Candidates still wanted per label: twice its share of the quota, less those made.

        Twice: the candidates of a label must also cover its rejections.
        """
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
        from benchsmith.solution import generate_items  # see _generate()

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
