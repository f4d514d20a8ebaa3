"""Exact and near-duplicate detection across the items of a benchmark.

Exact duplicates share the SHA-256 of their normalized input text and of their media files'
contents. Near duplicates are found with datasketch MinHash signatures banded into a
locality-sensitive hash index (``bands`` x ``rows`` of the signature) and confirmed with the
exact Jaccard similarity of the shingle sets, so an LSH false positive is never reported.
The index is kept compact (a few KB an item: band buckets map integers to entry numbers,
shingles are stored as integer hashes), so a benchmark of many thousands of items fits.

Rules chosen here:

- Shingles are word n-grams (``ngram`` words, default 3) of the normalized text; a text of
  fewer than :data:`SHORT_TEXT_WORDS` words (including unspaced CJK text, which is one "word")
  uses character 5-grams instead.
- Near duplicates are looked for only among items with the same media (same file hashes, in
  the same order) and, when the caller names it, the same entity (the record's value the
  question is about): one question asked about different images, or about
  different countries ("What are the bordering countries of Vietnam?" and "... of Laos?",
  Jaccard 0.82 for a long template), is not a duplicate.
- LSH retrieves candidates at a threshold below ``threshold`` (better recall near the
  boundary); the reported ``similarity`` is the exact Jaccard of the shingle sets, which must
  reach ``threshold``.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from datasketch import MinHash
from pydantic import BaseModel, ConfigDict

from benchsmith.item import Item
from benchsmith.verify.structural import normalize_text

SHORT_TEXT_WORDS = 6
"""Texts with fewer words than this are shingled by character 5-grams."""
CHAR_NGRAM = 5

_WORDS = re.compile(r"\w+")


class DuplicateVerdict(BaseModel):
    """Whether an item duplicates one already in the index."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["unique", "exact", "near"]
    of: str | None = None
    similarity: float | None = None


@dataclass(frozen=True)
class _Entry:
    id: str
    media: tuple[str, ...]
    shingles: frozenset[int]
    entity: str = ""


def band_layout(threshold: float, num_perm: int) -> tuple[int, int]:
    """The LSH layout of a signature: ``(bands, rows)``.

    The one whose threshold ``(1/bands)**(1/rows)`` is the highest at or below ``threshold``
    (recall first: candidates are confirmed exactly anyway).
    """
    best = (num_perm, 1)
    for rows in range(1, num_perm + 1):
        bands = num_perm // rows
        if bands < 1:
            break
        if (1 / bands) ** (1 / rows) <= threshold:
            best = (bands, rows)
    return best


class DuplicateIndex:
    """An index of added items that tells whether a new item duplicates one of them.

    Thread-safe: every method holds one lock. Deterministic: the MinHash permutations come
    from a fixed seed. Use :meth:`check_and_add` when several threads add items, so no two
    duplicates slip in between a check and an add.

    Args:
        threshold: Smallest Jaccard similarity of shingle sets reported as a near duplicate.
        num_perm: MinHash permutations.
        ngram: Words per shingle.
        seed: Seed of the MinHash permutations.
        media_root: Folder media paths are relative to (the benchmark folder); files are
            hashed by content. Without it, or for a missing file, the path itself is hashed.
    """

    def __init__(
        self,
        threshold: float = 0.8,
        num_perm: int = 128,
        ngram: int = 3,
        seed: int = 1,
        *,
        media_root: Path | None = None,
    ) -> None:
        """Make an empty index."""
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if ngram < 1:
            raise ValueError(f"ngram must be at least 1, got {ngram}")
        self.threshold = threshold
        self.num_perm = num_perm
        self.ngram = ngram
        self.seed = seed
        self.media_root = Path(media_root) if media_root is not None else None
        self._lock = threading.RLock()
        self._template = MinHash(num_perm=num_perm, seed=seed)
        # Candidates are retrieved below the threshold (better recall near the boundary).
        self.bands, self.rows = band_layout(max(0.5, threshold - 0.15), num_perm)
        self._buckets: list[dict[int, int | list[int]]] = [{} for _ in range(self.bands)]
        self._exact: dict[bytes, str] = {}
        self._entries: list[_Entry | None] = []  # None: taken out (remove)
        self._ids: set[str] = set()

    def __len__(self) -> int:
        """How many items were added."""
        with self._lock:
            return len(self._ids)

    # -- fingerprints -------------------------------------------------------------------------
    def _media_hashes(self, item: Item) -> tuple[str, ...]:
        out = []
        for kind, rel in item.media_paths():
            path = self.media_root / rel if self.media_root is not None else None
            if path is not None and path.is_file():
                digest = hashlib.sha256()
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                out.append(f"{kind}:{digest.hexdigest()}")
            else:
                out.append(f"{kind}:path:{rel}")
        return tuple(out)

    def shingles(self, text: str) -> frozenset[str]:
        """The shingles of a text (word n-grams, or character 5-grams for short texts)."""
        norm = normalize_text(text)
        words = _WORDS.findall(norm)
        if len(words) >= SHORT_TEXT_WORDS:
            n = min(self.ngram, len(words))
            return frozenset(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
        joined = " ".join(words)
        if len(joined) <= CHAR_NGRAM:
            return frozenset({joined}) if joined else frozenset()
        return frozenset(joined[i : i + CHAR_NGRAM] for i in range(len(joined) - CHAR_NGRAM + 1))

    def _fingerprint(
        self, item: Item, entity: str | None = None
    ) -> tuple[bytes, _Entry, frozenset[str]]:
        text = normalize_text(item.input_text())
        media = self._media_hashes(item)
        key = hashlib.sha256("\x00".join((text, *media)).encode("utf-8")).digest()
        shingles = self.shingles(text)
        # Integer hashes of the shingles (consistent within the process, which is all the
        # exact Jaccard comparison needs) take a fraction of the strings' memory.
        entry = _Entry(
            item.id, media, frozenset(hash(s) for s in shingles), normalize_text(entity or "")
        )
        return key, entry, shingles

    def _minhash(self, shingles: frozenset[str]) -> MinHash:
        m = self._template.copy()
        m.update_batch([s.encode("utf-8") for s in sorted(shingles)])
        return m

    def _band_keys(self, minhash: MinHash) -> list[int]:
        values = minhash.hashvalues
        return [
            hash(values[b * self.rows : (b + 1) * self.rows].tobytes()) for b in range(self.bands)
        ]

    # -- public -------------------------------------------------------------------------------
    def check(self, item: Item) -> DuplicateVerdict:
        """Whether ``item`` duplicates an added item (exactly, or nearly); adds nothing."""
        key, entry, shingles = self._fingerprint(item)
        with self._lock:
            return self._check(key, entry, shingles)[0]

    def add(self, item: Item) -> None:
        """Add ``item`` to the index.

        Raises:
            ValueError: An item with the same id was added before.
        """
        key, entry, shingles = self._fingerprint(item)
        with self._lock:
            self._add(key, entry, shingles, None)

    def check_and_add(self, item: Item) -> DuplicateVerdict:
        """:meth:`check` then :meth:`add`, atomically."""
        key, entry, shingles = self._fingerprint(item)
        with self._lock:
            verdict, bands = self._check(key, entry, shingles)
            self._add(key, entry, shingles, bands)
            return verdict

    def add_if_unique(self, item: Item, entity: str | None = None) -> DuplicateVerdict:
        """:meth:`check`, and add ``item`` only when it is unique, atomically.

        A rejected candidate leaves no trace: the index holds accepted items only.
        ``entity``: what the question is about (the record's value it names); an item about
        another entity is never its near duplicate.
        """
        key, entry, shingles = self._fingerprint(item, entity)
        with self._lock:
            verdict, bands = self._check(key, entry, shingles)
            if verdict.kind == "unique":
                self._add(key, entry, shingles, bands)
            return verdict

    def remove(self, item: Item) -> None:
        """Take out an item added before that is not kept after all (a surplus item).

        Its media must still be on disk (they are part of its fingerprint). An item that was
        never added is left alone.
        """
        key, _entry, _shingles = self._fingerprint(item)
        with self._lock:
            if item.id not in self._ids:
                return
            self._ids.discard(item.id)
            if self._exact.get(key) != item.id:
                return  # an exact twin stood for it: it has no entry of its own
            del self._exact[key]
            for number, other in enumerate(self._entries):
                if other is not None and other.id == item.id:
                    self._entries[number] = None  # its band keys now lead nowhere
                    break

    def _check(
        self, key: bytes, entry: _Entry, shingles: frozenset[str]
    ) -> tuple[DuplicateVerdict, list[int] | None]:
        if key in self._exact:
            return DuplicateVerdict(kind="exact", of=self._exact[key], similarity=1.0), None
        if not entry.shingles:
            return DuplicateVerdict(kind="unique"), None
        bands = self._band_keys(self._minhash(shingles))
        candidates: set[int] = set()
        for bucket, band in zip(self._buckets, bands, strict=True):
            found = bucket.get(band)
            if found is None:
                continue
            candidates.update(found if isinstance(found, list) else (found,))
        best: tuple[float, str] | None = None
        for number in candidates:
            other = self._entries[number]
            if other is None or other.media != entry.media:
                continue
            if entry.entity and other.entity and entry.entity != other.entity:
                continue  # the same template about another entity asks another question
            union = len(entry.shingles | other.shingles)
            jaccard = len(entry.shingles & other.shingles) / union
            # Highest similarity first; ties go to the smallest id (deterministic).
            if jaccard >= self.threshold and (
                best is None or (-jaccard, other.id) < (-best[0], best[1])
            ):
                best = (jaccard, other.id)
        if best is None:
            return DuplicateVerdict(kind="unique"), bands
        return DuplicateVerdict(kind="near", of=best[1], similarity=round(best[0], 4)), bands

    def _add(
        self, key: bytes, entry: _Entry, shingles: frozenset[str], bands: list[int] | None
    ) -> None:
        if entry.id in self._ids:
            raise ValueError(f"item id {entry.id!r} is already in the duplicate index")
        self._ids.add(entry.id)
        if key in self._exact:
            return  # its exact twin already stands for it in the LSH index
        self._exact[key] = entry.id
        if not entry.shingles:
            return
        number = len(self._entries)
        self._entries.append(entry)
        for bucket, band in zip(
            self._buckets, bands or self._band_keys(self._minhash(shingles)), strict=True
        ):
            found = bucket.get(band)
            if found is None:
                bucket[band] = number
            elif isinstance(found, list):
                found.append(number)
            else:
                bucket[band] = [found, number]
