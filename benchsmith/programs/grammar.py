"""Nouns in German, Spanish, Italian, Dutch and Portuguese: gender, plural, articles, cases.

A question names a column or its records by a noun. The noun's gender comes from the
article it is written with ("die Hauptstadt", "het land", "a cidade"); a plural after a slash
settles an elided or misleading article ("l'isola/le isole", "el área/las áreas") and gives
plurals no rule can ("das Land/die Länder"). Spanish, Italian and Portuguese plurals are
otherwise formed by the common rules. :class:`Grammar` puts a noun where a question needs
it: after the definite article (in a German case), after "of" with the article contracted
("del", "dell'", "degli", "do", "van het", "des Landes"), after "which" and "a". French
keeps its own rules in :mod:`~benchsmith.programs.wording`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple


class Noun(NamedTuple):
    """A noun in a language with its grammatical gender and, where known, its plural.

    Genders: ``m``, ``f``, ``n`` (German neuter, a Dutch "het" word, every English noun) and
    ``c`` (a Dutch "de" word). ``plural`` is empty where it is not known.
    """

    text: str
    gender: str = "m"
    plural: str = ""


ARTICLES: dict[str, dict[str, str]] = {
    "de": {"der": "m", "die": "f", "das": "n"},
    "es": {"el": "m", "la": "f", "los": "m", "las": "f"},
    "it": {"il": "m", "lo": "m", "la": "f", "i": "m", "gli": "m", "le": "f"},
    "nl": {"de": "c", "het": "n"},
    "pt": {"o": "m", "a": "f", "os": "m", "as": "f"},
}
"""The definite articles a label may start with, and the gender each gives."""
PLURAL_ARTICLES: dict[str, dict[str, str]] = {
    "de": {"die": ""},
    "es": {"los": "m", "las": "f"},
    "it": {"i": "m", "gli": "m", "le": "f"},
    "nl": {"de": ""},
    "pt": {"os": "m", "as": "f"},
}
"""Plural articles, and the gender they give ("" where the singular's article decides)."""
FEMININE_ENDINGS = {
    "fr": ("tion", "sion", "té", "ence", "ance", "ure", "ie", "ée", "ette", "èce", "ude", "ise"),
    "de": ("ung", "heit", "keit", "schaft", "ion", "tät", "ie", "ik", "ur", "enz", "anz", "e"),
    "es": ("a", "ción", "sión", "dad", "tad", "tud", "umbre"),
    "it": ("a", "tà", "ione"),
    "pt": ("a", "ção", "são", "dade", "gem"),
}
"""Endings that make a noun without an article feminine (German: also neuter, below)."""
PREPOSITIONS = frozenset(
    "de del en con para por a al di della dello dell dei degli delle in da per do da dos "
    "das em no na com".split()
)
"""Words after which a Romance noun phrase's plural stops ("raza de perro" -> "razas de perro")."""
VOWELS = "aeiouáéíóúàèìòùâêôãõü"
PREFIXES = frozenset("vice ex pré pós pró anti super sub semi mini micro".split())
"""First parts of a hyphenated word that stay as they are in the plural ("vice-campeões")."""


def read_noun(text: str, language: str) -> Noun:
    """A noun as a person wrote it, the article giving the gender, a plural after a slash.

    "die Hauptstadt" -> ("Hauptstadt", "f"); "l'isola/le isole" -> ("isola", "f", "isole");
    "el área/las áreas" -> ("área", "f", "áreas"). Without an article the gender is guessed
    from the ending.
    """
    written = " ".join(text.replace("’", "'").split())
    plural_gender = plural = ""
    articles = "|".join(PLURAL_ARTICLES[language])
    split = re.fullmatch(rf"(.+?)\s*[/,]\s*({articles})\s+(.+)", written, re.IGNORECASE)
    if split:
        written, plural = split.group(1), split.group(3)
        plural_gender = PLURAL_ARTICLES[language][split.group(2).lower()]
    gender = ""
    first, _, rest = written.partition(" ")
    if first.lower() in ARTICLES[language] and rest:
        gender, written = ARTICLES[language][first.lower()], rest
    elif language == "it" and written.lower().startswith("l'"):
        written = written[2:]
    gender = plural_gender or gender or guess_gender(written, language)
    noun = Noun(written, gender)
    return noun._replace(plural=plural or GRAMMARS[language].plural(noun))


def guess_gender(text: str, language: str) -> str:
    """The likely gender of a noun written without its article, by its ending."""
    head = _head(text, language)
    if language == "nl":
        return "n" if head.endswith(("je", "isme", "ment")) else "c"
    if language == "de" and head.endswith(("chen", "lein", "um", "ment")):
        return "n"
    return "f" if head.lower().endswith(FEMININE_ENDINGS[language]) else "m"


def _head(text: str, language: str) -> str:
    """The word of a noun phrase that has the gender (German: the first capitalised)."""
    words = text.split() or [""]
    if language == "de":
        return next((w for w in words if w[:1].isupper()), words[0])
    return words[0]


def _syllables(word: str) -> int:
    return len(re.findall(f"[{VOWELS}äöy]+", word.lower()))


# ----------------------------------------------------------------------------- grammars


class Grammar:
    """Where a noun goes in a question, in one language (a subclass per language).

    ``before`` is a word said between the article and the noun ("siguiente", "mayor"), in
    the form the caller wants it.
    """

    of_word = "de"

    def plural(self, noun: Noun) -> str:
        """The noun in the plural ("" where no rule gives it)."""
        return noun.plural

    def article(self, noun: Noun, first: str, *, many: bool = False) -> str:
        """The definite article before ``first`` (the noun or the word before it)."""
        raise NotImplementedError

    def the(self, noun: Noun, before: str = "") -> str:
        """The noun with its definite article: "el área", "la mayor área", "lo stato"."""
        words = f"{before} {noun.text}".strip()
        return self._join(self.article(noun, words), words)

    def the_plural(self, noun: Noun) -> str:
        """The plural with its article: "los países", "gli stati", "de landen"."""
        many = self.plural(noun)
        return self._join(self.article(noun, many, many=True), many)

    def of_the(self, noun: Noun, before: str = "") -> str:
        """Of and the noun: "del país", "dell'anno", "do país", "van het land"."""
        return self._contract(self.the(noun, before))

    def of_the_plural(self, noun: Noun) -> str:
        """Of and the plural: "de los países", "degli stati", "dos países"."""
        return self._contract(self.the_plural(noun))

    def of_a(self, noun: Noun) -> str:
        """Of a and the noun: "de un país", "di uno stato", "van een land"."""
        return f"{self.of_word} {self._join(self.indefinite(noun, noun.text), noun.text)}"

    def indefinite(self, noun: Noun, first: str) -> str:
        """The indefinite article before ``first``."""
        return "una" if noun.gender == "f" else "un"

    def which(self, noun: Noun) -> str:
        """Which and the noun: "qué país", "welk land"."""
        raise NotImplementedError

    @staticmethod
    def _join(article: str, words: str) -> str:
        return f"{article}{words}" if article.endswith("'") else f"{article} {words}"

    def _contract(self, phrase: str) -> str:
        return f"{self.of_word} {phrase}"


class Spanish(Grammar):
    """Spanish: el/la/los/las, "del", "el" before a feminine stressed a ("el área")."""

    STRESSED_A = frozenset(
        "agua alma arma ala aula ave hacha hambre habla hada ancla arca asa".split()
    )

    def _stressed_a(self, word: str) -> bool:
        low = word.split(" ")[0].lower()
        return low.startswith(("á", "há")) or low in self.STRESSED_A

    def plural(self, noun: Noun) -> str:
        """Spanish plurals: +s after a vowel, +es after a consonant, z -> ces."""
        return noun.plural or _romance_plural(noun.text, _es_word_plural)

    def article(self, noun: Noun, first: str, *, many: bool = False) -> str:
        """El / la / los / las ("el área" but "la mayor área")."""
        if many:
            return "las" if noun.gender == "f" else "los"
        return "la" if noun.gender == "f" and not self._stressed_a(first) else "el"

    def indefinite(self, noun: Noun, first: str) -> str:
        """Un / una ("un área")."""
        return "una" if noun.gender == "f" and not self._stressed_a(first) else "un"

    def _contract(self, phrase: str) -> str:
        return "del" + phrase[2:] if phrase.startswith("el ") else f"de {phrase}"

    def which(self, noun: Noun) -> str:
        """Qué and the noun: "qué país"."""
        return f"qué {noun.text}"


class Italian(Grammar):
    """Italian: il/lo/l'/la, i/gli/le by the next word's sound, "di" contracted."""

    of_word = "di"
    OF = {"il": "del", "lo": "dello", "l'": "dell'", "la": "della", "i": "dei", "gli": "degli",
          "le": "delle"}  # fmt: skip

    @staticmethod
    def _sound(word: str) -> str:
        low = word.lower()
        if re.match(r"s[^aeiouàèéìòù]|z|gn|ps|pn|x|y|i[aeiou]", low):
            return "lo"  # lo stato, lo zaino, gli gnomi
        return "vowel" if low[:1] in VOWELS + "h" else "consonant"

    def plural(self, noun: Noun) -> str:
        """Italian plurals: -o/-e -> -i, -a -> -e (feminine) or -i, -ca -> -che."""
        return noun.plural or _romance_plural(noun.text, lambda w: _it_word_plural(w, noun.gender))

    def article(self, noun: Noun, first: str, *, many: bool = False) -> str:
        """Il / lo / l' / la / i / gli / le."""
        sound = self._sound(first)
        if noun.gender == "f":
            return "le" if many else ("l'" if sound == "vowel" else "la")
        if many:
            return "i" if sound == "consonant" else "gli"
        return {"lo": "lo", "vowel": "l'", "consonant": "il"}[sound]

    def indefinite(self, noun: Noun, first: str) -> str:
        """Un / uno / una / un'."""
        sound = self._sound(first)
        if noun.gender == "f":
            return "un'" if sound == "vowel" else "una"
        return "uno" if sound == "lo" else "un"

    def _contract(self, phrase: str) -> str:
        article = phrase[:2] if phrase.startswith("l'") else phrase.split(" ")[0]
        return self.OF[article] + phrase[len(article) :]

    def which(self, noun: Noun) -> str:
        """Quale and the noun: "quale paese"."""
        return f"quale {noun.text}"


class Portuguese(Grammar):
    """Portuguese: o/a/os/as, contracted after "de" (do, da, dos, das)."""

    def plural(self, noun: Noun) -> str:
        """Portuguese plurals: +s, -ão -> -ões, -m -> -ns, -r/-z -> +es, -l -> -is."""
        return noun.plural or _romance_plural(noun.text, _pt_word_plural)

    def article(self, noun: Noun, first: str, *, many: bool = False) -> str:
        """O / a / os / as."""
        return ("a" if noun.gender == "f" else "o") + ("s" if many else "")

    def indefinite(self, noun: Noun, first: str) -> str:
        """Um / uma."""
        return "uma" if noun.gender == "f" else "um"

    def _contract(self, phrase: str) -> str:
        return f"d{phrase}"  # de + o -> do, de + as -> das

    def which(self, noun: Noun) -> str:
        """Qual and the noun: "qual país"."""
        return f"qual {noun.text}"


class Dutch(Grammar):
    """Dutch: de/het, "van de"/"van het", welk/welke."""

    of_word = "van"

    def article(self, noun: Noun, first: str, *, many: bool = False) -> str:
        """De / het (plural: de)."""
        return "het" if noun.gender == "n" and not many else "de"

    def indefinite(self, noun: Noun, first: str) -> str:
        """Een."""
        return "een"

    def which(self, noun: Noun) -> str:
        """Welk or welke and the noun: "welk land", "welke stad"."""
        return f"{'welk' if noun.gender == 'n' else 'welke'} {noun.text}"


class German(Grammar):
    """German: der/die/das in the nominative, genitive and dative, with the noun's endings.

    A masculine or neuter noun takes -s or -es in the genitive ("des Landes", "des
    Elements"); weak masculine nouns take -en in both ("des Planeten", "dem Planeten").
    Adjectives before the noun ("die maximale Temperatur") take -en after an article in
    the genitive and dative.
    """

    ARTICLES = {
        "nom": {"m": "der", "f": "die", "n": "das", "pl": "die"},
        "gen": {"m": "des", "f": "der", "n": "des", "pl": "der"},
        "dat": {"m": "dem", "f": "der", "n": "dem", "pl": "den"},
    }
    WEAK = {
        **{word: word + "en" for word in (
            "Planet Komet Athlet Satellit Architekt Patient Student Präsident Dirigent Agent "
            "Astronaut Kosmonaut Pilot Soldat Kandidat Automat Monarch Mensch Held Fürst Prinz "
            "Graf Fotograf Philosoph Demokrat Elefant Diamant Astronom Komponist Polizist "
            "Journalist Tourist Spezialist".split())},
        "Herr": "Herrn", "Bär": "Bären", "Nachbar": "Nachbarn",
        "Name": "Namens", "Buchstabe": "Buchstabens", "Gedanke": "Gedankens",
        "Glaube": "Glaubens", "Wille": "Willens", "Friede": "Friedens",
    }  # fmt: skip
    """Masculine nouns with weak or mixed endings: their genitive (the dative drops the -s)."""

    STRONG_E = ("code", "käse", "ee")
    """Masculine endings in -e that are not weak (des Codes, des Sees)."""

    def _weak(self, head: str) -> str | None:
        for word, genitive in self.WEAK.items():
            if head == word:
                return genitive
            if head.endswith(word.lower()):  # der Zwergplanet, der Spitzname
                return head[: -len(word)] + genitive.lower()
        if head.endswith("e") and not head.lower().endswith(self.STRONG_E):
            return head + "n"  # der Löwe, der Vorgesetzte
        return None

    def _genitive(self, head: str, gender: str) -> str:
        if gender == "f" or head.isupper() or not head[-1:].isalpha():
            return head
        if gender == "m" and (weak := self._weak(head)):
            return weak
        if head.endswith("nis"):
            return head + "ses"
        if head.endswith("us") and _syllables(head) > 1 and not head.endswith("haus"):
            return head  # des Radius, des Globus (but des Krankenhauses)
        if head.endswith(("s", "ß", "x", "z", "sch")):
            return head + "es"
        if _syllables(head) == 1 and head[-1] not in VOWELS:
            return head + "es"  # des Landes, des Berges
        return head + "s"

    STRONG = {"m": "er", "f": "e", "n": "es"}
    """Adjective endings with no article before them ("deren maximale Temperatur", "dessen
    höchster Punkt")."""

    def form(self, noun: Noun, case: str) -> str:
        """The noun phrase in a case, without its article.

        ``case``: "nom", "gen", "dat", or "strong" (the nominative after "dessen"/"deren").
        """
        words = noun.text.split()
        head = next((i for i, w in enumerate(words) if w[:1].isupper()), None)
        if case == "nom" or head is None:
            return noun.text
        ending = self.STRONG.get(noun.gender, "e") if case == "strong" else "en"
        adjectives = [w[:-1] + ending if w.endswith("e") else w for w in words[:head]]
        if case == "strong":
            return " ".join([*adjectives, *words[head:]])
        word = words[head]
        if case == "gen":
            word = self._genitive(word, noun.gender)
        elif noun.gender == "m" and (weak := self._weak(word)):
            word = weak.removesuffix("s")
        return " ".join([*adjectives, word, *words[head + 1 :]])

    def plural(self, noun: Noun) -> str:
        """The plural, when it was given (German plurals follow no safe rule)."""
        return noun.plural

    def article(self, noun: Noun, first: str, *, many: bool = False, case: str = "nom") -> str:
        """Der / die / das and their genitive and dative."""
        return self.ARTICLES[case]["pl" if many else noun.gender]

    def the(self, noun: Noun, before: str = "", case: str = "nom") -> str:
        """The noun with its article in a case: "die Hauptstadt", "des folgenden Landes"."""
        return " ".join(w for w in (self.article(noun, "", case=case), before,
                                    self.form(noun, case)) if w)  # fmt: skip

    def of_the(self, noun: Noun, before: str = "") -> str:
        """The genitive: "des Landes", "der folgenden Stadt"."""
        return self.the(noun, before, case="gen")

    def of_the_plural(self, noun: Noun) -> str:
        """The genitive plural: "der Länder"."""
        return f"der {noun.plural}"

    def of_a(self, noun: Noun) -> str:
        """The indefinite genitive: "eines Landes", "einer Stadt"."""
        return f"{'einer' if noun.gender == 'f' else 'eines'} {self.form(noun, 'gen')}"

    def which(self, noun: Noun, case: str = "dat") -> str:
        """Welch- and the noun, in the dative unless told: "welchem Land", "welcher Stadt"."""
        ending = {"dat": {"f": "er"}, "nom": {"m": "er", "f": "e", "n": "es"}}[case]
        return f"welch{ending.get(noun.gender, 'em')} {self.form(noun, case)}"


GRAMMARS: dict[str, Grammar] = {
    "de": German(),
    "es": Spanish(),
    "it": Italian(),
    "nl": Dutch(),
    "pt": Portuguese(),
}
"""The grammar of each language worded by these rules."""


# ----------------------------------------------------------------------------- plurals


def _romance_plural(text: str, word_plural: Callable[[str], str]) -> str:
    """Each word made plural up to the first preposition or bracket.

    "nave espacial" -> "naves espaciales", "raza de perro" -> "razas de perro".
    """
    words = text.split()
    out = []
    for index, word in enumerate(words):
        if word.lower().strip("'") in PREPOSITIONS or word.startswith("(") or "'" in word:
            return " ".join(out + words[index:])
        if word.isupper():  # an abbreviation ("código ISO")
            out.append(word)
            continue
        head, dash, rest = word.partition("-")
        if dash and head.lower() in PREFIXES:  # vice-campeão -> vice-campeões
            out.append(head + dash + word_plural(rest))
        else:  # país-sede -> países-sede
            out.append(word_plural(head) + dash + rest)
    return " ".join(out)


def _es_word_plural(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha():
        return word
    if low[-1] in "aeiouáéó":
        return word + "s"
    if low[-1] in "íú":
        return word + "es"
    if low.endswith("z"):
        return word[:-1] + "ces"
    accent = re.search("[áéíóú]", low)
    last_stressed = re.search("[áéíóú][^aeiouáéíóú]*$", low)
    if low.endswith(("s", "x")) and _syllables(low) > 1 and not last_stressed:
        return word  # el análisis, los análisis
    stressed = re.search(r"(?:[áéó]|(?<![aeiou])[íú])(?=[ns]$)", low)
    if stressed:  # canción -> canciones (país keeps its accent: países)
        i = stressed.start()
        word = word[:i] + "aeiou"["áéíóú".index(low[i])] + word[i + 1 :]
    elif low.endswith("en") and not accent and _syllables(low) > 1:
        # the stress moves back a syllable and is written: origen -> orígenes
        i = max(low.rfind(v, 0, len(low) - 2) for v in "aeiou")
        word = word[:i] + "áéíóú"["aeiou".index(low[i])] + word[i + 1 :]
    return word + "es"


def _it_word_plural(word: str, gender: str) -> str:
    low = word.lower()
    if len(low) < 2 or low[-1] not in "aeio" or _syllables(low) < 2 or low.endswith("ie"):
        return word  # il film, la città, la specie
    if low.endswith(("cia", "gia")):  # arancia -> arance, camicia -> camicie, energia -> energie
        return word[:-2] + ("ie" if low[-4] in VOWELS or low.endswith("rgia") else "e")
    if low.endswith("ico") and _syllables(low) > 2:
        return word[:-1] + "i"  # atomico -> atomici
    if low.endswith(("ca", "ga", "co", "go")):
        return word[:-1] + ("he" if gender == "f" and low[-1] == "a" else "hi")
    if low.endswith("io"):
        return word[:-1]
    if low.endswith("a") and gender == "f":
        return word[:-1] + "e"
    return word[:-1] + "i"


def _pt_word_plural(word: str) -> str:
    low = word.lower()
    if low.endswith("ão"):
        return word[:-2] + "ões"
    if low.endswith("ês"):
        return word[:-2] + "eses"  # o mês -> os meses
    if low[-1:] in VOWELS:
        return word + "s"
    if low.endswith("m"):
        return word[:-1] + "ns"
    if low.endswith(("r", "z")) or (low.endswith("s") and _syllables(low) == 1):
        return word + "es"
    accented = re.search("[áéíóúâêô]", low[:-2])
    if low.endswith(("el", "il")) and accented:
        return word[:-2] + "eis"  # nível -> níveis, fóssil -> fósseis
    endings = {"al": "ais", "el": "éis", "ol": "óis", "ul": "uis", "il": "is"}
    if low[-2:] in endings:
        return word[:-2] + endings[low[-2:]]
    if low.endswith("s") and re.search("[áéíóú]", low[-3:]):
        return word + "es"  # o país -> os países
    return word
