"""The review page in a real browser: Debian's Chromium driven by Playwright.

The server is ``benchsmith review DIR`` itself (the CLI in a subprocess, so it can be killed
with SIGKILL halfway through a review). The tests check what a reviewer sees (the image
loaded, the audio playable, hostile item text shown as text and never run) and that a
review made with the keyboard and the mouse survives a reload and a killed server.

Screenshots of the list and of an item go to ``$BENCHSMITH_SCREENSHOTS`` when it is set,
else to the test's ``tmp_path``; their paths are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from benchsmith.layout import REVIEW_FILE

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPO = Path(__file__).resolve().parents[2]
# A second hostile question: markup that would run if the page ever parsed it as HTML
# (a <script> inserted through innerHTML never runs; an onerror handler does).
HOSTILE_IMG = 'Which city is <img src="x" onerror="alert(2)"> the capital of Spain?'

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not CHROMIUM.is_file(),
        reason="no /usr/bin/chromium (Debian's chromium package; `make system` installs it)",
    ),
]
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="playwright is not installed (it is in the `dev` extra: pip install -e '.[dev]')",
)
expect = sync_api.expect
expect.set_options(timeout=15_000)


# -- the folder, the server and the browser -------------------------------------------------
@pytest.fixture
def review_dir(bench, item_factory):
    """The ``bench`` folder with three more text items and a picture a reviewer can read."""
    picture = Image.new("RGB", (240, 160), (250, 250, 250))
    draw = ImageDraw.Draw(picture)
    draw.rectangle((4, 4, 235, 155), outline=(200, 10, 10), width=6)
    draw.line((120, 30, 120, 130), fill=(20, 20, 20), width=14)  # a "1", the item's target
    draw.line((120, 30, 92, 56), fill=(20, 20, 20), width=12)
    draw.line((92, 130, 148, 130), fill=(20, 20, 20), width=12)
    picture.save(bench / "media" / "img-1.png")
    extra = [
        item_factory("txt-3", "capitals", "What is the capital of Germany?"),
        item_factory("txt-4", "capitals", "What is the capital of Portugal?", target="B"),
        item_factory("txt-5", "capitals", HOSTILE_IMG, choices=("Madrid", "Seville")),
    ]
    with (bench / "data" / "test.jsonl").open("a", encoding="utf-8") as fh:
        fh.writelines(item.model_dump_json() + "\n" for item in extra)
    return bench


class ReviewServer:
    """``python -m benchsmith.cli review DIR --reviewer ana --no-browser`` in a subprocess."""

    def __init__(self, folder: Path, log_dir: Path) -> None:
        self.folder = folder
        self.log_dir = log_dir
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.port = 0
        self.starts = 0

    def start(self, port: int = 0) -> str:
        """Start the server (on ``port``; 0 picks one) and return the URL it printed."""
        self.starts += 1
        log = self.log_dir / f"review-server-{self.starts}.log"
        with log.open("w", encoding="utf-8") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "benchsmith.cli", "review", str(self.folder),
                 "--reviewer", "ana", "--no-browser", "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=err,
                cwd=REPO,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            text = log.read_text(encoding="utf-8")
            found = re.search(r"reviewing .* at (http://127\.0\.0\.1:(\d+)/)", text)
            if found:
                self.url, self.port = found.group(1), int(found.group(2))
                return self.url
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"`benchsmith review` did not start:\n{text}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush; what was acknowledged must already be on disk."""
        assert self.proc is not None and self.proc.poll() is None, "the server died early"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server if it runs (SIGTERM, then SIGKILL)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def server(review_dir, tmp_path):
    srv = ReviewServer(review_dir, tmp_path)
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
        )
        yield chromium
        chromium.close()


class Watched:
    """A page with every dialog and uncaught script error it raised."""

    def __init__(self, context) -> None:
        self.page = context.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def check_quiet(self) -> None:
        assert self.dialogs == [], f"item text opened a dialog: {self.dialogs}"
        assert self.errors == [], f"the page raised: {self.errors}"


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture
def shots(tmp_path):
    """Where the screenshots go: $BENCHSMITH_SCREENSHOTS, else the test's tmp_path."""
    folder = Path(os.environ.get("BENCHSMITH_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# -- helpers --------------------------------------------------------------------------------
def row(page, item_id):
    return page.locator(f'#list li[data-id="{item_id}"]')


def shown(page, item_id):
    """Wait until the item view shows ``item_id`` (and the list marks it current)."""
    expect(page.locator("#item-id")).to_have_text(item_id)
    expect(row(page, item_id)).to_have_class(re.compile(r"\bcurrent\b"))


def status(page, item_id, value):
    expect(row(page, item_id)).to_have_class(re.compile(rf"\b{value}\b"))


def progress(page, reviewed, total):
    expect(page.locator("#progress")).to_have_text(f"{reviewed} of {total} reviewed by ana")


def journal(folder):
    path = folder / REVIEW_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- the tests ------------------------------------------------------------------------------
def test_the_page_shows_media_and_hostile_text_as_the_model_receives_it(server, context, hostile):
    watched = Watched(context)
    page = watched.page
    page.goto(server.url)
    shown(page, "txt-1")  # the first unreviewed item opens by itself
    progress(page, 0, 7)
    expect(page.locator("#list li")).to_have_count(7)

    # Hostile text is shown literally, in the list and in the item, and never runs.
    expect(page.locator("#parts .text-part")).to_have_text(hostile)
    assert "<script>alert(1)</script>" in row(page, "txt-1").text_content()
    assert "<script>" in page.locator("#parts").text_content()
    row(page, "txt-5").click()
    shown(page, "txt-5")
    expect(page.locator("#parts .text-part")).to_have_text(HOSTILE_IMG)
    assert 'onerror="alert(2)"' in row(page, "txt-5").text_content()
    assert page.locator("#list script, #parts script, #parts img, #list img").count() == 0

    # The image has loaded.
    row(page, "img-1").click()
    shown(page, "img-1")
    image = page.locator("#parts img")
    expect(image).to_have_attribute("src", "/media/img-1.png")
    page.wait_for_function(
        "() => { const i = document.querySelector('#parts img');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    assert image.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [240, 160]

    # The audio player has a playable source: the file answers with WAV bytes and Chromium
    # reads its header (readyState HAVE_METADATA or more, no media error).
    page.keyboard.press("j")
    shown(page, "aud-1")
    audio = page.locator("#parts audio")
    src = audio.evaluate("a => a.src")
    assert src == f"{server.url}media/aud-1.wav"
    answer = page.request.get(src)
    body = answer.body()
    assert answer.status == 200 and answer.headers["content-type"].startswith("audio/")
    assert body[:4] == b"RIFF" and body[8:12] == b"WAVE"
    assert audio.evaluate("a => a.canPlayType('audio/wav')") != ""
    page.wait_for_function(
        "() => { const a = document.querySelector('#parts audio');"
        " return a && (a.readyState >= 1 || a.error !== null); }"
    )
    assert audio.evaluate("a => a.error && a.error.message") is None
    assert audio.evaluate("a => a.duration") == pytest.approx(0.1, abs=0.01)

    page.keyboard.press("k")
    shown(page, "img-1")
    watched.check_quiet()
    assert journal(server.folder) == []  # looking decides nothing


def test_a_review_by_keyboard_and_mouse_survives_a_reload_and_a_killed_server(
    server, context, shots
):
    folder = server.folder
    watched = Watched(context)
    page = watched.page
    page.goto(server.url)
    shown(page, "txt-1")

    # 1. txt-1: accept with the keyboard.
    page.keyboard.press("a")
    shown(page, "txt-2")
    status(page, "txt-1", "accepted")
    # 2. txt-2: reject with the keyboard, reason 1 (wrong target).
    page.keyboard.press("r")
    expect(page.locator("#reject-form")).to_be_visible()
    page.keyboard.press("1")
    shown(page, "img-1")
    status(page, "txt-2", "rejected")
    progress(page, 2, 7)
    # 3. img-1: accept with the mouse, after a screenshot of the item.
    page.wait_for_function("() => document.querySelector('#parts img')?.naturalWidth > 0")
    item_shot = shots / "review-item.png"
    page.screenshot(path=str(item_shot), full_page=True)
    page.locator("#accept").click()
    shown(page, "aud-1")
    status(page, "img-1", "accepted")
    # 4. aud-1: accept with the keyboard (focus is still on the button the mouse pressed).
    page.keyboard.press("a")
    shown(page, "txt-3")
    status(page, "aud-1", "accepted")
    progress(page, 4, 7)

    # The server is killed in the middle of the review: every answered decision is on disk.
    server.kill()
    assert [(d["id"], d["decision"], d["reason"]) for d in journal(folder)] == [
        ("txt-1", "accept", None),
        ("txt-2", "reject", "wrong_target"),
        ("img-1", "accept", None),
        ("aud-1", "accept", None),
    ]
    # A decision made while the server is down is refused on the page, not shown as saved.
    page.keyboard.press("a")
    expect(page.locator("#message")).not_to_be_empty()
    status(page, "txt-3", "unreviewed")
    progress(page, 4, 7)
    assert len(journal(folder)) == 4

    # Restart on the folder (same port) and reopen the page: it resumes where it stopped.
    page.close()
    server.start(port=server.port)
    again = Watched(context)
    page = again.page
    page.goto(server.url)
    shown(page, "txt-3")  # the first unreviewed item
    progress(page, 4, 7)
    for item_id, value in [
        ("txt-1", "accepted"),
        ("txt-2", "rejected"),
        ("img-1", "accepted"),
        ("aud-1", "accepted"),
        ("txt-3", "unreviewed"),
    ]:
        status(page, item_id, value)

    # 5. txt-3: edit with the keyboard: e, rewrite the question, Tab to the target, Enter.
    page.keyboard.press("e")
    question = page.locator("#edit-form [name=question]")
    expect(question).to_be_focused()
    expect(question).to_have_value("What is the capital of Germany?")  # no stray "e"
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("Which city is the capital of Germany?")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator("#edit-form [name=target]")).to_be_focused()
    page.keyboard.press("Enter")
    shown(page, "txt-4")
    status(page, "txt-3", "edited")
    # 6. txt-4: reject with the keyboard, reason 7 (other), whose note is typed at once.
    page.keyboard.press("r")
    page.keyboard.press("7")
    note = page.locator("#reject-form [name=note]")
    expect(note).to_be_focused()
    page.keyboard.type("a duplicate of an item already accepted")  # its "a" is no accept
    expect(note).to_have_value("a duplicate of an item already accepted")  # and no "7"
    page.keyboard.press("Enter")
    shown(page, "txt-5")
    status(page, "txt-4", "rejected")
    progress(page, 6, 7)

    # The item view shows each decision; the mouse and j/k move between items.
    row(page, "txt-2").click()
    shown(page, "txt-2")
    expect(page.locator("#decision")).to_have_text("reject: wrong target")
    page.keyboard.press("j")
    shown(page, "img-1")
    expect(page.locator("#decision")).to_have_text("accept")

    # A reload keeps every status.
    page.reload()
    shown(page, "txt-5")
    progress(page, 6, 7)
    expected = {
        "txt-1": "accepted",
        "txt-2": "rejected",
        "img-1": "accepted",
        "aud-1": "accepted",
        "txt-3": "edited",
        "txt-4": "rejected",
        "txt-5": "unreviewed",
    }
    for item_id, value in expected.items():
        status(page, item_id, value)
    list_shot = shots / "review-list.png"
    page.locator("#side").screenshot(path=str(list_shot))

    decisions = journal(folder)
    assert [(d["id"], d["decision"], d["reason"]) for d in decisions] == [
        ("txt-1", "accept", None),
        ("txt-2", "reject", "wrong_target"),
        ("img-1", "accept", None),
        ("aud-1", "accept", None),
        ("txt-3", "edit", None),
        ("txt-4", "reject", "other"),
    ]
    assert {d["reviewer"] for d in decisions} == {"ana"}
    assert decisions[4]["edit"] == {
        "question": "Which city is the capital of Germany?",
        "choices": None,
        "target": None,
    }
    assert decisions[5]["note"] == "a duplicate of an item already accepted"
    watched.check_quiet()
    again.check_quiet()
    for shot in (item_shot, list_shot):
        assert shot.stat().st_size > 1000
        print(f"screenshot: {shot}")


def test_keys_pressed_before_the_next_item_shows_never_decide_the_last_one_again(server, context):
    """A fast reviewer: a second key while a decision is saved is ignored, not re-applied."""
    watched = Watched(context)
    page = watched.page
    page.goto(server.url)
    shown(page, "txt-1")
    page.keyboard.press("a")
    page.keyboard.press("a")  # meant for txt-2, pressed before it shows
    page.keyboard.press("r")
    page.keyboard.press("2")
    page.keyboard.press("a")
    # Let every request the page started finish, then compare the journal with the page.
    page.wait_for_function("() => !state.busy")
    page.wait_for_load_state("networkidle")
    decisions = journal(server.folder)
    ids = [d["id"] for d in decisions]
    assert ids and ids[0] == "txt-1" and decisions[0]["decision"] == "accept"
    assert len(ids) == len(set(ids)), f"an item was decided twice: {decisions}"
    names = {"accept": "accepted", "reject": "rejected"}
    statuses = {d["id"]: names[d["decision"]] for d in decisions}
    for item_id in ["txt-1", "txt-2", "img-1", "aud-1", "txt-3", "txt-4", "txt-5"]:
        status(page, item_id, statuses.get(item_id, "unreviewed"))
    progress(page, len(ids), 7)
    watched.check_quiet()


def test_items_rejected_in_the_page_are_refilled_by_a_resumed_build(tmp_path, context):
    """Reject 2 items in the page, resume the build: same size, those ids gone, fresh items
    verified, report and card updated (the build's model is the scripted fake)."""
    sys.path.insert(0, str(REPO / "tests" / "agents"))  # the executor's scripted fakes
    from executor_fakes import Router, install, judge_yes, make_catalog, make_spec

    from benchsmith.api import build_benchmark
    from benchsmith.config import RunConfig, RunPaths
    from benchsmith.llm.registry import register_runtime

    _catalog, card = make_catalog(tmp_path)
    out = tmp_path / "built"
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(tmp_path / "catalog")
        ),
    )
    router = Router(JudgeVerdict=judge_yes)

    def build(**kw):
        install(config, router)
        try:
            return build_benchmark(out=out, config=config, **kw)
        finally:
            register_runtime(config, None)

    build(spec=make_spec([("capitals--capitals", "capitals", 4, card.size, {})]))
    data = out / "data" / "test.jsonl"
    before = [json.loads(line)["id"] for line in data.read_text(encoding="utf-8").splitlines()]

    srv = ReviewServer(out, tmp_path)
    srv.start()
    try:
        watched = Watched(context)
        page = watched.page
        page.goto(srv.url)
        shown(page, before[0])
        page.keyboard.press("r")
        page.keyboard.press("1")  # wrong target
        shown(page, before[1])
        page.keyboard.press("a")
        shown(page, before[2])
        page.keyboard.press("r")
        page.keyboard.press("3")  # ambiguous
        shown(page, before[3])
        page.keyboard.press("a")
        progress(page, 4, 4)
        watched.check_quiet()
    finally:
        srv.stop()

    result = build(resume=True)
    after = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    ids = [item["id"] for item in after]
    assert result.items == 4 and len(ids) == 4
    assert before[0] not in ids and before[2] not in ids
    assert {before[1], before[3]} <= set(ids)
    for item in after:
        if item["id"] not in before:  # fresh, and verified like every item
            verdicts = item["metadata"]["verification"]["structural"]
            assert verdicts and all(v["ok"] for v in verdicts)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["human_review"]["overall"] == {
        "reviewed": 4,
        "accepted": 2,
        "edited": 0,
        "rejected": 2,
        "acceptance": 0.5,
        "ci95": [0.15, 0.85],
    }
    assert report["rejection_reasons"]["human: wrong target"] == 1
    assert report["rejection_reasons"]["human: ambiguous"] == 1
    assert "Human review: 2 of 4 reviewed items accepted" in (out / "README.md").read_text("utf-8")
