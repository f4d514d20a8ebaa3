"""The question-program strategy in the planner: subtasks over the user's own tables.

A table given with ``--dataset`` (records without media) is served by question programs
(:mod:`benchsmith.programs`): the code builds candidate programs from the intent and the
table's fields and values; the design step adds one subtask for the table whose candidates
fit best (a small design model cannot be relied on to propose it), and the grounding step
lets the grounding role choose among near-tied candidates through a ``Literal`` of their
ids, so even the embedded model cannot pick a program the code did not build. When no
program over the given tables serves the intent, the plan is refused with what is missing.

With a capable grounding model (``config.programs``: ``model``, or ``auto`` with any model
but the embedded one) the model reads the intent instead: it proposes one program from the
typed library (:mod:`benchsmith.programs.propose`), which the code checks against the data
and runs once; a proposal that fails leaves the rules' reading in place, and a model that
finds no field for what the intent asks refuses the plan with what is missing.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from benchsmith.catalog.cards import slugify
from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig
from benchsmith.errors import StructuredOutputError
from benchsmith.programs import (
    Candidate,
    Refusal,
    Table,
    build_table,
    plan,
    probe,
)
from benchsmith.programs.propose import (
    NotServable,
    ProposalError,
    describe,
    proposal_schema,
    to_spec,
)
from benchsmith.prompts import render, untrusted
from benchsmith.spec import Grounding, ProgramSpec, Scores, Subtask

PREFIX = "records-"
SKILLS = {
    "lookup": ["factual recall", "lookup"],
    "filtered_lookup": ["factual recall", "filtering"],
    "compare": ["comparison", "numerical reasoning"],
    "superlative": ["ranking", "numerical reasoning"],
    "count": ["table reading", "counting"],
    "aggregate": ["table reading", "arithmetic"],
    "classify": ["classification", "feature reasoning"],
    "multihop": ["multi-hop reasoning", "lookup"],
}
NAMES = {
    "lookup": "Lookup",
    "filtered_lookup": "Filtered lookup",
    "compare": "Comparison of two",
    "superlative": "Superlative",
    "count": "Counting",
    "aggregate": "Aggregation",
    "classify": "Classification",
    "multihop": "Multi-hop lookup",
}
_TABLES: dict[tuple[str, str], dict[str, Table]] = {}
_PROPOSALS: dict[tuple[str, str], Proposed] = {}
_LOCK = threading.Lock()
PROPOSED_SCORE = 10.0
"""A checked proposal's score: above any the rules give, so it leads the candidates."""


def table_cards(config: RunConfig) -> list[Any]:
    """The run's own tables (``--dataset`` data with no image or audio field)."""
    if not config.paths.run_catalog_dir:
        return []
    catalog = Catalog(config.paths.run_catalog_dir)
    return [c for c in catalog.list() if c.domain != "reference" and not c.media_fields()]


def run_tables(config: RunConfig, intent: str) -> dict[str, Table]:
    """Every run table as a :class:`~benchsmith.programs.table.Table` (cached per run)."""
    cache_key = (str(config.paths.run_catalog_dir), intent)
    with _LOCK:
        if cache_key in _TABLES:
            return _TABLES[cache_key]
    tables: dict[str, Table] = {}
    cards = table_cards(config)
    if cards:
        catalog = Catalog(config.paths.run_catalog_dir)  # type: ignore[arg-type]
        for card in cards:
            records = list(catalog.records(card.id))
            tables[card.id] = build_table(
                card.id, records, card.fields, card_entity=card.entity, intent=intent
            )
    with _LOCK:
        _TABLES[cache_key] = tables
    return tables


@dataclass(frozen=True)
class Proposed:
    """What the grounding model proposed: a checked program, or why it is not used."""

    spec: ProgramSpec | None = None
    refusal: str | None = None
    """The model found that no field holds what the intent asks for (what is missing)."""
    note: str = ""
    """For the log: the proposal taken, or why it was set aside."""


def proposes(config: RunConfig, model: Any) -> bool:
    """Whether the grounding model reads the intent into a program (``config.programs``)."""
    if model is None or config.programs == "rules":
        return False
    return config.programs == "model" or model.spec.provider != "local"


def proposed(config: RunConfig, intent: str, model: Any) -> Proposed | None:
    """The grounding model's program for the intent, checked by code (None: not asked).

    Asked once per run and intent: the design and grounding steps share the answer.
    """
    if not proposes(config, model):
        return None
    cache_key = (str(config.paths.run_catalog_dir), intent)
    with _LOCK:
        if cache_key in _PROPOSALS:
            return _PROPOSALS[cache_key]
    tables = run_tables(config, intent)
    if not tables:
        return None
    prompt = render(
        "grounding_propose",
        tables=untrusted(describe(tables), "tables"),
        intent=untrusted(intent, "intent"),
    )
    try:
        reply = model.structured(proposal_schema(tables), [("user", prompt)])
        spec = to_spec(reply, tables)
        found = Proposed(spec=spec, note=f"the grounding model's program: {spec.describe()}")
    except NotServable as exc:
        found = Proposed(refusal=str(exc), note=f"the grounding model: {exc}")
    except (ProposalError, StructuredOutputError) as exc:
        found = Proposed(note=f"the grounding model's program set aside: {str(exc)[:160]}")
    with _LOCK:
        _PROPOSALS[cache_key] = found
    return found


def candidates_for(
    config: RunConfig, intent: str, model: Any = None
) -> tuple[str | None, list[Candidate], list[str]]:
    """The table that serves the intent best, its candidates, and every table's refusal.

    A checked program the grounding model proposed leads its table's candidates; its
    finding that no field serves the intent is the refusal.
    """
    tables = run_tables(config, intent)
    best: tuple[str | None, list[Candidate]] = (None, [])
    refusals: list[str] = []
    found = proposed(config, intent, model)
    if found is not None and found.refusal:
        return None, [], [f"the grounding model: {found.refusal}"]
    if found is not None and found.spec is not None:
        spec = found.spec
        rules = plan(intent, tables, spec.table)
        others = [] if isinstance(rules, Refusal) else [c for c in rules if c.spec != spec]
        lead = Candidate(spec, PROPOSED_SCORE, f"the grounding model's: {spec.describe()}")
        return spec.table, [lead, *others], []
    for table_id in tables:
        found = plan(intent, tables, table_id)
        if isinstance(found, Refusal):
            details = f" ({'; '.join(found.details)})" if found.details else ""
            refusals.append(f"{table_id}: {found.missing}{details}")
            continue
        if not best[1] or found[0].score > best[1][0].score:
            best = (table_id, found)
    return best[0], best[1], refusals


def subtask_id(table_id: str) -> str:
    """The id of the records subtask over a table."""
    return slugify(f"{PREFIX}{table_id}")[:48].rstrip("-_.")


def table_subtasks(
    config: RunConfig, intent: str, languages: Sequence[str], model: Any = None
) -> tuple[list[Subtask], str | None]:
    """The records subtask for the intent over the run's tables, or why none serves it.

    Returns:
        ``([subtask], None)``, ``([], refusal message)`` when tables were given and none
        serves the intent, or ``([], None)`` when the run has no table.
    """
    if not table_cards(config):
        return [], None
    table_id, cands, refusals = candidates_for(config, intent, model)
    if table_id is None:
        return [], "no question program over the given data serves the intent: " + "; ".join(
            refusals
        )
    best = cands[0].spec
    languages = item_languages(intent, run_tables(config, intent)[table_id], languages)
    kinds = sorted(
        {c.spec.kind for c in cands}, key=lambda k: [c.spec.kind for c in cands].index(k)
    )
    name = f"{NAMES[best.kind]} over {table_id}"[:80]
    description = (
        f"Items computed by executing a question program over the records of {table_id}: "
        + "; ".join(c.why for c in cands[:3])
        + (" (the rows it needs are shown)." if best.book == "open" else " (closed-book).")
    )[:600]
    return [
        Subtask(
            id=subtask_id(table_id),
            name=name,
            description=description,
            skills=SKILLS[best.kind] + ([k for k in kinds if k != best.kind][:1]),
            input_modalities=["text"],
            answer_format=best.answer_format,
            difficulty="medium",
            languages=list(languages),
        )
    ], None


def item_languages(intent: str, table: Table, languages: Sequence[str]) -> list[str]:
    """The items' languages, less a language the intent names as a value of the data.

    "Only the novels first written in Russian" filters on ``original_language ==
    Russian``; it does not ask for questions in Russian. A language stays when the intent
    asks for items in it ("questions in French").
    """
    from babel import Locale

    values = {v.casefold() for c in table.columns.values() for v in c.values}
    english = Locale("en").languages
    low = intent.lower()
    kept = []
    for code in languages:
        name = str(english.get(code, code)).casefold()
        asked = re.search(
            rf"\b(?:questions?|items?|prompts?|answers?|benchmark|written|write|ask(?:ed)?)"
            rf"\b[^.;:]{{0,40}}\bin {re.escape(name)}\b",
            low,
        )
        asked = asked or re.search(
            rf"(?<!written )\bin {re.escape(name)}\s*(?:please|[,.!]|$)", low
        )
        if name in values and not (asked and not re.search(rf"\bwritten in {name}\b", low)):
            continue
        kept.append(code)
    return kept


def choice_schema(ids: Sequence[str]) -> type[BaseModel]:
    """The grounding role's choice among candidate ids (a ``Literal``: no invented program)."""
    return create_model(
        "ProgramChoice",
        program=(Literal[tuple(ids)], Field(description="The id of the chosen candidate.")),  # type: ignore[valid-type]
        reason=(str, Field(default="", max_length=80, description="A few words.")),
    )


def choose(model: Any, intent: str, cands: list[Candidate]) -> tuple[Candidate, str]:
    """The candidate the grounding role picks (the code's best when one, or on failure)."""
    if len(cands) == 1 or model is None:
        return cands[0], "the only candidate" if len(cands) == 1 else "the code's best"
    ids = [f"p{i + 1}" for i in range(len(cands))]
    listing = "\n".join(
        f"{i}: {c.spec.describe()} ({c.why})" for i, c in zip(ids, cands, strict=True)
    )
    prompt = render(
        "grounding_program",
        candidates=untrusted(listing, "candidate programs"),
        intent=untrusted(intent, "intent"),
    )
    try:
        picked = model.structured(choice_schema(ids), [("user", prompt)])
    except StructuredOutputError as exc:
        return cands[0], f"the code's best (no valid choice: {str(exc)[:80]})"
    return cands[ids.index(picked.program)], f"chosen by the model: {picked.reason}"[:120]


def supply(spec: ProgramSpec, table: Table) -> int:
    """How many distinct items a program can give (for the allocation)."""
    n = len(table.records)
    if spec.kind == "compare":
        return min(2000, n * (n - 1) // 2)
    if spec.kind == "superlative":
        return min(2000, math.comb(n, max(3, spec.k)))
    if spec.kind in ("count", "aggregate"):
        return min(2000, math.comb(n, max(4, spec.rows_shown or 6)))
    return n


def ground_tables(
    config: RunConfig, subtasks: list[Subtask], intent: str, model: Any
) -> tuple[list[Grounding], list[str], dict[str, list[str]]]:
    """Question-program groundings for the records subtasks, the languages dropped and kept."""
    tables = run_tables(config, intent)
    out: list[Grounding] = []
    notes: list[str] = []
    languages_kept: dict[str, list[str]] = {}
    for subtask in subtasks:
        if not subtask.id.startswith(PREFIX):
            continue
        table_id = next((t for t in tables if subtask_id(t) == subtask.id), None)
        if table_id is None:
            continue
        proposal = proposed(config, intent, model)
        if proposal is not None and proposal.note:
            notes.append(f"{subtask.id}: {proposal.note}")
        if proposal is not None and proposal.spec is not None and proposal.spec.table == table_id:
            cand, why = Candidate(proposal.spec, PROPOSED_SCORE, "proposed"), "checked by code"
        else:
            found = plan(intent, tables, table_id)
            if isinstance(found, Refusal):
                continue
            cand, why = choose(model, intent, found)
        spec = cand.spec
        languages = list(subtask.languages) or ["en"]
        kept = []
        for lang in languages:
            problem = probe(spec, tables, lang, seed=config.seed)
            if problem:
                notes.append(f"{subtask.id}: language {lang} dropped: {problem}")
            else:
                kept.append(lang)
        if not kept:
            continue
        languages_kept[subtask.id] = kept
        table = tables[table_id]
        out.append(
            Grounding(
                id=f"{subtask.id}--{spec.kind}",
                subtask_id=subtask.id,
                dataset_id=table_id,
                strategy="question_program",
                program=spec,
                question_field=spec.key_field,
                answer_field=spec.answer_field or spec.field or "computed",
                plan=[],
                scores=Scores(
                    intent_alignment=min(1.0, round(cand.score / 4, 3)),
                    robustness=1.0,
                    signal_preservation=1.0,
                ),
                rationale=f"{spec.describe()}; {why}"[:300],
                available_records=supply(spec, table),
                expected_yield=0.9,
                est_calls_per_item=0.0,
                est_tokens_per_item=0,
            )
        )
    return out, notes, languages_kept
