"""Words in other languages: CLDR names through Babel, and a small lexicon of column words.

A closed label set (continents, countries, languages, currencies) is translated through
the CLDR names Babel carries offline: an English value is looked up among the English CLDR
names and shown by its code in the item's language. Column labels and record nouns in
other languages come from the card (``FieldInfo.labels``, the card's ``entity``) or, for a
few common column words, from :data:`LEXICON` (with gender, which French articles need).
Anything else is refused for that language, naming the field.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple


class Noun(NamedTuple):
    """A noun in a language with its grammatical gender (``m``/``f``; English: ``n``)."""

    text: str
    gender: str = "m"


LEXICON: dict[str, dict[str, Noun]] = {
    "fr": {
        "capital": Noun("capitale", "f"),
        "capital city": Noun("capitale", "f"),
        "continent": Noun("continent", "m"),
        "region": Noun("région", "f"),
        "country": Noun("pays", "m"),
        "population": Noun("population", "f"),
        "population (millions)": Noun("population (en millions)", "f"),
        "area": Noun("superficie", "f"),
        "currency": Noun("monnaie", "f"),
        "currency code": Noun("code de la monnaie", "m"),
        "currency name": Noun("nom de la monnaie", "m"),
        "language": Noun("langue", "f"),
        "name": Noun("nom", "m"),
        "code": Noun("code", "m"),
        "symbol": Noun("symbole", "m"),
        "category": Noun("catégorie", "f"),
        "group": Noun("groupe", "m"),
        "type": Noun("type", "m"),
        "species": Noun("espèce", "f"),
        "year": Noun("année", "f"),
        "price": Noun("prix", "m"),
        "planet": Noun("planète", "f"),
        "element": Noun("élément", "m"),
        "city": Noun("ville", "f"),
        "state": Noun("État", "m"),
        "fruit": Noun("fruit", "m"),
        "animal": Noun("animal", "m"),
        "film": Noun("film", "m"),
        "book": Noun("livre", "m"),
        "river": Noun("fleuve", "m"),
        "mountain": Noun("montagne", "f"),
        "gadget": Noun("gadget", "m"),
        "length": Noun("longueur", "f"),
        "length (km)": Noun("longueur (en km)", "f"),
        "height": Noun("hauteur", "f"),
        "mass": Noun("masse", "f"),
        "atomic mass": Noun("masse atomique", "f"),
        "atomic number": Noun("numéro atomique", "m"),
        "weight": Noun("poids", "m"),
        "color": Noun("couleur", "f"),
        "colour": Noun("couleur", "f"),
        "department": Noun("service", "m"),
        "role": Noun("fonction", "f"),
        "manager": Noun("responsable", "m"),
        "director": Noun("réalisateur", "m"),
        "author": Noun("auteur", "m"),
        "date": Noun("date", "f"),
        "iso3": Noun("code ISO à trois lettres", "m"),
        "museum": Noun("musée", "m"),
        "bridge": Noun("pont", "m"),
        "lake": Noun("lac", "m"),
        "island": Noun("île", "f"),
        "building": Noun("bâtiment", "m"),
        "compound": Noun("composé", "m"),
        "mission": Noun("mission", "f"),
        "console": Noun("console", "f"),
        "event": Noun("épreuve", "f"),
        "athlete": Noun("athlète", "m"),
        "team": Noun("équipe", "f"),
        "company": Noun("entreprise", "f"),
        "university": Noun("université", "f"),
        "airport": Noun("aéroport", "m"),
        "volcano": Noun("volcan", "m"),
        "ocean": Noun("océan", "m"),
        "sea": Noun("mer", "f"),
        "desert": Noun("désert", "m"),
        "painting": Noun("tableau", "m"),
        "painter": Noun("peintre", "m"),
        "composer": Noun("compositeur", "m"),
        "song": Noun("chanson", "f"),
        "album": Noun("album", "m"),
        "dish": Noun("plat", "m"),
        "dog breed": Noun("race de chien", "f"),
        "breed": Noun("race", "f"),
        "bird": Noun("oiseau", "m"),
        "penguin": Noun("manchot", "m"),
        "tree": Noun("arbre", "m"),
        "plant": Noun("plante", "f"),
        "vegetable": Noun("légume", "m"),
        "instrument": Noun("instrument", "m"),
        "sport": Noun("sport", "m"),
        "game": Noun("jeu", "m"),
        "programming language": Noun("langage de programmation", "m"),
        "founded": Noun("année de fondation", "f"),
        "opened": Noun("année d'ouverture", "f"),
        "kind": Noun("type", "m"),
        "size": Noun("taille", "f"),
        "age": Noun("âge", "m"),
        "speed": Noun("vitesse", "f"),
        "time": Noun("temps", "m"),
        "depth": Noun("profondeur", "f"),
        "width": Noun("largeur", "f"),
        "elevation": Noun("altitude", "f"),
        "altitude": Noun("altitude", "f"),
        "capacity": Noun("capacité", "f"),
        "distance": Noun("distance", "f"),
        "temperature": Noun("température", "f"),
        "title": Noun("titre", "m"),
    },
}


@cache
def _cldr_reverse() -> dict[str, tuple[str, str]]:
    """English CLDR name (folded) -> (kind, code), for territories, languages, currencies."""
    from babel import Locale

    english = Locale("en")
    out: dict[str, tuple[str, str]] = {}
    for kind, names in (
        ("currencies", english.currencies),
        ("languages", english.languages),
        ("territories", english.territories),
    ):
        for code, name in names.items():
            out[name.casefold()] = (kind, code)
    # Names people write that CLDR spells otherwise.
    for name, code in (("america", "019"), ("the americas", "019"), ("usa", "US"), ("uk", "GB")):
        out.setdefault(name, ("territories", code))
    return out


@cache
def _cldr_names(language: str, kind: str) -> dict[str, str]:
    from babel import Locale, UnknownLocaleError

    try:
        locale = Locale.parse(language)
    except (UnknownLocaleError, ValueError):
        return {}
    return dict(getattr(locale, kind))


def translate_value(text: str, language: str) -> str | None:
    """An English CLDR name (a territory, language or currency) in ``language`` (None: not one)."""
    if language == "en":
        return text
    found = _cldr_reverse().get(text.strip().casefold())
    if found is None:
        return None
    kind, code = found
    name = _cldr_names(language, kind).get(code)
    return name or None


def translate_all(values: list[str], language: str) -> dict[str, str] | None:
    """Every value translated (None: at least one has no CLDR name in that language)."""
    out = {}
    for value in values:
        name = translate_value(value, language)
        if name is None:
            return None
        out[value] = name
    return out


def lexicon_noun(english: str, language: str) -> Noun | None:
    """A common column word or record noun in ``language`` (None: not in the lexicon)."""
    return LEXICON.get(language, {}).get(english.casefold())
