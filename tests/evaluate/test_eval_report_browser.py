"""report.html in a real browser: Debian's Chromium driven by Playwright, from ``file://``.

The page is the one ``evaluate_benchmark`` wrote into a real evaluated folder (text, image,
audio and short-answer items; two baselines, a vision model and a text-only model behind
the fake OpenAI-compatible endpoint). The test checks what a reader sees: the item table,
the two filters changing the visible rows, a thumbnail that loaded from ``media/``, an audio
player whose file Chromium reads, and hostile item text shown as text (no dialog, no
error). A screenshot goes to ``$BENCHSMITH_SCREENSHOTS`` when it is set, else to the test's
``tmp_path``; its path is printed (``pytest -s`` shows it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from eval_helpers import HOSTILE_QUESTION

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


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs, page.errors = [], []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("BENCHSMITH_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def visible_ids(page):
    return page.eval_on_selector_all(
        "#item-table tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.id)"
    )


def test_the_report_reads_in_a_browser(evaluated_report, page, shots):
    bench, result, models = evaluated_report
    page.goto((bench / "report.html").resolve().as_uri())
    rows = page.locator("#item-table tbody tr")
    expect(rows).to_have_count(11)
    expect(page.locator("#filter-count")).to_have_text("11 of 11 items shown")
    expect(page.locator("#item-table thead th")).to_have_count(4 + len(models))

    # The subtask filter.
    page.select_option("#filter-subtask", "digits")
    expect(page.locator("#filter-count")).to_have_text("4 of 11 items shown")
    assert visible_ids(page) == ["dig-1", "dig-2", "dig-3", "dig-4"]
    expect(page.locator('#item-table tr[data-id="cap-1"]')).to_be_hidden()

    # "No model solves", within the subtask and over all of them.
    page.select_option("#filter-solved", "none")
    assert visible_ids(page) == ["dig-4"]
    page.select_option("#filter-subtask", "")
    none = result.data["items"]["none_solved"]
    expect(page.locator("#filter-count")).to_have_text(f"{len(none)} of 11 items shown")
    assert visible_ids(page) == none and len(none) == 3
    page.select_option("#filter-solved", "")
    assert len(visible_ids(page)) == 11

    # The thumbnail loaded from media/ (lazily: it loads when scrolled into view).
    image = page.locator('#item-table tr[data-id="dig-1"] img.thumb')
    image.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const i = document.querySelector('tr[data-id=\"dig-1\"] img.thumb');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    assert image.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [120, 90]

    # An audio player for each audio item; Chromium reads the file's header.
    audio = page.locator("#item-table audio")
    expect(audio).to_have_count(2)
    first = audio.first
    assert first.evaluate("a => a.src") == (bench / "media" / "say-1.wav").resolve().as_uri()
    first.evaluate("a => { a.preload = 'metadata'; a.load(); }")
    page.wait_for_function(
        "() => { const a = document.querySelector('#item-table audio');"
        " return a.readyState >= 1 || a.error !== null; }"
    )
    assert first.evaluate("a => a.error && a.error.message") is None
    assert first.evaluate("a => a.duration") == pytest.approx(1.0, abs=0.01)

    # Hostile text is shown as text and never runs.
    question = page.locator('#item-table tr[data-id="cap-2"] td:nth-child(2) .q')
    expect(question).to_have_text(HOSTILE_QUESTION)
    assert page.locator("#item-table script").count() == 0
    assert page.dialogs == [] and page.errors == []

    # A skip reason opens on click.
    reason = page.locator('#item-table tr[data-id="say-1"] td.skipped').first
    expect(reason.locator("details div")).to_be_hidden()
    reason.locator("summary").click()
    expect(reason.locator("details div")).to_contain_text("model cannot take audio")

    # The whole page, every thumbnail loaded.
    page.eval_on_selector_all("img.thumb", "imgs => imgs.forEach(i => { i.loading = 'eager'; })")
    page.wait_for_function(
        "() => [...document.querySelectorAll('img.thumb')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    shot = shots / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 50_000
