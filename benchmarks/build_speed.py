"""Build speed and memory against the fake OpenAI-compatible server (200 ms a call).

Measures, each build in its own process with the fake server in another:

1. a 500-item build at concurrency 16: wall time against the ideal (model calls x latency /
   concurrency), the target being at most 1.2x;
2. peak memory (max RSS) of a 5,000-item build against a 500-item one, the target being
   within 1.2x.

The dataset is synthetic (6,000 records), the items are text multiple choice (orchestration
and judge calls, ``make_multiple_choice`` for the distractors, every structural check, the
duplicate index), so the figures measure the executor, not espeak-ng.

Run: ``python benchmarks/build_speed.py [--latency 0.2] [--concurrency 16] [--skip-memory]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORDS = 6000


def serve(latency: float, port_file: str) -> None:
    """Run the fake server until killed (child process)."""
    from benchsmith.testing.build_fakes import builder_reply
    from benchsmith.testing.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(default=lambda body: builder_reply(body, latency=latency)) as server:
        Path(port_file).write_text(server.base_url)
        while True:
            time.sleep(3600)


def make_inputs(root: Path, size: int) -> Path:
    """A synthetic dataset in a catalog and a spec of ``size`` multiple-choice items."""
    from benchsmith.spec import Subtask
    from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec

    rows = [{"name": f"Country {i}", "capital": f"City {i}"} for i in range(RECORDS)]
    card = jsonl_dataset(root, "places", rows)
    subtask = Subtask(
        id="capitals",
        name="Capitals",
        description="Pick the capital of a country.",
        answer_format="multiple_choice",
    )
    spec = one_grounding_spec(
        subtask, card, size=size, answer_field="capital", question_field="name"
    )
    path = root / f"spec-{size}.json"
    path.write_text(spec.model_dump_json())
    return path


def build(spec: str, out: str, catalog: str, url: str, concurrency: int, result: str) -> None:
    """Run one build and write its figures (child process)."""
    cold = time.perf_counter()
    # Import what a build uses before timing it: the figure is the build, not Python start-up
    # (reported separately as "cold").
    import benchsmith.graph.workflow  # noqa: F401
    import benchsmith.package.writer  # noqa: F401
    import benchsmith.verify.duplicates  # noqa: F401
    from benchsmith.api import build_benchmark
    from benchsmith.config import RunConfig

    imports = time.perf_counter() - cold
    started = time.perf_counter()
    res = build_benchmark(
        out=out,
        model=f"fake-model@{url}",
        config=RunConfig(catalog_dir=catalog, concurrency=concurrency),
        spec=spec,
    )
    wall = time.perf_counter() - started
    llm = res.report["llm"]
    Path(result).write_text(
        json.dumps(
            {
                "items": res.items,
                "calls": llm["calls"],
                "wall_s": wall,
                "imports_s": imports,
                "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def run_build(root: Path, size: int, url: str, concurrency: int) -> dict:
    spec = make_inputs(root, size)
    out = root / f"bench-{size}"
    shutil.rmtree(out, ignore_errors=True)
    result = root / f"result-{size}.json"
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--child-build",
            str(spec),
            str(out),
            str(root / "catalog"),
            url,
            str(concurrency),
            str(result),
        ],
        check=True,
    )
    return json.loads(result.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--big", type=int, default=5000)
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="benchsmith-build-speed-"))
    os.environ.setdefault("BENCHSMITH_HOME", str(root / "home"))
    port_file = root / "url"
    server = subprocess.Popen(
        [sys.executable, __file__, "--child-serve", str(args.latency), str(port_file)]
    )
    try:
        while not port_file.exists():
            time.sleep(0.05)
        url = port_file.read_text()
        small = run_build(root, args.size, url, args.concurrency)
        ideal = small["calls"] * args.latency / args.concurrency
        cold = (small["wall_s"] + small["imports_s"]) / ideal
        print(
            f"{small['items']}-item build, concurrency {args.concurrency}, "
            f"{args.latency * 1000:.0f} ms a call: {small['calls']} calls, "
            f"wall {small['wall_s']:.2f} s, ideal {ideal:.2f} s, "
            f"ratio {small['wall_s'] / ideal:.3f} (target <= 1.2); imports before it "
            f"{small['imports_s']:.2f} s (cold ratio {cold:.3f})"
        )
        if not args.skip_memory:
            big = run_build(root, args.big, url, args.concurrency)
            print(
                f"peak RSS: {args.size} items {small['max_rss_mb']:.0f} MB, {args.big} items "
                f"{big['max_rss_mb']:.0f} MB, ratio {big['max_rss_mb'] / small['max_rss_mb']:.3f} "
                f"(target <= 1.2); {args.big}-item wall {big['wall_s']:.1f} s "
                f"(ideal {big['calls'] * args.latency / args.concurrency:.1f} s)"
            )
    finally:
        server.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-serve":
        serve(float(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-build":
        build(*sys.argv[2:6], int(sys.argv[6]), sys.argv[7])
    else:
        main()
