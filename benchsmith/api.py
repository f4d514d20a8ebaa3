"""The Python API: plan a benchmark, or build it end to end.

``plan_benchmark`` runs the graph's planner on an intent and writes ``spec.json``.
``build_benchmark`` plans (or starts from an approved spec), realizes every sample slot,
verifies, refills and writes the benchmark folder. With a ``reviewer`` callback the plan
pauses at ``review_plan`` and the callback's decision (approve, edit or reject) resumes
it: the CLI's ``--review`` asks a person.

A build starts the language-ID worker (:func:`~benchsmith.langid.prewarm_languages`) first,
so that lingua's models load on another core while the rest is imported: LangGraph, the
graph and its agents, the model clients and the catalog (seconds in all) are imported inside
the functions that need them, each with a note.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchsmith.config import RunConfig
from benchsmith.errors import (
    BenchsmithError,
    BudgetExceededError,
    ConfigError,
    describe_validation_error,
)
from benchsmith.files import atomic_write
from benchsmith.graph.progress import SELF_REPORTING, reporting
from benchsmith.langid import prewarm_languages
from benchsmith.layout import RUN_CATALOG, RUN_DIR, spec_path, write_spec
from benchsmith.ledger import LEDGER_FILE
from benchsmith.llm.records import RECORDS_FILE
from benchsmith.review.refill import revoke_rejected
from benchsmith.spec import BenchmarkSpec
from benchsmith.stopping import StopRequested, reason_of

Reviewer = Callable[[dict[str, Any]], dict[str, Any]]


class PlanError(BenchsmithError):
    """No feasible plan: the message names the bottleneck."""


@dataclass
class PlanResult:
    """What planning produced."""

    spec: BenchmarkSpec
    spec_path: Path | None
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def add_run_sources(
    config: RunConfig, out: Path, datasets: Sequence[str], references: Sequence[str]
) -> RunConfig:
    """Catalogue the run's own ``--dataset`` and ``--reference`` sources in the run folder."""
    if not datasets and not references:
        return config
    from benchsmith.catalog.store import Catalog  # lazy: see the module docstring

    catalog = Catalog(out / RUN_CATALOG)
    for path in datasets:
        catalog.add(path, replace=True)
    for path in references:
        catalog.add_reference(path, replace=True)
    return config.with_paths(run_catalog_dir=str(out / RUN_CATALOG))


def plan_benchmark(
    intent: str,
    *,
    size: int = 100,
    out: str | os.PathLike[str] | None = None,
    config: RunConfig | None = None,
    datasets: Sequence[str] = (),
    references: Sequence[str] = (),
    reviewer: Reviewer | None = None,
    progress: Callable[[str, dict[str, Any]], None] | None = None,
) -> PlanResult:
    """Plan a benchmark: subtasks, groundings and quotas.

    Args:
        intent: What the benchmark should measure, in plain language.
        size: Number of items.
        out: Folder for ``spec.json`` (and the run's records); nothing is written when None.
        config: Run configuration (models, budget, loop caps, constraints).
        datasets: Extra data files/folders to ground in.
        references: Reference documents to ground in.
        reviewer: Called with ``{"spec", "summary"}`` when the plan pauses for review;
            returns ``{"action": "approve" | "edit" | "reject", ...}``.
        progress: Called with every node update as it happens (planner nodes are named
            ``planner:design``, ``planner:grounding``, ...).

    Returns:
        The spec, where it was written, and the planner's log.

    Raises:
        PlanError: No feasible plan (the message names the bottleneck), or it was rejected.
    """
    config = config or RunConfig()
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        if config.paths.run_dir is None:
            config = config.with_paths(run_dir=str(out_dir / RUN_DIR))
        config = add_run_sources(config, out_dir, datasets, references)
    config = config.model_copy(update={"review": reviewer is not None})
    values = _run_graph({"intent": intent, "size": size}, config, reviewer, progress)
    if values.get("plan_status") != "ok" or not values.get("spec"):
        raise PlanError(values.get("error") or f"planning ended as {values.get('plan_status')}")
    spec = BenchmarkSpec.model_validate(values["spec"])
    return PlanResult(
        spec=spec,
        spec_path=write_spec(out_dir, spec) if out_dir is not None else None,
        log=list(values.get("planner_log") or []),
        warnings=list(values.get("warnings") or []),
    )


_FROZEN = False

BUILD_GC_THRESHOLD = 10_000
"""The collector's first threshold during a build (Python's default is 700)."""


@contextlib.contextmanager
def _collector_for_builds() -> Iterator[None]:
    """The garbage collector set for a build while it runs; as it was afterwards.

    Imports are frozen once per process (:func:`gc.freeze`): each full collection walks
    every tracked object, and over a 500-item build three of them took 0.37 s (up to
    0.14 s each, every slot thread stopped). Imported code lives as long as the process,
    so walking it finds nothing.

    The first generation is collected after 10,000 net allocations instead of 700: the
    slots' requests in flight keep some 5,000 young objects alive, which every collection
    walks, so at 700 a 2,000-item build ran 570 of them (0.84 s of CPU with every thread
    stopped, ``time.thread_time`` in the collector's callbacks); at 10,000, 29 and 0.23 s,
    with the same resident memory at the end (refcounting frees nearly everything; the
    threshold only delays cycles).
    """
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], BUILD_GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _run_graph(
    payload: dict[str, Any],
    config: RunConfig,
    reviewer: Reviewer | None,
    on_update: Callable[[str, dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the graph to the end, answering review interrupts with ``reviewer``."""
    # Lazy: see the module docstring.
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from benchsmith.agents.collect import slot_workers
    from benchsmith.graph.workflow import build_graph, make_builder

    # A checkpointer only when a person reviews the plan (interrupts need one): without it
    # a large build keeps no per-step copies of its state.
    graph = make_builder().compile(checkpointer=InMemorySaver()) if reviewer else build_graph()
    thread: dict[str, Any] = {
        "configurable": {"thread_id": uuid.uuid4().hex},
        # A few more slot workers than model requests in flight (collect.slot_workers).
        "max_concurrency": slot_workers(config.concurrency),
        "recursion_limit": recursion_limit(config, int(payload.get("size") or 0)),
    }
    current: Any = payload
    final: dict[str, Any] = {}
    while True:
        # The planner's and the slots' nodes report to on_update themselves (see
        # benchsmith.graph.progress): streaming the subgraphs would copy every slot step.
        with reporting(config, on_update) as emit:
            for mode, chunk in graph.stream(
                current, thread, context=config, stream_mode=["updates", "values"]
            ):
                if mode == "values" and isinstance(chunk, dict):
                    final = chunk
                elif mode == "updates" and isinstance(chunk, dict):
                    for node, update in chunk.items():
                        if isinstance(update, dict) and node not in SELF_REPORTING:
                            emit(node, update)
        if reviewer is None:
            break
        snapshot = graph.get_state(thread, subgraphs=True)
        pending = _interrupts(snapshot)
        if not pending:
            break
        current = Command(resume=reviewer(pending[0]))
    if reviewer is not None:
        return dict(graph.get_state(thread).values)
    return final


def recursion_limit(config: RunConfig, size: int) -> int:
    """Supersteps a build may take, from its size and refill caps.

    The limit holds for the build graph and, apart, for each invocation of the slot
    subgraph, whose steps LangGraph counts against the same setting.

    - The build graph: planning takes at most ``4 + max_allocation_rounds`` steps; each
      round is one fan-out of slot tasks (one ``collect`` and one ``realize`` step), at
      worst one per ``slot_workers`` slots when tasks end early, and a round holds at most
      ``size * max_slots_factor``.
    - A slot task runs its slots one after another inside one subgraph invocation: each
      candidate takes computed and verify, then accept or discard, and at worst one task
      realizes every candidate the round may draw.
    """
    from benchsmith.agents.collect import slot_workers  # lazy: see the module docstring

    planning = 4 + config.max_allocation_rounds
    records = math.ceil(max(size, 1) * config.max_slots_factor)
    fan_outs = max(1, math.ceil(records / slot_workers(config.concurrency)))
    building = 2 * fan_outs * (config.max_refill_rounds + 2) + 4
    per_record = 3
    return max(200, 2 * (planning + building), 2 * per_record * records)


def _interrupts(snapshot: Any) -> list[Any]:
    found = []
    for task in snapshot.tasks:
        found.extend(i.value for i in task.interrupts)
        if task.state is not None:
            found.extend(_interrupts(task.state))
    return found


# -- build ------------------------------------------------------------------------------------
BUILD_FILE = "build.json"

#: Called for every node update of a build: ``progress(node, update)``.
Progress = Callable[[str, dict[str, Any]], None]


class BuildError(BenchsmithError):
    """A build cannot start or continue: the message says why and what to do."""

    exit_code = 2  # a usage or input error: the folder, the spec file, the settings


@dataclass
class BuildResult:
    """What a build produced."""

    out: Path
    spec: BenchmarkSpec
    report: dict[str, Any]
    status: str
    log: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def items(self) -> int:
        """Accepted items written to ``data/test.jsonl``."""
        return int(self.report.get("items", 0))


@dataclass(frozen=True)
class _BuildRequest:
    """One build as :func:`build_benchmark` settled it: where, what, how, and who is told."""

    out_dir: Path
    intent: str
    size: int
    config: RunConfig
    spec: BenchmarkSpec | None
    """The approved plan to realize (None: plan first)."""
    datasets: Sequence[str]
    references: Sequence[str]
    resume: bool
    reviewer: Reviewer | None
    progress: Progress | None

    @property
    def run_dir(self) -> Path:
        """The build's working folder (journal, settings, records), kept for ``--resume``."""
        return self.out_dir / RUN_DIR

    @property
    def settings_path(self) -> Path:
        """Where the settings that make ``out_dir`` a build are (see :func:`_settings`)."""
        return self.run_dir / BUILD_FILE


def _load_spec(spec: BenchmarkSpec | str | os.PathLike[str] | dict[str, Any]) -> BenchmarkSpec:
    if isinstance(spec, BenchmarkSpec):
        return spec
    if isinstance(spec, dict):
        return BenchmarkSpec.model_validate(spec)
    path = Path(spec)
    try:
        return BenchmarkSpec.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BuildError(f"spec file {str(path)!r} does not exist") from exc
    except (ValidationError, ValueError) as exc:
        detail = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise BuildError(f"spec file {str(path)!r} is not a valid plan: {detail}") from exc


def _settings(config: RunConfig, intent: str, size: int) -> dict[str, Any]:
    """What must not change between a build and its resumption."""
    return {
        "intent": intent,
        "size": size,
        "seed": config.seed,
        "languages": list(config.languages),
        "modalities": list(config.modalities),
        "answer_formats": list(config.answer_formats),
        "judge": config.judge,
        # Only when asked for, so a build without a mix writes what it always wrote.
        **({"difficulty_mix": dict(config.difficulty_mix)} if config.difficulty_mix else {}),
    }


def build_benchmark(
    intent: str | None = None,
    *,
    size: int = 100,
    out: str | os.PathLike[str],
    model: str | None = None,
    config: RunConfig | None = None,
    datasets: Sequence[str] = (),
    references: Sequence[str] = (),
    spec: BenchmarkSpec | str | os.PathLike[str] | dict[str, Any] | None = None,
    resume: bool = False,
    reviewer: Reviewer | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Build a benchmark: plan, realize, verify, refill, and write the folder ``out``.

    Args:
        intent: What the benchmark should measure (not needed with ``spec``).
        size: Number of items (taken from ``spec`` when given).
        out: The benchmark folder.
        model: Model spec for every role (overrides ``config.model``).
        config: Run configuration (seed, budget, concurrency, caps, constraints).
        datasets: Extra data files/folders to ground in.
        references: Reference documents to ground in.
        spec: An approved plan (a ``spec.json`` path, a dict or a ``BenchmarkSpec``): skip
            planning and realize it (with ``config.seed``, so a new seed gives fresh items).
        resume: Continue the build already in ``out`` (finished items are kept, recorded
            model calls are not paid again).
        reviewer: Approves, edits or rejects the plan before realization (see
            :func:`plan_benchmark`).
        progress: Called with every graph node's update (for progress bars).

    Returns:
        The folder, the spec, the report and the status (``complete`` or ``shortfall``).

    Raises:
        BuildError: ``out`` holds another build (without ``resume``), or the resumed
            build was started with other settings.
        PlanError: No feasible plan.
        BudgetExceededError: The budget ran out (what was accepted is packaged first).
    """
    config = config or RunConfig()
    if model is not None:
        config = config.model_copy(update={"model": model})
    # Before the graph's imports: lingua's models load on another core meanwhile.
    prewarm_languages(list(config.languages) or ["en"])
    out_dir = Path(out)
    run_dir = out_dir / RUN_DIR
    settings_path = run_dir / BUILD_FILE
    occupied = out_dir.exists() and any(p.name != RUN_DIR for p in out_dir.iterdir())
    if not resume and (occupied or settings_path.is_file()):
        raise BuildError(
            f"output folder {str(out_dir)!r} is not empty; pass --resume to continue the build "
            "in it, or choose another --out"
        )
    if resume and not settings_path.is_file():
        if occupied:
            raise BuildError(
                f"{str(out_dir)!r} holds no benchsmith build to resume (no {RUN_DIR}/{BUILD_FILE})"
            )
        resume = False
    parsed_spec = _load_spec(spec) if spec is not None else None
    if parsed_spec is not None:
        intent, size = parsed_spec.intent, parsed_spec.size
    if resume:
        saved = json.loads(settings_path.read_text(encoding="utf-8"))
        intent = saved["intent"] if intent is None else intent
        size = saved["size"] if parsed_spec is None else size
        if "seed" not in config.model_fields_set:
            # No seed was given: the build goes on with the one it was started with.
            config = config.model_copy(update={"seed": saved["seed"]})
        if "difficulty_mix" not in config.model_fields_set and saved.get("difficulty_mix"):
            # No mix was given: the build goes on with the one it was started with.
            config = config.model_copy(update={"difficulty_mix": saved["difficulty_mix"]})
        # Nor languages, modalities, formats or judge: `--resume --out DIR` alone goes on
        # as the build was started.
        kept = {
            key: saved[key]
            for key in ("languages", "modalities", "answer_formats", "judge")
            if key in saved and key not in config.model_fields_set
        }
        if kept:
            config = config.model_copy(update=kept)
        now = _settings(config, intent or "", size)
        keys = [*now, *(["difficulty_mix"] if "difficulty_mix" not in now else [])]
        changed = [k for k in keys if saved.get(k) != now.get(k)]
        if changed:
            raise BuildError(
                f"cannot resume {str(out_dir)!r}: it was started with other settings "
                f"({', '.join(f'{k}={saved.get(k)!r}' for k in changed)}); "
                "rerun with the same ones or build into a new folder"
            )
        if parsed_spec is None and spec_path(out_dir).is_file():
            parsed_spec = _load_spec(spec_path(out_dir))
    if not intent:
        raise BuildError("give an intent (what the benchmark should measure) or --spec")
    request = _BuildRequest(
        out_dir=out_dir,
        intent=intent,
        size=size,
        config=config,
        spec=parsed_spec,
        datasets=datasets,
        references=references,
        resume=resume,
        reviewer=reviewer,
        progress=progress,
    )
    fresh = not resume and not occupied  # nothing of a build is in out_dir before this one
    existed = out_dir.is_dir()
    try:
        with _collector_for_builds():
            return _build_into(request)
    except BaseException as exc:
        if fresh and not _work_done(run_dir):
            # A build that failed before any finished slot or paid model call leaves
            # nothing behind, so the same command works again without --resume.
            _remove_build(out_dir, keep_folder=existed)
            if isinstance(exc, StopRequested):
                raise StopRequested(
                    f"{reason_of()}: stopped before any work was finished; nothing was kept"
                ) from None
        raise
    finally:
        _mark_part(run_dir, "end")  # a resume counts this part's time up to here


def _build_into(request: _BuildRequest) -> BuildResult:
    """Run ``request``'s build in its folder (the settings first, then the graph)."""
    out_dir, run_dir = request.out_dir, request.run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    config = request.config.with_paths(out_dir=str(out_dir), run_dir=str(run_dir)).model_copy(
        update={"review": request.reviewer is not None}
    )
    config = add_run_sources(config, run_dir, request.datasets, request.references)
    # Lazy: see the module docstring.
    from benchsmith.llm.registry import runtime_for

    # The slots' model clients are built while the plan loads (see LLMRuntime.prewarm).
    with contextlib.suppress(ConfigError):  # a bad model spec: the first call says so
        runtime_for(config).prewarm()
    if not request.resume:
        if request.spec is not None:
            # The approved plan is on disk before the settings that make this a build, so a
            # build killed at once resumes from it rather than planning anew.
            write_spec(out_dir, request.spec)
        settings = _settings(config, request.intent, request.size)
        atomic_write(request.settings_path, json.dumps(settings, indent=2) + "\n")
    _mark_part(run_dir)
    refill_log: list[str] = []
    if request.resume:
        replaced = revoke_rejected(out_dir, run_dir)
        if replaced:
            refill_log.append(
                f"review: {len(replaced)} item(s) rejected in review are replaced by fresh ones"
            )
    payload: dict[str, Any] = {"intent": request.intent, "size": request.size, "build": True}
    if request.spec is not None:
        payload["spec"] = request.spec.model_dump(mode="json")
    try:
        values = _run_graph(payload, config, request.reviewer, request.progress)
    except BudgetExceededError:
        _package_partial(config, request.spec or _load_spec_if_any(spec_path(out_dir)))
        raise
    except StopRequested:
        # Ctrl-C / SIGTERM: what is finished is written, and the message says how to go on.
        kept = _package_partial(
            config, request.spec or _load_spec_if_any(spec_path(out_dir)), status="interrupted"
        )
        where = (
            f"{kept} finished item(s) written to {str(out_dir)!r}"
            if kept is not None
            else ("planning was not finished")
        )
        raise StopRequested(
            f"{reason_of()}: stopped; {where}; continue with: "
            f"benchsmith build --resume --out {out_dir}"
        ) from None
    if values.get("plan_status") != "ok" or not values.get("spec"):
        raise PlanError(values.get("error") or f"planning ended as {values.get('plan_status')}")
    report = values.get("report") or {}
    return BuildResult(
        out=out_dir,
        spec=BenchmarkSpec.model_validate(values["spec"]),
        report=report,
        status=str(report.get("status") or values.get("build_status")),
        log=refill_log
        + list(values.get("planner_log") or [])
        + list(values.get("build_log") or []),
        warnings=list(values.get("warnings") or []),
    )


def _work_done(run_dir: Path) -> bool:
    """Whether the build in ``run_dir`` finished a slot or made a model call worth keeping."""
    ledger = run_dir / LEDGER_FILE
    if ledger.is_file() and b"\n" in ledger.read_bytes():
        return True
    records = run_dir / RECORDS_FILE
    if records.is_file():
        with open(records, encoding="utf-8", errors="replace") as fh:
            return any('"kind": "call"' in line or '"kind":"call"' in line for line in fh)
    return False


def _remove_build(out_dir: Path, *, keep_folder: bool) -> None:
    """Remove what a build that did no work wrote (``out_dir`` was new or empty before)."""
    if not keep_folder:
        shutil.rmtree(out_dir, ignore_errors=True)
        return
    for child in out_dir.iterdir() if out_dir.is_dir() else ():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _mark_part(run_dir: Path, what: str = "start") -> None:
    """Note when this part of the build started or ended (the report sums the parts)."""
    if not run_dir.is_dir():
        return
    with open(run_dir / "parts.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({what: round(time.time(), 3)}) + "\n")


def _load_spec_if_any(path: Path) -> BenchmarkSpec | None:
    return _load_spec(path) if path.is_file() else None


def _package_partial(
    config: RunConfig, spec: BenchmarkSpec | None, status: str = "budget_exhausted"
) -> int | None:
    """After the budget ran out or a stop: package what was accepted, marked ``status``.

    Returns:
        The number of items written, or None when there was no plan yet.
    """
    from benchsmith.agents.packaging import package_build  # lazy: see the module docstring

    if spec is None:
        return None
    report = package_build(
        config,
        spec,
        targets={a.grounding_id: a.quota for a in spec.allocations},
        shortfalls=[],
        models={},
        started_at=time.time(),
        status=status,
    )
    return int(report.get("items") or 0)
