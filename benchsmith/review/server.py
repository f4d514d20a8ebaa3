"""The review web app: a Starlette application over one benchmark folder.

Routes (all JSON but the page and the media):

- ``GET /``: the page (plain HTML and a small script served from the package; no CDN).
- ``GET /static/{name}``: the page's script and style.
- ``GET /api/items``: every item as a list row, the reviewer's progress and the summary.
- ``GET /api/items/{id}``: one item as the evaluated model receives it, with its record,
  trace, verdicts and the reviewer's latest decision.
- ``POST /api/items/{id}/decision``: accept, reject (with a reason) or edit (checked as a
  build checks an item before it is saved); appended to ``review.jsonl`` at once.
- ``GET /media/{path}``: files under ``DIR/media`` only; anything else (``..``, a link
  out of the folder, a missing file) is 404.

Away from loopback every request must carry the token the server printed (``?token=``), so
another machine on the network cannot read or change the review. Item text reaches the page
as JSON and is shown with ``textContent``, never parsed as HTML.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import secrets
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from benchsmith.item import Item
from benchsmith.layout import MEDIA_DIR, media_dir, read_items
from benchsmith.review.items import apply_edit, item_row, item_view, source_record
from benchsmith.review.journal import (
    REJECT_REASONS,
    ReviewError,
    ReviewJournal,
    parse_decision,
)
from benchsmith.review.summary import human_summary

STATIC = ("review.html", "review.js", "review.css")
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ReviewState:
    """One folder under review: its items, the journal and who is reviewing."""

    def __init__(self, bench_dir: str | Path, reviewer: str) -> None:
        """Load the items of ``bench_dir`` and open its journal.

        Raises:
            FolderError: The folder holds no readable ``data/test.jsonl``.
            ReviewError: ``review.jsonl`` has a line that is not a decision.
        """
        self.bench_dir = Path(bench_dir).resolve()
        self.media_dir = media_dir(self.bench_dir)
        self.reviewer = reviewer
        self.items: dict[str, Item] = {item.id: item for item in read_items(self.bench_dir)}
        self.journal = ReviewJournal(self.bench_dir)
        self._records: dict[str, dict[str, Any] | None] = {}
        self._lock = threading.Lock()

    def record(self, item: Item) -> dict[str, Any] | None:
        """The item's source record (looked up once)."""
        with self._lock:
            if item.id not in self._records:
                self._records[item.id] = source_record(self.bench_dir, item)
            return self._records[item.id]

    def media_file(self, relative: str) -> Path | None:
        """The file under ``media/`` that ``relative`` names, or None (never outside it)."""
        if "\x00" in relative:
            return None
        candidate = (self.bench_dir / relative).resolve()
        if not candidate.is_relative_to(self.media_dir.resolve()) or not candidate.is_file():
            return None
        return candidate


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(state: ReviewState, *, token: str | None = None) -> Starlette:
    """The Starlette app that serves ``state``'s folder (``token`` required when given)."""

    def allowed(request: Request) -> bool:
        if token is None:
            return True
        given = request.query_params.get("token") or request.headers.get("x-review-token", "")
        return hmac.compare_digest(given.encode(), token.encode())

    def guard(handler: Any) -> Any:
        async def wrapped(request: Request) -> Response:
            if not allowed(request):
                return _error(403, "this review needs the token printed when it started")
            return await handler(request)

        return wrapped

    async def page(request: Request) -> Response:
        return await static_file(request, "review.html")

    async def static(request: Request) -> Response:
        return await static_file(request, request.path_params["name"])

    async def static_file(_request: Request, name: str) -> Response:
        if name not in STATIC:
            return _error(404, "no such file")
        text = resources.files("benchsmith.review").joinpath("static", name).read_text("utf-8")
        return Response(text, media_type=_TYPES[Path(name).suffix])

    def progress() -> dict[str, int]:
        mine = state.journal.latest(state.reviewer)
        return {"reviewed": sum(i in mine for i in state.items), "total": len(state.items)}

    def listing() -> dict[str, Any]:
        mine = state.journal.latest(state.reviewer)
        return {
            "reviewer": state.reviewer,
            "folder": state.bench_dir.name,
            "items": [item_row(item, mine.get(item.id)) for item in state.items.values()],
            "progress": progress(),
            "reasons": REJECT_REASONS,
            "summary": human_summary(state.items.values(), state.journal),
        }

    async def items(_request: Request) -> Response:
        return JSONResponse(listing())

    async def one_item(request: Request) -> Response:
        item = state.items.get(request.path_params["item_id"])
        if item is None:
            return _error(404, "no such item")
        decision = state.journal.latest(state.reviewer).get(item.id)
        shown = item
        if decision is not None and decision.edit is not None:
            # The reviewer sees their edit (the folder changes when the build repackages).
            with contextlib.suppress(ReviewError):
                shown = apply_edit(item, decision.edit)
        return JSONResponse(item_view(shown, decision, record=state.record(item), token=token))

    async def decide(request: Request) -> Response:
        item = state.items.get(request.path_params["item_id"])
        if item is None:
            return _error(404, "no such item")
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the decision is not JSON")
        if not isinstance(body, dict):
            return _error(400, "the decision must be a JSON object")
        try:
            decision = parse_decision({**body, "id": item.id, "reviewer": state.reviewer})
            if decision.edit is not None:
                apply_edit(item, decision.edit)  # refused before it is saved
        except ReviewError as exc:
            return _error(422, str(exc))
        state.journal.append(decision)
        return JSONResponse(
            {
                "saved": decision.model_dump(mode="json"),
                "progress": progress(),
                "summary": human_summary(state.items.values(), state.journal),
            }
        )

    async def media(request: Request) -> Response:
        found = state.media_file(f"{MEDIA_DIR}/{request.path_params['path']}")
        if found is None:
            return _error(404, "no such media file")
        return FileResponse(found)

    routes = [
        Route("/", guard(page)),
        Route("/static/{name}", guard(static)),
        Route("/api/items", guard(items)),
        Route("/api/items/{item_id}", guard(one_item)),
        Route("/api/items/{item_id}/decision", guard(decide), methods=["POST"]),
        # An item's media path (relative to the folder) is its URL: see items._media_url.
        Route(f"/{MEDIA_DIR}/{{path:path}}", guard(media)),
    ]
    return Starlette(routes=routes)


def new_token(host: str) -> str | None:
    """A random token when ``host`` is reachable from other machines, else None."""
    return None if is_loopback(host) else secrets.token_urlsafe(24)


def serve(
    bench_dir: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    reviewer: str = "reviewer",
    on_ready: Any = None,
) -> None:
    """Serve the review of ``bench_dir`` until interrupted.

    Args:
        bench_dir: The benchmark folder.
        host: Address to bind (loopback by default; any other needs the printed token).
        port: Port to bind; 0 picks a free one.
        reviewer: The name decisions are recorded under.
        on_ready: Called with the page's URL once the server listens.

    Raises:
        ReviewError: The reviewer's name is empty.
    """
    import socket

    import uvicorn

    if not reviewer.strip():
        raise ReviewError("--reviewer needs a name")
    state = ReviewState(bench_dir, reviewer.strip())
    token = new_token(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}/" + (f"?token={token}" if token else "")
    server = uvicorn.Server(
        uvicorn.Config(create_app(state, token=token), log_level="warning", lifespan="off")
    )
    sock.listen(128)  # connections made before uvicorn starts accepting wait in the backlog
    if on_ready is not None:
        on_ready(url)
    server.run(sockets=[sock])
