"""The suite's xdist scopes (tests/conftest.py): embedded-model modules share one, first."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The root conftest by its path: other folders' conftest modules share the bare name.
_spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)
USES_THE_MODEL = re.compile(r"server_available\(|local_server\(|build_capitals_locally\(")


def test_every_module_that_starts_the_embedded_model_is_in_its_scope():
    found = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if USES_THE_MODEL.search(path.read_text(encoding="utf-8"))
    }
    missing = found - conftest.EMBEDDED_MODEL_MODULES
    assert found and not missing, missing
    for module in conftest.EMBEDDED_MODEL_MODULES:
        assert (ROOT / module).is_file(), module


def test_a_scope_is_a_module_and_the_model_modules_share_one():
    scope = conftest.scope_of
    assert scope("tests/test_demo_review.py::test_a") == conftest.MODEL_GROUP
    assert scope("tests/programs/test_corpus_builds.py::test_b[x::y]") == conftest.MODEL_GROUP
    assert scope("tests/test_files.py::test_c") == "tests/test_files.py"
    assert scope("tests/tools/test_tts.py::Voices::test_d") == "tests/tools/test_tts.py"


def test_model_tests_are_marked_and_queued_first(request):
    items = request.session.items
    marked = [i for i in items if i.get_closest_marker("embedded_model")]
    assert all(conftest.scope_of(i.nodeid) == conftest.MODEL_GROUP for i in marked)
    first = [i.get_closest_marker("embedded_model") is not None for i in items]
    assert first == sorted(first, reverse=True)


def test_two_workers_run_each_module_whole_and_the_model_scope_on_one_worker():
    """A real ``-n 2 --dist loadscope`` run over four cheap modules, two of them standing in
    for the embedded-model modules: each module on one worker, and the two stand-ins on the
    same one (xdist's own ``loadgroup`` put them on both: pytest 9.2 ignores its marks)."""
    pytest.importorskip("xdist")
    stand_ins = ["tests/test_files.py", "tests/test_layout.py"]
    others = ["tests/test_item.py", "tests/test_tables.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadscope", "-v",
         "-p", "no:cacheprovider", *others, *stand_ins],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "BENCHSMITH_SUITE_MODEL_SCOPE": ",".join(stand_ins)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    workers = defaultdict(set)
    for line in done.stdout.splitlines():
        found = re.match(r"\[(gw\d)\].* PASSED (tests/\S+?\.py)::", line)
        if found:
            workers[found.group(2)].add(found.group(1))
    assert set(workers) == set(stand_ins + others), workers
    assert all(len(w) == 1 for w in workers.values()), workers
    assert workers[stand_ins[0]] == workers[stand_ins[1]], workers
