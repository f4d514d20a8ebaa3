"""Grounding agent: find real data for each subtask and a plan that turns it into items.

For each subtask: retrieve candidate datasets from the catalog(s), let the model choose
the answer and question fields and the transformations (each a ``Literal`` built from the
card's fields and the registry's tools, so nothing can be invented), build the ordered plan
with parameter ranges deterministically (:mod:`benchsmith.agents.plans`), validate every
step against its tool, and score the candidate on intent alignment, robustness and
preservation of the evaluation signal. A subtask is grounded when at least one candidate
passes every check and scores at least ``min_score``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, create_model

from benchsmith.agents.plans import build_plan, candidate_tools, validate_step
from benchsmith.errors import StructuredOutputError
from benchsmith.llm.client import RoleModel
from benchsmith.prompts import render, untrusted
from benchsmith.spec import Grounding, Scores, Subtask

Score = Literal[1, 2, 3, 4, 5]


class CardLike(Protocol):
    """What grounding reads of a dataset card."""

    id: str
    name: str
    description: str
    modalities: list[str]
    fields: list[Any]
    input_fields: list[str]
    output_fields: list[str]
    languages: list[str]
    size: int


class Source(Protocol):
    """A catalog grounding can search."""

    def search(self, query: str, *, modality: str | None = None, limit: int = 10) -> list[Any]:
        """Hits with a ``card`` attribute, best first."""
        ...


@dataclass
class SubtaskGrounding:
    """What grounding found for one subtask."""

    subtask_id: str
    groundings: list[Grounding] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    @property
    def grounded(self) -> bool:
        """Whether at least one valid grounding was found."""
        return bool(self.groundings)

    def reason(self) -> str:
        """Why the subtask is ungrounded (the rejected candidates' reasons)."""
        if not self.rejected:
            return "no dataset in the catalog matches its modality and topic"
        return "; ".join(self.rejected[:4])


def required_modalities(subtask: Subtask) -> list[str]:
    """Dataset modalities that can feed the subtask (speech and rendered text come from text)."""
    needs = set(subtask.input_modalities)
    if "image" in needs and "audio" in needs:
        return ["image"]
    if "image" in needs:
        return ["image", "text", "table"]
    return ["audio", "text", "table"] if "audio" in needs else ["text", "table"]


def retrieve(
    subtask: Subtask, sources: Sequence[Source], *, limit: int = 3, intent: str = ""
) -> list[CardLike]:
    """Candidate datasets for a subtask from every source, best first, no duplicates.

    The query joins the subtask's words with the intent's, so a vaguely named subtask still
    finds the data the intent is about.
    """
    query = " ".join([subtask.name, subtask.description, *subtask.skills, intent])
    seen: dict[str, tuple[int, int, CardLike]] = {}
    for modality in required_modalities(subtask):
        for source in sources:
            hits = source.search(query, modality=modality, limit=limit) or source.search(
                "", modality=modality, limit=limit
            )
            for rank, hit in enumerate(hits):
                card = hit.card
                # Datasets that carry the subtask's own media come first, then search rank.
                media_rank = 0 if modality in subtask.input_modalities else 1
                if card.id not in seen or (media_rank, rank) < seen[card.id][:2]:
                    seen[card.id] = (media_rank, rank, card)
    ordered = sorted(seen.values(), key=lambda t: (t[0], t[1], t[2].id))
    return [t[2] for t in ordered[:limit]]


def choice_schema(card: CardLike, tools: list[str]) -> type[BaseModel]:
    """The schema of the model's choice for one (subtask, dataset) pair."""
    fields = [f.path for f in card.fields] or ["text"]
    answers = [f for f in (card.output_fields or fields) if f in fields] or fields
    tool_type: Any = Literal[tuple(tools)] if tools else Literal["none"]
    return create_model(
        "GroundingChoice",
        answer_field=(Literal[tuple(answers)], Field(description="Field holding the answer.")),  # type: ignore[valid-type]
        question_field=(
            Literal[("none", *fields)],  # type: ignore[valid-type]
            Field(description="Field the question is about, or none."),
        ),
        tools=(list[tool_type], Field(max_length=2, description="Up to 2 transformations.")),
        intent_alignment=(Score, Field(description="1-5: fit of data to subtask and intent.")),
        robustness=(Score, Field(description="1-5: items will be reliable and checkable.")),
        signal_preservation=(Score, Field(description="1-5: the answer survives the tools.")),
        rationale=(str, Field(max_length=120, description="A few words.")),
    )


def describe_card(card: CardLike) -> str:
    """A compact description of a card for prompts (quoted as untrusted data)."""
    lines = [f"{card.id}: {card.name}. {card.description[:300]}"]
    lines.append(f"modalities: {', '.join(card.modalities)}; records: {card.size}")
    for f in card.fields[:12]:
        examples = ", ".join(str(e)[:40] for e in getattr(f, "examples", [])[:2])
        lines.append(
            f"- field {f.path} ({f.modality}): {getattr(f, 'semantics', '')} e.g. {examples}"
        )
    return "\n".join(lines)


def _media_field(card: CardLike, subtask: Subtask) -> str | None:
    for modality in subtask.input_modalities:
        for f in card.fields:
            if f.modality == modality:
                return f.path
    return None


def check_candidate(subtask: Subtask, card: CardLike, grounding: Grounding) -> list[str]:
    """Deterministic checks of one candidate grounding."""
    problems = []
    fields = {f.path for f in card.fields}
    if grounding.answer_field not in fields:
        problems.append(f"{card.id}: no field {grounding.answer_field!r}")
    if grounding.question_field is not None and grounding.question_field not in fields:
        problems.append(f"{card.id}: no field {grounding.question_field!r}")
    if card.size < 1:
        problems.append(f"{card.id}: has no records")
    have = set(card.modalities)
    for modality in subtask.input_modalities:
        if modality == "audio" and not have & {"audio", "text", "table"}:
            problems.append(f"{card.id}: nothing to make audio from")
        if modality == "image" and "image" not in have and not have & {"text", "table"}:
            problems.append(f"{card.id}: no image and no text to render")
    if subtask.languages and card.languages:
        # A dataset in other languages is fine when the question is synthesized (speech,
        # rendered text) from a translation-free field such as names or numbers; flag it.
        if (
            not set(subtask.languages) & set(card.languages)
            and "audio" not in subtask.input_modalities
        ):
            problems.append(f"{card.id}: languages {card.languages} not {subtask.languages}")
    for step in grounding.plan:
        problems.extend(f"{card.id}: {p}" for p in validate_step(step))
    return problems


def ground_subtask(
    model: RoleModel,
    subtask: Subtask,
    sources: Sequence[Source],
    *,
    intent: str,
    candidates: int = 3,
    min_score: float = 0.4,
    id_prefix: str = "",
) -> SubtaskGrounding:
    """Find valid (dataset, plan) groundings for one subtask.

    Args:
        model: The grounding role's model.
        subtask: The subtask.
        sources: Catalogs to search.
        intent: The benchmark's intent.
        candidates: Datasets to consider.
        min_score: Lowest overall score accepted.
        id_prefix: Prefix of grounding ids.

    Returns:
        The accepted groundings (best first) and the reasons candidates were rejected.
    """
    result = SubtaskGrounding(subtask_id=subtask.id)
    tools = candidate_tools(subtask)
    for card in retrieve(subtask, sources, limit=candidates, intent=intent):
        schema = choice_schema(card, tools)
        prompt = render(
            "grounding",
            subtask=subtask,
            intent=intent,
            card=untrusted(describe_card(card), "dataset card"),
        )
        try:
            choice: Any = model.structured(schema, [("user", prompt)])
        except StructuredOutputError as exc:
            result.rejected.append(f"{card.id}: the model gave no valid choice ({exc})")
            continue
        question_field = None if choice.question_field == "none" else choice.question_field
        chosen = [t for t in choice.tools if t != "none"]
        plan = build_plan(
            subtask,
            dataset_modalities=list(card.modalities),
            media_field=_media_field(card, subtask),
            answer_field=choice.answer_field,
            chosen_tools=chosen,
        )
        scores = Scores(
            intent_alignment=(choice.intent_alignment - 1) / 4,
            robustness=(choice.robustness - 1) / 4,
            signal_preservation=(choice.signal_preservation - 1) / 4,
        )
        grounding = Grounding(
            id=f"{id_prefix}{subtask.id}--{card.id}",
            subtask_id=subtask.id,
            dataset_id=card.id,
            question_field=question_field,
            answer_field=choice.answer_field,
            plan=plan,
            scores=scores,
            rationale=choice.rationale.strip(),
            available_records=card.size,
        )
        problems = check_candidate(subtask, card, grounding)
        if problems:
            result.rejected.append("; ".join(problems))
        elif scores.overall < min_score:
            result.rejected.append(
                f"{card.id}: scored {scores.overall:.2f} < {min_score} ({grounding.rationale})"
            )
        else:
            result.groundings.append(grounding)
    result.groundings.sort(key=lambda g: (-g.scores.overall, g.id))
    return result


def ground_all(
    model: RoleModel,
    subtasks: Iterable[Subtask],
    sources: Sequence[Source],
    *,
    intent: str,
    candidates: int = 3,
    min_score: float = 0.4,
) -> list[SubtaskGrounding]:
    """Ground every subtask (in order)."""
    return [
        ground_subtask(model, s, sources, intent=intent, candidates=candidates, min_score=min_score)
        for s in subtasks
    ]


def grounding_node(state: dict[str, Any], runtime: Any) -> dict[str, Any]:
    """Graph node: ground every subtask not grounded yet; route the rest back or drop them.

    While ``regroundings`` is below the run's ``max_regrounding``, ungrounded subtasks go
    back to design with their reasons; after that they are dropped and reported.
    """
    from benchsmith.agents.sources import catalog_sources, run_config
    from benchsmith.llm.registry import get_model

    config = run_config(runtime)
    subtasks = [Subtask(**s) for s in state.get("subtasks") or []]
    existing = [Grounding(**g) for g in state.get("groundings") or []]
    current_ids = {s.id for s in subtasks}
    existing = [g for g in existing if g.subtask_id in current_ids]
    done = {g.subtask_id for g in existing}
    todo = [s for s in subtasks if s.id not in done]
    from benchsmith.agents.references import PREFIX, ground_references

    computed = ground_references(config, [s for s in todo if s.id.startswith(PREFIX)])
    done |= {g.subtask_id for g in computed}
    todo = [s for s in todo if s.id not in done]
    sources = catalog_sources(config)
    results = ground_all(get_model(config, "grounding"), todo, sources, intent=state["intent"])
    groundings = existing + computed + [g for r in results for g in r.groundings]
    failed = [r for r in results if not r.grounded]
    log = [
        f"grounding: {g.subtask_id}: solution graph of {g.dataset_id} ({g.rationale})"
        for g in computed
    ] + [
        f"grounding: {r.subtask_id}: "
        + (
            f"{len(r.groundings)} grounding(s), best {r.groundings[0].dataset_id}"
            if r.grounded
            else f"ungrounded ({r.reason()})"
        )
        for r in results
    ]
    regroundings = int(state.get("regroundings") or 0)
    update: dict[str, Any] = {"groundings": [g.model_dump() for g in groundings]}
    if failed and regroundings < config.max_regrounding:
        update["ungrounded"] = [{"subtask_id": r.subtask_id, "reason": r.reason()} for r in failed]
        update["regroundings"] = regroundings + 1
        log.append(f"grounding: back to design for {', '.join(r.subtask_id for r in failed)}")
    else:
        update["ungrounded"] = []
        if failed:
            dropped = list(state.get("dropped") or []) + [
                {"subtask_id": r.subtask_id, "reason": r.reason()} for r in failed
            ]
            update["dropped"] = dropped
            update["subtasks"] = [
                s.model_dump() for s in subtasks if s.id not in {r.subtask_id for r in failed}
            ]
            log.append(f"grounding: dropped {', '.join(r.subtask_id for r in failed)}")
    update["planner_log"] = log
    return update
