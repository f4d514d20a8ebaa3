"""The question-program strategy in the planner: subtasks over tables, from any catalog.

Every table is served by question programs (:mod:`benchsmith.programs`), whatever
catalog holds it: the run's own (``--dataset``:
those only), or the catalog's (the starter datasets and ``catalog add``), among which the
intent chooses by :func:`relevance`. The code builds candidate programs from the intent
and the table's fields and values; the design step adds one subtask for the table whose
candidates fit best, named and described from its program (its reading in one sentence,
and the runner-up reading), and the grounding step lets the grounding role choose among
near-tied candidates through a ``Literal`` of their ids, so even the embedded model cannot
pick a program the code did not build. When no program over the tables the intent is
about serves it, the plan is refused with what is missing. A program written by hand
(``--program``) replaces the reading.

With a capable grounding model (``config.programs``: ``model``, or ``auto`` with any model
but the embedded one) the model reads the intent instead: it proposes one program from the
typed library (:mod:`benchsmith.programs.propose`), which the code checks against the data
and runs once; a proposal that fails leaves the rules' reading in place, and a model that
finds no field for what the intent asks refuses the plan with what is missing.

A spoken intent gets a media plan (:func:`media_plan`): the program's prompt is read aloud
in the item's language and degraded as the intent asks. A table of pictures (the digits)
is read the same way: its programs show the records' own images (what one shows, how many
show a value, which of two shows more), degraded as the intent asks.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from benchsmith.agents import sources  # through the module: tests swap catalog_sources
from benchsmith.agents.alignment import topic_stems
from benchsmith.agents.plans import build_plan
from benchsmith.catalog.cards import slugify
from benchsmith.catalog.store import Catalog, default_root
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, ModelError, StructuredOutputError
from benchsmith.llm import registry  # through the module: tests swap get_model
from benchsmith.llm.specs import LOCAL_MODEL_NAME
from benchsmith.programs import (
    Candidate,
    Refusal,
    Table,
    build_table,
    plan,
    probe,
)
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.programs.handwritten import parse_program
from benchsmith.programs.intent import PICTURE_WORDS, _without_language_request, variants
from benchsmith.programs.propose import (
    NotServable,
    ProposalError,
    describe,
    proposal_schema,
    to_spec,
)
from benchsmith.programs.slots import Reading, read
from benchsmith.prompts import render, untrusted
from benchsmith.spec import Grounding, PlanStep, ProgramSpec, Scores, Subtask
from benchsmith.stemming import stems

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
_READINGS: dict[tuple[str, str, str, str], Reading] = {}
_LOCK = threading.Lock()
PROPOSED_SCORE = 10.0
"""A checked proposal's score: above any the rules give, so it leads the candidates."""


def _tabular(card: Any) -> bool:
    return card.domain != "reference"


def _cards(config: RunConfig) -> list[tuple[Catalog, Any]]:
    """Every dataset card programs may consider, with its catalog.

    The run's own sources (``--dataset``, ``--reference``) only when it brought any (the
    user named the data), else every card of the catalog (starter and ``catalog add``).
    """
    catalogs = sources.catalog_sources(config)
    if config.paths.run_catalog_dir:
        catalogs = catalogs[:1]  # the run's own
    return [(catalog, c) for catalog in catalogs for c in catalog.list()]


def table_sources(config: RunConfig) -> list[tuple[Catalog, Any]]:
    """The tables question programs read, each with the catalog that holds it."""
    return [(catalog, c) for catalog, c in _cards(config) if _tabular(c)]


def table_cards(config: RunConfig) -> list[Any]:
    """The cards of :func:`table_sources`."""
    return [card for _, card in table_sources(config)]


def _catalog_key(config: RunConfig) -> str:
    """The folder of the catalog a run reads (the default one is the home's, of this call)."""
    return str(config.paths.run_catalog_dir or config.paths.catalog_dir or default_root())


def run_tables(config: RunConfig, intent: str) -> dict[str, Table]:
    """Every table programs may read, as a :class:`~benchsmith.programs.table.Table`.

    Cached per catalog and intent (the column labels read the intent's words).
    """
    cache_key = (_catalog_key(config), intent)
    with _LOCK:
        if cache_key in _TABLES:
            return _TABLES[cache_key]
    tables: dict[str, Table] = {}
    for catalog, card in table_sources(config):
        records = list(catalog.records(card.id))
        if not records:
            continue  # no record, no question
        tables[card.id] = build_table(
            card.id, records, card.fields, card_entity=card.entity, intent=intent
        )
    with _LOCK:
        _TABLES[cache_key] = tables
    return tables


TABLE_WORDS = frozenset(stems("table tables row rows column columns data dataset record records"))
"""Words of any intent over records: they say nothing about which table it is about."""
TITLE_WEIGHT = 3
"""A word of the table's name or record noun ("airports") weighs more than a column's."""
MIN_RELEVANCE = 2
"""A table is about the intent only when the intent names it, a column, or a value."""


def relevance(intent: str, card: Any, table: Table | None = None) -> int:
    """How much of the intent is about a table: its words in the card, its values named.

    Per topic word of the intent (read in English: a French or German intent through its
    gloss): three in the table's id, name or record noun, two in a column's name or label,
    one in its description only; and two per column whose value the intent names ("in
    Europe", "the setosa flowers").
    """
    language = intent_language(intent)
    english = to_english(intent, language) if language != "en" else intent
    topics = topic_stems(english) - TABLE_WORDS  # the gloss keeps the words it cannot read
    titled = topics & set(stems(" ".join([str(card.id).replace("-", " "), card.name])))
    entity = table.entity if table is not None else card.entity
    titled |= topics & set(stems(" ".join(entity.values())))
    labelled = table.columns.values() if table is not None else card.fields
    columns = " ".join(f"{c.path} {' '.join(c.labels.values())}" for c in labelled)
    named = (topics & set(stems(columns.replace("_", " ")))) - titled
    described = (topics & set(stems(card.description or ""))) - named - titled
    score = TITLE_WEIGHT * len(titled) + 2 * len(named) + len(described)
    if table is None:
        return score
    # A value named as it is, or a word that stands for it ("sunny" -> sun), in the intent's
    # words or its gloss ("giapponese" -> Japanese).
    glossed = _without_language_request(english) if english != intent else ""
    low = f" {intent.casefold()} {glossed.casefold()} "
    words = {w for t in re.findall(r"\w+", low) for w in (t, *variants(t))}
    for column in table.columns.values():
        if column.kind != "category":
            continue
        if any(
            (len(v) > 3 and re.search(rf"(?<!\w){re.escape(v.casefold())}(?!\w)", low))
            or (len(v) >= 3 and v.casefold() in words)
            for v in column.values
        ):
            score += 2
    return score


def relevant_tables(config: RunConfig, intent: str, tables: dict[str, Table]) -> dict[str, int]:
    """The catalog tables the intent is about and their :func:`relevance`, best first.

    Those within half of the best; none when no table shares a word with the intent.
    """
    cards = {card.id: card for _, card in table_sources(config)}
    # A table of pictures is about the intent only when the intent speaks of pictures (or
    # sounds): "labelled wine samples" is not about the labelled sample photos.
    language = intent_language(intent)
    pictured = bool(
        PICTURE_WORDS.search(intent.lower())
        or PICTURE_WORDS.search(to_english(intent, language).lower())
    )
    scored = sorted(
        (
            (relevance(intent, cards[t], table), t)
            for t, table in tables.items()
            if t in cards and (pictured or not table.media)
        ),
        key=lambda st: -st[0],
    )
    best = scored[0][0] if scored else 0
    if best < MIN_RELEVANCE:
        return {}
    return {t: score for score, t in scored if score * 2 >= best}


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
    if model is None or config.programs == "rules" or config.program:
        return False
    return config.programs == "model" or model.spec.provider != "local"


def proposed(config: RunConfig, intent: str, model: Any) -> Proposed | None:
    """The grounding model's program for the intent, checked by code (None: not asked).

    Asked once per run and intent: the design and grounding steps share the answer.
    """
    if not proposes(config, model):
        return None
    cache_key = (_catalog_key(config), intent)
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


def reader_for(config: RunConfig) -> Any:
    """The reader role's model when the rules' unsure slots are asked of it, else None.

    ``--programs reader`` asks whichever model the reader role has; ``auto`` asks it unless
    it is the embedded SmolLM2 (which reads nothing: it echoes the question); ``rules``,
    ``model`` and a program written by hand ask nothing.
    """
    if config.programs in ("rules", "model") or config.program:
        return None
    reader = registry.get_model(config, "reader")
    if config.programs == "auto" and reader.spec.provider == "local":
        if reader.spec.model == LOCAL_MODEL_NAME:
            return None
    return reader


def read_plan(config: RunConfig, intent: str, tables: dict[str, Table], table_id: str) -> Reading:
    """The rules' reading of the intent over a table, its unsure slots asked of the reader.

    Cached per catalog, intent and table: the design and the grounding steps share one
    reading (and one set of questions). A reader that fails (not installed, unreachable,
    no valid answer) leaves the rules' reading, with a note saying so.
    """
    reader = reader_for(config)
    who = reader.spec.text if reader is not None else ""
    cache_key = (_catalog_key(config), intent, table_id, who)
    with _LOCK:
        if cache_key in _READINGS:
            return _READINGS[cache_key]
    if reader is None:
        reading = Reading(plan(intent, tables, table_id))
    else:

        def ask(schema: Any, prompt: str) -> Any:
            return reader.structured(schema, [("user", prompt)])

        try:
            reading = read(intent, tables, table_id, ask, seed=config.seed)
        except ModelError as exc:
            reading = Reading(plan(intent, tables, table_id))
            reading.notes.append(f"the reader ({who}) gave no answer, the rules read alone: {exc}")
    with _LOCK:
        _READINGS[cache_key] = reading
    return reading


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
    if config.program:  # written by hand: no reading
        try:
            spec = parse_program(config.program, tables)
        except ConfigError as exc:
            return None, [], [str(exc)]
        return spec.table, [Candidate(spec, PROPOSED_SCORE, "written by hand (--program)")], []
    found = proposed(config, intent, model)
    if found is not None and found.refusal:
        return None, [], [f"the grounding model: {found.refusal}"]
    if found is not None and found.spec is not None:
        spec = found.spec
        rules = plan(intent, tables, spec.table)
        others = [] if isinstance(rules, Refusal) else [c for c in rules if c.spec != spec]
        lead = Candidate(spec, PROPOSED_SCORE, f"the grounding model's: {spec.describe()}")
        return spec.table, [lead, *others], []
    ranks: dict[str, int] = {}
    if not config.paths.run_catalog_dir:
        # The catalog's tables: the intent chooses among them (the table it is most about
        # leads), and a program joins only tables the intent is about.
        ranks = relevant_tables(config, intent, tables)
        tables = {t: tables[t] for t in ranks}
    # A program is about the most relevant tables; the others only join it.
    top = max(ranks.values(), default=0)
    primaries = [t for t in tables if not ranks or ranks[t] * 3 > top * 2]
    best_key: tuple[Any, ...] = ()
    for table_id in primaries:
        reading = read_plan(config, intent, tables, table_id)
        found = reading.candidates
        if isinstance(found, Refusal):
            details = f" ({'; '.join(found.details)})" if found.details else ""
            refusals.append(f"{table_id}: {found.missing}{details}")
            continue
        # A table the rules read a program over comes before one only the reader's column
        # made a program of ("Japan" is a car's origin, but the intent asks a currency).
        key = (
            not reading.rescued,
            *_joined_rank(ranks, table_id, found[0].spec, tables),
            found[0].score,
        )
        if not best[1] or key > best_key:
            best, best_key = (table_id, found), key
    return best[0], best[1], refusals


def _joined_rank(
    ranks: dict[str, int], table_id: str, spec: ProgramSpec, tables: dict[str, Table] | None = None
) -> tuple[int, int]:
    """How much the intent is about a program's tables, and whether its join is needless.

    "A country's Swedish name, then its capital" is about the countries as much as about
    the names: the best rank of its own table and its hops' counts. A join is needless when
    the joined table holds what the join selects itself: the countries' own French names
    ("names.fr") serve "the country designated by its French name" without the table of
    translations; such a reading comes after one over the joined table alone.
    """
    codes = {str(c.value) for c in spec.conditions if c.op == "=="}
    needless = [
        h.table
        for h in spec.hops or []
        if tables is not None
        and h.table in tables
        and any(
            col.unique and "." in col.path and col.path.rsplit(".", 1)[-1] in codes
            for col in tables[h.table].columns.values()
        )
    ]
    rank = max(ranks.get(t, 0) for t in (table_id, *(h.table for h in spec.hops or [])))
    return rank, -len(needless)


def subtask_id(table_id: str) -> str:
    """The id of the records subtask over a table."""
    return slugify(f"{PREFIX}{table_id}")[:48].rstrip("-_.")


PART_BREAK = re.compile(
    r"(?:[.;:]\s+|,\s*|\s+)(?:and\s+)?(?:also|then|in addition|additionally|as well as|besides)"
    r"\b[,:]?\s+|(?:^|[.;:,]?\s+)\(?(?:[1-9]|[a-e])\)\s+",
    re.IGNORECASE,
)
"""Where an intent starts asking for another program: "..., and also ask ...", "(2) ..."."""
MIN_PART_WORDS = 4
ASKS = re.compile(
    r"\b(which|what|how many|how much|who|when|where|ask\w*|compare|count|classify|identify)\b",
    re.IGNORECASE,
)
"""A part asks something of its own only when it says what (a question word or "ask")."""


@dataclass(frozen=True)
class Part:
    """One program the intent asks for: its words, its table, its subtask."""

    subtask_id: str
    text: str
    table: str
    cands: tuple[Candidate, ...]


_PARTS: dict[tuple[str, str, str], tuple[list[Part], list[str]]] = {}
"""Per catalog, intent and program written by hand: the parts (planning and grounding
read the intent once)."""


def split_intent(intent: str) -> list[str]:
    """The intent's parts that each ask for something ("... Also ask ..."; one: the whole).

    A part shorter than four words, or one that asks nothing ("show five airports, then
    ask ..."), is not a question of its own: the intent is read whole. Words before the
    first of several numbered parts that ask nothing ("Questions about countries: (1) ...")
    lead every part.
    """
    pieces = [p.strip(" ,;.:") for p in PART_BREAK.split(intent)]
    pieces = [p for p in pieces if p]
    if len(pieces) > 2 and not ASKS.search(pieces[0]):
        # "Questions about countries: (1) ..., (2) ...": the scene leads every part.
        pieces = [f"{pieces[0]}: {p}" for p in pieces[1:]]
    if len(pieces) < 2 or any(
        len(p.split()) < MIN_PART_WORDS or not ASKS.search(p) for p in pieces
    ):
        return [intent]
    return pieces


def intent_parts(config: RunConfig, intent: str, model: Any = None) -> tuple[list[Part], list[str]]:
    """The programs the intent asks for, one per part, or why none serves it (cached).

    An intent that asks for several things ("which car has more horsepower; also how many of
    the days shown were sunny") gets a program per part when each part alone is read into a
    program and the parts differ in table or kind; otherwise the whole intent is read once.
    """
    cache_key = (_catalog_key(config), intent, config.program or "")
    with _LOCK:
        if cache_key in _PARTS:
            return _PARTS[cache_key]
    parts: list[Part] = []
    texts = split_intent(intent) if not config.program else [intent]
    if len(texts) > 1:
        for text in texts:
            table_id, cands, _ = candidates_for(config, text, model)
            if table_id is None:
                parts = []  # a part no program reads: the intent is read whole
                break
            kind = cands[0].spec.kind
            ident = f"{subtask_id(table_id)}-{kind.replace('_', '-')}"
            parts.append(Part(ident, text, table_id, tuple(cands)))
        if len({(p.table, p.cands[0].spec.kind) for p in parts}) < len(texts):
            parts = []  # two parts read alike: one program serves them
    refusals: list[str] = []
    if not parts:
        table_id, cands, refusals = candidates_for(config, intent, model)
        if table_id is not None:
            parts = [Part(subtask_id(table_id), intent, table_id, tuple(cands))]
    with _LOCK:
        _PARTS[cache_key] = (parts, refusals)
    return parts, refusals


def table_subtasks(
    config: RunConfig,
    intent: str,
    languages: Sequence[str],
    model: Any = None,
    modalities: Sequence[str] = ("text",),
) -> tuple[list[Subtask], str | None]:
    """The records subtasks for the intent over the run's tables, or why none serves it.

    One subtask per program the intent asks for (:func:`intent_parts`), named and described
    from its program. ``modalities``: how the question is given (``audio``: read aloud;
    ``image``: rendered).

    Returns:
        ``(subtasks, None)``, ``([], refusal message)`` when tables were given and none
        serves the intent, or ``([], None)`` when the run has no table.
    """
    if not table_cards(config):
        return [], None
    parts, refusals = intent_parts(config, intent, model)
    if not parts and not refusals:
        return [], None  # no catalog table is about the intent
    if not parts:
        where = "the given data" if config.paths.run_catalog_dir else "the catalog's tables"
        return [], f"no question program over {where} serves the intent: " + "; ".join(refusals)
    return [_subtask(config, part, languages, modalities) for part in parts], None


def _subtask(
    config: RunConfig, part: Part, languages: Sequence[str], modalities: Sequence[str]
) -> Subtask:
    """The subtask of one program: its name and description say the program's reading."""
    cands = list(part.cands)
    best = cands[0].spec
    tables = run_tables(config, part.text)
    languages = item_languages(part.text, tables[part.table], languages)
    if best.media_field:  # the items show the records' own pictures (or sounds)
        modalities = [tables[part.table].media[best.media_field]]
    elif tables[part.table].media and "image" not in config.modalities:
        # Pictures the intent named are the records' own, which this program does not show:
        # its question is not drawn as one.
        modalities = [m for m in modalities if m != "image"] or ["text"]
    kinds = sorted(
        {c.spec.kind for c in cands}, key=lambda k: [c.spec.kind for c in cands].index(k)
    )
    name = f"{NAMES[best.kind]} over {part.table}"[:80]
    second = runner_up(cands[1:], best, tables, config.seed)  # as grounding will choose it
    description = (
        describe_reading(best, second)
        + " Items computed by executing this question program over the records of "
        + f"{part.table} ({'; '.join(c.why for c in cands[:2])})."
    )[:600]
    return Subtask(
        id=part.subtask_id,
        name=name,
        description=description,
        skills=SKILLS[best.kind] + ([k for k in kinds if k != best.kind][:1]),
        input_modalities=list(modalities) or ["text"],
        answer_format=best.answer_format,
        difficulty="medium",
        languages=list(languages),
    )


VALUE_VERBS = re.compile(
    r"\b(?:sung|spoken|written|recorded|published|performed|filmed|set|released|made)\b"
)
"""Words between "ask" and "in German" that make the language a value of the records."""


def item_languages(intent: str, table: Table, languages: Sequence[str]) -> list[str]:
    """The items' languages, less a language the intent names as a value of the data.

    "Only the novels first written in Russian" filters on ``original_language ==
    Russian``; it does not ask for questions in Russian. A language stays when the intent
    asks for items in it ("questions in French").
    """
    from babel import Locale

    values = {v.casefold() for c in table.columns.values() for v in c.values}
    english = Locale("en").languages
    written = intent_language(intent)
    low = intent.lower()
    kept = []
    for code in languages:
        name = str(english.get(code, code)).casefold()
        asked = re.search(
            rf"\b(?:questions?|items?|prompts?|answers?|benchmark|written|write|ask(?:ed)?)"
            rf"\b(?P<between>[^.;:]{{0,40}})\bin {re.escape(name)}\b",
            low,
        )
        if asked and VALUE_VERBS.search(asked.group("between")):
            asked = None  # "ask how many of them are sung in German": a value, not a request
        tail = re.search(rf"(?<!written )\bin {re.escape(name)}\s*(?:please|[,.!]|$)", low)
        if tail and not VALUE_VERBS.search(low[max(0, tail.start() - 12) : tail.start()]):
            asked = asked or tail
        if code == written and not re.search(rf"\b{re.escape(name)}\b", low):
            # The intent's own language, which it does not name ("Pergunta em duas etapas
            # ..." over a table whose values include Portuguese): its items are in it.
            kept.append(code)
            continue
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


NOISE = re.compile(r"\b(nois[ey]\w*|background (?:sound|chatter|babble))\b", re.IGNORECASE)
DEGRADE_WORDS = (
    (re.compile(r"\b(blur\w*|fuzzy|out of focus|unscharf\w*|flou\w*|borros\w*|sfocat\w*|"
                r"wazig\w*|desfocad\w*)\b"), "image_blur"),
    (re.compile(r"\b(nois[ey]\w*|grain\w*|speckle\w*|rausch\w*|bruit\w*|ruido\w*|"
                r"rumore\w*|ruis\w*|ruído\w*)\b"), "image_noise"),
    (re.compile(r"\b(rotat\w*|tilt\w*|skew\w*|gedreht\w*|tourn\w*|girad\w*|ruotat\w*|"
                r"gedraaid\w*)\b"), "image_rotate"),
    (re.compile(r"\b(jpe?g|compress\w*|artefacts?|artifacts?)\b"), "image_jpeg"),
    (re.compile(r"\b(occlu\w*|cover(?:ed)? (?:part|patch)|patch(?:es)?|masked)\b"),
     "image_occlude"),
    (re.compile(r"\b(gr[ae]yscale|black and white|black-and-white)\b"), "image_grayscale"),
)  # fmt: skip
"""Words of an intent that ask for a picture degraded, in the seven languages' usual words."""
GRID = PlanStep(
    tool="image_grid",
    params={"cell_width": 128, "cell_height": 128, "label_size": 24},
    purpose="show the records' pictures side by side, captioned A, B, ...",
)


def media_plan(subtask: Subtask, intent: str, spec: ProgramSpec | None = None) -> list[PlanStep]:
    """The tool steps that show a program's item (none for a text item).

    A prompt read aloud is degraded with noise when the intent asks for it. A program over
    pictures shows the records' own images (several side by side, captioned A, B, ...),
    degraded as the intent says ("blurred"); small pictures are enlarged first so that a
    degradation has pixels to work on. The program makes its own choices, so no
    multiple-choice step.
    """
    if subtask.input_modalities == ["text"]:
        return []
    if spec is not None and spec.media_field:
        several = spec.kind in ("count", "compare")
        chosen = [tool for pattern, tool in DEGRADE_WORDS if pattern.search(intent)]
        if chosen and not several:
            chosen.insert(0, "image_resize")
        steps = build_plan(
            subtask,
            dataset_modalities=["table", *subtask.input_modalities],
            media_field=None if several else spec.media_field,
            answer_field="",
            chosen_tools=chosen,
        )
        steps = [s for s in steps if s.tool != "make_multiple_choice"]
        if several:
            steps.insert(0, GRID.model_copy(update={"input_field": spec.media_field}))
        return steps
    noise = ["audio_add_noise"] if NOISE.search(intent) else []
    steps = build_plan(
        subtask, dataset_modalities=["table"], media_field=None, answer_field="", chosen_tools=noise
    )
    return [s for s in steps if s.tool != "make_multiple_choice"]


def runner_up(
    cands: Sequence[Candidate], chosen: ProgramSpec, tables: dict[str, Table], seed: int
) -> ProgramSpec | None:
    """The best of ``cands`` that reads the intent otherwise and makes items (None: none)."""
    for cand in cands:
        if cand.spec.reading() != chosen.reading() and not probe(
            cand.spec, tables, "en", seed=seed
        ):
            return cand.spec
    return None


def describe_reading(best: ProgramSpec, second: ProgramSpec | None) -> str:
    """The plan's sentence of a reading and its runner-up."""
    return f"Reading: {best.reading()}." + (
        f" Runner-up reading: {second.reading()}." if second else ""
    )


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
    out: list[Grounding] = []
    notes: list[str] = []
    languages_kept: dict[str, list[str]] = {}
    parts = {p.subtask_id: p for p in intent_parts(config, intent, model)[0]}
    for subtask in subtasks:
        if not subtask.id.startswith(PREFIX):
            continue
        part = parts.get(subtask.id)
        if part is None:
            continue
        table_id, intent = part.table, part.text  # the words of this subtask's program
        tables = run_tables(config, intent)
        proposal = proposed(config, intent, model)
        if proposal is not None and proposal.note:
            notes.append(f"{subtask.id}: {proposal.note}")
        others: list[Candidate] = []  # the rules' readings, for the runner-up
        if config.program:
            hand = candidates_for(config, intent, model)[1]
            if not hand:
                continue
            cand, why = hand[0], "written by hand (--program)"
        elif proposal is not None and proposal.spec is not None and proposal.spec.table == table_id:
            cand, why = Candidate(proposal.spec, PROPOSED_SCORE, "proposed"), "checked by code"
            rules = plan(intent, tables, table_id)
            others = [] if isinstance(rules, Refusal) else rules
        else:
            reading = read_plan(config, intent, tables, table_id)
            notes += [f"{subtask.id}: {note}" for note in reading.notes]
            found = reading.candidates
            if isinstance(found, Refusal):
                continue
            cand, why = choose(model, intent, found)
            others = found
        spec = cand.spec
        second = runner_up(others, spec, tables, config.seed)
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
        steps = media_plan(subtask, intent, spec)
        out.append(
            Grounding(
                id=f"{subtask.id}--{spec.kind}",
                subtask_id=subtask.id,
                dataset_id=table_id,
                strategy="question_program",
                program=spec,
                runner_up=second,
                question_field=spec.key_field,
                answer_field=spec.answer_field or spec.field or "computed",
                plan=steps,
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
