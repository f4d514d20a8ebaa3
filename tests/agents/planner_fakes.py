"""Fakes for planner tests: a scripted model routed by schema, and an in-memory catalog."""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from benchsmith.catalog.cards import DatasetCard, FieldInfo, LoaderSpec
from benchsmith.config import RunConfig
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.records import RunRecords
from benchsmith.llm.registry import register_runtime
from benchsmith.llm.roles import ResolvedModel
from benchsmith.llm.specs import ROLES, parse_model_spec
from benchsmith.testing.fake_chat import ScriptedChatModel


class SchemaScript:
    """Answers each structured call from a queue kept per schema (tool) name."""

    def __init__(self, **queues):
        self.queues = {name: deque(items) for name, items in queues.items()}
        self.calls = defaultdict(int)

    def __call__(self, messages, kwargs):
        name = kwargs["tool_choice"]["function"]["name"]
        self.calls[name] += 1
        queue = self.queues.get(name)
        if not queue:
            raise AssertionError(f"no scripted answer left for {name} (call {self.calls[name]})")
        return queue.popleft() if len(queue) > 1 else queue[0]


def install_model(config: RunConfig, script: SchemaScript) -> LLMRuntime:
    fake = ScriptedChatModel(script=[script], repeat_last=True)
    spec = parse_model_spec("local", env={})
    runtime = LLMRuntime(
        models={r: ResolvedModel(r, spec, "test") for r in ROLES},
        records=RunRecords(None),
        chat_factory=lambda spec, **kw: fake,
        env={},
    )
    register_runtime(config, runtime)
    return runtime


def card(id, name, modalities, fields, size=100, languages=("en",), description=""):
    return DatasetCard(
        id=id,
        name=name,
        description=description or name,
        modalities=list(modalities),
        fields=[FieldInfo(path=p, modality=m, semantics=p) for p, m in fields],
        input_fields=[p for p, m in fields if m in ("text", "image", "audio")],
        output_fields=[p for p, m in fields if m in ("text", "category", "number")],
        languages=list(languages),
        size=size,
        loader=LoaderSpec(kind="jsonl", path=f"/nonexistent/{id}.jsonl"),
    )


@dataclass
class Hit:
    card: DatasetCard
    score: float = 1.0


class FakeCatalog:
    """Keyword search over a few cards, with the modality filter."""

    def __init__(self, cards):
        self.cards = list(cards)

    def search(self, query, *, modality=None, limit=10):
        words = set(query.lower().split())
        hits = [
            Hit(c, len(words & set(f"{c.name} {c.description}".lower().split())))
            for c in self.cards
            if modality is None or modality in c.modalities
        ]
        hits = [h for h in hits if h.score > 0 or not query]
        return sorted(hits, key=lambda h: (-h.score, h.card.id))[:limit]

    def list(self):
        return list(self.cards)

    def records(self, card_id):
        """No records: a search index of cards (question programs find no table here)."""
        return iter(())


COUNTRIES = card(
    "countries",
    "World countries capitals",
    ["text", "table"],
    [("name", "text"), ("capital", "text"), ("continent", "category")],
    size=200,
)
DIGITS = card(
    "digits",
    "Handwritten digits images",
    ["image"],
    [("image", "image"), ("label", "category")],
    size=50,
)
