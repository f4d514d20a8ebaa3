"""The program corpus: every intent built on the embedded model, every item read by the reviewer.

For each set of ``tests/programs/corpus`` (tuning, then the sets written blind: held-out-1,
held-out-2, held-out-3, dev-4, dev-5, held-out-4, held-out-5) it builds every intent with
``benchsmith build`` (in this process, one embedded-model server for the whole run) and
reads every item with ``tests/programs/reviewer.py``, code of its own that recomputes each
answer from the data files. One table per set: intents, servable intents built, unservable
ones refused with what is missing, items built and accepted, per program kind, and time.
Then the intents whose outcome is wrong (a servable intent not built, an unservable one
built), which must be none.

The suite (``tests/programs/test_corpus_builds.py``) builds a fixed sample of these intents;
this script is what the notes quote. A set's blind first run is the figure of generalization;
a rerun after tuning is a regression figure.

Usage: ``python benchmarks/program_corpus.py [--set held-out-5 ...] [--ids r01,r02]
[--model SPEC] [--reader none|local|local:reader] [--json F]`` (``make corpus`` runs every
set). ``--reader`` measures the intents read by the rules alone, or with a reader model
answering the slots the rules are unsure of.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "programs"))

from corpus_run import (  # noqa: E402
    SET_ORDER,
    SIZE,
    build,
    entries,
    outcome_problem,
    share,
    table_files,
)

from benchsmith.llm.local import server_available, stop_local_server  # noqa: E402
from benchsmith.testing.local_build import offline_env  # noqa: E402


def set_table(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Print one set's table; return its summary."""
    accepted, built = share(rows)
    servable = [r for r in rows if r["servable"]]
    kinds: Counter[str] = Counter()
    kind_accepted: Counter[str] = Counter()
    for r in rows:
        for kind in r["kinds"]:  # each kind a build used gets the build's items
            kinds[kind] += r["items"]
            kind_accepted[kind] += r["accepted"]
    summary = {
        "set": name,
        "intents": len(rows),
        "servable_built": sum(1 for r in servable if r["items"] and r["exit"] in (0, 3)),
        "servable": len(servable),
        "refused": sum(1 for r in rows if r["exit"] not in (0, 3)),
        "built": built,
        "accepted": accepted,
        "requested": SIZE * len(servable),
        "seconds": round(sum(r["seconds"] for r in rows), 1),
        "kinds": {k: [kind_accepted[k], kinds[k]] for k in sorted(kinds)},
        "wrong_outcome": [p for r in rows if (p := outcome_problem(r))],
    }
    print(f"\n## {name}\n")
    print("| id | servable | exit | items | accepted | program | s | first problem or message |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        first = r["problems"][0]["why"][0] if r["problems"] else ""
        first = first or (r["message"] if r["exit"] else "")
        cells = [
            r["id"],
            "yes" if r["servable"] else "no",
            r["exit"],
            r["items"],
            r["accepted"],
            ",".join(r["kinds"]),
            round(r["seconds"]),
            first[:90],
        ]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    of_built = 100 * accepted / max(built, 1)
    of_requested = 100 * accepted / max(summary["requested"], 1)
    per_kind = ", ".join(f"{k} {a}/{n}" for k, (a, n) in summary["kinds"].items())
    built_intents = summary["servable_built"]
    print(f"\n{name}: {built_intents}/{len(servable)} servable intents built, "
          f"{summary['refused']} refused; items accepted {accepted}/{built} = {of_built:.1f} %"
          f" ({of_requested:.1f} % of requested); {per_kind}; "
          f"{summary['seconds']:.0f} s")  # fmt: skip
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        choices=SET_ORDER,
        help="a corpus set (repeat for several; default: every set)",
    )
    parser.add_argument("--ids", default="", help="only these intents (comma-separated ids)")
    parser.add_argument(
        "--model", default=None, help="a model spec for the builds (default: the embedded model)"
    )
    parser.add_argument(
        "--reader",
        default=None,
        help="who reads the intents' unsure slots: none (the rules alone: --programs rules), "
        "local (SmolLM2), local:reader (the embedded 1.5B) or any spec (--programs reader); "
        "default: the build's own choice (--programs auto)",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every row and set here")
    args = parser.parse_args()  # fmt: skip
    if not server_available():
        print("benchsmith[local] (llama-cpp-python's server) is not installed", file=sys.stderr)
        return 2
    chosen = entries(set(args.sets or ()), {i for i in args.ids.split(",") if i})
    files = table_files()
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="program-corpus-") as folder:
        tmp = Path(folder)
        environ = offline_env(tmp)
        if args.model:  # its key and endpoint, which offline_env leaves out
            environ.update({k: v for k, v in os.environ.items() if k.startswith("OPENAI_")})
        extra: tuple[str, ...] = ()
        if args.reader == "none":
            extra = ("--programs", "rules")
        elif args.reader:
            extra = ("--programs", "reader", "--role-model", f"reader={args.reader}")
        for n, entry in enumerate(chosen, 1):
            rows.append(build(entry, files, tmp, environ, model=args.model, extra=extra))
            r = rows[-1]
            print(f"[{n}/{len(chosen)}] {r['set']} {r['id']}: exit {r['exit']}, "
                  f"{r['accepted']}/{r['items']} accepted, {r['seconds']:.0f} s",
                  file=sys.stderr, flush=True)  # fmt: skip
        stop_local_server()
    sets = [set_table(s, [r for r in rows if r["set"] == s])
            for s in SET_ORDER if any(r["set"] == s for r in rows)]  # fmt: skip
    wrong = [p for s in sets for p in s["wrong_outcome"]]
    print(f"\nintents with a wrong outcome: {len(wrong)}")
    for problem in wrong:
        print(f"- {problem}")
    print(f"total: {len(rows)} intents in {time.monotonic() - started:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"sets": sets, "rows": rows}, indent=1,
                                        ensure_ascii=False), encoding="utf-8")  # fmt: skip
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
