"""Build speed and memory against the fake OpenAI-compatible server (200 ms a call).

Each build runs in its own process, the fake server in another. The fake model
(:class:`benchsmith.testing.build_fakes.FaultyBuilder`) makes the judge reject a set share of
the items (a rejection and a refill from the reserve), and a share of the dataset's
records are one same record (duplicate items), so the calls per item are those of a build
that meets trouble, not the floor of 1 (the judge's; every item is computed by its
program). Sizes are run interleaved (round 1 of every size, then round 2, ...).

Reported, median and range over the repeats:

1. wall time / ideal, the ideal being model calls x latency / concurrency, at each size;
2. time from ``build_benchmark()`` to the first model request the server sees (and from
   the process start, imports included);
3. memory growth per item: the slope (bytes/item) of a least-squares line over the sizes
   of the resident memory at the build's end and of its peak during the build (sampled
   every 50 ms from /proc over ``build_benchmark()`` alone; the intercept, the import
   baseline, is reported apart). Resident memory is rarely given back, so the two are
   often equal; two sizes on a loaded machine resolve the slope only to about +-10 KB/item
   (use more sizes and repeats, e.g. ``--sizes 500 1000 2000 4000 --repeats 3``).

The dataset is synthetic (6,000 records, or 1.5 an item for the largest size), the items
text multiple choice from a lookup program (judge calls, the program's own choices, every
structural check, the duplicate index), so the figures measure the executor, not espeak-ng.
With two sizes or more, the wall time per item at the largest over
the smallest shows whether the build stays linear (``--sizes 2000 20000 --latency 0.01``).

Run: ``python benchmarks/build_speed.py [--sizes 500 2000] [--repeats 3] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Summary, figure, load_average, ratios

RECORDS = 6000
"""Records of the synthetic dataset, at least: a larger build gets 1.5 records an item."""


def serve(latency: float, shares: str, port_file: str, first_dir: str) -> None:
    """Run the fake server until killed (child process).

    Every request appends its arrival and answer times (wall clock) to
    ``first_dir/<model>.times``, one ``arrival answered what`` line each (one model name
    per build), for :func:`overheads` and the build's first request.
    """
    import threading

    from benchsmith.testing.build_fakes import FaultyBuilder, item_digest
    from benchsmith.testing.fake_openai import FakeOpenAIServer, RecordedRequest

    fake = FaultyBuilder(latency, reject_share=float(shares))
    lock = threading.Lock()
    to_wall = time.time() - time.monotonic()

    def answered(request: RecordedRequest) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", ""))
        # A third column says what the call was (for reading a tail): the structured
        # decision asked for and the digest of the item judged.
        name = ((body.get("tools") or [{}])[0].get("function") or {}).get("name", "-")
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        digest = item_digest(text)
        tag = f"{name}:{digest or '-'}"
        arrived, answered = to_wall + request.received_at, to_wall + (request.answered_at or 0)
        line = f"{arrived!r} {answered!r} {tag}\n"
        with lock, open(Path(first_dir) / f"{model}.times", "a") as times:
            times.write(line)

    with FakeOpenAIServer(default=fake, on_answer=answered) as server:
        Path(port_file).write_text(server.base_url)
        while True:
            time.sleep(3600)


def make_inputs(root: Path, size: int, duplicate_share: float, records: int = RECORDS) -> Path:
    """A synthetic dataset in a catalog and a spec of ``size`` multiple-choice items.

    A ``duplicate_share`` of the records are one same record (duplicate items).
    """
    from benchsmith.catalog.store import Catalog
    from benchsmith.spec import Subtask
    from benchsmith.testing.build_fakes import jsonl_dataset, one_grounding_spec

    path = root / f"spec-{size}.json"
    if path.exists():
        return path
    if (root / "catalog" / "places").exists() or (root / "places.jsonl").exists():
        card = Catalog(root / "catalog").get("places")
    else:
        step = round(1 / duplicate_share) if duplicate_share > 0 else 0
        rows = []
        for i in range(records):
            j = records if step and i % step == step - 1 else i
            rows.append({"name": f"Country {j}", "capital": f"City {j}"})
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
    path.write_text(spec.model_dump_json())
    return path


def build(spec: str, out: str, catalog: str, model: str, concurrency: int, result: str) -> None:
    """Run one build and write its figures (child process)."""
    cold = time.perf_counter()
    # As `benchsmith build` does before its imports: lingua's models load in the
    # language-ID worker, on the other core, while this process imports.
    from benchsmith.langid import prewarm_languages

    prewarm_languages(["en"])
    # Import what a build uses before timing it: the figure is the build, not Python start-up
    # (the time from the process start is reported apart), the modules a first model call
    # imports included (benchsmith.llm.client.preload).

    import benchsmith.graph.workflow  # noqa: F401
    import benchsmith.package.writer  # noqa: F401
    import benchsmith.verify.duplicates  # noqa: F401
    from benchsmith.api import build_benchmark
    from benchsmith.config import RunConfig, RunPaths
    from benchsmith.llm.client import preload

    preload()
    imports = time.perf_counter() - cold
    # Resident memory sampled during the build only: ru_maxrss would keep an import-time
    # peak that the build never reaches again, hiding the growth per item.
    import threading

    page = os.sysconf("SC_PAGE_SIZE")
    peak, last = [0], [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            with open("/proc/self/statm") as statm:
                last[0] = int(statm.read().split()[1]) * page
            peak[0] = max(peak[0], last[0])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    cpu0 = time.process_time()
    started_wall = time.time()
    started = time.perf_counter()
    res = build_benchmark(
        out=out,
        model=model,
        config=RunConfig(paths=RunPaths(catalog_dir=catalog), concurrency=concurrency),
        spec=spec,
    )
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    done.set()
    sampler.join()
    report = res.report
    Path(result).write_text(
        json.dumps(
            {
                "items": res.items,
                "calls": report["llm"]["calls"],
                "wall_s": wall,
                "imports_s": imports,
                "started_wall": started_wall,
                "cpu_s": cpu,
                "rejected": report.get("rejected"),
                "rejection_reasons": report.get("rejection_reasons"),
                "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                "build_peak_rss_bytes": peak[0],
                "build_end_rss_bytes": last[0],
            },
            default=str,
        )
    )


def run_build(root: Path, spec: Path, url: str, concurrency: int, tag: str, latency: float) -> dict:
    """One build of the ``spec`` in a fresh process; its figures."""
    out = root / f"bench-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    result = root / f"result-{tag}.json"
    model = f"fake-{tag}"
    launched = time.time()
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--child-build",
            str(spec),
            str(out),
            str(root / "catalog"),
            f"{model}@{url}",
            str(concurrency),
            str(result),
        ],
        check=True,
    )
    shutil.rmtree(out, ignore_errors=True)
    figures = json.loads(result.read_text())
    lines = (root / "first" / f"{model}.times").read_text().splitlines()
    pairs = sorted((float(a), float(b)) for a, b, *_ in (line.split() for line in lines))
    first = pairs[0][0]
    figures["first_call_s"] = first - figures["started_wall"]
    figures["first_call_cold_s"] = first - launched
    figures["service_s"] = sorted(b - a for a, b in pairs)
    figures["overheads"] = overheads(
        pairs, figures["started_wall"], figures["wall_s"], latency, concurrency
    )
    return figures


def overheads(
    pairs: list[tuple[float, float]],
    started: float,
    wall: float,
    latency: float,
    concurrency: int,
) -> dict[str, float]:
    """Where a build's time beyond the ideal went, from its requests' arrival and answer times.

    ``before``: from ``build_benchmark()`` to the first request. ``tail``: the excess of the
    end, from the last moment ``concurrency // 2`` or more requests were in flight to the
    last reply, less the ideal time of the calls made then (the slots still on a chain of
    replacements after every other slot finished: a chain's calls follow one
    another, so no scheduling without extra calls overlaps them). ``after``: from the last
    reply to the build's end (packaging). ``server``: the fake's own lateness, the time its
    answers took beyond ``latency``, per concurrency slot (the ideal counts ``latency`` a
    call; this part is the fake's, not the build's). ``middle``: the rest, the in-flight
    count below ``concurrency`` while the build runs. The five sum to the wall time less
    the ideal.
    """
    pairs = sorted(pairs)
    arrivals = [a for a, _ in pairs]
    events = sorted([(a, 1) for a, _ in pairs] + [(b, -1) for _, b in pairs])
    inflight, full_until = 0, arrivals[0]
    for t, step in events:
        if inflight >= concurrency // 2:
            full_until = t  # the interval up to t had half the slots busy or more
        inflight += step
    last = max(b for _, b in pairs)
    ideal = len(pairs) * latency / concurrency
    tail_work = sum(min(latency, max(0.0, b - max(a, full_until))) for a, b in pairs)
    late = sum(max(0.0, b - a - latency) for a, b in pairs) / concurrency
    before = arrivals[0] - started
    tail = (last - full_until) - tail_work / concurrency
    after = max(0.0, started + wall - last)
    return {
        "before": before,
        "tail": tail,
        "after": after,
        "server": late,
        "middle": wall - ideal - before - tail - after - late,
    }


def fit_slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope and intercept of ``ys`` over ``xs``."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return slope, my - slope * mx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000])
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="builds of each size (3: the median stands when one run is disturbed)",
    )
    parser.add_argument("--reject-share", type=float, default=0.15)
    parser.add_argument("--duplicate-share", type=float, default=0.05)
    parser.add_argument(
        "--quick", action="store_true", help="sizes 60 and 150, 20 ms a call, one repeat"
    )
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.latency, args.repeats = [60, 150], 0.02, 1
    sizes = sorted(set(args.sizes))
    root = Path(tempfile.mkdtemp(prefix="benchsmith-build-speed-"))
    os.environ.setdefault("BENCHSMITH_HOME", str(root / "home"))
    (root / "first").mkdir()
    port_file = root / "url"
    shares = str(args.reject_share)
    server = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--child-serve",
            str(args.latency),
            shares,
            str(port_file),
            str(root / "first"),
        ]
    )
    runs: dict[int, list[dict]] = {size: [] for size in sizes}
    try:
        while not port_file.exists():
            time.sleep(0.05)
        url = port_file.read_text()
        records = max(RECORDS, math.ceil(1.5 * max(sizes)))
        specs = {size: make_inputs(root, size, args.duplicate_share, records) for size in sizes}
        for r in range(args.repeats):
            order = sizes if r % 2 == 0 else sizes[::-1]
            for size in order:
                tag = f"{size}-{r}"
                runs[size].append(
                    run_build(root, specs[size], url, args.concurrency, tag, args.latency)
                )
    finally:
        server.kill()
        shutil.rmtree(root, ignore_errors=True)

    print(
        f"fake endpoint {args.latency * 1000:.0f} ms a call, concurrency {args.concurrency}; "
        f"judge rejects {args.reject_share:.0%} of the items; "
        f"{args.duplicate_share:.0%} of records are one same record; {args.repeats} repeat(s); "
        f"{load_average()}"
    )
    for size in sizes:
        done = runs[size]
        ideal = [d["calls"] * args.latency / args.concurrency for d in done]
        ratio = Summary.of(ratios([d["wall_s"] for d in done], ideal))
        calls_per_item = Summary.of([d["calls"] / max(d["items"], 1) for d in done])
        print(
            f"{size} items: wall {Summary.of([d['wall_s'] for d in done]).text('.2f', ' s')}, "
            f"ideal {Summary.of(ideal).text('.2f', ' s')}, wall/ideal {ratio.text('.3f')}; "
            f"{calls_per_item.text('.2f')} calls/item; items {[d['items'] for d in done]}; "
            f"last run: rejected {done[-1]['rejected']} {done[-1]['rejection_reasons']}"
        )
        parts = {
            key: Summary.of([d["overheads"][key] for d in done])
            for key in ("before", "middle", "tail", "after", "server")
        }
        service = sorted(t for d in done for t in d["service_s"])
        print(
            f"  time beyond the ideal ({size} items): "
            f"before the first request {parts['before'].text('.2f', ' s')}; "
            f"fewer than {args.concurrency} requests in flight while building "
            f"{parts['middle'].text('.2f', ' s')}; the tail (under {args.concurrency // 2} in "
            f"flight: a chain of replacements after the rest) "
            f"{parts['tail'].text('.2f', ' s')}; after the last reply (packaging) "
            f"{parts['after'].text('.2f', ' s')}; the fake's answers later than "
            f"{args.latency * 1000:.0f} ms {parts['server'].text('.2f', ' s')} (its time a "
            f"call: median {service[len(service) // 2] * 1000:.1f} ms, "
            f"p99 {service[int(len(service) * 0.99)] * 1000:.1f} ms)"
        )
        figure(
            f"build_ratio_{size}",
            f"build wall / ideal, fake {args.latency * 1000:.0f} ms, c={args.concurrency}, "
            f"{size} items",
            {500: "<= 1.05", 2000: "<= 1.03"}.get(size, "-"),
            ratio.text(".3f"),
            calls_per_item=calls_per_item.median,
        )
    if len(sizes) >= 2:
        # Linear in time: the wall time per item holds from the smallest size to the largest.
        per_item = {
            size: Summary.of([d["wall_s"] / max(d["items"], 1) for d in runs[size]])
            for size in sizes
        }
        growth = per_item[sizes[-1]].median / per_item[sizes[0]].median
        print(
            "wall time per item: "
            + ", ".join(f"{size}: {per_item[size].text('.1f', ' ms', 1000)}" for size in sizes)
            + f"; largest / smallest {growth:.2f}"
        )
        figure(
            "build_linearity",
            f"wall time per item, {sizes[-1]} items / {sizes[0]} items (linear: about 1)",
            "about 1",
            f"{growth:.2f} ("
            + ", ".join(f"{per_item[size].median * 1000:.1f} ms" for size in sizes)
            + ")",
        )
    every = [d for size in sizes for d in runs[size]]
    first = Summary.of([d["first_call_s"] for d in every])
    cold = Summary.of([d["first_call_cold_s"] for d in every])
    print(
        f"first model request: {first.text('.2f', ' s')} after build_benchmark(), "
        f"{cold.text('.2f', ' s')} after the process started"
    )
    figure(
        "first_call",
        "time before the first model call (from build_benchmark(); cold in parentheses)",
        "<= 0.3 s",
        f"{first.text('.2f', ' s')} [cold {cold.median:.2f} s]",
    )
    if len(sizes) < 2:
        print("memory: one size only, no growth per item (give two sizes or more)")
        return
    fits = {}
    for which in ("peak", "end"):
        slopes = []
        for r in range(args.repeats):
            xs = [float(size) for size in sizes]
            ys = [float(runs[size][r][f"build_{which}_rss_bytes"]) for size in sizes]
            slopes.append(fit_slope(xs, ys))
        intercepts = Summary.of([b / 2**20 for _, b in slopes])
        fits[which] = (Summary.of([s for s, _ in slopes]), intercepts)
    for which, label in (("peak", "peak RSS during the build"), ("end", "RSS at the build's end")):
        slope, base = fits[which]
        print(
            f"memory: {label} grows {slope.text('.0f', ' B/item')} (linear fit over sizes "
            f"{sizes}); intercept {base.text('.0f', ' MB')}"
        )
    figure(
        "memory_per_item",
        f"RSS growth per item, at the build's end [peak] (fit over {sizes} items)",
        "about 6 KB/item (keep)",
        f"{fits['end'][0].text('.0f', ' B/item')} [peak {fits['peak'][0].median:.0f} B/item]",
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-serve":
        serve(float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-build":
        build(*sys.argv[2:6], int(sys.argv[6]), sys.argv[7])
    else:
        main()
