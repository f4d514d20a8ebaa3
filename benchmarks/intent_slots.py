"""How the intents of the starter sets are read, slot by slot: rules alone, or with a reader.

For every servable intent of the chosen starter sets (``tests/programs/corpus``; the blind
ones are what counts) it reads the intent as a build's plan does (the programs the intent
asks for over the starter catalog) and compares the leading program with the intent's hand
key (``expect``), slot by slot:

* ``kind``, ``table``, ``asked`` (the column the questions are about: a lookup's answer, the
  field ranked or aggregated, the class), ``book``, ``filter`` (the conditions' columns),
  ``value`` (their values) and ``direction``; a slot the key leaves empty is not counted;
* with a reader, each question it was asked (the column, where the rules were unsure): how
  often its answer was right, and how often the code took it.

``--reader none`` reads by rules alone; ``--reader local`` asks SmolLM2; ``--reader
local:reader`` the embedded 1.5B (or any model spec). No items are built: the builds and the
reviewer's acceptance are ``benchmarks/program_corpus.py`` (``--programs``, ``--reader``).

Usage: ``python benchmarks/intent_slots.py [--set starter-blind-3 ...] [--reader SPEC]
[--json F]``.
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

from corpus_run import STARTER_SETS, entries, prepare_starter  # noqa: E402

from benchsmith.testing.local_build import offline_env  # noqa: E402

SLOTS = ("kind", "table", "asked", "book", "filter", "value", "direction")


def expected(entry: dict[str, Any]) -> dict[str, Any]:
    """The key's value of each slot (None: the key does not say)."""
    x = entry["expect"]
    kinds = x.get("kinds") or []
    ranked = kinds and kinds[0] in ("compare", "superlative", "aggregate")
    conds = [c for c in x.get("conditions") or [] if c.get("op", "==") == "=="]
    return {
        "kind": set(kinds) or None,
        "table": set(entry.get("tables") or []) or None,
        "asked": (x.get("field") if ranked else x.get("answer_field")) or None,
        "book": x.get("book"),
        "filter": {c["field"] for c in conds} if kinds and kinds[0] != "count" else None,
        "value": {_plain(c["value"]) for c in conds} if kinds and kinds[0] != "count" else None,
        "direction": x.get("direction"),
    }


def _plain(value: Any) -> str:
    """A value as text, numbers without a trailing ``.0``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def got(spec: Any) -> dict[str, Any]:
    """The slots of a program spec, as :func:`expected` gives them."""
    ranked = spec.kind in ("compare", "superlative", "aggregate")
    # (a chain's step may select the records it lands on: the names in one language)
    every = [*spec.conditions, *(c for h in spec.hops for c in h.conditions)]
    conds = [c for c in every if c.op == "=="]
    return {
        "kind": spec.kind,
        "table": spec.table,
        "asked": spec.field if ranked else spec.answer_field,
        "book": spec.book,
        "filter": {c.field for c in conds},
        "value": {_plain(c.value) for c in conds},
        "direction": spec.direction,
    }


def right(slot: str, want: Any, have: Any) -> bool:
    """Whether a slot was read as the key says."""
    if slot in ("kind", "table"):
        return have in want
    return have == want


def read_set(entries_: list[dict[str, Any]], reader: str) -> dict[str, Any]:
    """Read every servable intent; the per-slot tallies and each intent's outcome."""
    from benchsmith.agents import programs as agent
    from benchsmith.config import RunConfig

    if reader == "none":
        config = RunConfig(programs="rules")
    else:
        config = RunConfig(programs="reader", role_models={"reader": reader})
    slots: Counter[str] = Counter()
    slots_right: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    asked_right: Counter[str] = Counter()
    taken: Counter[str] = Counter()
    rows = []
    started = time.monotonic()
    for entry in entries_:
        if not entry["servable"]:
            continue
        t0 = time.monotonic()
        want = expected(entry)
        parts, refusals = agent.intent_parts(config, entry["intent"], None)
        row: dict[str, Any] = {"id": entry["id"], "set": entry["set"], "wrong": []}
        if not parts:
            row["wrong"] = [f"refused: {(refusals or ['?'])[0][:120]}"]
        else:
            part = parts[0]
            tables = agent.run_tables(config, part.text)
            reading = agent.read_plan(config, part.text, tables, part.table)
            have = got(part.cands[0].spec)
            for slot in SLOTS:
                if want[slot] is None:
                    continue
                slots[slot] += 1
                if right(slot, want[slot], have[slot]):
                    slots_right[slot] += 1
                else:
                    row["wrong"].append(f"{slot} {have[slot]} != {want[slot]}")
            for slot, answer in reading.answers.items():
                key = want.get(slot)
                if key is None:
                    continue
                asked[slot] += 1
                asked_right[slot] += int(answer == key)
            for slot in reading.taken:
                taken[slot] += 1
            row["answers"] = reading.answers
            row["taken"] = reading.taken
            row["notes"] = reading.notes
        row["seconds"] = round(time.monotonic() - t0, 2)
        rows.append(row)
        flag = "ok" if not row["wrong"] else "; ".join(row["wrong"])
        print(f"  {entry['set']} {entry['id']} ({row['seconds']} s): {flag}", flush=True)
    return {
        "reader": reader,
        "intents": len(rows),
        "all_right": sum(1 for r in rows if not r["wrong"]),
        "slots": {s: [slots_right[s], slots[s]] for s in SLOTS},
        "reader_answers": {s: [asked_right[s], asked[s]] for s in asked},
        "taken": dict(taken),
        "seconds": round(time.monotonic() - started, 1),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", choices=STARTER_SETS, help="default: all")
    parser.add_argument("--reader", default="none", help="none, local, local:reader or a spec")
    parser.add_argument("--ids", default="", help="comma-separated intent ids")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    sets = set(args.set or STARTER_SETS)
    with tempfile.TemporaryDirectory(prefix="bs-slots-") as tmp:
        environ = offline_env(Path(tmp))
        os.environ.update(environ)
        prepare_starter(Path(tmp), environ)
        chosen = entries(sets, set(args.ids.split(",")) - {""} or None)
        result = read_set(chosen, args.reader)
    print(f"\nreader {result['reader']}: {result['all_right']}/{result['intents']} intents read "
          f"right in every slot, {result['seconds']} s")  # fmt: skip
    for slot, (ok, n) in result["slots"].items():
        print(f"  {slot:9} {ok}/{n}")
    for slot, (ok, n) in result["reader_answers"].items():
        print(f"  reader's answers, {slot}: {ok}/{n} right; taken {result['taken'].get(slot, 0)}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
