"""A simulated panel of models behind the fake OpenAI endpoint, for calibration tests.

Each simulated model answers an item right with the two-parameter logistic probability
``sigmoid(a * (theta - b))`` of its ability ``theta`` and the item's difficulty ``b`` and
discrimination ``a``, all known to the test; a model that "memorized" a set of items answers
those right with probability ``memorized_accuracy`` instead. Draws are deterministic: a hash
of (seed, model, item, the request's ``seed``) gives the uniform number, so a rerun asks and
gets the same answers, and the samples of several epochs (``seed`` 1, 2, ... in the request)
are independent draws.

    panel = SimulatedPanel([SimulatedModel("strong", 2.0), SimulatedModel("weak", -1.0)])
    panel.add_items(items, {item.id: (1.5, 0.3) for item in items})
    with FakeOpenAIServer(default=panel) as server:
        evaluate_benchmark(folder, [f"strong@{server.base_url}", f"weak@{server.base_url}"])

The panel finds the item a request is about from the prompt's text (the item's user text),
answers with the item's target when right and with another choice (or a wrong value) when
wrong, and checks both with the scorer the evaluation uses.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.evaluate.folder import load_items
from benchsmith.evaluate.scoring import score_item
from benchsmith.item import Item
from benchsmith.testing.fake_openai import Reply

__all__ = ["SimulatedModel", "SimulatedPanel"]


@dataclass(frozen=True)
class SimulatedModel:
    """One simulated model: its name on the endpoint, its ability and what it memorized."""

    name: str
    ability: float
    memorized: frozenset[str] = field(default_factory=frozenset)
    """Prompt texts (items' user text) it has seen, answered right with the panel's
    ``memorized_accuracy``: a fresh instance of an item (same id, new values) is new to it."""


def _uniform(*parts: object) -> float:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def _wrong_answer(item: Item) -> str:
    """An answer the scorer marks wrong: another choice, or a value that is not the target."""
    if item.choices:
        right = item.target.strip().upper()
        letters = [chr(ord("A") + i) for i in range(len(item.choices))]
        return next(letter for letter in letters if letter != right)
    return "no answer (simulated)"


class SimulatedPanel:
    """A ``FakeOpenAIServer`` default reply: answers as several models of known ability."""

    def __init__(
        self,
        models: Iterable[SimulatedModel],
        *,
        seed: int = 0,
        memorized_accuracy: float = 0.95,
    ) -> None:
        """Describe the panel.

        Args:
            models: The simulated models (their ``name`` is the model the request names).
            seed: Seeds every draw.
            memorized_accuracy: Chance a model answers an item it memorized right.
        """
        self.models = {m.name: m for m in models}
        self.seed = seed
        self.memorized_accuracy = memorized_accuracy
        self._items: dict[str, tuple[Item, float, float]] = {}
        self._lock = threading.Lock()
        self._watched: list[tuple[Path, Callable[[Item], tuple[float, float]]]] = []
        self.asked: list[tuple[str, str, int]] = []
        """(model, item id, request seed) of every request answered."""

    def add_items(self, items: Iterable[Item], params: Mapping[str, tuple[float, float]]) -> None:
        """Register items and their true ``(discrimination, difficulty)``.

        Raises:
            ValueError: An item has no parameters, or two items share a prompt text, or the
                scorer does not accept the simulated right and wrong answers.
        """
        for item in items:
            if item.id not in params:
                raise ValueError(f"item {item.id!r} has no (discrimination, difficulty)")
            text = item.user_text().strip()
            if text in self._items and self._items[text][0].id != item.id:
                raise ValueError(
                    f"items {self._items[text][0].id!r} and {item.id!r} share a prompt"
                )
            if (
                not score_item(item.target, item).correct
                or score_item(_wrong_answer(item), item).correct
            ):
                raise ValueError(f"item {item.id!r}: the scorer cannot tell right from wrong")
            a, b = params[item.id]
            self._items[text] = (item, float(a), float(b))

    def probability(self, model: SimulatedModel, text: str, a: float, b: float) -> float:
        """The chance ``model`` answers the item whose prompt is ``text`` right."""
        if text in model.memorized:
            return self.memorized_accuracy
        return 1.0 / (1.0 + math.exp(-a * (model.ability - b)))

    def watch(self, folder: str | Path, params_for: Callable[[Item], tuple[float, float]]) -> None:
        """Learn the items of a folder a build keeps changing, when they are first asked.

        A prompt the panel does not know makes it read ``folder``'s items again and register
        the new ones with ``params_for(item)`` (their true discrimination and difficulty).
        """
        with self._lock:
            self._watched.append((Path(folder), params_for))

    def _learn(self) -> None:
        with self._lock:
            watched = list(self._watched)
        for folder, params_for in watched:
            fresh = [i for i in load_items(folder) if i.user_text().strip() not in self._items]
            self.add_items(fresh, {i.id: params_for(i) for i in fresh})

    def _find(self, body: Mapping[str, Any]) -> tuple[str, tuple[Item, float, float]]:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        content = users[-1].get("content", "") if users else ""
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        text = str(content).strip()
        if text not in self._items and self._watched:
            self._learn()
        if text in self._items:
            return text, self._items[text]
        found = [(k, v) for k, v in self._items.items() if k and k in text]
        if len(found) != 1:
            raise LookupError(f"the simulated panel knows no item for the prompt {text[:80]!r}")
        return found[0]

    def __call__(self, body: dict[str, Any]) -> Reply:
        """Answer one chat request (the fake server calls this)."""
        name = str(body.get("model", ""))
        model = self.models.get(name)
        if model is None:
            return Reply.status(404, error_code="model_not_found", message=f"no model {name}")
        try:
            text, (item, a, b) = self._find(body)
        except LookupError as exc:
            return Reply.status(400, message=str(exc))
        epoch = int(body.get("seed") or 0)
        # The prompt, not the id, seeds the draw: two folders may reuse ids for new items.
        right = _uniform(self.seed, name, text, epoch) < self.probability(model, text, a, b)
        with self._lock:
            self.asked.append((name, item.id, epoch))
        return Reply.text(item.target if right else _wrong_answer(item))
