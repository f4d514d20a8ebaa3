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

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, create_model

from benchsmith.agents import (
    programs,
    references,
    sources,  # through the module: tests swap catalog_sources
)
from benchsmith.agents.alignment import (
    content_stems,
    coverage,
    field_overlap,
    rank_answer_fields,
    rank_question_fields,
    topic_stems,
)
from benchsmith.agents.plans import build_plan, candidate_tools, validate_step
from benchsmith.agents.templates import (
    base_language,
    language_bearing,
    template_for,
    template_problems,
)
from benchsmith.agents.templates import candidates as template_candidates
from benchsmith.config import RunConfig
from benchsmith.errors import StructuredOutputError
from benchsmith.llm.client import RoleModel
from benchsmith.llm.registry import get_model
from benchsmith.prompts import render, untrusted
from benchsmith.spec import Dropped, Grounding, Scores, Subtask
from benchsmith.state import BuildState
from benchsmith.verify.wording import failure_reasons, wording_verdicts

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
    missing_languages: dict[str, str] = field(default_factory=dict)

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

    Every card of the sources that can feed the subtask's modality is scored by how much of
    the intent's topic it covers (:func:`~benchsmith.agents.alignment.coverage`); a card
    that covers none of it is never a candidate, whatever a model would pick. Ties go to
    datasets carrying the subtask's own media, then to the catalog search's rank.
    """
    topics = intent_topics(intent, subtask)
    wanted = set(required_modalities(subtask))
    query = " ".join([intent, subtask.name, subtask.description, *subtask.skills])
    seen: dict[str, tuple[float, int, int, str, CardLike]] = {}
    for source in sources:
        ranks: dict[str, int] = {}
        for modality in sorted(wanted):
            for rank, hit in enumerate(source.search(query, modality=modality, limit=50)):
                ranks[hit.card.id] = min(rank, ranks.get(hit.card.id, rank))
        listing = (
            source.list()
            if hasattr(source, "list")
            else [h.card for m in sorted(wanted) for h in source.search("", modality=m, limit=200)]
        )
        for card in listing:
            if card.id in seen or not wanted & set(card.modalities):
                continue
            share = coverage(topics, card)
            if share <= 0:
                continue
            media = 0 if set(subtask.input_modalities) & set(card.modalities) - {"text"} else 1
            seen[card.id] = (-share, media, ranks.get(card.id, 10_000), card.id, card)
    return [t[-1] for t in sorted(seen.values(), key=lambda t: t[:4])[:limit]]


def intent_topics(intent: str, subtask: Subtask | None = None) -> set[str]:
    """The topic stems a grounding must cover.

    The intent's topic words that the subtask also names (a subtask about digits in an
    intent about capitals and digits is judged on digits), else all of the intent's, else
    the subtask's own, else the intent's content words.
    """
    topics = topic_stems(intent)
    if subtask is not None:
        own = content_stems(f"{subtask.name} {subtask.description} {' '.join(subtask.skills)}")
        focus = topics & own
        if focus:
            return focus
        if not topics:
            topics = topic_stems(f"{subtask.name} {subtask.description}")
    return topics or content_stems(intent)


def choice_schema(
    card: CardLike,
    tools: list[str],
    *,
    answers: Sequence[str] | None = None,
    questions: Sequence[str] | None = None,
) -> type[BaseModel]:
    """The schema of the model's choice for one (subtask, dataset) pair.

    ``answers`` and ``questions`` are the ranked candidates (see
    :mod:`benchsmith.agents.alignment`); without them every field is offered.
    """
    fields = [f.path for f in card.fields] or ["text"]
    answers = list(answers or [f for f in (card.output_fields or fields) if f in fields] or fields)
    questions = list(questions if questions is not None else fields) or ["none"]
    tool_type: Any = Literal[tuple(tools)] if tools else Literal["none"]
    return create_model(
        "GroundingChoice",
        answer_field=(Literal[tuple(answers)], Field(description="Field holding the answer.")),  # type: ignore[valid-type]
        question_field=(
            Literal[tuple(questions)],  # type: ignore[valid-type]
            Field(description="Field the question names, or none (the media carry it)."),
        ),
        tools=(list[tool_type], Field(max_length=2, description="Up to 2 transformations.")),
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
    """The card's image or audio field the subtask shows as it is (None: none)."""
    for modality in (m for m in subtask.input_modalities if m in ("image", "audio")):
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
    tools = {step.tool for step in grounding.plan}
    for modality in subtask.input_modalities:
        if modality == "audio" and "audio" not in have and "tts_speak" not in tools:
            problems.append(f"{card.id}: the subtask is spoken but no plan step makes speech")
        if modality == "image" and "image" not in have and "image_text" not in tools:
            problems.append(f"{card.id}: the subtask shows an image but no plan step makes one")
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


def template_schema(labels: Sequence[str], own_languages: Sequence[str]) -> type[BaseModel]:
    """The schema of the template choice: a candidate label, or own text per language."""
    fields: dict[str, Any] = {
        "template": (
            Literal[(*labels, "own")],  # type: ignore[valid-type]
            Field(description="The candidate question template to use, or own."),
        )
    }
    for lang in own_languages:
        fields[f"own_{lang.replace('-', '_')}"] = (
            str | None,
            Field(
                default=None,
                max_length=140,
                description=f"Only for own: the template in language {lang}, with the {{field}} "
                "slots of the candidates.",
            ),
        )
    return create_model("TemplateChoice", **fields)


@dataclass
class TemplatePick:
    """The templates a grounding keeps, and the languages it had to leave out.

    ``answer_fields``: per language, the field translating the answer field into it.
    """

    templates: dict[str, str]
    source: str
    missing: dict[str, str]
    answer_fields: dict[str, str] = field(default_factory=dict)


def pick_templates(
    model: RoleModel | None,
    subtask: Subtask,
    card: CardLike,
    *,
    question_field: str | None,
    answer_field: str,
    has_media: bool,
) -> TemplatePick:
    """Question templates for a grounding: candidates from the card, checked per language.

    The model (when given and when there is a choice to make) picks a candidate or writes
    its own; its text is kept per language only where it passes the wording checks. A
    language with no passing template is reported in ``missing`` with the reason.
    """
    semantics = next(
        (getattr(f, "semantics", "") for f in card.fields if f.path == answer_field), ""
    )
    # Fields the card gives in other languages (a country's name in French, ...).
    translated = {
        f.path: dict(getattr(f, "translations", None) or {})
        for f in card.fields
        if getattr(f, "translations", None)
    }
    data_language = (list(card.languages) or ["en"])[0]
    cands = template_candidates(
        question_field=question_field,
        answer_field=answer_field,
        answer_semantics=semantics,
        has_media=has_media,
        translations=translated.get(question_field or ""),
        records_about=f"{card.id} {card.name} {question_field or ''}",
    )
    wanted = list(subtask.languages) or ["en"]
    fields = [f.path for f in card.fields]

    def usable(text: str, lang: str, origin: str) -> list[str]:
        # A concept's templates are the project's constants, written per language and
        # identified in their language by the test suite (tests/agents/test_templates.py):
        # the build does not wait for lingua's models to check them again.
        identify = not origin.startswith("concept:")

        def check(filled: str, language: str | None, entity: str | None) -> list[str]:
            return failure_reasons(wording_verdicts(filled, language, entity, language_id=identify))

        return template_problems(
            text,
            language=lang,
            answer_field=answer_field,
            fields=fields,
            check=check,
            translations=translated,
            data_language=data_language,
        )

    order = list(cands)
    own: dict[str, str] = {}
    covered = {lang for c in cands for lang in wanted if template_for(c.templates, lang)}
    own_languages = [lang for lang in wanted if lang not in covered]
    if model is not None and (len(cands) > 1 or own_languages):
        schema = template_schema([c.label for c in cands], own_languages)
        prompt = render(
            "grounding_template",
            subtask=subtask,
            candidates=[f"{c.label}: {c.summary()}" for c in cands],
            languages=own_languages,
            fields=", ".join(f"{{{p}}}" for p in fields if p != answer_field),
            card=untrusted(describe_card(card), "dataset card"),
        )
        try:
            choice: Any = model.structured(schema, [("user", prompt)])
        except StructuredOutputError:
            choice = None
        if choice is not None:
            picked = [c for c in cands if c.label == choice.template]
            order = picked + [c for c in cands if c not in picked]
            for lang in own_languages:
                text = getattr(choice, f"own_{lang.replace('-', '_')}", None)
                if choice.template == "own" and text and text.strip():
                    own[lang] = " ".join(text.split())
    kept: dict[str, str] = {}
    missing: dict[str, str] = {}
    source = ""
    # An answer in words comes in the item's language or not at all: a German item offers
    # "Wien", never "Vienna" ("Europe" for "Europa").
    answer_info = next((f for f in card.fields if f.path == answer_field), None)
    answer_translations = translated.get(answer_field, {})
    answer_fields: dict[str, str] = {}
    for lang in wanted:
        if base_language(lang) == base_language(data_language):
            continue
        own_field = template_for(answer_translations, lang)
        if own_field:
            answer_fields[lang] = own_field
        elif answer_info is not None and language_bearing(answer_info):
            missing[lang] = (
                f"the dataset gives its {answer_field} values in {data_language} only, "
                f"not in {lang}"
            )
    for lang in wanted:
        if lang in missing:
            continue
        reasons = []
        options = [(c.source, template_for(c.templates, lang)) for c in order]
        if lang in own:
            options.append(("model", own[lang]))
        for origin, text in options:
            if not text:
                continue
            problems = usable(text, lang, origin)
            if problems:
                reasons.append(f"{text!r}: {problems[0]}")
                continue
            kept[lang] = text
            source = source or origin
            break
        if lang not in kept:
            missing[lang] = "; ".join(reasons) or f"no candidate template in {lang}"
    return TemplatePick(
        templates=kept,
        source=source,
        missing=missing,
        answer_fields={k: v for k, v in answer_fields.items() if k in kept},
    )


def robustness(card: CardLike, answer_field: str, subtask: Subtask, picked: Any) -> float:
    """Will items built this way be reliable and checkable? Decided in code, in [0, 1].

    Half for the question wording (templates passing the checks in every wanted language,
    else the share of languages covered), half for the answer (a field with at least two
    distinct values, enough for multiple-choice distractors when the format needs them).
    """
    wanted = list(subtask.languages) or ["en"]
    wording = len([lang for lang in wanted if lang in picked.templates]) / len(wanted)
    info = next((f for f in card.fields if f.path == answer_field), None)
    distinct = getattr(info, "n_unique", None)
    need = 4 if subtask.answer_format == "multiple_choice" else 2
    answer = 1.0 if distinct is None or distinct >= need else 0.5 if distinct >= 2 else 0.0
    return round((wording + answer) / 2, 4)


def ground_subtask(
    model: RoleModel,
    subtask: Subtask,
    sources: Sequence[Source],
    *,
    intent: str,
    candidates: int = 3,
    min_score: float = 0.4,
    min_alignment: float = 0.5,
    id_prefix: str = "",
) -> SubtaskGrounding:
    """Find valid (dataset, plan) groundings for one subtask.

    The answer and question fields the model may choose are the card's fields ranked by
    their overlap with the intent's topic (only the best are offered); the intent alignment
    score is computed here (topic coverage of the card and of the answer field), not asked
    of the model, and a candidate below ``min_alignment`` is not kept. Each kept grounding
    carries question templates for the subtask's languages.

    Args:
        model: The grounding role's model.
        subtask: The subtask.
        sources: Catalogs to search.
        intent: The benchmark's intent.
        candidates: Datasets to consider.
        min_score: Lowest overall score accepted.
        min_alignment: Lowest intent alignment accepted.
        id_prefix: Prefix of grounding ids.

    Returns:
        The accepted groundings (best first) and the reasons candidates were rejected.
    """
    result = SubtaskGrounding(subtask_id=subtask.id)
    tools = candidate_tools(subtask)
    topics = intent_topics(intent, subtask)
    extra = topic_stems(f"{subtask.name} {subtask.description}") - topics
    cards = retrieve(subtask, sources, limit=candidates, intent=intent)
    # Among the candidates, only the datasets that cover as much of the whole intent as the
    # best one does are kept: a dataset of country names is no grounding for "facts about
    # countries: their region and subregion" while the countries' facts are in the catalog.
    whole = topic_stems(intent) or topics
    covers = {card.id: coverage(whole, card) for card in cards}
    best_cover = max(covers.values(), default=0.0)
    for card in cards:
        if covers[card.id] < best_cover:
            result.rejected.append(
                f"{card.id}: covers {covers[card.id]:.0%} of the intent's topic words "
                f"({', '.join(sorted(whole))}); another dataset covers {best_cover:.0%}"
            )
            continue
        ranked = rank_answer_fields(card, topics)
        if len(ranked) > 1 and extra:
            # Among equals for the intent, the subtask's own words decide the order.
            fields = {f.path: f for f in card.fields}
            ranked.sort(key=lambda pa: -field_overlap(extra, pa[0], fields[pa[0]].semantics))
        media_field = _media_field(card, subtask)
        questions = (
            ["none"]
            if media_field is not None
            else rank_question_fields(card, ranked[0][0], topics, limit=2)
        )
        if not questions:
            result.rejected.append(f"{card.id}: no field can name what a question is about")
            continue
        schema = choice_schema(card, tools, answers=[p for p, _s in ranked], questions=questions)
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
        if question_field == choice.answer_field:
            question_field = next((q for q in questions if q != choice.answer_field), None)
        chosen = [t for t in choice.tools if t != "none"]
        plan = build_plan(
            subtask,
            dataset_modalities=list(card.modalities),
            media_field=media_field,
            answer_field=choice.answer_field,
            chosen_tools=chosen,
        )
        answer_fit = dict(ranked).get(choice.answer_field, 0)
        alignment = round((coverage(topics, card) + (1.0 if answer_fit > 0 else 0.0)) / 2, 4)
        picked = pick_templates(
            model,
            subtask,
            card,
            question_field=question_field,
            answer_field=choice.answer_field,
            has_media=media_field is not None,
        )
        scores = Scores(
            intent_alignment=alignment,
            robustness=robustness(card, choice.answer_field, subtask, picked),
            signal_preservation=(choice.signal_preservation - 1) / 4,
        )
        grounding = Grounding(
            id=f"{id_prefix}{subtask.id}--{card.id}",
            subtask_id=subtask.id,
            dataset_id=card.id,
            question_field=question_field,
            answer_field=choice.answer_field,
            answer_fields=picked.answer_fields,
            plan=plan,
            question_templates=picked.templates,
            template_source=picked.source,
            scores=scores,
            rationale=choice.rationale.strip(),
            available_records=card.size,
        )
        problems = check_candidate(subtask, card, grounding)
        if not picked.templates:
            problems.append(
                f"{card.id}: no question template passes the checks in "
                f"{', '.join(picked.missing)} ({'; '.join(picked.missing.values())[:300]})"
            )
        if problems:
            result.rejected.append("; ".join(problems))
        elif alignment < min_alignment:
            result.rejected.append(
                f"{card.id}: intent alignment {alignment:.2f} < {min_alignment} (answer field "
                f"{choice.answer_field!r} carries {answer_fit} of the topic words "
                f"{', '.join(sorted(topics))})"
            )
        elif scores.overall < min_score:
            result.rejected.append(
                f"{card.id}: scored {scores.overall:.2f} < {min_score} ({grounding.rationale})"
            )
        else:
            result.groundings.append(grounding)
            result.missing_languages.update(
                {lang: f"{card.id}: {why}" for lang, why in picked.missing.items()}
            )
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


def grounding_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: ground every subtask not grounded yet; route the rest back or drop them.

    While ``regroundings`` is below the run's ``max_regrounding``, ungrounded subtasks go
    back to design with their reasons; after that they are dropped and reported.
    """
    config = sources.run_config(runtime)
    subtasks = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    existing = [Grounding.model_validate(g) for g in state.get("groundings") or []]
    current_ids = {s.id for s in subtasks}
    existing = [g for g in existing if g.subtask_id in current_ids]
    done = {g.subtask_id for g in existing}
    todo = [s for s in subtasks if s.id not in done]
    computed = references.ground_references(
        config, [s for s in todo if s.id.startswith(references.PREFIX)]
    )
    tabled = [s for s in todo if s.id.startswith(programs.PREFIX)]
    programmed: list[Grounding] = []
    program_notes: list[str] = []
    if tabled:
        programmed, program_notes, kept = programs.ground_tables(
            config, tabled, state["intent"], get_model(config, "grounding")
        )
        subtasks = [
            s.model_copy(update={"languages": kept[s.id]}) if s.id in kept else s for s in subtasks
        ]
        computed = computed + programmed
    done |= {g.subtask_id for g in computed}
    todo = [s for s in todo if s.id not in done and not s.id.startswith(programs.PREFIX)]
    catalogs = sources.catalog_sources(config)
    results = ground_all(get_model(config, "grounding"), todo, catalogs, intent=state["intent"])
    groundings = existing + computed + [g for r in results for g in r.groundings]
    failed = [r for r in results if not r.grounded] + [
        SubtaskGrounding(
            subtask_id=s.id,
            rejected=[f"no language of the subtask can be worded: {'; '.join(program_notes)}"],
        )
        for s in tabled
        if s.id not in {g.subtask_id for g in programmed}
    ]
    log = (
        [
            f"grounding: {g.subtask_id}: "
            + ("question program" if g.strategy == "question_program" else "solution graph")
            + f" of {g.dataset_id} ({g.rationale})"
            for g in computed
        ]
        + [f"grounding: {note}" for note in program_notes]
        + [
            f"grounding: {r.subtask_id}: "
            + (
                f"{len(r.groundings)} grounding(s), best {r.groundings[0].dataset_id}"
                if r.grounded
                else f"ungrounded ({r.reason()})"
            )
            for r in results
        ]
    )
    # A language with no template passing the checks is dropped from its subtask, and
    # said so, never filled with another language's text.
    warnings: list[str] = []
    for r in results:
        if not r.grounded or not r.missing_languages:
            continue
        have = {lang for g in r.groundings for lang in g.question_templates}
        for i, s in enumerate(subtasks):
            if s.id != r.subtask_id or not s.languages:
                continue
            gone = [lang for lang in s.languages if lang not in have]
            if gone:
                subtasks[i] = s.model_copy(
                    update={"languages": [lang for lang in s.languages if lang in have]}
                )
                for lang in gone:
                    warnings.append(
                        f"{s.id}: language {lang} dropped: no question template passes the "
                        f"checks ({r.missing_languages.get(lang, 'no candidate')[:240]})"
                    )
    log += [f"grounding: {w}" for w in warnings]
    regroundings = int(state.get("regroundings") or 0)
    update: dict[str, Any] = {
        "groundings": groundings,
        "subtasks": subtasks,
    }
    if warnings:
        update["warnings"] = warnings
    if failed and regroundings < config.max_regrounding:
        update["ungrounded"] = [Dropped(subtask_id=r.subtask_id, reason=r.reason()) for r in failed]
        update["regroundings"] = regroundings + 1
        log.append(f"grounding: back to design for {', '.join(r.subtask_id for r in failed)}")
    else:
        update["ungrounded"] = []
        if failed:
            update["dropped"] = [
                *map(Dropped.model_validate, state.get("dropped") or []),
                *(Dropped(subtask_id=r.subtask_id, reason=r.reason()) for r in failed),
            ]
            update["subtasks"] = [s for s in subtasks if s.id not in {r.subtask_id for r in failed}]
            log.append(f"grounding: dropped {', '.join(r.subtask_id for r in failed)}")
    update["planner_log"] = log
    return update
