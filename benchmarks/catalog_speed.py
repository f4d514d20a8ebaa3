"""How fast the catalog profiles and adds a large JSON Lines file.

Generates a JSONL file of N rows (default 100,000) with an id, a question text of varying
length, a category, a number, a boolean and a nested object, then times:

* ``profile``: :func:`benchsmith.catalog.profile_path` alone (one streaming pass: every
  line parsed and validated, statistics for the first 100,000 records);
* ``add``: :meth:`benchsmith.catalog.Catalog.add` into a fresh catalog (profile, atomic
  card write and index update);
* ``search``: one BM25 query over the catalog;
* ``stream``: reading 1,000 records from the middle of the file through the loader.

Prints seconds and rows per second, and the same as JSON on the last line.
Usage: ``python benchmarks/catalog_speed.py [--rows N]``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from benchsmith.catalog import Catalog, profile_path

TOPICS = ["geography", "history", "science", "sports", "music", "art", "food", "language"]
WORDS = "the of capital river mountain city country language population area border sea".split()


def generate(path: Path, rows: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(rows):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
            record = {
                "id": f"item-{i:07d}",
                "question": f"Question {i}: {words}?",
                "topic": rng.choice(TOPICS),
                "difficulty": rng.random(),
                "verified": rng.random() < 0.5,
                "meta": {"source": rng.choice(["a", "b", "c"]), "year": 1990 + i % 30},
            }
            handle.write(json.dumps(record) + "\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "generated.jsonl"
        size = generate(data, args.rows)

        started = time.perf_counter()
        card = profile_path(data)
        profile_s = time.perf_counter() - started
        assert card.size == args.rows, card.size

        catalog = Catalog(Path(tmp) / "catalog")
        started = time.perf_counter()
        catalog.add(data, id="generated")
        add_s = time.perf_counter() - started

        started = time.perf_counter()
        hits = catalog.search("questions about capital rivers")
        search_ms = (time.perf_counter() - started) * 1000
        assert hits and hits[0].id == "generated"

        started = time.perf_counter()
        got = sum(1 for _ in catalog.records("generated", offset=args.rows // 2, limit=1000))
        stream_ms = (time.perf_counter() - started) * 1000

    result = {
        "rows": args.rows,
        "file_mb": round(size / 2**20, 1),
        "profile_s": round(profile_s, 2),
        "profile_rows_per_s": round(args.rows / profile_s),
        "add_s": round(add_s, 2),
        "add_rows_per_s": round(args.rows / add_s),
        "search_ms": round(search_ms, 1),
        "stream_1000_from_middle_ms": round(stream_ms, 1),
        "streamed": got,
        "fields": [f"{f.path}:{f.modality}" for f in card.fields],
    }
    print(f"{args.rows} rows ({result['file_mb']} MB JSONL)")
    print(f"profile: {profile_s:.2f} s ({result['profile_rows_per_s']:,} rows/s)")
    print(f"add:     {add_s:.2f} s ({result['add_rows_per_s']:,} rows/s)")
    print(f"search:  {search_ms:.1f} ms; stream 1,000 records from the middle: {stream_ms:.1f} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
