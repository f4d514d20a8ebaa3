"""The embedded model: server start-up time and the latency of structured calls.

Starts SmolLM2-135M's llama.cpp server (as ``local`` does), then sends N structured
requests with distinct prompts through the normal client path and reports the median and
p90 latency, tokens per second and how many replies were schema-valid at the first try.
Usage: ``python benchmarks/local_model.py [--calls N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from benchsmith.config import RunConfig
from benchsmith.doctor import ProbeAnswer, probe_messages
from benchsmith.llm.client import LLMRuntime
from benchsmith.llm.local import local_server
from benchsmith.llm.structured import structured_call

COUNTRIES = [
    "Japan",
    "Brazil",
    "Kenya",
    "Canada",
    "Italy",
    "India",
    "Egypt",
    "Peru",
    "Spain",
    "Chile",
    "Norway",
    "Ghana",
    "Mexico",
    "Vietnam",
    "Poland",
    "Chad",
    "Fiji",
    "Nepal",
    "Cuba",
    "Iran",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    server = local_server()
    started = time.perf_counter()
    server.ensure_started()
    startup = time.perf_counter() - started
    runtime = LLMRuntime.from_config(RunConfig(model="local"), env={})
    model = runtime.for_role("design")
    latencies, first_try = [], 0
    for i in range(args.calls):
        country = COUNTRIES[i % len(COUNTRIES)]
        t0 = time.perf_counter()
        result = structured_call(
            model,
            ProbeAnswer,
            probe_messages(country),
        )
        latencies.append(time.perf_counter() - t0)
        first_try += result.attempts == 1
    usage = runtime.ledger.summary()
    ordered = sorted(latencies)
    print(
        json.dumps(
            {
                "startup_s": round(startup, 3),
                "calls": args.calls,
                "median_latency_s": round(statistics.median(ordered), 3),
                "p90_latency_s": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
                "schema_valid_first_try": first_try,
                "output_tokens_per_s": round(usage["output_tokens"] / sum(latencies), 1),
                "input_tokens": usage["input_tokens"],
                "output_tokens": usage["output_tokens"],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
