"""Fakes for executor tests: a tiny real dataset in a real catalog, a lookup program's spec, a
routed model."""

from __future__ import annotations

import json
from collections import defaultdict

from benchsmith.catalog.store import Catalog
from benchsmith.config import RunConfig
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.spec import Allocation, BenchmarkSpec, Grounding, ProgramSpec, Scores, Subtask
from benchsmith.testing.fake_chat import ScriptedChatModel

COUNTRIES = [
    ("France", "Paris", "Europe"),
    ("Spain", "Madrid", "Europe"),
    ("Italy", "Rome", "Europe"),
    ("Japan", "Tokyo", "Asia"),
    ("Kenya", "Nairobi", "Africa"),
    ("Peru", "Lima", "Americas"),
    ("Chile", "Santiago", "Americas"),
    ("Egypt", "Cairo", "Africa"),
    ("India", "New Delhi", "Asia"),
    ("Norway", "Oslo", "Europe"),
    ("Ghana", "Accra", "Africa"),
    ("Cuba", "Havana", "Americas"),
]


def make_catalog(tmp_path, rows=COUNTRIES, name="capitals"):
    data = tmp_path / f"{name}.jsonl"
    data.write_text(
        "".join(json.dumps({"name": n, "capital": c, "continent": k}) + "\n" for n, c, k in rows)
    )
    catalog = Catalog(tmp_path / "catalog")
    card = catalog.add(str(data), id=name, replace=True)
    return catalog, card


def make_spec(groundings, subtasks=None, size=None):
    subtasks = subtasks or [
        Subtask(
            id="capitals",
            name="Capitals",
            description="Name the capital city of a country.",
            answer_format="short_answer",
        )
    ]
    gs = []
    allocs = []
    for gid, dataset, quota, n, extra in groundings:
        gs.append(
            Grounding(
                id=gid,
                subtask_id=extra.get("subtask_id", subtasks[0].id),
                dataset_id=dataset,
                strategy="question_program",
                program=ProgramSpec(
                    kind="lookup",
                    table=dataset,
                    key_field="name",
                    answer_field=extra.get("answer_field", "capital"),
                    answer_format=extra.get("answer_format", "short_answer"),
                ),
                question_field="name",
                answer_field=extra.get("answer_field", "capital"),
                plan=extra.get("plan", []),
                scores=Scores(intent_alignment=1, robustness=1, signal_preservation=1),
                available_records=n,
            )
        )
        allocs.append(Allocation(grounding_id=gid, quota=quota))
    return BenchmarkSpec(
        intent="capitals of countries",
        size=size or sum(a.quota for a in allocs),
        subtasks=subtasks,
        groundings=gs,
        allocations=allocs,
    )


def prompt_text(messages):
    return "\n".join(str(m.content) for m in messages)


class Router:
    """Answers structured calls by schema name with a handler(prompt) per schema."""

    def __init__(self, **handlers):
        self.handlers = handlers
        self.prompts = defaultdict(list)

    def __call__(self, messages, kwargs):
        name = kwargs["tool_choice"]["function"]["name"]
        prompt = prompt_text(messages)
        self.prompts[name].append(prompt)
        return self.handlers[name](prompt)


def judge_yes(prompt):
    return {
        "answerable": "yes",
        "single_answer": "yes",
        "relevant": "yes",
        "clear": "yes",
        "reason": "",
    }


def install(config: RunConfig, router: Router) -> tuple[LLMRuntime, ScriptedChatModel]:
    fake = ScriptedChatModel(script=[router], repeat_last=True)
    spec = parse_model_spec("local", env={})
    runtime = LLMRuntime(
        models={r: ResolvedModel(r, spec, "test") for r in ROLES},
        records=RunRecords(config.paths.run_dir),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    register_runtime(config, runtime)
    return runtime, fake
