"""What benchsmith's client path adds on top of the endpoint's own latency.

Runs against the fake OpenAI-compatible server with a known latency, three ways:
the bare ``openai`` client, ``RoleModel.invoke`` (records, budget, limits, retries) and
``RoleModel.structured``, interleaved (one call of each arm a round, a new prompt each round,
the order rotated); then the same calls again served from the run records (a resume or a
replay). Reports medians, ranges and p90s in milliseconds and the per-round ratio to the bare
client (median and range).
Usage: ``python benchmarks/llm_overhead.py [--calls N] [--latency-ms MS] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile

import openai
from _common import Summary, figure, interleaved, load_average, ratios
from pydantic import BaseModel, Field

from benchsmith.testing.fake_openai import FakeOpenAIServer
from benchsmith.testing.runtime import endpoint_runtime


class Decision(BaseModel):
    """A small structured decision, like an agent's."""

    subtask: str = Field(max_length=40, description="A subtask name.")
    keep: bool = Field(description="Whether to keep it.")


def summary(seconds: list[float]) -> dict:
    """Median, range and p90 in milliseconds."""
    ordered = sorted(s * 1000 for s in seconds)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "range_ms": [round(ordered[0], 2), round(ordered[-1], 2)],
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--quick", action="store_true", help="20 calls")
    args = parser.parse_args()
    if args.quick:
        args.calls = 20
    latency = args.latency_ms / 1000
    with FakeOpenAIServer(latency=latency) as server, tempfile.TemporaryDirectory() as run_dir:
        bare = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        runtime = endpoint_runtime(server.base_url, run_dir=run_dir)
        model = runtime.for_role("design")
        prompt = "Propose subtask number {} for a benchmark about world capitals."

        def bare_call(i: int) -> None:
            bare.chat.completions.create(
                model="fake-model",
                messages=[{"role": "user", "content": prompt.format(i)}],
            )

        def invoke(i: int) -> None:
            model.invoke([("user", prompt.format(i))])

        def structured(i: int) -> None:
            model.structured(Decision, [("user", "s" + prompt.format(i))])

        arms = {"bare": bare_call, "invoke": invoke, "structured": structured}
        # The warm-up uses prompt -1; the second pass is served from the run records.
        first = interleaved(arms, args.calls)
        replay = interleaved({"invoke": invoke, "structured": structured}, args.calls, False)
        requests = server.request_count
    results: dict = {
        "known_latency_ms": args.latency_ms,
        "calls": args.calls,
        "bare_openai_client": summary(first["bare"]),
        "requests_to_server": requests,
    }
    for key in ("invoke", "structured"):
        ratio = Summary.of(ratios(first[key], first["bare"]))
        results[key] = summary(first[key]) | {"ratio_to_bare": ratio.as_dict(3)}
        results[key + "_from_records"] = summary(replay[key])
    print(json.dumps(results, indent=2))
    ratio = Summary.of(ratios(first["structured"], first["bare"]))
    print(
        f"structured call / bare client at {args.latency_ms:.0f} ms: {ratio.text('.3f')}; "
        f"{load_average()}"
    )
    figure(
        "llm_structured_over_bare",
        f"structured call / bare openai client, fake {args.latency_ms:.0f} ms",
        "-",
        ratio.text(".3f"),
    )


if __name__ == "__main__":
    main()
