"""The embedded model: start-up, prompt processing, generation speed and structured calls.

Starts SmolLM2-135M's llama.cpp server (as ``local`` does), then runs two arms interleaved,
a different prompt each round:

* ``stream``: a plain streamed chat completion. Prompt processing is the time to the first
  token (prompt tokens / that time); generation speed is the tokens after the first over
  the time after the first token. Neither is the output tokens over the whole request,
  which mixes the two. (The server sends no token usage in a stream: output tokens are
  counted as streamed text chunks, one token each, and the prompt is counted afterwards.)
* ``structured``: one structured call through the normal client path (what an agent pays),
  its latency and whether the reply was schema-valid at the first try.

Usage: ``python benchmarks/local_model.py [--calls N] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import time

import openai
from _common import Summary, figure, interleaved, load_average

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


def stream_once(client: openai.OpenAI, country: str, max_tokens: int) -> dict[str, float]:
    """One streamed completion: time to first token, tokens and time after it."""
    prompt = (
        f"Write a short paragraph about {country}: its capital, its largest river, its "
        "languages and one famous dish. Use plain sentences."
    )
    started = time.perf_counter()
    first = last = None
    chunks = 0
    usage = None
    stream = client.chat.completions.create(
        model="local",
        messages=[{"role": "user", "content": prompt}],
        max_tokens=max_tokens,
        temperature=0,
        stream=True,
        stream_options={"include_usage": True},
    )
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        if chunk.choices and chunk.choices[0].delta.content:
            now = time.perf_counter()
            first = first if first is not None else now
            last = now
            chunks += 1
    if first is None or last is None:
        raise RuntimeError(f"the local model streamed no text for {country!r}")
    output = usage.completion_tokens if usage else chunks
    if usage is None:
        # llama-cpp-python's server sends no usage in a stream: count the prompt with a
        # one-token request after the timed one (so its prompt cache cannot help the latter).
        usage = client.chat.completions.create(
            model="local", messages=[{"role": "user", "content": prompt}], max_tokens=1
        ).usage
    return {
        "ttft_s": first - started,
        "prompt_tokens": float(usage.prompt_tokens if usage else 0),
        "tokens_after_first": float(output - 1),
        "after_first_s": last - first,
        "total_s": last - started,
        "output_tokens": float(output),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--quick", action="store_true", help="two calls of 32 tokens")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.max_tokens = 2, 32
    server = local_server()
    started = time.perf_counter()
    base_url = server.ensure_started()
    startup = time.perf_counter() - started
    client = openai.OpenAI(base_url=base_url, api_key="local", max_retries=0)
    runtime = LLMRuntime.from_config(RunConfig(model="local"), env={})
    model = runtime.for_role("design")
    streams: list[dict[str, float]] = []
    first_try = [0]

    def stream_arm(r: int) -> float:
        result = stream_once(client, COUNTRIES[(r + 1) % len(COUNTRIES)], args.max_tokens)
        if r >= 0:
            streams.append(result)
        return result["total_s"]

    def structured_arm(r: int) -> None:
        result = structured_call(model, ProbeAnswer, probe_messages(COUNTRIES[r % len(COUNTRIES)]))
        first_try[0] += r >= 0 and result.attempts == 1

    samples = interleaved({"stream": stream_arm, "structured": structured_arm}, args.calls)
    gen = Summary.of([s["tokens_after_first"] / s["after_first_s"] for s in streams])
    pp = Summary.of([s["prompt_tokens"] / s["ttft_s"] for s in streams])
    ttft = Summary.of([s["ttft_s"] * 1000 for s in streams])
    mixed = Summary.of([s["output_tokens"] / s["total_s"] for s in streams])
    latency = Summary.of(samples["structured"])
    result = {
        "startup_s": round(startup, 3),
        "calls": args.calls,
        "generation_tokens_per_s": gen.as_dict(1),
        "prompt_tokens_per_s": pp.as_dict(1),
        "time_to_first_token_ms": ttft.as_dict(1),
        "output_over_whole_request_tokens_per_s": mixed.as_dict(1),
        "structured_latency_s": latency.as_dict(3),
        "schema_valid_first_try": f"{first_try[0]}/{args.calls}",
    }
    print(json.dumps(result, indent=2))
    print(
        f"local model: start-up {startup:.2f} s; generation {gen.text('.1f', ' tokens/s')} "
        f"(after the first token); prompt processing {pp.text('.0f', ' tokens/s')}, first "
        f"token after {ttft.text('.0f', ' ms')}; structured call {latency.text('.2f', ' s')}, "
        f"schema-valid at the first try {first_try[0]}/{args.calls}; {load_average()}"
    )
    figure(
        "local_generation",
        "embedded model generation speed (streamed, after the first token)",
        "-",
        gen.text(".1f", " tokens/s"),
    )
    figure(
        "local_prompt",
        "embedded model prompt processing (prompt tokens / time to first token)",
        "-",
        pp.text(".0f", " tokens/s"),
    )


if __name__ == "__main__":
    main()
