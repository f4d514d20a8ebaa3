"""``benchsmith review``: a thin wrapper over :mod:`benchsmith.review.server`."""

from __future__ import annotations

import getpass

import click

from benchsmith.cli_options import CONTEXT_SETTINGS, bench_dir_argument


def _default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "reviewer"


@click.command("review", context_settings=CONTEXT_SETTINGS)
@bench_dir_argument
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to serve on. Any address but loopback requires the token the URL carries.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="0: a free port."
)
@click.option(
    "--reviewer",
    default=None,
    help="The name your decisions are recorded under [default: your user name].",
)
@click.option("--no-browser", is_flag=True, help="Print the URL; do not open a browser.")
def review_command(
    bench_dir: str, host: str, port: int, reviewer: str | None, no_browser: bool
) -> None:
    """Review the items of the benchmark in DIR in a local web page.

    Each item is shown as the evaluated model receives it (text, image, audio player,
    choices with the target marked), with its source record, tool trace and every check's
    verdict. Keys: a accept, r reject (then 1-7 for the reason), e edit, j/k next and
    previous. Every decision is appended at once to DIR/review.jsonl; reopening resumes where
    you stopped. Stop the server with Ctrl-C.

    \b
    Example:
      benchsmith review out/demo/spoken-capitals --reviewer ana
    """
    from benchsmith.review.server import serve  # lazy: Starlette and the catalog, seconds

    def ready(url: str) -> None:
        click.echo(f"reviewing {bench_dir} at {url}  (Ctrl-C to stop)", err=True)
        if not no_browser:
            import webbrowser

            webbrowser.open(url)

    try:
        serve(
            bench_dir,
            host=host,
            port=port,
            reviewer=reviewer or _default_reviewer(),
            on_ready=ready,
        )
    except KeyboardInterrupt:
        click.echo("review stopped; every decision is in review.jsonl", err=True)
