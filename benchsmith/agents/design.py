"""Design agent: the intent (and constraints) to independent, testable subtasks.

Propose, check, critique: the model proposes subtasks through a schema whose modality and
answer-format fields are ``Literal`` types built from the run's constraints; deterministic
checks (non-empty, not duplicated, count within bounds, allowed modality and format) run
first; then the model critiques each survivor (keep, revise or discard, by a ``Literal``
of the actual ids). Subtasks that grounding could not ground come back here with the
reason, and are replaced while grounded ones are kept.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, StringConstraints, create_model

from benchsmith.agents import sources  # through the module: tests swap catalog_sources
from benchsmith.agents.alignment import (
    carries_intent,
    coverage,
    formats_from_intent,
    languages_from_intent,
    uncovered_message,
)
from benchsmith.agents.grounding import intent_topics
from benchsmith.agents.programs import MIN_RELEVANCE, relevance, table_subtasks
from benchsmith.agents.references import reference_subtasks
from benchsmith.config import RunConfig
from benchsmith.errors import StructuredOutputError
from benchsmith.llm import registry  # through the module: tests swap get_model
from benchsmith.llm.client import RoleModel
from benchsmith.naming import unique_slug
from benchsmith.prompts import render, untrusted
from benchsmith.spec import ANSWER_FORMATS, MODALITIES, Dropped, Subtask
from benchsmith.state import BuildState

Skill = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=30)]


def proposal_schema(
    modalities: tuple[str, ...], formats: tuple[str, ...], count: int
) -> type[BaseModel]:
    """The schema of one proposal, with enums built from the run's constraints."""
    item = create_model(
        "ProposedSubtask",
        name=(str, Field(max_length=60, description="Short name, a few words.")),
        description=(
            str,
            Field(max_length=200, description="What one item asks and what the answer is."),
        ),
        skills=(list[Skill], Field(max_length=3, description="Up to 3 skills it tests.")),
        input_modality=(Literal[modalities], Field(description="What the question is given as.")),  # type: ignore[valid-type]
        answer_format=(Literal[formats], Field(description="How the answer is given.")),  # type: ignore[valid-type]
        difficulty=(Literal["easy", "medium", "hard"], Field(description="Target difficulty.")),
    )
    return create_model(
        "SubtaskProposal",
        subtasks=(list[item], Field(min_length=1, max_length=count, description="The subtasks.")),  # type: ignore[valid-type]
    )


def critique_schema(ids: list[str]) -> type[BaseModel]:
    """The schema of a critique, whose subtask ids are a ``Literal`` of the real ids."""
    verdict = create_model(
        "Verdict",
        subtask_id=(Literal[tuple(ids)], Field(description="The subtask judged.")),  # type: ignore[valid-type]
        action=(Literal["keep", "revise", "discard"], Field(description="The decision.")),
        reason=(str, Field(max_length=100, description="Why, in a few words.")),
        new_description=(
            str | None,
            Field(default=None, max_length=200, description="For revise: the clearer text."),
        ),
    )
    return create_model(
        "Critique",
        verdicts=(list[verdict], Field(max_length=len(ids), description="One per subtask.")),  # type: ignore[valid-type]
    )


def slug(text: str, taken: set[str]) -> str:
    """A unique id from a name: lowercase words joined by dashes, at most 40 characters."""
    return unique_slug(text, taken, default="subtask")


#: Phrases from the prompt itself; a small model sometimes copies them as values.
PROMPT_ECHOES = (
    "two-step addition",
    "read a short story with two quantities and give their sum",
    "short name, a few words",
    "what one item asks and what the answer is",
)

_MODALITY_WORDS = {
    "audio": r"\b(spoken|speech|audio|listen\w*|voice|hear\w*|sound|noisy speech)\b",
    "image": r"\b(image\w*|photo\w*|picture\w*|visual\w*|see|seen|chart\w*|diagram\w*)\b",
}


def modalities_from_intent(intent: str) -> tuple[str, ...]:
    """Input modalities an intent names (``spoken`` -> audio, ``photos`` -> image), if any."""
    found = tuple(m for m, pattern in _MODALITY_WORDS.items() if re.search(pattern, intent.lower()))
    return found


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _similar(a: str, b: str) -> bool:
    wa, wb = set(_norm(a).split()), set(_norm(b).split())
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.8


def check_subtasks(
    subtasks: list[Subtask],
    *,
    max_count: int,
    modalities: tuple[str, ...] = MODALITIES,
    formats: tuple[str, ...] = ANSWER_FORMATS,
    keep_first: list[Subtask] | None = None,
    intent: str | None = None,
) -> tuple[list[Subtask], list[str]]:
    """Deterministic checks: non-empty, on the intent, allowed modality/format, no duplicates.

    Args:
        subtasks: Candidates, in order of preference.
        max_count: Most subtasks to keep (including ``keep_first``).
        modalities: Allowed input modalities.
        formats: Allowed answer formats.
        keep_first: Already accepted subtasks that candidates must not duplicate.
        intent: When given, a subtask whose name and description hold none of the
            intent's words (``1-2-3``) is refused.

    Returns:
        The kept candidates and one problem line per rejected one.
    """
    kept: list[Subtask] = []
    problems: list[str] = []
    accepted = list(keep_first or [])
    for s in subtasks:
        if not _norm(s.name) or not _norm(s.description):
            problems.append(f"{s.id}: empty name or description")
        elif any(_norm(e) in (_norm(s.name), _norm(s.description)) for e in PROMPT_ECHOES) or (
            "untrusted" in f"{s.name} {s.description}".lower()
        ):
            problems.append(f"{s.id}: copies the prompt's own wording")
        elif intent is not None and not carries_intent(s.name, s.description, intent):
            problems.append(f"{s.id}: its name and description carry none of the intent's words")
        elif any(m not in modalities for m in s.input_modalities):
            problems.append(f"{s.id}: input modality {s.input_modalities} is not allowed")
        elif s.answer_format not in formats:
            problems.append(f"{s.id}: answer format {s.answer_format} is not allowed")
        elif any(
            _norm(s.name) == _norm(o.name) or _similar(s.description, o.description)
            for o in accepted
        ):
            problems.append(f"{s.id}: duplicates another subtask")
        elif len(accepted) >= max_count:
            problems.append(f"{s.id}: more than {max_count} subtasks")
        else:
            kept.append(s)
            accepted.append(s)
    return kept, problems


def _to_subtasks(proposal: BaseModel, taken: set[str], languages: list[str]) -> list[Subtask]:
    out = []
    for p in proposal.subtasks:  # type: ignore[attr-defined]
        sid = slug(p.name or p.description, taken)
        taken.add(sid)
        out.append(
            Subtask(
                id=sid,
                name=p.name.strip() or sid,
                description=p.description.strip() or p.name.strip() or sid,
                skills=[s for s in p.skills if s][:3],
                input_modalities=[p.input_modality],
                answer_format=p.answer_format,
                difficulty=p.difficulty,
                languages=list(languages),
            )
        )
    return out


def fallback_subtask(
    intent: str, modalities: tuple[str, ...], formats: tuple[str, ...], languages: list[str]
) -> Subtask:
    """One subtask that is the intent itself, when the model proposes nothing usable."""
    modality = next(
        (m for m in ("audio", "image") if m in modalities and m in intent.lower()), None
    )
    return Subtask(
        id=slug(intent, set()),
        name=intent[:80],
        description=intent[:600],
        skills=[],
        input_modalities=[modality or modalities[0]],
        answer_format="multiple_choice" if "multiple_choice" in formats else formats[0],
        difficulty="medium",
        languages=list(languages),
    )


def design_subtasks(
    model: RoleModel,
    *,
    intent: str,
    size: int,
    max_subtasks: int,
    max_rounds: int,
    modalities: tuple[str, ...] = MODALITIES,
    formats: tuple[str, ...] = ANSWER_FORMATS,
    languages: list[str] | None = None,
    keep: list[Subtask] | None = None,
    feedback: list[str] | None = None,
    sources: list[str] | None = None,
) -> tuple[list[Subtask], list[str]]:
    """Run the propose / check / critique loop.

    Args:
        model: The design role's model.
        intent: What the benchmark should measure.
        size: Requested number of items (bounds the number of subtasks).
        max_subtasks: Most subtasks in total.
        max_rounds: Propose/critique rounds.
        modalities: Allowed input modalities.
        formats: Allowed answer formats.
        languages: Languages items must be in.
        keep: Grounded subtasks to keep (re-design after grounding feedback).
        feedback: Why earlier subtasks could not be grounded.
        sources: Short descriptions of available datasets (quoted as data).

    Returns:
        The subtasks (kept ones first) and a log of what happened.
    """
    keep = list(keep or [])
    languages = list(languages or [])
    target = max(1, min(max_subtasks, size) - len(keep))
    taken = {s.id for s in keep}
    log: list[str] = []
    accepted: list[Subtask] = []
    for round_no in range(1, max(1, max_rounds) + 1):
        want = target - len(accepted)
        if want <= 0:
            break
        prompt = render(
            "design_propose",
            count=want,
            modalities=list(modalities),
            formats=list(formats),
            languages=languages,
            existing=[s.name for s in keep + accepted],
            feedback=feedback or [],
            sources=untrusted("\n".join(sources or ["(none listed)"]), "dataset list"),
            intent=intent,
            size=size,
        )
        try:
            proposal = model.structured(
                proposal_schema(modalities, formats, want), [("user", prompt)]
            )
        except StructuredOutputError as exc:
            log.append(f"round {round_no}: no valid proposal ({exc})")
            continue
        check = functools.partial(
            check_subtasks,
            max_count=len(keep) + target,
            modalities=modalities,
            formats=formats,
            keep_first=keep + accepted,
            intent=intent,
        )
        fresh, problems = check(_to_subtasks(proposal, taken, languages))
        log.extend(f"round {round_no}: rejected {p}" for p in problems)
        if fresh:
            fresh, problems = check(_critique(model, intent, fresh, log, round_no))
            log.extend(f"round {round_no}: rejected after revision {p}" for p in problems)
        accepted.extend(fresh)
    if not keep and not accepted:
        accepted = [fallback_subtask(intent, modalities, formats, languages)]
        log.append("no proposal passed the checks: using the intent itself as one subtask")
    return keep + accepted, log


def _critique(
    model: RoleModel, intent: str, subtasks: list[Subtask], log: list[str], round_no: int
) -> list[Subtask]:
    schema = critique_schema([s.id for s in subtasks])
    prompt = render("design_critique", intent=intent, subtasks=subtasks)
    try:
        critique: Any = model.structured(schema, [("user", prompt)])
    except StructuredOutputError as exc:
        log.append(f"round {round_no}: critique failed, keeping the checked subtasks ({exc})")
        return subtasks
    verdicts = {v.subtask_id: v for v in critique.verdicts}
    out = []
    for s in subtasks:
        v = verdicts.get(s.id)
        if v is None or v.action == "keep":
            out.append(s)
        elif v.action == "revise" and v.new_description and v.new_description.strip():
            out.append(s.model_copy(update={"description": v.new_description.strip()}))
            log.append(f"round {round_no}: revised {s.id}: {v.reason}")
        elif v.action == "revise":
            out.append(s)
        else:
            log.append(f"round {round_no}: discarded {s.id}: {v.reason}")
    if not out:
        # The checks passed; a critique may prune but not empty the set.
        log.append(f"round {round_no}: the critique discarded every subtask; keeping them")
        return subtasks
    return out


def uncovered_intent(config: RunConfig, intent: str) -> str | None:
    """The error of an intent that no catalog dataset and no reference covers (else None).

    A reference given for the run always covers it (its formulas become computed problems).
    """
    if config.paths.run_catalog_dir:
        return None  # the run's own --dataset/--reference sources were given for this intent
    topics = intent_topics(intent)
    searched: list[str] = []
    for source in sources.catalog_sources(config):
        for card in source.list():
            searched.append(card.id)
            # Its words, or (read through the gloss of an intent in another language) its
            # name, a field's label in any language, or a value: "welche Ziffer" names digits.
            if coverage(topics, card) > 0 or relevance(intent, card) >= MIN_RELEVANCE:
                return None
    return uncovered_message(intent, topics, searched)


def design_node(state: BuildState, runtime: Runtime[RunConfig]) -> dict[str, Any]:
    """Graph node: (re)design subtasks, keeping those already grounded.

    On re-entry after grounding (or allocation) feedback, the ungrounded subtasks are
    replaced and the grounded ones kept; the feedback reasons go into the prompt.
    """
    config = sources.run_config(runtime)
    previous = [Subtask.model_validate(s) for s in state.get("subtasks") or []]
    ungrounded = {
        u.subtask_id: u.reason for u in map(Dropped.model_validate, state.get("ungrounded") or [])
    }
    keep = [s for s in previous if s.id not in ungrounded]
    feedback = [f"{sid}: {reason}" for sid, reason in ungrounded.items()]
    uncovered = uncovered_intent(config, state["intent"])
    if uncovered:
        return {
            "plan_status": "uncovered",
            "error": uncovered,
            "planner_log": [f"design: {uncovered}"],
        }
    languages = list(config.languages) or list(languages_from_intent(state["intent"]))

    # The user's own tables: question programs built from the intent and the data (no design
    # call: the data defines the subtask; a capable grounding model proposes the program),
    # or a refusal naming what is missing.
    grounder = registry.get_model(config, "grounding")
    # A question read aloud or rendered: as the run asks, else as the intent says.
    spoken = [m for m in modalities_from_intent(state["intent"]) if m == "audio"]
    tabled, refused = table_subtasks(
        config,
        state["intent"],
        languages,
        grounder,
        modalities=[m for m in config.modalities if m != "text"] or spoken or ["text"],
    )
    # Tables the intent is about, and no program over them: the refusal says what is missing.
    if refused and not reference_subtasks(config, keep):
        return {
            "plan_status": "uncovered",
            "error": refused,
            "planner_log": [f"design: {refused}"],
        }
    if tabled:
        subtasks = [*tabled, *reference_subtasks(config, tabled)]
        return {
            "subtasks": subtasks,
            "ungrounded": [],
            "planner_log": [
                f"design: {s.id}: {s.name} (question programs built from the intent and the data)"
                for s in tabled
            ]
            + [f"design: subtasks {', '.join(s.id for s in subtasks)}"],
        }
    # A reference chapter gives computed problems only: its formulas, never record subtasks
    # the design model would invent around it.
    computed = reference_subtasks(config, keep)
    if computed:
        subtasks = [*keep, *computed][: max(config.max_subtasks, len(computed))]
        return {
            "subtasks": subtasks,
            "ungrounded": [],
            "planner_log": [
                f"design: {s.id}: {s.name} (computed problems from the reference's formulas)"
                for s in computed
            ]
            + [f"design: subtasks {', '.join(s.id for s in subtasks)}"],
        }
    modalities = tuple(config.modalities) or modalities_from_intent(state["intent"]) or MODALITIES
    formats = tuple(config.answer_formats) or formats_from_intent(state["intent"]) or ANSWER_FORMATS
    subtasks, log = design_subtasks(
        registry.get_model(config, "design"),
        intent=state["intent"],
        size=state["size"],
        max_subtasks=config.max_subtasks,
        max_rounds=config.max_design_rounds,
        modalities=modalities,
        formats=formats,
        # "... in German and Spanish": the items' languages, unless the run sets them.
        languages=languages,
        keep=keep,
        feedback=feedback,
        sources=sources.describe_sources(config),
    )
    computed = reference_subtasks(config, subtasks)
    if computed:
        # The user's references come first: drop proposed subtasks beyond the cap.
        room = max(0, config.max_subtasks - len(computed))
        subtasks = [*subtasks[:room], *computed]
        log.append(f"added {', '.join(s.id for s in computed)} for the given references")
    return {
        "subtasks": subtasks,
        "ungrounded": [],
        "planner_log": [f"design: {line}" for line in log]
        + [f"design: subtasks {', '.join(s.id for s in subtasks)}"],
    }
