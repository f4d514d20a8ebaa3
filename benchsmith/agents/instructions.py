"""The text shown next to media that carry an item's question, in the item's language.

A question read aloud (``tts_speak``) or rendered as an image (``image_text``) is not
written next to its media: the item's text is an instruction saying what to do with them.
"""

from __future__ import annotations

import re

#: The text shown next to media that carry the question, per delivery and language.
INSTRUCTIONS: dict[str, dict[str, str]] = {
    "audio": {
        "en": "Listen to the recording and answer the question it asks.",
        "fr": "Écoutez l'enregistrement et répondez à la question posée.",
        "de": "Hören Sie sich die Aufnahme an und beantworten Sie die gestellte Frage.",
        "es": "Escuche la grabación y responda a la pregunta que se plantea.",
        "it": "Ascolta la registrazione e rispondi alla domanda che pone.",
        "pt": "Ouça a gravação e responda à pergunta que ela faz.",
        "nl": "Luister naar de opname en beantwoord de vraag die erin wordt gesteld.",
    },
    "image": {
        "en": "Read the question in the image and answer it.",
        "fr": "Lisez la question écrite dans l'image et répondez-y.",
        "de": "Lesen Sie die Frage im Bild und beantworten Sie sie.",
        "es": "Lea la pregunta escrita en la imagen y respóndala.",
        "it": "Leggi la domanda scritta nell'immagine e rispondi.",
        "pt": "Leia a pergunta escrita na imagem e responda a ela.",
        "nl": "Lees de vraag in de afbeelding en beantwoord die.",
    },
}


def base_language(code: str | None) -> str:
    """``pt-br`` -> ``pt``; None or empty -> ``en``."""
    return re.split(r"[-_]", (code or "en").strip().lower(), maxsplit=1)[0] or "en"


def instruction(delivery: str, language: str | None) -> str | None:
    """The instruction shown next to media carrying the question, in the item's language."""
    table = INSTRUCTIONS.get(delivery, {})
    return table.get((language or "en").lower()) or table.get(base_language(language))
