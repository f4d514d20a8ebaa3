"""How fast the catalog profiles and adds a large JSON Lines file.

Generates a JSONL file of N rows (default 100,000) with an id, a question text of varying
length, a category, a number, a boolean and a nested object, then times:

* ``profile``: :func:`benchsmith.catalog.profile_path` alone (one streaming pass: every
  line parsed and validated, statistics for the first 100,000 records);
* ``add``: :meth:`benchsmith.catalog.Catalog.add` into a fresh catalog (profile, atomic
  card write and index update);
* ``stream``: reading 1,000 records from the middle of the file through the loader;
* ``search``: BM25 queries over a catalog of hundreds of datasets (``--datasets``, default
  400: small generated JSONL files, each with its own name, description, domain and
  language), a different query each repeat, median and range; the first search after
  opening the catalog (index load) is reported apart. Each query names one dataset's
  topic, and the script checks that dataset is among the hits (a search that is fast
  because it finds nothing would not count).

Prints seconds and rows per second, and the same as JSON on the last line.
Usage: ``python benchmarks/catalog_speed.py [--rows N] [--datasets N] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from _common import Summary, figure, load_average

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


SUBJECTS = (
    "rivers lakes glaciers volcanoes deserts islands capitals borders dynasties treaties "
    "battles empires elements molecules enzymes planets comets fossils insects birds whales "
    "orchestras operas painters sculptures recipes spices cheeses wines grammar idioms "
    "verbs dialects football tennis marathons chess proteins vaccines bridges railways "
    "tariffs currencies poems novels myths festivals"
).split()
LANGUAGES = ["en", "fr", "de", "es", "pt", "it", "ja", "zh"]


def many_datasets(root: Path, catalog: Catalog, n: int, seed: int = 1) -> list[tuple[str, str]]:
    """Add ``n`` small datasets to ``catalog``; their (id, query) pairs."""
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        a, b = rng.sample(SUBJECTS, 2)
        topic = rng.choice(TOPICS)
        path = root / f"ds{i:04d}.jsonl"
        rows = [
            {"question": f"Which of the {a} is {rng.choice(WORDS)} {j}?", "answer": f"{b} {j}"}
            for j in range(20)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        dataset_id = f"{a}-{b}-{i:04d}"
        catalog.add(
            path,
            id=dataset_id,
            name=f"{a.title()} and {b} quiz {i}",
            description=f"Short {topic} questions about {a}, with answers about {b}, in "
            f"{rng.choice(LANGUAGES)}; set {i}.",
        )
        pairs.append((dataset_id, f"{topic} questions about {a} and {b}"))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--datasets", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="10,000 rows, 100 datasets")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.datasets, args.repeats = 10_000, 100, 10
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
        got = sum(1 for _ in catalog.records("generated", offset=args.rows // 2, limit=1000))
        stream_ms = (time.perf_counter() - started) * 1000

        many = Path(tmp) / "many"
        many.mkdir()
        started = time.perf_counter()
        pairs = many_datasets(many, catalog, args.datasets)
        add_many_s = time.perf_counter() - started
        reopened = Catalog(Path(tmp) / "catalog")
        started = time.perf_counter()
        reopened.search(pairs[0][1])
        first_search_ms = (time.perf_counter() - started) * 1000
        samples, found = [], 0
        for r in range(args.repeats):
            want, query = pairs[(r * 7 + 1) % len(pairs)]
            started = time.perf_counter()
            hits = reopened.search(query)
            samples.append((time.perf_counter() - started) * 1000)
            found += any(h.id == want for h in hits)
        search = Summary.of(samples)

    result = {
        "rows": args.rows,
        "file_mb": round(size / 2**20, 1),
        "profile_s": round(profile_s, 2),
        "profile_rows_per_s": round(args.rows / profile_s),
        "add_s": round(add_s, 2),
        "add_rows_per_s": round(args.rows / add_s),
        "datasets": args.datasets + 1,
        "add_small_dataset_ms": round(add_many_s / args.datasets * 1000, 1),
        "first_search_ms": round(first_search_ms, 1),
        "search_ms": search.as_dict(2),
        "search_found_wanted": f"{found}/{args.repeats}",
        "stream_1000_from_middle_ms": round(stream_ms, 1),
        "streamed": got,
        "fields": [f"{f.path}:{f.modality}" for f in card.fields],
    }
    print(f"{args.rows} rows ({result['file_mb']} MB JSONL)")
    print(f"profile: {profile_s:.2f} s ({result['profile_rows_per_s']:,} rows/s)")
    print(f"add:     {add_s:.2f} s ({result['add_rows_per_s']:,} rows/s)")
    print(f"stream 1,000 records from the middle: {stream_ms:.1f} ms")
    print(
        f"search over {args.datasets + 1} datasets: {search.text('.2f', ' ms')} per query "
        f"(first after opening {first_search_ms:.1f} ms); wanted dataset among the hits "
        f"{found}/{args.repeats}; adding a small dataset {result['add_small_dataset_ms']} ms; "
        f"{load_average()}"
    )
    print(json.dumps(result))
    figure(
        "catalog_search",
        f"catalog search over {args.datasets + 1} datasets, per query",
        "-",
        f"{search.text('.2f', ' ms')} [found {found}/{args.repeats}]",
    )


if __name__ == "__main__":
    main()
