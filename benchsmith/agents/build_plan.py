"""The plan a build realizes: on disk before its first slot, with every question template.

``collect`` settles the plan once per run, before it plans the first round
(:func:`settle_plan`): the plan already in ``spec.json`` (an approved plan, or the one a
killed build wrote), else the one the planner made. A grounding of an older plan, written
before groundings carried question templates, gets its dataset card's own templates then
(:func:`card_templates`), and the plan goes back to ``spec.json`` with what was derived in
its notes, so the slots, a resumed build and packaging all read the same plan, and the
report says where the templates came from.
"""

from __future__ import annotations

from pathlib import Path

from benchsmith.agents.grounding import pick_templates
from benchsmith.agents.sources import find_card
from benchsmith.agents.templates import template_for
from benchsmith.catalog.cards import MEDIA_MODALITIES
from benchsmith.config import RunConfig
from benchsmith.layout import spec_path, write_spec
from benchsmith.spec import BenchmarkSpec


def card_templates(spec: BenchmarkSpec, config: RunConfig) -> BenchmarkSpec:
    """Give groundings of an older plan (no question templates) the card's own templates.

    A plan written by the planner or a person keeps its templates as written. A language
    no grounding of its subtask has a template for is dropped (and said so), never filled
    with another language's text or left to fail slot by slot. What was derived, and why
    a language could not get a template, goes first in the plan's notes (a note already
    there is not repeated, so settling a settled plan changes nothing).

    Returns:
        The plan with the derived templates, or ``spec`` itself when nothing changed.
    """
    subtasks_by_id = {s.id: s for s in spec.subtasks}
    notes: list[str] = []
    groundings = []
    for g in spec.groundings:
        card = None
        if not g.question_templates and g.strategy == "records":
            card = find_card(config, g.dataset_id)
        if card is None:
            groundings.append(g)
            continue
        picked = pick_templates(
            None,
            subtasks_by_id[g.subtask_id],
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
    subtasks = []
    for subtask in spec.subtasks:
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
    fresh = [note for note in notes if note not in spec.notes]
    if not fresh:
        return spec
    return spec.model_copy(
        update={"groundings": groundings, "subtasks": subtasks, "notes": fresh + spec.notes}
    )


def settle_plan(config: RunConfig, planned: BenchmarkSpec) -> BenchmarkSpec:
    """The plan the build's slots realize, written to ``spec.json`` when it is new or changed.

    Args:
        config: The run configuration (``out_dir`` is the benchmark folder).
        planned: The plan in the build's state, used when ``spec.json`` does not exist yet.

    Returns:
        The plan in ``spec.json`` (or ``planned``), with the card's templates where a
        grounding had none (:func:`card_templates`).
    """
    folder = Path(config.paths.out_dir or ".")
    path = spec_path(folder)
    on_disk = (
        BenchmarkSpec.model_validate_json(path.read_text(encoding="utf-8"))
        if path.is_file()
        else None
    )
    plan = card_templates(on_disk or planned, config)
    if on_disk is None or plan is not on_disk:
        # On disk before the first slot: a killed build resumes from it, and every slot
        # opens the build's workspace from it.
        write_spec(folder, plan)
    return plan
