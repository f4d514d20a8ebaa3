"""``benchsmith catalog ...``: the command-line face of the dataset catalog.

Register it on the main CLI with ``cli.add_command(catalog)``. Every failure a user can
cause raises :class:`~benchsmith.catalog.errors.CatalogError`, which the main CLI prints as
one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from benchsmith.catalog.errors import CatalogError, HubUnavailableError
from benchsmith.catalog.limits import CatalogLimits, option_name
from benchsmith.files import canonical_json

if TYPE_CHECKING:
    from benchsmith.catalog.store import Catalog

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _catalog(ctx: click.Context) -> Catalog:
    from benchsmith.catalog.store import Catalog  # lazy: about a second, only when used

    root = (ctx.obj or {}).get("catalog_dir") if isinstance(ctx.obj, dict) else None
    return Catalog(root) if root else Catalog.default()


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Catalog folder (default: $BENCHSMITH_HOME/catalog, i.e. ~/.benchsmith/catalog).",
)
@click.pass_context
def catalog(ctx: click.Context, catalog_dir: str | None) -> None:
    """Dataset catalog: add local data, search it, read records, build the starter set."""
    ctx.ensure_object(dict)
    ctx.obj["catalog_dir"] = catalog_dir


def _limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """One ``--max-...`` option per field of :class:`CatalogLimits`, with its default."""
    for name, spec in reversed(CatalogLimits.model_fields.items()):
        top = next((m.le for m in spec.metadata if getattr(m, "le", None) is not None), None)
        command = click.option(
            option_name(name),
            name,
            type=click.IntRange(min=1, max=top),
            default=None,
            metavar="N",
            help=f"{spec.description} [default: {spec.default}]",
        )(command)
    return command


@catalog.command("add", context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=click.Path())
@click.option("--id", "card_id", metavar="ID", help="Dataset id (default: from the file name).")
@click.option("--name", help="Human-readable name.")
@click.option("--description", help="Description (default: from the data's card or a summary).")
@click.option("--license", "license_", metavar="LICENSE", help="License of the data.")
@click.option("--replace", is_flag=True, help="Overwrite a dataset with the same id.")
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="FIELD:LANG=TEXT",
    help="How questions name a field in a language, e.g. atomic_mass:fr='la masse atomique' "
    "(French with its article, for the gender). Repeatable.",
)
@click.option(
    "--entity",
    "entities",
    multiple=True,
    metavar="LANG=NOUN",
    help="The noun for one record in a language, e.g. en=planet or fr='la planète'. Repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the card as JSON.")
@_limit_options
@click.pass_context
def add_cmd(
    ctx: click.Context,
    path: str,
    card_id: str | None,
    name: str | None,
    description: str | None,
    license_: str | None,
    replace: bool,
    labels: tuple[str, ...],
    entities: tuple[str, ...],
    as_json: bool,
    **caps: int | None,
) -> None:
    """Profile PATH (a data file, a dataset folder, or a .md/.txt/.pdf reference) and add it.

    The --max-... options bound what is read; data over one is refused with a one-line
    error naming the option, and nothing is added.
    """
    limits = CatalogLimits(**{k: v for k, v in caps.items() if v is not None})
    card = _catalog(ctx).add(
        path, id=card_id, name=name, description=description, license=license_,
        replace=replace, limits=limits,
    )  # fmt: skip
    if labels or entities:
        card = _catalog(ctx).add_card(with_words(card, labels, entities), replace=True)
    if as_json:
        click.echo(card.model_dump_json(indent=2))
    else:
        click.echo(f"added {card.summary()}")


def with_words(card: Any, labels: tuple[str, ...], entities: tuple[str, ...]) -> Any:
    """The card with the field labels (``FIELD:LANG=TEXT``) and record nouns (``LANG=NOUN``).

    Raises:
        click.BadParameter: A label names no field of the card, or is not in that form.
    """
    fields = {f.path: f.model_copy(deep=True) for f in card.fields}
    for text in labels:
        head, sep, label = text.partition("=")
        path, colon, lang = head.rpartition(":")
        if not (sep and colon and path and lang and label.strip()):
            raise click.BadParameter(f"{text!r} is not FIELD:LANG=TEXT", param_hint="--label")
        if path not in fields:
            raise click.BadParameter(
                f"{card.id} has no field {path!r} (fields: {', '.join(fields)})",
                param_hint="--label",
            )
        fields[path].labels[lang.strip().lower()] = label.strip()
    entity = dict(card.entity)
    for text in entities:
        lang, sep, noun = text.partition("=")
        if not (sep and lang.strip() and noun.strip()):
            raise click.BadParameter(f"{text!r} is not LANG=NOUN", param_hint="--entity")
        entity[lang.strip().lower()] = noun.strip()
    return card.model_copy(update={"fields": list(fields.values()), "entity": entity})


@catalog.command("list", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the cards as JSON.")
@click.pass_context
def list_cmd(ctx: click.Context, as_json: bool) -> None:
    """List the datasets in the catalog."""
    cards = _catalog(ctx).list()
    if as_json:
        click.echo(_dump([c.model_dump(mode="json") for c in cards]))
        return
    if not cards:
        click.echo("the catalog is empty; add data with 'benchsmith catalog add PATH' or run "
                   "'benchsmith catalog starter'")  # fmt: skip
        return
    for card in cards:
        click.echo(card.summary())


@catalog.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("dataset_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the card as JSON.")
@click.pass_context
def show_cmd(ctx: click.Context, dataset_id: str, as_json: bool) -> None:
    """Show one dataset's card."""
    store = _catalog(ctx)
    card = store.get(dataset_id)
    if as_json:
        click.echo(card.model_dump_json(indent=2))
        return
    lines = [
        f"{card.id}: {card.name}",
        f"  {card.description}",
        f"  size: {card.size} records   modalities: {', '.join(card.modalities)}",
        f"  tasks: {', '.join(card.tasks) or '-'}   domain: {card.domain}   "
        f"languages: {', '.join(card.languages[:20]) or '-'}"
        + (f" (+{len(card.languages) - 20})" if len(card.languages) > 20 else ""),
        f"  license: {card.license}",
        "  provenance: "
        + ", ".join(
            f"{k}={v}" for k, v in card.provenance.model_dump().items() if v not in (None, "")
        ),
        f"  loader: {card.loader.kind} {store.data_path(card.id)}",
        f"  inputs: {', '.join(card.input_fields) or '-'}   "
        f"outputs: {', '.join(card.output_fields) or '-'}",
        "  fields:",
    ]
    for info in card.fields:
        unique = f", {info.n_unique} unique" if info.n_unique is not None else ""
        examples = f"  e.g. {' | '.join(info.examples)}" if info.examples else ""
        lines.append(f"    {info.path} ({info.modality}{unique}): {info.semantics}{examples}")
    click.echo("\n".join(lines))


@catalog.command("search", context_settings=CONTEXT_SETTINGS)
@click.argument("query", default="")
@click.option("--modality", type=click.Choice(["text", "image", "audio", "table"]))
@click.option("--task", help="Only datasets with a task containing this text.")
@click.option("--language", help="Only datasets in this language (ISO code).")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option(
    "--hub",
    is_flag=True,
    help="Also search the Hugging Face Hub (when reachable; reported unavailable offline).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.pass_context
def search_cmd(
    ctx: click.Context,
    query: str,
    modality: str | None,
    task: str | None,
    language: str | None,
    limit: int,
    hub: bool,
    as_json: bool,
) -> None:
    """Search the catalog (BM25 over names, descriptions, fields, tasks, domains)."""
    hits = _catalog(ctx).search(query, modality=modality, task=task, language=language, limit=limit)
    hub_hits: list = []
    hub_note = None
    if hub:
        from benchsmith.catalog.hub import HubSource  # lazy: the Hub client, only for --hub

        source = HubSource()
        status = source.status()
        if status.available:
            try:
                hub_hits = source.search(query, limit=limit)
            except HubUnavailableError as exc:
                hub_note = str(exc)
        else:
            hub_note = f"Hugging Face Hub: {status.reason}"
    if as_json:
        payload: object = [h.model_dump(exclude={"card"}) for h in hits]
        if hub:
            payload = {
                "catalog": payload,
                "hub": [h.model_dump() for h in hub_hits],
                "hub_unavailable": hub_note,
            }
        click.echo(_dump(payload))
        return
    if not hits:
        click.echo("no dataset matches")
    for hit in hits:
        click.echo(
            f"{hit.rank}. {hit.id} ({hit.score:.2f})  {hit.size} records  "
            f"[{', '.join(hit.modalities)}]  {', '.join(hit.tasks)}  - {hit.name}"
        )
    for h in hub_hits:
        click.echo(f"hub: {h.id}  [{', '.join(h.tags[:5])}]  {h.description[:80]}")
    if hub_note:
        click.echo(hub_note)


@catalog.command("starter", context_settings=CONTEXT_SETTINGS)
@click.option("--force", is_flag=True, help="Rebuild datasets that are already up to date.")
@click.pass_context
def starter_cmd(ctx: click.Context, force: bool) -> None:
    """Build the offline starter catalog from datasets inside installed packages."""
    from benchsmith.catalog.starter import build_starter_report  # lazy: only this command

    store = _catalog(ctx)
    outcome = build_starter_report(store, force=force)
    for card in outcome.added:
        click.echo(f"added     {card.id} ({card.size} records, {card.provenance.package} "
                   f"{card.provenance.version})")  # fmt: skip
    for card in outcome.unchanged:
        click.echo(f"unchanged {card.id} ({card.size} records)")
    for dataset_id, reason in outcome.skipped.items():
        click.echo(f"skipped   {dataset_id}: {reason}")
    click.echo(f"{len(outcome.cards)} starter datasets in {store.root}")
    if not outcome.cards:
        raise CatalogError(
            "no starter dataset could be built; install scikit-learn, scikit-image, "
            "vega_datasets or pycountry"
        )


@catalog.command("records", context_settings=CONTEXT_SETTINGS)
@click.argument("dataset_id", metavar="ID")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most N records.")
@click.option("--offset", type=click.IntRange(min=0), default=0, help="Skip N records first.")
@click.pass_context
def records_cmd(ctx: click.Context, dataset_id: str, limit: int | None, offset: int) -> None:
    """Print a dataset's records as JSON Lines (media fields as absolute paths)."""
    for record in _catalog(ctx).records(dataset_id, limit=limit, offset=offset):
        click.echo(canonical_json(record))


@catalog.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("dataset_id", metavar="ID")
@click.pass_context
def remove_cmd(ctx: click.Context, dataset_id: str) -> None:
    """Remove a dataset's card (and any data the catalog made for it)."""
    _catalog(ctx).remove(dataset_id)
    click.echo(f"removed {dataset_id}")
