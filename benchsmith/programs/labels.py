"""Words in other languages: CLDR names through Babel, and a small lexicon of column words.

A closed label set (continents, countries, languages, currencies) is translated through
the CLDR names Babel carries offline: an English value is looked up among the English CLDR
names and shown by its code in the item's language. Column labels and record nouns in
other languages come from the card (``FieldInfo.labels``, the card's ``entity``) or, for a
few common column words, from :data:`LEXICON` (with gender, which articles need, and the
plural; German, Spanish, Italian, Dutch and Portuguese words are listed in
:mod:`~benchsmith.programs.lexicon`). Anything else is refused for that language, naming
the field.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from benchsmith.files import package_json
from benchsmith.programs.grammar import GRAMMARS, PREPOSITIONS, Noun, read_noun
from benchsmith.programs.lexicon import ALIASES, WORDS

_FR_MORE = """
wind:vent:m;precipitation:hauteur de précipitations:f;rainfall:hauteur de pluie:f
humidity:humidité:f;weather:météo:f;driver:pilote:m;season:saison:f;champion:champion:m;winner:vainqueur:m;runner-up:finaliste:m
runner up:finaliste:m;loser:perdant:m;host:hôte:m;host country:pays hôte:m;host city:ville hôte:f
sample:échantillon:m;wine:vin:m;record:record:m;holder:détenteur:m;constructor:écurie:f
win:victoire:f;race:course:f;moon:lune:f;goal:but:m;match:match:m;final:finale:f
tournament:tournoi:m;player:joueur:m;club:club:m;coach:entraîneur:m;birth:naissance:f
death:décès:m;release:sortie:f;publication:publication:f;launch:lancement:m
foundation:fondation:f;nationality:nationalité:f;sex:sexe:m;gender:genre:m;body:corps:m
bill:bec:m;flipper:nageoire:f;diagnosis:diagnostic:m;radius:rayon:m;diameter:diamètre:m
perimeter:périmètre:m;volume:volume:m;density:densité:f;texture:texture:f
concentration:concentration:f;acidity:acidité:f;alcohol:alcool:m;magnesium:magnésium:m
intensity:intensité:f;hue:teinte:f;class:classe:f;label:étiquette:f;variety:variété:f
origin:origine:f;brand:marque:f;model:modèle:m;manufacturer:fabricant:m
developer:développeur:m;publisher:éditeur:m;genre:genre:m;actor:acteur:m;singer:chanteur:m
artist:artiste:m;writer:écrivain:m;gdp:PIB:m;income:revenu:m;salary:salaire:m;cost:coût:m
employee:employé:m;duration:durée:f;runtime:durée:f;score:score:m;rank:rang:m;point:point:m
medal:médaille:f;venue:lieu:m;edition:édition:f;month:mois:m;day:jour:m;century:siècle:m
extension:extension:f;file:fichier:m;paradigm:paradigme:m;creator:créateur:m
inventor:inventeur:m;discoverer:découvreur:m;agency:agence:f;crew:équipage:m;rocket:fusée:f
spacecraft:vaisseau:m;destination:destination:f;orbit:orbite:f;star:étoile:f
galaxy:galaxie:f;satellite:satellite:m;confederation:confédération:f
federation:fédération:f;league:ligue:f;stadium:stade:m;peak:sommet:m
prominence:proéminence:f;ascent:ascension:f;rainfall:précipitations:f;climate:climat:m
family:famille:f;order:ordre:m;genus:genre:m;habitat:habitat:m;lifespan:durée de vie:f
wingspan:envergure:f;formula:formule:f;boiling:ébullition:f;melting:fusion:f;phase:phase:f
collection:collection:f;novel:roman:m;poem:poème:m;band:groupe:m;opera:opéra:m
premiere:première:f;tower:tour:f;span:portée:f;architect:architecte:m;floor:étage:m
platform:plateforme:f;founder:fondateur:m;headquarters:siège:m;industry:secteur:m
nation:nation:f;person:personne:f;student:élève:m;school:école:f
hospital:hôpital:m;patient:patient:m;tumor:tumeur:f;tumour:tumeur:f;cell:cellule:f
measurement:mesure:f;unit:unité:f;value:valeur:f;number:numéro:m;id:identifiant:m
width:largeur:f;thickness:épaisseur:f;energy:énergie:f;power:puissance:f;voltage:tension:f
frequency:fréquence:f;pressure:pression:f;salt:sel:m;water:eau:f;acid:acide:m
malic acid:acide malique:m;citric acid:acide citrique:m;flavanoids:teneur en flavonoïdes:f
range:chaîne de montagnes:f;flavonoids:teneur en flavonoïdes:f;proline:proline:f
sugar:sucre:m;protein:protéine:f
car:voiture:f;vehicle:véhicule:m;engine:moteur:m;fuel:carburant:m;cylinder:cylindre:m
displacement:cylindrée:f;horsepower:puissance (ch):f;acceleration:accélération:f
miles per gallon:consommation (miles par gallon):f;mpg:consommation (miles par gallon):f
"""
"""More French words (English:French:gender), for record nouns and column labels."""

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
        "first appeared": Noun("année d'apparition", "f"),
        "year discovered": Noun("année de découverte", "f"),
        "discovered": Noun("année de découverte", "f"),
        "released": Noun("année de sortie", "f"),
        "release year": Noun("année de sortie", "f"),
        "published": Noun("année de publication", "f"),
        "completed": Noun("année d'achèvement", "f"),
        "built": Noun("année de construction", "f"),
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
        **{
            word: Noun(text, gender)
            for word, text, gender in (
                entry.split(":") for entry in _FR_MORE.strip().replace("\n", ";").split(";")
            )
        },
    },
}


def _read_words(language: str) -> dict[str, Noun]:
    """The words of :data:`~benchsmith.programs.lexicon.WORDS` in a language, aliases added."""
    entries = (e.partition(":") for e in WORDS[language].replace("\n", ";").split(";"))
    words = {key.strip(): read_noun(noun, language) for key, _, noun in entries if noun.strip()}
    for alias, word in ALIASES.items():
        if word in words:
            words.setdefault(alias, words[word])
    return words


LEXICON.update({language: _read_words(language) for language in WORDS})


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
    for name, code in M49_NAMES.items():
        out.setdefault(name, ("territories", code))
    return out


M49_NAMES = {
    "south-eastern asia": "035",
    "south eastern asia": "035",
    "southeastern asia": "035",
    "south-east asia": "035",
    "latin america and the caribbean": "419",
    "australia and new zealand": "053",
}
"""UN M.49 region names as the UN writes them, where CLDR writes them otherwise."""


def value_names(text: str) -> list[str]:
    """A value's names in every language benchsmith words questions in (CLDR), itself first.

    "South-eastern Asia" -> "Southeast Asia", "Südostasien", "Asie du Sud-Est", ...: how
    an intent may name a region, a country or a currency; [text] when CLDR does not know it.
    """
    found = _cldr_reverse().get(text.strip().casefold())
    names = [text]
    if found is not None:
        kind, code = found
        for language in ("en", "de", "es", "fr", "it", "nl", "pt"):
            name = _cldr_names(language, kind).get(code)
            if name:
                names.append(name)
    return list(dict.fromkeys(names))


@cache
def _cldr_names(language: str, kind: str) -> dict[str, str]:
    from babel import Locale, UnknownLocaleError

    try:
        locale = Locale.parse(language)
    except (UnknownLocaleError, ValueError):
        return {}
    return dict(getattr(locale, kind))


VALUES: dict[str, dict[str, str]] = package_json("benchsmith.programs", "labels_values.json")
"""Common category values in other languages (closed label sets CLDR does not name)."""


def cldr_kind(text: str) -> str | None:
    """Which CLDR list names ``text`` in English: "territories", "languages", "currencies"."""
    found = _cldr_reverse().get(text.strip().casefold())
    return found[0] if found else None


def is_place(text: str) -> bool:
    """Whether ``text`` is the English name of a country or territory ("Brazil", "Europe")."""
    return cldr_kind(text) == "territories"


@cache
def _demonyms() -> dict[str, set[str]]:
    """Demonym (folded) -> territory codes: "american" -> US, MP; "dutch" -> NL (countryinfo)."""
    from countryinfo import CountryInfo

    out: dict[str, set[str]] = {}
    for data in CountryInfo.all().values():
        code = (data.get("ISO") or {}).get("alpha2")
        demonym = str(data.get("demonym") or "").casefold()
        if code and demonym:
            out.setdefault(demonym, set()).add(code)
    return out


def demonym_of(word: str, place: str) -> bool:
    """Whether ``word`` is the demonym of the territory ``place`` ("American", "United States")."""
    found = _cldr_reverse().get(place.strip().casefold())
    if found is None or found[0] != "territories":
        return False
    return found[1] in _demonyms().get(word.casefold(), set())


def translate_value(text: str, language: str) -> str | None:
    """An English CLDR name (a territory, language or currency) in ``language`` (None: not one).

    Common category values (yes/no, benign/malignant, seasons, colours) come from
    :data:`VALUES`.
    """
    if language == "en":
        return text
    found = _cldr_reverse().get(text.strip().casefold())
    if found is None:
        word = VALUES.get(language, {}).get(text.strip().casefold())
        return word if word is None or text[:1].islower() else word[:1].upper() + word[1:]
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


def singular(word: str) -> str:
    """A plural English noun made singular, by the common rules (countries -> country)."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def fr_plural(text: str) -> str:
    """A French noun in the plural ("cheval" -> "chevaux"); a phrase is left as it is."""
    if text.endswith(("s", "x", "z")) or " " in text:
        return text
    if text.endswith("al"):
        return text[:-2] + "aux"
    if text.endswith(("eau", "eu")):
        return text + "x"
    return text + "s"


FR_QUALIFIERS = {
    "maximum": ("maximal", "maximale"), "minimum": ("minimal", "minimale"),
    "average": ("moyen", "moyenne"), "mean": ("moyen", "moyenne"),
    "total": ("total", "totale"), "median": ("médian", "médiane"),
}  # fmt: skip
"""French adjectives (masculine, feminine) of the qualifiers a column label starts with."""


def fr_de(text: str) -> str:
    """French "de" before a word, elided before a vowel ("d'ébullition")."""
    return f"d'{text}" if text[:1].lower() in "aeiouéèêàâîôûh" else f"de {text}"


@cache
def _language_adjective(word: str, language: str) -> str | None:
    """A language's name in ``language`` from its English name ("french" -> "français")."""
    from babel import Locale

    english = {str(n).casefold(): code for code, n in Locale("en").languages.items()}
    code = english.get(word.casefold())
    if code is None or "_" in code:
        return None
    name = Locale.parse(language).languages.get(code)
    return str(name).lower() if name else None


QUALIFIERS = {
    "fr": FR_QUALIFIERS,
    "es": {"maximum": ("máximo", "máxima"), "minimum": ("mínimo", "mínima"),
           "average": ("medio", "media"), "mean": ("medio", "media"),
           "total": ("total", "total"), "median": ("mediano", "mediana")},
    "it": {"maximum": ("massimo", "massima"), "minimum": ("minimo", "minima"),
           "average": ("medio", "media"), "mean": ("medio", "media"),
           "total": ("totale", "totale"), "median": ("mediano", "mediana")},
    "pt": {"maximum": ("máximo", "máxima"), "minimum": ("mínimo", "mínima"),
           "average": ("médio", "média"), "mean": ("médio", "média"),
           "total": ("total", "total"), "median": ("mediano", "mediana")},
    "nl": {"maximum": "maximale", "minimum": "minimale", "average": "gemiddelde",
           "mean": "gemiddelde", "total": "totale", "median": "mediane"},
    "de": {"maximum": "Maximal", "minimum": "Minimal", "average": "Durchschnitts",
           "mean": "Durchschnitts", "total": "Gesamt", "median": "Median"},
}  # fmt: skip
"""The qualifiers a column label starts with: Romance adjectives (masculine, feminine) after
the noun, a Dutch adjective before it, the first part of a German compound."""
NUMBER_OF = {
    "de": ("Anzahl der {}", "f"), "es": ("número de {}", "m"), "it": ("numero di {}", "m"),
    "nl": ("aantal {}", "n"), "pt": ("número de {}", "m"),
}  # fmt: skip
"""A count of things ("titles" -> "number of titles"), with the plural, and its gender."""
NAME_IN = {
    "fr": ("nom {}", "m"), "de": ("Name auf {}", "m"), "es": ("nombre en {}", "m"),
    "it": ("nome in {}", "m"), "nl": ("naam in het {}", "c"), "pt": ("nome em {}", "m"),
}  # fmt: skip
"""A name in a language ("French name" -> "nom français", "Name auf Französisch")."""
OF = {"es": "de", "it": "di", "pt": "de"}
"""The word joining a compound's head to its modifier without an article ("fecha de
nacimiento"); German and Dutch put the modifier's article ("Datum der Geburt")."""


def _qualified(base: Noun, qualifier: str, language: str) -> Noun | None:
    """A qualified label: "température maximale", "Maximaltemperatur" (maximum temperature)."""
    word = QUALIFIERS[language][qualifier]
    if isinstance(word, tuple):  # an adjective after the noun, agreeing with it
        adjective = word[1] if base.gender == "f" else word[0]
        words = base.text.split()
        at = next(
            (i for i, w in enumerate(words) if i and w.lower().split("'")[0] in PREPOSITIONS),
            len(words),
        )
        if language == "fr":
            at = len(words)
        # before the complement: "velocidad máxima del viento", "numero medio di titoli"
        return Noun(" ".join([*words[:at], adjective, *words[at:]]), base.gender)
    if language == "de":
        if base.text[:2].isupper():
            return None  # an abbreviation ("BIP") makes no compound
        return Noun(word + base.text[:1].lower() + base.text[1:], base.gender)
    return Noun(f"{word} {base.text}", base.gender)


def _number_of(base: Noun, language: str) -> Noun | None:
    """A count of things: "nombre de titres", "Anzahl der Titel" (number of titles)."""
    if language == "fr":
        return Noun(f"nombre {fr_de(fr_plural(base.text))}", "m")
    if not base.plural:
        return None
    text, gender = NUMBER_OF[language]
    return Noun(text.format(base.plural), gender)


def _compound(head: Noun, modifier: Noun, language: str) -> Noun:
    """A compound read backwards: "date de naissance", "Datum der Geburt" (birth date)."""
    if language == "fr":
        return Noun(f"{head.text} {fr_de(modifier.text)}", head.gender)
    if language in OF:
        return Noun(f"{head.text} {OF[language]} {modifier.text}", head.gender)
    return Noun(f"{head.text} {GRAMMARS[language].of_the(modifier)}", head.gender)


def lexicon_noun(english: str, language: str) -> Noun | None:
    """A common column word or record noun in ``language`` (None: not in the lexicon).

    Beyond the listed words, labels are composed by rule: a unit in brackets stays
    ("length (km)" -> "longueur (km)"), a qualifier agrees ("maximum temperature" ->
    "température maximale", "Maximaltemperatur"), a plural count is a number ("titles" ->
    "nombre de titres", "Anzahl der Titel"), and a compound noun reads backwards ("birth
    date" -> "date de naissance", "boiling point" -> "punto de ebullición").
    """
    words = LEXICON.get(language, {})
    key = " ".join(english.casefold().split())
    if key in words:
        return words[key]
    if not words or not key or language not in NAME_IN:
        return None
    bracket = re.fullmatch(r"(.+?) \((.+)\)", " ".join(english.split()))
    if bracket:  # the unit as written ("°C")
        base = lexicon_noun(bracket.group(1), language)
        return Noun(f"{base.text} ({bracket.group(2)})", base.gender) if base else None
    unit = re.fullmatch(r"(.+?) in ([a-z%/]{1,6})", key)
    if unit:  # "weight in lbs" -> "poids (lbs)"
        base = lexicon_noun(unit.group(1), language)
        return Noun(f"{base.text} ({unit.group(2)})", base.gender) if base else None
    parts = key.split()
    if parts[0] in FR_QUALIFIERS and len(parts) > 1:
        base = lexicon_noun(" ".join(parts[1:]), language)
        return _qualified(base, parts[0], language) if base else None
    if parts[:2] == ["number", "of"] and len(parts) == 3:
        base = lexicon_noun(singular(parts[2]), language)
        return _number_of(base, language) if base else None
    spoken = _language_adjective(parts[0], language) if len(parts) == 2 else None
    if spoken and parts[1] == "name":  # "French name" -> "nom français", "Name auf Französisch"
        text, gender = NAME_IN[language]
        spoken = spoken.capitalize() if language in ("de", "nl") else spoken
        return Noun(text.format(spoken), gender)
    if len(parts) == 1:
        one = singular(key)
        return _number_of(words[one], language) if one != key and one in words else None
    if len(parts) == 2:
        head = words.get(parts[1])  # a plural head ("champion wins") is not composed
        modifier = words.get(parts[0])
        if head and modifier:
            return _compound(head, modifier, language)
    return None


def language_name(code: str, language: str) -> str | None:
    """CLDR's name of a language code ("fi", "pt-br") in ``language`` (None: not known)."""
    names = _cldr_names(language, "languages")
    return names.get(code.replace("-", "_")) or names.get(code.split("-")[0])


CODE_VALUE = re.compile(r"[a-z]{2,3}(?:-[a-z]{2,4})?")
"""A lower-case code value ("fi", "pt-br", "sr-latn")."""


def language_code_column(table: Any, path: str) -> bool:
    """Whether a category column holds language codes ("fi", "pt-br", "sr-latn")."""
    column = table.columns[path]
    codes = [v for v in column.values if CODE_VALUE.fullmatch(v)]
    if len(column.values) < 4 or len(codes) < len(column.values):
        return False
    known = _cldr_names("en", "languages")
    return sum(c.split("-")[0] in known for c in codes) >= 0.9 * len(codes)
