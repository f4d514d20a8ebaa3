"""Optional search of the Hugging Face Hub, for when it is installed and reachable.

``huggingface_hub`` is not a dependency of benchsmith: :class:`HubSource` imports it only
when asked, first checks in a couple of seconds that the hub answers, and otherwise reports
a clear "unavailable" status (or raises :class:`HubUnavailableError` from ``search``). The
rest of the catalog never needs it. Hub results are candidates to look at, not cards: their
data is not downloaded here.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from benchsmith.catalog.errors import HubUnavailableError
from benchsmith.tools.search.providers import clean_text

DEFAULT_ENDPOINT = "https://huggingface.co"
PROBE_TIMEOUT_S = 2.0


class HubStatus(BaseModel):
    """Whether the hub can be searched, and why not."""

    model_config = ConfigDict(frozen=True)

    available: bool = Field(description="True when a search can be tried.")
    reason: str = Field(description="What was found: installed/reachable, or what is missing.")
    endpoint: str = Field(description="The hub address probed.")
    seconds: float = Field(description="How long the check took.")


class HubHit(BaseModel):
    """One dataset found on the hub (untrusted text, cleaned and cut)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The hub repository id, e.g. 'squad'.")
    downloads: int | None = Field(default=None, description="Download count, when given.")
    likes: int | None = Field(default=None, description="Likes, when given.")
    tags: list[str] = Field(default_factory=list, description="Hub tags (task, language, ...).")
    description: str = Field(default="", description="The start of its card, when given.")


def _probe(host: str, port: int, timeout: float) -> str | None:
    """None when a TCP connection opens within ``timeout`` seconds, else why not.

    Name resolution can hang for longer than any socket timeout, so the whole probe runs in
    a daemon thread that is abandoned when the time is up.
    """
    outcome: list[str | None] = []

    def attempt() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                outcome.append(None)
        except Exception as exc:  # noqa: BLE001 - any failure means "unreachable"
            outcome.append(f"{type(exc).__name__}: {exc}")

    worker = threading.Thread(target=attempt, name="hub-probe", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        return f"no answer within {timeout:g} s"
    return outcome[0]


class HubSource:
    """Search the Hugging Face Hub for datasets when ``huggingface_hub`` and the network allow."""

    def __init__(self, *, endpoint: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> None:
        """Create the source (nothing is imported or contacted yet).

        Args:
            endpoint: Hub address; default ``$HF_ENDPOINT`` or https://huggingface.co.
            timeout: Seconds the reachability check may take.
        """
        self.endpoint = endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT
        self.timeout = timeout

    def status(self) -> HubStatus:
        """Whether the hub can be searched now (at most about ``timeout`` seconds)."""
        start = time.monotonic()

        def done(available: bool, reason: str) -> HubStatus:
            return HubStatus(
                available=available,
                reason=reason,
                endpoint=self.endpoint,
                seconds=round(time.monotonic() - start, 3),
            )

        if importlib.util.find_spec("huggingface_hub") is None:
            return done(
                False,
                "unavailable: the optional package huggingface_hub is not installed "
                "(pip install huggingface_hub); the local catalog works without it",
            )
        if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
            return done(False, "unavailable: HF_HUB_OFFLINE is set")
        parts = urlsplit(self.endpoint)
        if not parts.hostname:
            return done(False, f"unavailable: bad hub endpoint {self.endpoint!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        problem = _probe(parts.hostname, port, self.timeout)
        if problem is not None:
            return done(False, f"unavailable: {parts.hostname} cannot be reached ({problem})")
        return done(True, f"available: huggingface_hub installed and {parts.hostname} reachable")

    def search(self, query: str, *, limit: int = 10) -> list[HubHit]:
        """Datasets on the hub matching ``query``.

        Raises:
            HubUnavailableError: ``huggingface_hub`` is missing, the hub cannot be reached,
                or the search failed.
        """
        state = self.status()
        if not state.available:
            raise HubUnavailableError(f"Hugging Face Hub search is {state.reason}")
        try:
            from huggingface_hub import HfApi

            api = HfApi(endpoint=self.endpoint)
            found = list(api.list_datasets(search=query, limit=limit))
        except Exception as exc:  # noqa: BLE001 - any hub failure means "unavailable"
            raise HubUnavailableError(
                f"Hugging Face Hub search is unavailable: {type(exc).__name__}: "
                f"{clean_text(exc, 300)}"
            ) from exc
        return [self._hit(item) for item in found[:limit]]

    @staticmethod
    def _hit(item: Any) -> HubHit:
        card = getattr(item, "card_data", None) or {}
        text = ""
        if isinstance(card, dict):
            text = str(card.get("pretty_name") or "")
        return HubHit(
            id=clean_text(getattr(item, "id", ""), 200),
            downloads=getattr(item, "downloads", None),
            likes=getattr(item, "likes", None),
            tags=[clean_text(t, 80) for t in (getattr(item, "tags", None) or [])][:30],
            description=clean_text(getattr(item, "description", None) or text, 500),
        )
