"""Prompt templates: package files, rendered strictly, with untrusted text fenced off.

Each agent role has its templates here as ``NAME.j2`` files. :func:`render` fails loudly
on a missing variable (``StrictUndefined``). Text that does not come from us (dataset
rows, documents, search results, model output) must go through :func:`untrusted`, which
wraps it in a delimited block that the templates tell the model to treat as data, never
as instructions; a closing delimiter inside the text cannot end the block early.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2
from markupsafe import Markup

from benchsmith.errors import BenchsmithError

UNTRUSTED_OPEN = "<<<UNTRUSTED {label}>>>"
UNTRUSTED_CLOSE = "<<<END UNTRUSTED>>>"


class PromptError(BenchsmithError):
    """A prompt template is missing or was rendered without a variable it needs."""


def untrusted(text: object, label: str = "data") -> Markup:
    """Fence untrusted text so that a prompt can quote it without obeying it.

    Args:
        text: The untrusted content.
        label: A short name for what it is (``dataset row``, ``search result``).

    Returns:
        The delimited block (marked safe so templates insert it as it is).
    """
    body = str(text).replace("<<<", "< < <").replace(">>>", "> > >")
    clean_label = "".join(ch for ch in label if ch.isalnum() or ch in " _-")[:40] or "data"
    return Markup(f"{UNTRUSTED_OPEN.format(label=clean_label)}\n{body}\n{UNTRUSTED_CLOSE}")


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_load),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _load(name: str) -> str | None:
    path = resources.files(__name__).joinpath(name)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def template_names() -> list[str]:
    """Every prompt template shipped in the package."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".j2"))


def render(name: str, **variables: object) -> str:
    """Render the template ``name`` (without ``.j2``).

    Raises:
        PromptError: No such template, or a variable it uses was not given.
    """
    try:
        return _environment().get_template(f"{name}.j2").render(**variables).strip()
    except jinja2.TemplateNotFound as exc:
        raise PromptError(f"no prompt template {name!r}; have {template_names()}") from exc
    except jinja2.UndefinedError as exc:
        raise PromptError(f"prompt {name!r} needs a variable that was not given: {exc}") from exc
