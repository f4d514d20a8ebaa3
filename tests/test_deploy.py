"""The server image of langgraph.json: the real `langgraph dockerfile`, offline (text only).

The image must run the default model and the tools: the package with its `local` extra,
the system programs of the Makefile's SYSTEM_PACKAGES (without the tests' chromium), the
Makefile's portable llama.cpp build flags, and no reference to an env file that is not there.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LANGGRAPH = shutil.which("langgraph", path=os.path.dirname(sys.executable)) or shutil.which(
    "langgraph"
)


def makefile_variable(name: str) -> str:
    """The value of ``NAME := ...`` or ``export NAME ?= ...`` (with continuation lines)."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    match = re.search(rf"^(?:export )?{name} [:?]?= (.*)$", text, re.M)
    assert match, f"{name} is not set in the Makefile"
    return " ".join(match.group(1).split())


def runs(dockerfile: str) -> list[str]:
    """The Dockerfile's RUN commands (the generator writes each on one line)."""
    return [line[4:] for line in dockerfile.splitlines() if line.startswith("RUN ")]


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory) -> str:
    if LANGGRAPH is None:
        pytest.skip("langgraph-cli is not installed (pip install -e '.[dev]')")
    target = tmp_path_factory.mktemp("image") / "Dockerfile"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHSMITH_", "OPENAI_"))}
    env["LANGGRAPH_CLI_NO_ANALYTICS"] = "1"
    result = subprocess.run(
        [LANGGRAPH, "dockerfile", "-c", str(ROOT / "langgraph.json"), str(target)],
        cwd=target.parent,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return target.read_text()


def test_the_image_installs_the_package_with_its_local_extra(dockerfile):
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert "local" in extras
    installs = [r for r in runs(dockerfile) if "pip install" in r]
    local = [r for r in installs if "'benchsmith[local] @ file:///tmp/benchsmith'" in r]
    assert len(local) == 1, installs
    # The package's own files are what it is built from, and every one of them is in the
    # build context (.dockerignore leaves them in).
    copies = [line.split()[1:-1] for line in dockerfile.splitlines() if line.startswith("COPY ")]
    assert sorted(p for c in copies for p in c) == ["README.md", "benchsmith", "pyproject.toml"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert not {"README.md", "benchsmith", "pyproject.toml"} & set(ignored)
    # The same constraints as the CLI's own install of `.`, which then finds it all in place.
    assert "-c /api/constraints.txt" in local[0]
    assert any(re.search(r"-c /api/constraints.txt -e \.\)", r) for r in runs(dockerfile))


def test_the_image_has_the_system_programs_and_the_portable_llama_cpp_build(dockerfile):
    wanted = makefile_variable("SYSTEM_PACKAGES").split()
    assert "chromium" in wanted  # the tests' browser: not in the image
    wanted.remove("chromium")
    assert {"espeak-ng", "ffmpeg", "tesseract-ocr"} <= set(wanted)
    apt = [r for r in runs(dockerfile) if "apt-get install" in r]
    assert len(apt) == 1
    packages = shlex.split(apt[0].split("apt-get install", 1)[1].split("&&")[0])
    packages = [p for p in packages if not p.startswith("-")]
    # llama-cpp-python compiles llama.cpp from source: a compiler and cmake.
    assert sorted(packages) == sorted(wanted + ["build-essential", "cmake"])
    # ... with the Makefile's flags, in the step that builds it (after apt-get).
    build = next(r for r in runs(dockerfile) if "benchsmith[local]" in r)
    flags = re.search(r'CMAKE_ARGS="([^"]*)"', build)
    assert flags and flags.group(1) == makefile_variable("CMAKE_ARGS")
    assert runs(dockerfile).index(apt[0]) < runs(dockerfile).index(build)


def test_the_image_has_the_starter_catalog_and_serves_the_graph(dockerfile):
    assert "ENV BENCHSMITH_HOME=/opt/benchsmith" in dockerfile.splitlines()
    assert any(r.startswith("benchsmith catalog starter") for r in runs(dockerfile))
    graphs = re.search(r"^ENV LANGSERVE_GRAPHS='(.*)'$", dockerfile, re.M)
    assert graphs
    assert json.loads(graphs.group(1))["benchsmith"].endswith("benchsmith/graph/workflow.py:graph")


def test_no_env_file_is_named_and_no_secret_reaches_the_image(dockerfile):
    config = json.loads((ROOT / "langgraph.json").read_text())
    # An env file named here must exist: `langgraph up` fails on a missing one. Keys come
    # from the deployment (README, "Deployment").
    env = config.get("env")
    assert env is None or isinstance(env, dict) or (ROOT / env).is_file()
    assert ".env" not in dockerfile
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".env.*", "benchsmith.toml", ".venv", ".git"} <= set(ignored)
    # `langgraph up` inlines these lines in a compose file without escaping `$`.
    assert not any("$" in line for line in config["dockerfile_lines"])


def test_every_data_file_of_the_package_ships_in_the_wheel():
    """Each non-Python file under benchsmith/ matches a package-data glob.

    The JSON tables (starter cards, concepts, synonyms...) are read at import time: a file
    left out of ``[tool.setuptools.package-data]`` breaks an installed benchsmith.
    """
    from fnmatch import fnmatch

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["benchsmith"]
    package = ROOT / "benchsmith"
    data = [
        p.relative_to(package).as_posix()
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert data, "no data files under benchsmith/"
    unshipped = [p for p in data if not any(fnmatch(p, g) for g in globs)]
    assert unshipped == [], f"add globs for {unshipped} to [tool.setuptools.package-data]"
