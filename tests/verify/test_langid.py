"""The language-ID worker process: same verdicts as lingua in process, and a safe fallback."""

import subprocess
import sys

import pytest

pytest.importorskip("lingua")

from benchsmith import langid  # noqa: E402
from benchsmith.verify.reviewer import check_language_id  # noqa: E402

TEXTS = {
    "en": "Which city is the capital of the following country?",
    "fr": "Quelle est la capitale du pays suivant ?",
    "de": "Was ist die Hauptstadt des folgenden Landes?",
    "ru": "Какой город является столицей этой страны?",
}


@pytest.fixture
def fresh_worker(monkeypatch):
    """No worker from an earlier test, and none left behind."""
    monkeypatch.delenv("BENCHSMITH_LANGID", raising=False)
    monkeypatch.setattr(langid, "_WORKER", None)
    monkeypatch.setattr(langid, "_BROKEN", None)
    langid._confidences.cache_clear()
    yield
    if langid._WORKER is not None:
        langid._WORKER.kill()
        langid._WORKER.wait()
    langid._confidences.cache_clear()


def test_the_worker_gives_lingua_s_own_confidences(fresh_worker):
    for lang, text in TEXTS.items():
        codes = langid.candidate_codes(lang)
        assert codes and lang in codes
        from_worker = langid.confidences(codes, text)
        assert langid._WORKER is not None and langid._WORKER.poll() is None
        local = langid._local(codes, text)
        assert [c for c, _ in from_worker] == [c for c, _ in local]
        assert [v for _, v in from_worker] == pytest.approx([v for _, v in local])
        assert max(from_worker, key=lambda v: v[1])[0] == lang


def test_a_dead_worker_is_restarted_and_one_that_fails_falls_back_in_process(
    fresh_worker, monkeypatch
):
    before = check_language_id({"question": TEXTS["fr"]}, "fr")
    assert before.ok and "fr (" in before.reason
    first = langid._WORKER
    first.kill()
    first.wait()
    langid._confidences.cache_clear()
    # Died between requests: the next request starts a new worker.
    assert check_language_id({"question": TEXTS["fr"]}, "fr") == before
    assert langid._WORKER is not first and langid._BROKEN is None
    langid._WORKER.kill()
    langid._WORKER.wait()
    langid._confidences.cache_clear()
    # A worker that ends without answering: this process identifies, with the same verdict.
    monkeypatch.setattr(
        langid, "_COMMAND", (sys.executable, "-c", "import sys; sys.stdin.readline()")
    )
    assert check_language_id({"question": TEXTS["fr"]}, "fr") == before
    assert langid._BROKEN and "ended" in langid._BROKEN and langid._WORKER is None
    wrong = check_language_id({"question": TEXTS["de"]}, "fr")
    assert not wrong.ok and "is de" in wrong.reason


def test_inprocess_is_chosen_by_the_environment(fresh_worker, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_LANGID", "inprocess")
    langid.prewarm_languages(["en"])
    verdict = check_language_id({"question": TEXTS["en"]}, "en")
    assert verdict.ok and langid._WORKER is None


def test_prewarm_starts_the_worker_without_an_answer_to_wait_for(fresh_worker):
    langid.prewarm_languages(["fr", "pt-br", None])
    worker = langid._WORKER
    assert worker is not None and worker.poll() is None
    # The warm requests get no reply: the next answer read is the real request's.
    assert langid.confidences(langid.candidate_codes("pt"), "Qual é a capital do país?")[0][0]
    assert langid._WORKER is worker


def test_the_worker_ends_when_its_parent_s_pipe_closes():
    worker = subprocess.Popen(
        [sys.executable, "-m", "benchsmith.langid"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    worker.stdin.write('{"codes": ["en", "fr"], "text": "What is the capital of France?"}\n')
    worker.stdin.flush()
    assert '"values"' in worker.stdout.readline()
    worker.stdin.close()  # what the parent's death does
    assert worker.wait(timeout=30) == 0


def test_an_unknown_language_is_reported_not_crashed(fresh_worker):
    assert langid.candidate_codes("xx") is None
    verdict = check_language_id({"question": "Some words here"}, "xx")
    assert verdict.ok and verdict.reason.startswith("unavailable")


def test_a_forked_child_starts_its_own_worker(fresh_worker):
    import os

    assert langid.confidences(langid.candidate_codes("en"), TEXTS["en"])
    parent_worker = langid._WORKER
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a new worker, never the parent's pipes
        langid._confidences.cache_clear()
        ok = langid.confidences(langid.candidate_codes("fr"), TEXTS["fr"])[0][0] == "fr"
        os.write(write, b"1" if ok and langid._WORKER is not parent_worker else b"0")
        langid._WORKER.kill()
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)
    assert langid._WORKER is parent_worker and parent_worker.poll() is None
    assert langid.confidences(langid.candidate_codes("de"), TEXTS["de"])
