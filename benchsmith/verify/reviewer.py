"""A strict reviewer's cheap, deterministic checks on one item's wording and media.

These run before any LLM judge. Each check is a pure function returning one
:class:`~benchsmith.verify.structural.Verdict`; none raises on bad item content. A check
that could not run (a missing program, no model for the language) is not a pass: it
returns ``ok=True`` with a reason starting with :data:`UNAVAILABLE` (``"unavailable: "``),
and :func:`is_unavailable` tells the caller to count it as "could not run".

Heavy libraries (lingua, pocketsphinx, jiwer) are imported inside the functions that need
them, and their loaded models are cached per process.

Measured facts behind the choices (2-core machine, lingua 2.1, pocketsphinx 5.1,
espeak-ng 1.51, tesseract 5.3):

- ``language_id``: a lingua detector over all languages costs ~21 s and 900 MB; over the
  expected language plus ~7 common languages of its script it loads in ~2.5 s and
  ~200 MB. Low-accuracy mode calls short questions German, so the default (high
  accuracy) mode is used. "Which digit is written in the image?" is en 0.48 (de 0.32)
  among en, fr, de, es, it, pt, nl; "Quelle est la capitale du pays suivant : ?" is fr 0.82.
- ``asr`` (not enforced, :data:`ASR_ENFORCED` is False): pocketsphinx's free decoding (its
  en-us acoustic and language models) mishears clean espeak-ng speech. Final
  configuration (seeded +-1 LSB dither, batch CMN, 0.5 s of silence around the speech),
  10 questions, en-us voice at 170 wpm: correct audio WER 0.44-0.86 (median 0.77; "How
  many legs does a spider have?" heard as "so any legs and i got out"); the same text read
  by the French voice 0.43-1.0 (median 0.78); another question's audio 0.80-1.25 (median
  1.0); the audio cut in half 0.67-1.0; silence 1.0. At a 0.5 threshold only 2 of 10
  correct recordings pass while 2 of 10 French readings do: no threshold separates them.
  About 3 s per utterance (up to 8 s on a busy 2-core machine). Tried and rejected: no
  dither (mean WER 0.76), 130/150/200 wpm, ``-g`` word gaps, other English voices, larger
  beams; a grammar of the reference words plus a phone loop (over 300 s per utterance);
  forced alignment of the reference (``set_align_text`` or a one-sentence JSGF grammar),
  which fails on wrong audio (0 of 13 other questions, 0 of 13 halves, 0 of 13 silences,
  1 of 13 French readings aligned completely) but also on 2-3 of 13-14 correct
  recordings at every rate (it stops at "which digit is written in" for "Which digit is
  written in the image?"), changes erratically with the beam, and let 3 of 8 one-word swaps
  ("a horse" audio for "a spider" text) through. So the check
  records the hypothesis and the WER for a reader, and fails nothing unless a caller
  passes ``enforce=True``.
- ``ocr``: tesseract reads Pillow's default font (size 28, black on white) back with CER
  0.00-0.02 on six questions, at most 0.07 after a 1.5 px blur, a 5 degree rotation,
  Gaussian noise (sigma 40) or halving the resolution; another question's text scores
  0.64-1.0. The default threshold 0.2 separates those; a one-word swap ("France" for
  "Germany") scores 0.05-0.18 and is not caught.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import unicodedata
import wave
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchsmith import langid
from benchsmith.verify.structural import Verdict, normalize_text

UNAVAILABLE = "unavailable: "
"""Prefix of the reason of a check that could not run (reported ``ok=True``)."""

ASR_ENFORCED = False
"""Whether :func:`check_asr` may fail an item by default: no, pocketsphinx mishears clean
espeak-ng speech about as often as wrong speech (see the module docstring)."""

MAX_WER = 0.5
"""Default :func:`check_asr` threshold, used only when the check is enforced."""

MAX_CER = 0.2
"""Default :func:`check_ocr` threshold on the character error rate."""

MIN_WORDS, MAX_WORDS = 3, 40
MIN_CHARS, MAX_CHARS = 10, 250

_TIMEOUT_S = 120

# Ideographs and kana count one word each (Chinese and Japanese are written without spaces).
_IDEOGRAPHIC = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# Every check's name, as used in its Verdict.
ENTITY, LANGUAGE_ID, META_TEXT, SENTENCE, TARGET, ASR, OCR = (
    "entity",
    "language_id",
    "meta_text",
    "sentence",
    "target",
    "asr",
    "ocr",
)


def is_unavailable(v: Verdict) -> bool:
    """True when ``v`` is a check that could not run (not a real pass)."""
    return v.ok and v.reason.startswith(UNAVAILABLE)


def _ok(check: str, reason: str = "") -> Verdict:
    return Verdict(check=check, ok=True, reason=reason)


def _fail(check: str, reason: str) -> Verdict:
    return Verdict(check=check, ok=False, reason=reason)


def _unavailable(check: str, why: str) -> Verdict:
    return Verdict(check=check, ok=True, reason=UNAVAILABLE + why)


def _base_language(code: str) -> str:
    return re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]


def _strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def _snippet(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 4].rstrip() + " ..."


def _phrase_in(phrase: str, text: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words (both already normalized)."""
    return re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text) is not None


# ---------------------------------------------------------------------------------------
# entity


def check_entity(question: str, entity: str | None, aliases: Sequence[str] = ()) -> Verdict:
    """The question names the record's entity.

    The entity (the data's own spelling) or one of its aliases must occur in the question
    as a whole-word phrase, compared after :func:`normalize_text`; a match after stripping
    accents from both sides also counts ("El Aaiun" names "El Aaiún"). Not applicable
    (ok) when the item has no entity in its question (the media carry the question).

    Args:
        question: The question text.
        entity: The record's entity value, or None.
        aliases: Other accepted spellings of the entity.

    Returns:
        The ``entity`` verdict.
    """
    if not entity or not entity.strip():
        return _ok(ENTITY, "not applicable: no question field (the media carry the question)")
    text = normalize_text(question)
    bare_text = _strip_accents(text)
    for name in (entity, *aliases):
        phrase = normalize_text(name or "")
        if not phrase:
            continue
        if _phrase_in(phrase, text):
            return _ok(ENTITY, f"names {name!r}")
        if _phrase_in(_strip_accents(phrase), bare_text):
            return _ok(ENTITY, f"names {name!r} (ignoring accents)")
    extra = f" or any of {list(aliases)!r}" if aliases else ""
    return _fail(ENTITY, f"question does not name {entity!r}{extra}")


# ---------------------------------------------------------------------------------------
# language identification

_LETTER_WORD = re.compile(r"[^\W\d_]+")


_lingua_language = langid.lingua_language


def _mask(text: str, mask: Sequence[str]) -> str:
    """``text`` without any whole-word occurrence of a ``mask`` string (any case, accents)."""
    text = unicodedata.normalize("NFKC", text)
    names = {unicodedata.normalize("NFKC", m).strip() for m in mask if m and m.strip()}
    for name in sorted(names, key=len, reverse=True):
        for variant in dict.fromkeys((name, _strip_accents(name))):
            pattern = r"(?<!\w)" + re.escape(variant) + r"(?!\w)"
            text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return text


def prewarm_language_id(languages: Sequence[str | None]) -> None:
    """Have the language-ID worker load what these languages need; see :mod:`benchsmith.langid`."""
    langid.prewarm_languages(languages)


def check_language_id(texts: Mapping[str, str], language: str, mask: Sequence[str] = ()) -> Verdict:
    """Every text is identified as ``language`` by lingua.

    The detector chooses among the expected language and a few common languages of the
    same script (Latin: en, fr, de, es, it, pt, nl; Cyrillic: ru, uk, bg, sr, be, mk;
    other scripts: the expected language and en), in lingua's default high-accuracy mode,
    and is cached per candidate set. Each ``mask`` string (entity names from the data:
    proper names belong to no language) is removed first, case-insensitively. A text with
    fewer than two letter-words left is skipped.

    Args:
        texts: The texts to identify, by label ("question", "spoken", "instruction", ...).
        language: The expected ISO 639-1 code, possibly with a region ("pt-br").
        mask: Strings removed from every text before identification.

    Returns:
        The ``language_id`` verdict; unavailable when lingua is not installed or has no
        model for the language.
    """
    code = _base_language(language or "")
    try:
        expected = _lingua_language(code) if code else None
    except ImportError:
        return _unavailable(LANGUAGE_ID, "lingua-language-detector is not installed")
    if expected is None:
        return _unavailable(LANGUAGE_ID, f"lingua has no model for {code or language}")
    expected_code = expected.iso_code_639_1.name.lower()
    candidates = langid.candidate_codes(code) or (expected_code,)

    checked: list[str] = []
    skipped: list[str] = []
    for label, text in texts.items():
        masked = _mask(text or "", mask)
        words = _LETTER_WORD.findall(masked)
        if sum(max(1, len(_IDEOGRAPHIC.findall(w))) for w in words) < 2:
            skipped.append(label)
            continue
        values = langid.confidences(candidates, masked)
        if not values:
            skipped.append(label)
            continue
        found, value = max(values, key=lambda v: v[1])
        if found != expected_code:
            return _fail(
                LANGUAGE_ID,
                f"{label} text is {found} ({value:.2f}), not {code}: {_snippet(text)!r}",
            )
        checked.append(f"{label} {code} ({value:.2f})")
    parts = []
    if checked:
        parts.append(", ".join(checked))
    if skipped:
        parts.append(f"skipped (fewer than 2 words after masking): {', '.join(skipped)}")
    return _ok(LANGUAGE_ID, "; ".join(parts) or "no text to identify")


# ---------------------------------------------------------------------------------------
# meta-text

_META_PHRASES = (
    # English
    "the correct answer",
    "the right answer",
    "the answer is",
    "the answer to this",
    "this question",
    "the question",
    "the record",
    "the record's",
    "the given settings",
    "the given setting",
    "the dataset",
    "the data set",
    "as an ai",
    "as a language model",
    "i cannot",
    "i can't",
    "i'm sorry",
    "here is",
    "here's",
    "ignore previous",
    "ignore all previous",
    "ignore the previous",
    "untrusted",
    # French ("l'enregistrement" means "the recording" and is fine)
    "la bonne réponse",
    "la réponse correcte",
    "la réponse est",
    "cette question",
    "l'ensemble de données",
    "le jeu de données",
    "en tant qu'ia",
    # German
    "die richtige antwort",
    "die korrekte antwort",
    "die antwort ist",
    "diese frage",
    "der datensatz",
    "als ki",
    # Spanish
    "la respuesta correcta",
    "la respuesta es",
    "esta pregunta",
    "el conjunto de datos",
    "como ia",
    # Italian
    "la risposta corretta",
    "la risposta giusta",
    "la risposta è",
    "questa domanda",
    "il set di dati",
    # Portuguese
    "a resposta correta",
    "a resposta certa",
    "a resposta é",
    "esta pergunta",
    "o conjunto de dados",
)
_META_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\{\{?\s*[\w.]+\s*\}?\}"), "an unfilled placeholder"),
    (re.compile(r"<\s*[A-Za-z_]\w*\s*>"), "an unfilled placeholder"),
    (re.compile(r"<<<|>>>"), "delimiter debris"),
    (re.compile(r"\r|\n"), "a line break"),
    (
        re.compile(
            r"(?<!\w)(?:answer|question|réponse|antwort|frage|respuesta|pregunta|risposta"
            r"|domanda|resposta|pergunta)\s?:",
            re.IGNORECASE,
        ),
        "a field label",
    ),
    (
        re.compile(r"(?<!\w)(?:system|assistant|user|human|ai)\s*:", re.IGNORECASE),
        "a role prefix",
    ),
    (re.compile(r"[{}\[\]]"), "a stray brace or bracket"),
    (re.compile(r"(?<!\w)(?:NaN|nan)(?!\w)"), "a missing-value marker"),
    (re.compile(r"(?<=\w )None(?!\w)"), "a missing-value marker"),
)
_META_PHRASE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(p) for p in sorted(_META_PHRASES, key=len, reverse=True))
    + r")(?!\w)",
    re.IGNORECASE,
)


def check_meta_text(text: str) -> Verdict:
    """No meta-text or template debris in the text.

    Fails on phrases about the task rather than the subject ("the correct answer is",
    "this question", "the record", "the dataset", "as an AI", ... and their French,
    German, Spanish, Italian and Portuguese equivalents), field labels ("Answer:"), role
    prefixes ("SYSTEM:"), prompt-injection phrases, delimiter debris ("<<<", "UNTRUSTED"),
    unfilled placeholders (``{name}``), stray braces or brackets, missing-value markers
    ("nan") and line breaks. Matching is case-insensitive on whole words.

    Args:
        text: The question (or instruction) text.

    Returns:
        The ``meta_text`` verdict, quoting the offending fragment on failure.
    """
    flat = unicodedata.normalize("NFKC", text or "").replace("\u2019", "'")
    for pattern, what in _META_PATTERNS:
        found = pattern.search(flat)
        if found:
            return _fail(META_TEXT, f"{what}: {found.group(0)!r} in {_snippet(flat, 60)!r}")
    found = _META_PHRASE.search(flat)
    if found:
        return _fail(META_TEXT, f"meta-text: {found.group(0)!r} in {_snippet(flat, 60)!r}")
    return _ok(META_TEXT)


# ---------------------------------------------------------------------------------------
# sentence

_END_MARKS = "?.!？。！؟"
_OPENERS = "¿¡\"'“‘„«‹(「『"
_CLOSERS = "\"'”’»›)」』"
_VALID_DOUBLES: dict[str, frozenset[str]] = {
    "en": frozenset({"that", "had"}),
    "fr": frozenset({"nous", "vous"}),
    "de": frozenset({"die", "der", "das"}),
    "es": frozenset(),
    "it": frozenset(),
    "pt": frozenset(),
}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# Thai, Lao, Khmer and Myanmar have no spaces between words and skip the word count.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
_PAIRS = (("(", ")"), ("[", "]"), ("“", "”"), ("«", "»"), ("¿", "?"), ("¡", "!"))


def check_sentence(
    text: str, language: str | None = None, *, max_words: int = MAX_WORDS
) -> Verdict:
    """The text is one complete sentence of sane length.

    Rules: 3 to 40 words and 10 to 250 characters; starts with an uppercase letter, a
    digit, or an opening mark ("¿", "¡", a quote; letters of scripts without case pass);
    ends with "?", ".", "!" or "？", "。", "！", "؟" (a closing quote may follow, a French
    space may precede); not cut off with "..." or "…"; no word three times in a row and
    no immediately repeated word except valid doubles ("that that", "had had", French
    "nous nous", "vous vous"); balanced parentheses, brackets and double quotes.

    Args:
        text: The sentence.
        language: The item's language (selects the valid doubled words); None allows
            every language's.
        max_words: The most words (40; more for a question that states many values).

    Returns:
        The ``sentence`` verdict, naming the broken rule on failure.
    """
    s = " ".join((text or "").split())
    words = _WORD.findall(s)
    units = sum(max(1, len(_IDEOGRAPHIC.findall(w))) for w in words)
    too_few = units < MIN_WORDS and not _UNSPACED.search(s)
    if too_few or units > max_words:
        return _fail(
            SENTENCE, f"{units} words, not {MIN_WORDS} to {max_words}: {_snippet(s, 60)!r}"
        )
    max_chars = MAX_CHARS * max_words // MAX_WORDS  # as many characters a word as at 40
    if not MIN_CHARS <= len(s) <= max_chars:
        return _fail(
            SENTENCE, f"{len(s)} characters, not {MIN_CHARS} to {max_chars}: {_snippet(s, 60)!r}"
        )

    first = s[0]
    if not (first.isupper() or first.isdigit() or first in _OPENERS):
        if first.isalpha() and first.islower():
            return _fail(SENTENCE, f"does not start with a capital letter: {_snippet(s)!r}")
        if not first.isalpha():
            return _fail(SENTENCE, f"starts with {first!r}, not a letter or digit: {_snippet(s)!r}")

    body = s.rstrip(_CLOSERS + " ")
    if re.search(r"(?:\.\.\.|…)\s*[?!.]?$", body):
        return _fail(SENTENCE, f"cut off with an ellipsis: {_snippet(s[-40:])!r}")
    if not body or body[-1] not in _END_MARKS:
        return _fail(SENTENCE, f"does not end with a sentence mark (?, ., !): {s[-30:]!r}")

    base = _base_language(language) if language else None
    if base in _VALID_DOUBLES:
        doubles = _VALID_DOUBLES[base]
    else:
        doubles = frozenset().union(*_VALID_DOUBLES.values())
    lowered = [w.casefold() for w in words]
    for i in range(len(lowered) - 1):
        w = lowered[i]
        if w != lowered[i + 1] or w.isdigit():
            continue
        if i + 2 < len(lowered) and lowered[i + 2] == w:
            return _fail(SENTENCE, f"the word {words[i]!r} three times in a row")
        if w not in doubles:
            return _fail(SENTENCE, f"repeated word: {words[i]!r} {words[i + 1]!r}")
    for i in range(len(lowered) - 3):
        if lowered[i : i + 2] == lowered[i + 2 : i + 4] and not lowered[i].isdigit():
            return _fail(SENTENCE, f"repeated words: {' '.join(words[i : i + 4])!r}")

    for opening, closing in _PAIRS[:4]:
        if s.count(opening) != s.count(closing):
            return _fail(SENTENCE, f"unbalanced {opening}{closing}: {_snippet(s)!r}")
    if s.count('"') % 2:
        return _fail(SENTENCE, f'unbalanced double quotes ("): {_snippet(s)!r}')
    for opening, closing in _PAIRS[4:]:
        if opening in s and closing not in s:
            return _fail(SENTENCE, f"{opening!r} without a closing {closing!r}: {_snippet(s)!r}")
    return _ok(SENTENCE, f"{units} words, {len(s)} characters")


# ---------------------------------------------------------------------------------------
# target


def check_target(target_text: str, expected: str, choices: Sequence[str] | None = None) -> Verdict:
    """The item's answer is the record's answer value, and the choices make it unique.

    Compared after :func:`normalize_text`. With choices, exactly one choice equals
    ``expected``.

    Args:
        target_text: The item's answer text.
        expected: The record's answer-field value.
        choices: The item's choices, if multiple choice.

    Returns:
        The ``target`` verdict, naming both values on failure.
    """
    got, want = normalize_text(target_text or ""), normalize_text(expected or "")
    if not want:
        return _fail(TARGET, f"the record's answer is empty (item answer {target_text!r})")
    if got != want:
        return _fail(TARGET, f"item answer {target_text!r} is not the record's answer {expected!r}")
    if choices is not None:
        matches = [c for c in choices if normalize_text(c or "") == want]
        if len(matches) != 1:
            return _fail(
                TARGET,
                f"{len(matches)} choices equal the record's answer {expected!r}, not exactly 1: "
                f"{list(choices)!r}",
            )
    return _ok(TARGET, f"answer {target_text!r} is the record's answer {expected!r}")


# ---------------------------------------------------------------------------------------
# ASR back-check

_asr_lock = threading.Lock()
_ASR_PAD_S = 0.5  # silence around the speech: measured mean WER 0.58 with it, 0.63 without


@lru_cache(maxsize=1)
def _decoder() -> tuple[Any, str]:
    """The cached en-us decoder and its initial cepstral means (restored before each use)."""
    from pocketsphinx import Decoder

    # Batch CMN, no noise tracking, and the CMN reset before each utterance: a verdict does
    # not depend on the utterances decoded before it. Dither is added in _dither.
    decoder = Decoder(
        samprate=16000, loglevel="FATAL", dither=False, cmn="batch", remove_noise=False
    )
    return decoder, decoder.get_cmn()


def _dither(pcm: bytes) -> bytes:
    """``pcm`` plus seeded +-1 LSB noise and silence padding around it.

    espeak-ng writes exact digital silence, which the recognizer's front end handles badly
    (measured mean WER 0.76 without dither, 0.63 with). pocketsphinx's own dither draws
    from a generator that advances across utterances; this one is the same every call.
    """
    import numpy as np

    pad = np.zeros(int(16000 * _ASR_PAD_S), dtype=np.int32)
    samples = np.concatenate([pad, np.frombuffer(pcm, dtype="<i2").astype(np.int32), pad])
    noise = np.random.default_rng(0).integers(-1, 2, size=samples.shape, dtype=np.int32)
    return np.clip(samples + noise, -32768, 32767).astype("<i2").tobytes()


def _asr_words(text: str) -> str:
    flat = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    flat = re.sub(r"[^\w'\s]+", " ", flat)  # hyphens and punctuation split words
    return " ".join(w.strip("'") for w in flat.split() if w.strip("'"))


def _read_audio(path: Path) -> bytes:
    """16 kHz mono signed 16-bit PCM samples of ``path`` (raises OSError or ValueError)."""
    exe = shutil.which("ffmpeg")
    if exe is not None:
        proc = subprocess.run(
            [exe, "-nostdin", "-v", "error", "-i", str(path), "-ac", "1", "-ar", "16000",
             "-f", "s16le", "-acodec", "pcm_s16le", "-"],
            capture_output=True,
            timeout=_TIMEOUT_S,
        )  # fmt: skip
        if proc.returncode != 0:
            message = " ".join(proc.stderr.decode(errors="replace").split())[-200:]
            raise ValueError(message or "ffmpeg failed")
        return proc.stdout
    import numpy as np

    with wave.open(str(path), "rb") as w:
        width, channels, rate = w.getsampwidth(), w.getnchannels(), w.getframerate()
        raw = w.readframes(w.getnframes())
    if width != 2:
        raise ValueError(f"{width * 8}-bit WAV needs ffmpeg to convert")
    samples = np.frombuffer(raw, dtype="<i2").reshape(-1, channels).mean(axis=1)
    if rate != 16000 and len(samples):
        n = int(round(len(samples) * 16000 / rate))
        samples = np.interp(np.linspace(0, len(samples) - 1, n), np.arange(len(samples)), samples)
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()


def check_asr(
    audio: Path,
    text: str,
    language: str,
    *,
    max_wer: float = MAX_WER,
    enforce: bool | None = None,
) -> Verdict:
    """An offline recognizer hears ``text`` in ``audio`` (English only; not enforced).

    pocketsphinx (its en-us acoustic and language models) decodes the audio, converted to
    16 kHz mono 16-bit PCM (ffmpeg; the Python ``wave`` module and numpy when ffmpeg is
    missing) and padded with 0.5 s of silence. The word error rate (jiwer, lowercase,
    punctuation removed) compares the hypothesis with ``text``. On espeak-ng speech the
    recognizer mishears correct audio about as badly as wrong audio (see the module
    docstring), so by default (:data:`ASR_ENFORCED` False) the verdict is ``ok`` with a
    reason starting with "unavailable: " that still records the hypothesis and the WER.

    Args:
        audio: The spoken recording (WAV or anything ffmpeg reads).
        text: The text the recording should say.
        language: The item's language; only English is recognised.
        max_wer: The highest WER that passes when enforced.
        enforce: Whether the WER may fail the item; None uses :data:`ASR_ENFORCED`.

    Returns:
        The ``asr`` verdict, recording the hypothesis and the WER.
    """
    enforced = ASR_ENFORCED if enforce is None else enforce
    code = _base_language(language or "")
    if code != "en":
        return _unavailable(ASR, f"no offline recognizer for {code or language}")
    reference = _asr_words(text or "")
    if not reference:
        return _fail(ASR, "the reference text has no words")
    try:
        import jiwer  # noqa: F401  (fail early when missing)

        decoder, cmn = _decoder()
    except ImportError as exc:
        return _unavailable(ASR, f"{exc.name or 'pocketsphinx or jiwer'} is not installed")
    except RuntimeError as exc:
        return _unavailable(ASR, f"pocketsphinx could not load its en-us model: {exc}")
    try:
        pcm = _read_audio(Path(audio))
    except subprocess.TimeoutExpired:
        return _unavailable(ASR, "ffmpeg timed out reading the audio")
    except (OSError, ValueError, EOFError, wave.Error) as exc:
        return _fail(ASR, f"cannot read the audio {Path(audio).name}: {exc}")
    if len(pcm) < 3200:  # 0.1 s
        return _fail(ASR, f"the audio {Path(audio).name} is shorter than 0.1 s")

    samples = _dither(pcm)
    with _asr_lock:
        try:
            decoder.reinit_feat()  # the front end keeps state across utterances otherwise
            decoder.set_cmn(cmn)
            decoder.start_utt()
            decoder.process_raw(samples, full_utt=True)
            decoder.end_utt()
            hyp = decoder.hyp()
        except RuntimeError as exc:
            return _unavailable(ASR, f"pocketsphinx failed: {exc}")
    heard = _asr_words(hyp.hypstr) if hyp is not None else ""
    wer = _wer(reference, heard)
    reason = f"wer {wer:.2f} (threshold {max_wer:.2f}): heard {heard!r}"
    if not enforced:
        return _unavailable(
            ASR,
            f"pocketsphinx cannot recognise espeak-ng speech reliably here (not enforced): "
            f"{reason}",
        )
    return Verdict(check=ASR, ok=wer <= max_wer, reason=reason)


def _wer(reference: str, hypothesis: str) -> float:
    import jiwer

    return 1.0 if not hypothesis.strip() else float(jiwer.wer(reference, hypothesis))


# ---------------------------------------------------------------------------------------
# OCR back-check

_TESSERACT_CODES = {
    "af": "afr", "ar": "ara", "az": "aze", "be": "bel", "bg": "bul", "bn": "ben", "bs": "bos",
    "ca": "cat", "cs": "ces", "cy": "cym", "da": "dan", "de": "deu", "el": "ell", "en": "eng",
    "eo": "epo", "es": "spa", "et": "est", "eu": "eus", "fa": "fas", "fi": "fin", "fr": "fra",
    "ga": "gle", "gl": "glg", "gu": "guj", "he": "heb", "hi": "hin", "hr": "hrv", "hu": "hun",
    "hy": "hye", "id": "ind", "is": "isl", "it": "ita", "ja": "jpn", "ka": "kat", "kk": "kaz",
    "km": "khm", "kn": "kan", "ko": "kor", "la": "lat", "lt": "lit", "lv": "lav", "mk": "mkd",
    "ml": "mal", "mr": "mar", "ms": "msa", "mt": "mlt", "my": "mya", "nb": "nor", "ne": "nep",
    "nl": "nld", "nn": "nor", "no": "nor", "pa": "pan", "pl": "pol", "pt": "por", "ro": "ron",
    "ru": "rus", "sk": "slk", "sl": "slv", "sq": "sqi", "sr": "srp", "sv": "swe", "sw": "swa",
    "ta": "tam", "te": "tel", "th": "tha", "tl": "tgl", "tr": "tur", "uk": "ukr", "ur": "urd",
    "uz": "uzb", "vi": "vie", "zh": "chi_sim",
}  # fmt: skip


def _tesseract() -> str | None:
    """The tesseract executable, or None when it is not installed."""
    return shutil.which("tesseract")


@lru_cache(maxsize=4)
def _tesseract_languages(exe: str) -> frozenset[str]:
    proc = subprocess.run(
        [exe, "--list-langs"], capture_output=True, text=True, timeout=60, check=False
    )
    lines = (proc.stdout + "\n" + proc.stderr).splitlines()
    return frozenset(ln.strip() for ln in lines if ln.strip() and " " not in ln.strip())


def _ocr_normal(text: str) -> str:
    flat = unicodedata.normalize("NFKC", text).casefold()
    flat = flat.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(flat.split())


def check_ocr(image: Path, text: str, language: str, *, max_cer: float = MAX_CER) -> Verdict:
    """The text rendered into ``image`` reads back as ``text`` (tesseract OCR).

    Runs ``tesseract IMAGE stdout -l LANG`` with the language's traineddata and compares
    after lowercasing and collapsing whitespace, by character error rate (jiwer).
    Calibration (Pillow's default font at size 28, black on white, 600 px wide): six
    rendered questions read back with CER 0.00-0.02 (at most 0.07 after blur, rotation,
    noise or halving the resolution); another question's text scored 0.64-1.0, so the
    default threshold 0.2 separates them. A one-word swap scores 0.05-0.18 and passes.

    Args:
        image: The image file.
        text: The text the image should show.
        language: The item's ISO 639-1 code (region allowed).
        max_cer: The highest character error rate that passes.

    Returns:
        The ``ocr`` verdict, recording what was read and the CER; unavailable when
        tesseract or the language's traineddata is not installed.
    """
    exe = _tesseract()
    if exe is None:
        return _unavailable(OCR, "tesseract is not installed (apt-get install tesseract-ocr)")
    code = _base_language(language or "")
    lang = _TESSERACT_CODES.get(code)
    if lang is None:
        return _unavailable(OCR, f"no tesseract language code for {code or language}")
    try:
        installed = _tesseract_languages(exe)
    except (OSError, subprocess.SubprocessError) as exc:
        return _unavailable(OCR, f"tesseract --list-langs failed: {exc}")
    if lang not in installed:
        return _unavailable(
            OCR,
            f"no tesseract traineddata for {code} ({lang}; "
            f"apt-get install tesseract-ocr-{lang.replace('_', '-')})",
        )
    try:
        import jiwer
    except ImportError:
        return _unavailable(OCR, "jiwer is not installed")
    path = Path(image)
    if not path.is_file():
        return _fail(OCR, f"the image {path.name} does not exist")
    try:
        proc = subprocess.run(
            [exe, str(path), "stdout", "-l", lang],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _unavailable(OCR, f"tesseract timed out after {_TIMEOUT_S} s")
    except OSError as exc:
        return _unavailable(OCR, f"tesseract could not run: {exc}")
    if proc.returncode != 0:
        message = " ".join(proc.stderr.split())[-200:]
        return _fail(OCR, f"tesseract cannot read {path.name}: {message}")
    reference, read = _ocr_normal(text or ""), _ocr_normal(proc.stdout)
    if not reference:
        return _fail(OCR, "the reference text is empty")
    cer = 1.0 if not read else min(1.0, float(jiwer.cer(reference, read)))
    reason = f"cer {cer:.2f} (threshold {max_cer:.2f}): read {_snippet(read, 80)!r}"
    return Verdict(check=OCR, ok=cer <= max_cer, reason=reason)
