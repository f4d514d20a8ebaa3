"""Duplicate detection: exact, near, unique, determinism, speed, threads."""

from __future__ import annotations

import threading
import time

import pytest
from PIL import Image

from benchsmith.item import Item
from benchsmith.verify import DuplicateIndex, DuplicateVerdict

QUESTION = (
    "In which year did the first crewed spacecraft land on the Moon during the program "
    "that NASA ran back then"
)  # 20 words


def item(id_: str, text: str, *parts: dict) -> Item:
    if parts:
        return Item(
            id=id_,
            input=[{"role": "user", "content": [{"type": "text", "text": text}, *parts]}],
            target="x",
        )
    return Item(id=id_, input=text, target="x")


def replace_word(text: str, index: int, word: str) -> str:
    words = text.split()
    words[index] = word
    return " ".join(words)


def test_unique_then_exact_after_whitespace_and_case_changes():
    index = DuplicateIndex()
    assert index.check(item("a", QUESTION)) == DuplicateVerdict(kind="unique")
    index.add(item("a", QUESTION))
    variant = "  " + QUESTION.upper().replace(" ", "   \n ") + "\t"
    assert index.check(item("b", variant)) == DuplicateVerdict(kind="exact", of="a", similarity=1.0)
    assert len(index) == 1


def test_near_for_one_word_changed_in_the_middle():
    index = DuplicateIndex(threshold=0.7)
    index.add(item("a", QUESTION))
    changed = replace_word(QUESTION, 10, "Mars")
    # 18 trigrams each, 3 of them differ: 15 of 21 shared.
    assert index.check(item("b", changed)) == DuplicateVerdict(
        kind="near", of="a", similarity=round(15 / 21, 4)
    )


def test_near_for_one_word_changed_at_the_end_with_defaults():
    index = DuplicateIndex()
    index.add(item("a", QUESTION))
    changed = replace_word(QUESTION, -1, "later")
    verdict = index.check(item("b", changed))
    assert verdict == DuplicateVerdict(kind="near", of="a", similarity=round(17 / 19, 4))
    assert verdict.similarity >= 0.7


def test_one_word_changed_in_the_middle_is_below_the_default_threshold():
    index = DuplicateIndex()
    index.add(item("a", QUESTION))
    assert index.check(item("b", replace_word(QUESTION, 10, "Mars"))) == DuplicateVerdict(
        kind="unique"
    )


def test_unique_for_a_different_question():
    index = DuplicateIndex()
    index.add(item("a", QUESTION))
    other = "Which chemical element has the atomic number seventy nine and the symbol Au in tables"
    assert index.check(item("b", other)) == DuplicateVerdict(kind="unique")


def test_short_texts_use_character_shingles():
    index = DuplicateIndex(threshold=0.7)
    assert index.shingles("Capital of Peru?") == frozenset(
        {
            "capit",
            "apita",
            "pital",
            "ital ",
            "tal o",
            "al of",
            "l of ",
            " of p",
            "of pe",
            "f per",
            " peru",
        }
    )
    index.add(item("a", "Capital of Peru?"))
    assert index.check(item("b", " CAPITAL  of peru?")).kind == "exact"
    # punctuation is kept in the exact hash but not in the shingles
    assert index.check(item("b", "Capital of Peru!!")) == DuplicateVerdict(
        kind="near", of="a", similarity=1.0
    )
    assert index.check(item("c", "The capital of Peru?")) == DuplicateVerdict(
        kind="near", of="a", similarity=round(11 / 15, 4)
    )


def test_same_text_with_different_images_is_not_a_duplicate(tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    Image.new("RGB", (4, 4), (255, 0, 0)).save(media / "red.png")
    Image.new("RGB", (4, 4), (0, 0, 255)).save(media / "blue.png")
    Image.new("RGB", (4, 4), (255, 0, 0)).save(media / "red2.png")
    index = DuplicateIndex(media_root=tmp_path)
    index.add(item("a", QUESTION, {"type": "image", "image": "media/red.png"}))
    blue = item("b", QUESTION, {"type": "image", "image": "media/blue.png"})
    assert index.check(blue) == DuplicateVerdict(kind="unique")
    same_bytes = item("c", QUESTION, {"type": "image", "image": "media/red2.png"})
    assert index.check(same_bytes) == DuplicateVerdict(kind="exact", of="a", similarity=1.0)
    near = item("d", replace_word(QUESTION, -1, "x"), {"type": "image", "image": "media/red2.png"})
    assert index.check(near).kind == "near"


def test_determinism_across_two_indexes():
    texts = [replace_word(QUESTION, i % 20, f"w{i}") for i in range(60)]
    texts += [f"Question number {i} about topic {i * 7} in field {i % 5} please" for i in range(40)]
    texts += [t.upper() for t in texts[:5]]

    def results() -> list[DuplicateVerdict]:
        index = DuplicateIndex(threshold=0.7)
        return [index.check_and_add(item(f"i{n}", t)) for n, t in enumerate(texts)]

    first, second = results(), results()
    assert first == second
    assert {v.kind for v in first} == {"unique", "near", "exact"}


def test_adding_an_id_twice_fails():
    index = DuplicateIndex()
    index.add(item("a", QUESTION))
    with pytest.raises(ValueError, match="already in the duplicate index"):
        index.add(item("a", "something else entirely, with words"))


def test_two_thousand_items_in_under_two_seconds():
    index = DuplicateIndex()
    start = time.perf_counter()
    kinds = [
        index.check_and_add(
            item(f"i{n}", f"Item {n}: what is {n * 17 % 1009} plus {n * 31 % 997} in base {n % 9}")
        ).kind
        for n in range(2000)
    ]
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, elapsed
    assert len(index) == 2000
    assert kinds.count("exact") == 0


def test_thread_safe_check_and_add():
    index = DuplicateIndex()
    verdicts: list[DuplicateVerdict] = []
    lock = threading.Lock()

    def work(k: int) -> None:
        for n in range(50):
            v = index.check_and_add(item(f"t{k}-{n}", f"Shared question {n} asked by many threads"))
            with lock:
                verdicts.append(v)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(index) == 200
    assert sum(v.kind == "unique" for v in verdicts) == 50
    assert sum(v.kind == "exact" for v in verdicts) == 150


def test_band_layout_retrieves_below_the_threshold():
    from benchsmith.verify.duplicates import band_layout

    assert band_layout(0.65, 128) == (21, 6)
    bands, rows = band_layout(0.65, 128)
    assert (1 / bands) ** (1 / rows) <= 0.65 < (1 / (128 // (rows + 1))) ** (1 / (rows + 1))
    # Probability that a pair at Jaccard 0.8 becomes a candidate: above 99%.
    assert 1 - (1 - 0.8**rows) ** bands > 0.99


def test_add_if_unique_leaves_a_duplicate_out_so_its_slot_can_retry():
    from benchsmith.item import Item
    from benchsmith.verify.duplicates import DuplicateIndex

    index = DuplicateIndex()
    first = Item(id="a", input="What is the capital of France?", target="Paris")
    assert index.add_if_unique(first).kind == "unique"
    again = Item(id="b", input="what is the capital of  France?", target="Paris")
    assert index.add_if_unique(again).kind == "exact"
    assert index.add_if_unique(again).kind == "exact"  # same id again: no error
    reworded = Item(id="b", input="Name the city that is the capital of Spain.", target="Madrid")
    assert index.add_if_unique(reworded).kind == "unique"
    assert len(index) == 2


def test_a_removed_item_is_no_longer_a_duplicate_of_anything():
    index = DuplicateIndex(threshold=0.7)
    kept = item("a", "What is the capital of France, the country in western Europe?")
    dropped = item("b", "Which river flows through the city of Paris in northern France?")
    assert index.add_if_unique(kept).kind == "unique"
    assert index.add_if_unique(dropped).kind == "unique"
    index.remove(dropped)
    assert len(index) == 1
    # Neither its exact text nor a near copy of it is a duplicate any more ...
    assert index.check(item("c", dropped.input_text())).kind == "unique"
    near = "Which river flows through the city of Paris in northern France today?"
    assert index.check(item("d", near)).kind == "unique"
    # ... while the kept item still is, and the removed id may be added again.
    assert index.check(item("e", kept.input_text())).kind == "exact"
    index.remove(item("zz", "never added"))  # nothing to take out
    assert index.add_if_unique(dropped).kind == "unique"


def test_one_template_about_two_entities_is_not_a_near_duplicate():
    # A build rejected ten items as near duplicates (0.82) of "What is the bordering
    # countries as ISO alpha-3 codes of Vietnam?": the same long template about another
    # country asks another question.
    template = "What are the bordering countries, as ISO alpha-3 codes, of {}?"
    index = DuplicateIndex()
    assert index.add_if_unique(item("a", template.format("Vietnam")), entity="Vietnam").kind == (
        "unique"
    )
    laos = item("b", template.format("Laos"))
    assert index.check(laos).kind == "near"  # without the entity, the texts are 0.82 alike
    assert index.add_if_unique(laos, entity="Laos") == DuplicateVerdict(kind="unique")
    # the same entity asked twice is still a duplicate
    again = item("c", template.format("Vietnam").replace("What are", "Which are"))
    assert index.add_if_unique(again, entity="Vietnam").kind == "near"
    exact = item("d", template.format("Laos"))
    assert index.add_if_unique(exact, entity="Laos").kind == "exact"
