"""The public entry point: computed items from reference material.

``generate_items`` reads the references, builds the admitted solution graph, finds the
derivations of every concept x difficulty cell, allocates ``n`` items over the fillable
cells, and makes each item: givens drawn with the seed, the chain executed, the text written
(template, or the model), the checks run, the answer format applied. With a ``solver``, an
item whose independent solve disagrees is reworded (bounded) and dropped if it still does.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.item import NUMERIC_TOLERANCE, Item
from benchsmith.solution import cache
from benchsmith.solution.coverage import Cell, CoverageReport, allocate
from benchsmith.solution.distractors import choose_distractors
from benchsmith.solution.errors import SolutionError
from benchsmith.solution.formulas import RejectedFormula
from benchsmith.solution.graph import Derivation, SolutionGraph
from benchsmith.solution.items import base_metadata, choice_item, numeric_item
from benchsmith.solution.knowledge import Knowledge, build_knowledge
from benchsmith.solution.objects import joins_apart
from benchsmith.solution.problems import Problem, instantiate, mentioned
from benchsmith.solution.report import solution_report
from benchsmith.solution.solver_check import solver_check
from benchsmith.solution.wording import StructuredModel, check_text, model_text, template_text
from benchsmith.solution.worlds import (
    alternatives,
    crosses_scenarios,
    mixes_models,
    mixes_with_general,
)

ANSWER_FORMATS = ("numeric", "multiple_choice")
DERIVATION_CAP = 60
PROBE_ATTEMPTS = 40


@dataclass
class GenerationResult:
    """What :func:`generate_items` made.

    Attributes:
        items: The items, ids unique.
        coverage: Items per concept x difficulty and the cells that cannot be filled.
        rejected_formulas: Formulas found but not admitted, with reasons.
        rejected_items: Items dropped after checks (solver disagreement), with reasons.
        stats: Counts and timings.
        report: Per formula admitted or why not, per quantity its description, unit, range
            and their origins, per section the items delivered or why none
            (:func:`benchsmith.solution.report.solution_report`).
    """

    items: list[Item]
    coverage: CoverageReport
    rejected_formulas: list[RejectedFormula]
    rejected_items: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)


@dataclass
class CellPlan:
    """The usable derivations of one cell (those whose givens can be drawn in range)."""

    derivations: list[Derivation]
    weights: list[float]


def _naturalness(derivation: Derivation) -> float:
    """Prefer forward chains within few sections (fewer solved steps, fewer concepts)."""
    inverted = sum(s.inverted for s in derivation.steps)
    concepts = len({s.formula.concept for s in derivation.steps})
    return 1.0 / ((1 + inverted) * concepts * (1 + 0.1 * len(derivation.givens)))


def plan_cells(
    graph: SolutionGraph, difficulties: Iterable[int], seed: int
) -> tuple[dict[Cell, CellPlan], dict[Cell, str]]:
    """Usable derivations per concept x difficulty, and why the other cells are empty."""
    rng = random.Random(f"probe:{seed}")
    plans: dict[Cell, CellPlan] = {}
    unfillable: dict[Cell, str] = {}
    finals = graph.final_forms()
    pairs = alternatives(graph)
    for concept in graph.concepts():
        for k in difficulties:
            # A problem never mixes two models of one quantity (FV and FVC of one sum).
            chains = [
                d
                for form in finals
                if form.formula.concept == concept
                for d in graph.derivations(form, k, cap=DERIVATION_CAP)
                if mixes_models(mentioned(d), pairs) is None
                and mixes_with_general(mentioned(d), graph, pairs) is None
                and crosses_scenarios(d, graph) is None
                and joins_apart(d, graph.apart) is None
                and not graph.rivals_of(s.formula.id for s in d.steps)
                & {s.formula.id for s in d.steps}
            ]
            if not chains:
                unfillable[(concept, k)] = (
                    f"no chain of {k} step(s) ends in a formula of it without over-determining "
                    "its givens, mixing two models of one quantity, joining two sections' "
                    "situations or passing a value between formulas of two objects"
                )
                continue
            usable = [d for d in chains if instantiate(d, graph, rng, PROBE_ATTEMPTS)]
            if not usable:
                unfillable[(concept, k)] = (
                    f"{len(chains)} chain(s) of {k} step(s), but drawn givens never keep "
                    "every value in its plausible range"
                )
                continue
            plans[(concept, k)] = CellPlan(usable, [_naturalness(d) ** 2 for d in usable])
    return plans, unfillable


def _plan_key(graph: SolutionGraph, difficulties: Sequence[int], seed: int) -> str:
    """The cache key of a plan: everything :func:`plan_cells` reads (and the code version)."""
    formulas = [
        [f.id, f.output, cache.to_text(f.expr), f.text, f.syntax, repr(f.source), f.concept]
        for f in graph.formulas
    ]
    quantities = [repr(graph.quantities[name]) for name in sorted(graph.quantities)]
    apart = sorted(sorted(p) for p in graph.apart)
    return cache.entry_key(
        "plan",
        formulas,
        quantities,
        apart,
        list(difficulties),
        seed,
        DERIVATION_CAP,
        PROBE_ATTEMPTS,
    )


def _plan_record(plans: dict[Cell, CellPlan], unfillable: dict[Cell, str]) -> dict[str, Any]:
    """A plan as JSON: per cell its derivations as (target, steps, givens), and the reasons."""
    cells = [
        [
            concept,
            k,
            [
                [d.target, [[s.formula.id, s.output, s.inverted] for s in d.steps], list(d.givens)]
                for d in plan.derivations
            ],
        ]
        for (concept, k), plan in plans.items()
    ]
    return {"cells": cells, "unfillable": [[c, k, why] for (c, k), why in unfillable.items()]}


def _plan_from_record(
    graph: SolutionGraph, record: Any
) -> tuple[dict[Cell, CellPlan], dict[Cell, str]] | None:
    """The plan :func:`_plan_record` stored, over the graph's step forms (None: no fit)."""
    try:
        plans: dict[Cell, CellPlan] = {}
        for concept, k, stored in record["cells"]:
            derivations = []
            for target, steps, givens in stored:
                forms = []
                for formula_id, output, inverted in steps:
                    form = next(
                        f
                        for f in graph.forms_for(output)
                        if f.formula.id == formula_id and f.inverted is inverted
                    )
                    forms.append(form)
                # Only a well-formed chain of this graph is taken: its givens are exactly
                # the inputs no step computes, and it ends in a formula of the cell.
                computed = {f.output for f in forms}
                needed = sorted({n for f in forms for n in f.inputs} - computed)
                if not forms or givens != needed or target != forms[-1].output:
                    return None
                derivation = Derivation(target, tuple(forms), tuple(needed))
                if derivation.k != k or derivation.concept != concept:
                    return None
                if not graph.well_formed(derivation.steps, frozenset(needed)):
                    return None
                derivations.append(derivation)
            if not derivations:
                return None
            plans[(concept, k)] = CellPlan(derivations, [_naturalness(d) ** 2 for d in derivations])
        unfillable = {(concept, k): str(why) for concept, k, why in record["unfillable"]}
    except (KeyError, TypeError, ValueError, StopIteration, AttributeError, RecursionError):
        return None
    return plans, unfillable


def cached_plan_cells(
    graph: SolutionGraph, difficulties: Sequence[int], seed: int
) -> tuple[dict[Cell, CellPlan], dict[Cell, str]]:
    """:func:`plan_cells`, read from the content-addressed cache when planned before.

    The key holds the graph's formulas and quantities, the difficulties, the seed, the caps
    and the code version (:mod:`benchsmith.solution.cache`); an entry that does not fit the
    graph is ignored and planned again.
    """
    key = _plan_key(graph, difficulties, seed)
    stored = cache.load("plan", key)
    if stored is not None:
        plan = _plan_from_record(graph, stored)
        if plan is not None:
            return plan
    plans, unfillable = plan_cells(graph, difficulties, seed)
    cache.store("plan", key, _plan_record(plans, unfillable))
    return plans, unfillable


class _Maker:
    """Makes the items of one generation run (shared state: graph, rng, counters)."""

    def __init__(
        self,
        graph: SolutionGraph,
        *,
        seed: int,
        subtask_id: str,
        tolerance: float,
        model: StructuredModel | None,
        solver: StructuredModel | None,
        max_rewordings: int,
    ) -> None:
        self.graph = graph
        self.seed = seed
        self.rng = random.Random(f"items:{seed}")
        self.subtask_id = subtask_id
        self.tolerance = tolerance
        self.model = model
        self.solver = solver
        self.max_rewordings = max_rewordings
        self.seen: set[tuple[Any, ...]] = set()
        self.rejected: list[dict[str, Any]] = []
        self.stats: dict[str, int] = {
            "draw_failures": 0,
            "degenerate_draws": 0,
            "duplicates": 0,
            "choice_fallbacks": 0,
            "model_wording": 0,
            "model_wording_failed": 0,
            "rewordings": 0,
            "solver_agreed": 0,
            "solver_dropped": 0,
        }

    def problem(self, plan: CellPlan) -> Problem | None:
        derivation = self.rng.choices(plan.derivations, weights=plan.weights)[0]
        problem = instantiate(derivation, self.graph, self.rng)
        if problem is None:
            self.stats["draw_failures"] += 1
            return None
        key = (derivation.key(), tuple(sorted(problem.givens.items())))
        if key in self.seen:
            self.stats["duplicates"] += 1
            return None
        self.seen.add(key)
        return problem

    def text(self, problem: Problem, answer_format: str, variant: int) -> tuple[str, str] | None:
        if self.model is not None:
            text, failures = model_text(self.model, problem, self.graph, answer_format)
            if text is not None:
                self.stats["model_wording"] += 1
                return text, "model"
            self.stats["model_wording_failed"] += 1
        text = template_text(problem, self.graph, answer_format, variant)
        if check_text(text, problem, self.graph):
            # A degenerate draw (the answer equals a given, as r = j when m = 1): draw again.
            self.stats["degenerate_draws"] += 1
            return None
        return text, "template"

    def item(self, problem: Problem, answer_format: str, item_id: str) -> Item | None:
        distractors = []
        if answer_format == "multiple_choice":
            distractors = choose_distractors(problem, self.graph, self.tolerance)
            if len(distractors) < 2:
                self.stats["choice_fallbacks"] += 1
                answer_format = "numeric"
        metadata = base_metadata(
            problem, self.graph, self.subtask_id, answer_format, self.tolerance
        )
        history: list[dict[str, Any]] = []
        for variant in range(self.max_rewordings + 1):
            written = self.text(problem, answer_format, variant)
            if written is None:
                return None
            text, wording = written
            metadata["wording"] = wording
            if answer_format == "multiple_choice":
                item = choice_item(
                    item_id, text, metadata, problem, self.graph, distractors, self.rng
                )
            else:
                item = numeric_item(item_id, text, metadata, problem, self.graph)
            if self.solver is None:
                return item
            check = solver_check(self.solver, text, item.choices, problem.answer, self.tolerance)
            check["attempt"] = variant
            history.append(check)
            item.metadata["solver_check"] = dict(check, history=history[:-1])
            if check["agrees"]:
                self.stats["solver_agreed"] += 1
                return item
            self.stats["rewordings"] += variant < self.max_rewordings
        self.stats["solver_dropped"] += 1
        self.rejected.append(
            {
                "id": item_id,
                "reason": "solver disagreed after rewording",
                "checks": history,
                "solution_graph": problem.solution_graph(),
            }
        )
        return None


def generate_items(
    references: Sequence[str | Path],
    n: int,
    *,
    seed: int,
    difficulties: Sequence[int] = (1, 2, 3),
    answer_formats: Sequence[str] = ANSWER_FORMATS,
    model: StructuredModel | None = None,
    reader: StructuredModel | None = None,
    solver: StructuredModel | None = None,
    subtask_id: str = "computed",
    tolerance: float = NUMERIC_TOLERANCE,
    weights: Mapping[Any, float] | None = None,
    max_rewordings: int = 1,
    knowledge: Knowledge | None = None,
) -> GenerationResult:
    """Generate ``n`` computed items from reference documents.

    Args:
        references: Markdown, text or PDF files.
        n: How many items to make.
        seed: Seeds every draw: the same seed gives the same items, another seed fresh ones.
        difficulties: Chain lengths (steps) to cover.
        answer_formats: ``numeric`` and/or ``multiple_choice``, alternated within a cell.
        model: A role model (``structured``) for problem wording (optional).
        reader: A reader model asked small questions about the text (optional; see
            :func:`~benchsmith.solution.knowledge.build_knowledge`).
        solver: A role model for the independent solve (optional).
        subtask_id: The subtask recorded on every item; ids start with it.
        tolerance: Relative tolerance of numeric answers and between choices.
        weights: Weights by concept or by ``(concept, difficulty)`` (default: even).
        max_rewordings: Rewordings of an item the solver disagrees with before dropping it.
        knowledge: A graph built before (skips reading the references again).

    Returns:
        The items, the coverage report, the rejected formulas and items, and stats.

    Raises:
        SolutionError: Unreadable references, no admitted formula, or a bad argument.
    """
    started = time.perf_counter()
    formats = [f for f in answer_formats if f in ANSWER_FORMATS]
    if not formats or len(formats) != len(answer_formats):
        raise SolutionError(f"answer_formats must be among {ANSWER_FORMATS}; got {answer_formats}")
    if not difficulties or any(k < 1 for k in difficulties):
        raise SolutionError(f"difficulties must be step counts of at least 1; got {difficulties}")
    # The graph does not depend on the seed: only the draws of givens do.
    knowledge = knowledge or build_knowledge(references, reader=reader)
    graph = knowledge.graph
    if not graph.formulas:
        raise SolutionError(
            f"no formula was admitted from {[str(p) for p in references]}; "
            f"{len(knowledge.rejected)} rejected (see rejected_formulas)"
        )
    built = time.perf_counter()
    plans, unfillable = cached_plan_cells(graph, difficulties, seed)
    planned = time.perf_counter()
    cells = [(c, k) for c in graph.concepts() for k in difficulties if (c, k) in plans]
    requested = allocate(n, cells, weights=weights)
    coverage = CoverageReport(graph.concepts(), list(difficulties), dict(requested), {}, unfillable)
    maker = _Maker(
        graph,
        seed=seed,
        subtask_id=subtask_id,
        tolerance=tolerance,
        model=model,
        solver=solver,
        max_rewordings=max_rewordings,
    )
    items: list[Item] = []
    for cell in cells:
        made = 0
        tries = 0
        while made < requested[cell] and tries < 20 * requested[cell] + 20:
            tries += 1
            problem = maker.problem(plans[cell])
            if problem is None:
                continue
            item_id = f"{subtask_id}-{seed}-{len(items) + len(maker.rejected):05d}"
            item = maker.item(problem, formats[made % len(formats)], item_id)
            if item is not None:
                items.append(item)
                made += 1
        coverage.produced[cell] = made
        if made < requested[cell]:
            coverage.shortfall[cell] = (
                f"made {made} of {requested[cell]} (draws failed, repeated or dropped)"
            )
    finished = time.perf_counter()
    stats: dict[str, Any] = {
        "items": len(items),
        "formulas_found": len(knowledge.found),
        "formulas_admitted": len(graph.formulas),
        "formulas_rejected": len(knowledge.rejected),
        "quantities": len(graph.quantities),
        "cells_fillable": len(cells),
        "cells_unfillable": len(unfillable),
        "seconds_graph": round(built - started, 3),
        "seconds_plan": round(planned - built, 3),
        "seconds_items": round(finished - planned, 3),
        **maker.stats,
        "reading_notes": list(knowledge.notes),
        "reading": dict(knowledge.reading),
    }
    report = solution_report(knowledge, coverage, items)
    return GenerationResult(
        items, coverage, list(knowledge.rejected), maker.rejected, stats, report
    )
