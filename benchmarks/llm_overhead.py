"""What benchsmith's client path adds on top of the endpoint's own latency.

Runs against the fake OpenAI-compatible server with a known latency, three ways:
the bare ``openai`` client, ``RoleModel.invoke`` (records, budget, limits, retries) and
``RoleModel.structured``; then the same calls again served from the run records (a resume
or a replay). Reports medians and p90s in milliseconds and the overhead over the bare
client. Usage: ``python benchmarks/llm_overhead.py [--calls N] [--latency-ms MS]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import openai
from pydantic import BaseModel, Field

from benchsmith.testing.fake_openai import FakeOpenAIServer
from benchsmith.testing.runtime import endpoint_runtime


class Decision(BaseModel):
    """A small structured decision, like an agent's."""

    subtask: str = Field(max_length=40, description="A subtask name.")
    keep: bool = Field(description="Whether to keep it.")


def timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        started = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - started) * 1000)
    return out


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    with FakeOpenAIServer(latency=latency) as server, tempfile.TemporaryDirectory() as run_dir:
        bare = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        runtime = endpoint_runtime(server.base_url, run_dir=run_dir)
        model = runtime.for_role("design")
        prompt = "Propose subtask number {} for a benchmark about world capitals."

        def bare_call(i: int) -> None:
            bare.chat.completions.create(
                model="fake-model", messages=[{"role": "user", "content": prompt.format(i)}]
            )

        def invoke(i: int) -> None:
            model.invoke([("user", prompt.format(i))])

        def structured(i: int) -> None:
            model.structured(Decision, [("user", "s" + prompt.format(i))])

        results: dict = {
            "known_latency_ms": args.latency_ms,
            "calls": args.calls,
            "bare_openai_client": summary(timed(bare_call, args.calls)),
        }
        # The first pass goes to the server; the second is served from the run records.
        for suffix in ("", "_from_records"):
            results["invoke" + suffix] = summary(timed(invoke, args.calls))
            results["structured" + suffix] = summary(timed(structured, args.calls))
        results["requests_to_server"] = server.request_count
    base = results["bare_openai_client"]["median_ms"]
    for key in ("invoke", "structured"):
        results[key]["overhead_over_bare_ms"] = round(results[key]["median_ms"] - base, 2)
        results[key]["ratio_to_bare"] = round(results[key]["median_ms"] / base, 3)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
