"""Consistency checks for the textbook corpus in this directory.

Run with the project's interpreter:

    .venv/bin/python tests/textbooks/corpus/check_corpus.py

It only reads the corpus files (and, when the OpenStax mirrors are present,
git objects to confirm the .cnxml files are byte-identical to the cited
commits).  It does not import or run benchsmith.
"""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import sympy
from lxml import etree
from sympy.parsing.sympy_parser import parse_expr

HERE = Path(__file__).resolve().parent
FORMATS = {"cnxml": ".cnxml", "tex": ".tex", "html": ".html", "md": ".md", "txt": ".txt"}
KEY_FIELDS = [
    "id",
    "file",
    "format",
    "subject",
    "source",
    "license",
    "held_out",
    "formulas",
    "symbols",
]
SYMBOL_FIELDS = ["meaning", "words", "unit", "range", "range_text"]
MIRRORS = {
    "github:openstax/osbooks-principles-finance": Path(
        "/work/.mirror/openstax+osbooks-principles-finance/repo"
    ),
    "github:openstax/osbooks-university-physics-bundle": Path(
        "/work/.mirror/openstax+osbooks-university-physics-bundle/repo"
    ),
    "github:openstax/osbooks-chemistry-bundle": Path(
        "/work/.mirror/openstax+osbooks-chemistry-bundle/repo"
    ),
    "github:openstax/osbooks-college-physics-bundle": Path(
        "/work/.mirror/openstax+osbooks-college-physics-bundle/repo"
    ),
    "github:openstax/osbooks-introductory-statistics-bundle": Path(
        "/work/.mirror/openstax+osbooks-introductory-statistics-bundle/repo"
    ),
    "github:openstax/osbooks-astronomy": Path("/work/.mirror/openstax+osbooks-astronomy/repo"),
    "github:openstax/osbooks-principles-economics-bundle": Path(
        "/work/.mirror/openstax+osbooks-principles-economics-bundle/repo"
    ),
    "github:openstax/osbooks-contemporary-mathematics": Path(
        "/work/.mirror/openstax+osbooks-contemporary-mathematics/repo"
    ),
    "github:openstax/osbooks-physics": Path("/work/.mirror/openstax+osbooks-physics/repo"),
    "github:openstax/osbooks-anatomy-physiology": Path(
        "/work/.mirror/openstax+osbooks-anatomy-physiology/repo"
    ),
    "github:openstax/osbooks-college-algebra-bundle": Path(
        "/work/.mirror/openstax+osbooks-college-algebra-bundle/repo"
    ),
    "github:openstax/osbooks-prealgebra-bundle": Path(
        "/work/.mirror/openstax+osbooks-prealgebra-bundle/repo"
    ),
    **{
        f"github:openstax/{repo}": Path(f"/work/.mirror/openstax+{repo}/repo")
        for repo in (
            "osbooks-introduction-business",
            "osbooks-introduction-python-programming",
            "osbooks-nursing-external-bundle",
            "osbooks-principles-marketing",
            "osbooks-statistics",
        )
    },
}
GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "eta": "η",
    "theta": "θ",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "ϕ",
    "omega": "ω",
    "Theta": "Θ",
    "Phi": "Φ",
    "Delta": "Δ",
}


def plain_text(path: Path, fmt: str) -> str:
    """A rough plain-text view of a file, used to look up key words and range sentences."""
    raw = path.read_text(encoding="utf-8")
    if fmt == "cnxml":
        raw = " ".join(etree.fromstring(path.read_bytes()).itertext())
    elif fmt == "html":
        raw = re.sub(r"<[^>]+>", " ", raw)
    if fmt in ("tex", "md", "html"):
        raw = re.sub(r"\\[()\[\]]", " ", raw)
        raw = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m.group(1), " "), raw)
        raw = raw.replace("$", " ").replace("{", "").replace("}", "")
    return squash(raw)


def squash(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower()
    s = s.replace("\u2212", "-").replace("\u2019", "'").replace("_", "")
    return re.sub(r"[\s\u200b()]+", "", s)


class _HTMLCheck(html.parser.HTMLParser):
    pass


def check() -> int:
    errors: list[str] = []
    warnings: list[str] = []
    keys = sorted(HERE.glob("*.key.json"))
    total_formulas = 0
    rows = []
    for key_path in keys:
        where = key_path.name
        try:
            key = json.loads(key_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: does not parse: {exc}")
            continue
        missing = [f for f in KEY_FIELDS if f not in key]
        if missing:
            errors.append(f"{where}: missing fields {missing}")
            continue
        if key_path.name != f"{key['id']}.key.json":
            errors.append(f"{where}: id {key['id']!r} does not match the key file name")
        fmt = key["format"]
        if fmt not in FORMATS:
            errors.append(f"{where}: unknown format {fmt!r}")
            continue
        data_path = HERE / key["file"]
        if not data_path.is_file():
            errors.append(f"{where}: file {key['file']} does not exist")
            continue
        if data_path.suffix != FORMATS[fmt] or data_path.stem != key["id"]:
            errors.append(f"{where}: file name {key['file']} does not fit id/format")
        if not isinstance(key["held_out"], bool):
            errors.append(f"{where}: held_out is not a boolean")

        # the file itself parses in its format
        if fmt == "cnxml":
            try:
                etree.fromstring(data_path.read_bytes())
            except etree.XMLSyntaxError as exc:
                errors.append(f"{key['file']}: not well-formed XML: {exc}")
        elif fmt == "html":
            text = data_path.read_text(encoding="utf-8")
            _HTMLCheck().feed(text)
            try:
                etree.fromstring(text.encode("utf-8"), etree.HTMLParser(recover=False))
            except etree.XMLSyntaxError as exc:
                errors.append(f"{key['file']}: HTML does not parse: {exc}")

        # OpenStax files are unchanged copies of the cited git blobs
        if key["source"].startswith("github:"):
            m = re.fullmatch(r"(github:\S+) (\S+) @ ([0-9a-f]{40})", key["source"])
            if not m:
                errors.append(f"{where}: source not in the form 'github:owner/repo path @ sha'")
            elif MIRRORS.get(m.group(1), Path("/nonexistent")).exists():
                git_dir = MIRRORS[m.group(1)]
                blob = subprocess.run(
                    ["git", "--git-dir", str(git_dir), "rev-parse", f"{m.group(3)}:{m.group(2)}"],
                    capture_output=True,
                    text=True,
                ).stdout.strip()
                mine = subprocess.run(
                    ["git", "hash-object", str(data_path)], capture_output=True, text=True
                ).stdout.strip()
                if not blob or blob != mine:
                    errors.append(f"{key['file']}: differs from {m.group(2)} @ {m.group(3)[:10]}")
            else:
                warnings.append(f"{where}: mirror for {m.group(1)} not present; byte check skipped")
            if "CC BY 4.0" not in key["license"]:
                errors.append(f"{where}: OpenStax license string lacks 'CC BY 4.0'")
        elif (
            key["source"] != "written for the corpus"
            or key["license"] != "written for benchsmith tests"
        ):
            errors.append(
                f"{where}: a written file needs source 'written for the corpus'"
                " and license 'written for benchsmith tests'"
            )

        symbols = key["symbols"]
        local = {name: sympy.Symbol(name) for name in symbols}
        used: set[str] = set()
        text = plain_text(data_path, fmt)
        for i, f in enumerate(key["formulas"]):
            label = f"{where} formula {i + 1} ({f.get('sympy')!r})"
            if set(f) != {"text", "sympy", "symbols"}:
                errors.append(f"{label}: fields {sorted(f)}")
                continue
            undeclared = [s for s in f["symbols"] if s not in symbols]
            if undeclared:
                errors.append(f"{label}: symbols not in 'symbols': {undeclared}")
            sides = f["sympy"].split("=")
            if len(sides) != 2:
                errors.append(f"{label}: not a single 'lhs = rhs' equation")
                continue
            try:
                lhs, rhs = (parse_expr(side.strip(), local_dict=local) for side in sides)
            except Exception as exc:  # noqa: BLE001 - report any parse failure
                errors.append(f"{label}: sympy cannot parse: {exc}")
                continue
            free = {s.name for s in (lhs.free_symbols | rhs.free_symbols)}
            if free != set(f["symbols"]):
                errors.append(
                    f"{label}: free symbols {sorted(free)} != listed {sorted(f['symbols'])}"
                )
            stray = free - set(symbols)
            if stray:
                errors.append(f"{label}: parsed names not declared as key symbols: {sorted(stray)}")
            used |= free
        total_formulas += len(key["formulas"])

        for name, info in symbols.items():
            label = f"{where} symbol {name}"
            if set(info) != set(SYMBOL_FIELDS):
                errors.append(f"{label}: fields {sorted(info)}")
                continue
            if name not in used:
                errors.append(f"{label}: not used by any formula")
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
                errors.append(f"{label}: not a plain identifier")
            if not isinstance(info["words"], list) or len(info["words"]) > 4:
                errors.append(f"{label}: words must be a list of at most 4 phrases")
            for w in info["words"]:
                if squash(w) not in text:
                    warnings.append(f"{label}: word {w!r} not found in {key['file']}")
            rng, rtext = info["range"], info["range_text"]
            if (rng is None) != (rtext is None):
                errors.append(f"{label}: range and range_text must both be set or both be null")
            if rng is not None:
                if not (
                    isinstance(rng, list)
                    and len(rng) == 2
                    and all(isinstance(v, (int, float)) for v in rng)
                    and rng[0] < rng[1]
                ):
                    errors.append(f"{label}: bad range {rng}")
                if squash(rtext) not in text:
                    warnings.append(f"{label}: range_text not found verbatim in {key['file']}")
        rows.append((key["id"], key["subject"], fmt, len(key["formulas"]), key["held_out"]))

    data_files = {p.name for p in HERE.iterdir() if p.suffix in FORMATS.values()} - {
        "README.md",
        "ATTRIBUTION.md",
    }
    keyed = {json.loads(k.read_text(encoding="utf-8"))["file"] for k in keys}
    for orphan in sorted(data_files - keyed):
        errors.append(f"{orphan}: no key file")

    for row in rows:
        print(f"{row[0]:32s} {row[1]:16s} {row[2]:6s} formulas={row[3]:3d} held_out={row[4]}")
    held = sum(r[4] for r in rows)
    print(f"\n{len(rows)} files, {total_formulas} formulas, {held} held out")
    for w in warnings:
        print("WARNING:", w)
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(check())
