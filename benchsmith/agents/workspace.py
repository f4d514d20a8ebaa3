"""The workspace of a build: what the slots of one run share, and the steps they take.

A *slot* is one attempt at one item (see :mod:`benchsmith.agents.realize`, whose nodes
realize slots in parallel threads). :class:`Workspace` holds what they share: the plan,
the build ledger, the duplicate index, the plan's datasets (:class:`PlanData`) and
computed candidates (:class:`Candidates`), the tool context, the round's queue of slots
not taken yet and its reserve of replacement candidates (set by ``collect``), and the tail
backups' bookkeeping.

There is one per run: :func:`open_workspace` opens it from ``spec.json`` on first use and
keeps it on the run's configuration object, the graph's context, which every node of the
run is given (:class:`~benchsmith.config.RunShared`). A resumed build, a new run, opens it
again from disk: the ledger says which slots are finished.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
from pathlib import Path
from typing import Any

from benchsmith.agents.backups import TailBackups
from benchsmith.agents.candidates import Candidates
from benchsmith.agents.execution import (
    InstructionMissingError,
    media_for_text,
    slot_ranges,
    speakable,
)
from benchsmith.agents.plan_data import PlanData
from benchsmith.agents.slot_queue import Reserve, SlotQueue
from benchsmith.agents.verification import ReviewContext, Verification, verify
from benchsmith.config import RunConfig
from benchsmith.errors import ConfigError, ToolError
from benchsmith.item import Message
from benchsmith.layout import spec_path
from benchsmith.ledger import Ledger
from benchsmith.llm.client import RoleModel
from benchsmith.llm.registry import get_model
from benchsmith.spec import BenchmarkSpec, Grounding
from benchsmith.state import Draft, Failure, Slot
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.tts import available_voices
from benchsmith.verify.duplicates import DuplicateIndex
from benchsmith.verify.programs import check_program


class Workspace:
    """What the slots of one build share in this process.

    Args:
        config: The run configuration (``out_dir`` and ``run_dir`` must be set).
        spec: The plan being realized.
    """

    def __init__(self, config: RunConfig, spec: BenchmarkSpec) -> None:
        """Open the ledger and rebuild the duplicate index from the accepted items."""
        self.data = PlanData(config, spec)
        """The plan's datasets: records, cards, references."""
        self.candidates = Candidates(self.data)
        """Solution-graph problems and question-program items, generated once."""
        self.config = config
        self.spec = spec
        self.bench_dir = self.data.bench_dir
        self.run_dir = self.data.run_dir
        self.subtasks = self.data.subtasks
        self.groundings = self.data.groundings
        self.ledger = Ledger(self.run_dir)
        self.duplicates = DuplicateIndex(media_root=self.bench_dir)
        for item in self.ledger.accepted_items():
            self.duplicates.add(item)
        roots = [self.bench_dir, self.run_dir, *(Path(s.root) for s in self.data.sources)]
        self.tool_context = ToolContext(
            media_dir=self.run_dir / "work",
            seed=config.seed,
            limits=Limits(),
            run_dir=self.run_dir,
            allowed_roots=tuple(p.resolve() for p in [*roots, *self.data.dataset_folders()]),
        )
        budgeted = config.budget_usd is not None or config.budget_tokens is not None
        self.backups = TailBackups(
            enabled=config.tail_backups == "on" or (config.tail_backups == "auto" and not budgeted)
        )
        """Speculative slots at the end of each fan-out (:mod:`benchsmith.agents.backups`)."""
        self._queue = SlotQueue()
        self._reserve: dict[str, Reserve] = {}
        self._lock = threading.Lock()
        self._warm_started = False
        self._voices: dict[str, str] | None = None
        self._voices_lock = threading.Lock()

    # -- the round: what collect sets, what the slot tasks take --------------------------------
    def start_round(self, slots: list[Slot], reserve: dict[str, Reserve]) -> None:
        """Queue a round's slots, with each grounding's candidates to replace rejected ones.

        Called by ``collect`` while no slot runs (a step ends when all its slots have).
        """
        self._reserve = dict(reserve)
        self._queue = SlotQueue(slots)

    def queued(self) -> int:
        """Slots of the round that no slot task has taken yet."""
        return len(self._queue)

    def fan_out(self, workers: int) -> list[Slot]:
        """The first slot of each of up to ``workers`` slot tasks; their fan-out begins."""
        sends = self._queue.take_many(workers)
        self.backups.begin_fan_out(len(sends))
        return sends

    def next_slot(self) -> Slot | None:
        """The round's next slot for a slot task that finished one (None: none is left)."""
        return self._queue.take()

    def replacement(self, slot: Slot) -> Slot | None:
        """A slot in place of ``slot``: its grounding's next reserved candidate, in its language.

        A rejected slot goes on with it, and a tail backup races ``slot`` with it.
        """
        reserve = self._reserve.get(slot.grounding_id)
        return reserve.take(like=slot) if reserve is not None else None

    # -- one slot: the steps the slot subgraph's nodes take ------------------------------------
    def voices(self) -> dict[str, str]:
        """espeak-ng voice name to language (loaded once, by one thread)."""
        if self._voices is None:
            with self._voices_lock:
                if self._voices is None:
                    try:
                        self._voices = available_voices()
                    except ToolError:
                        self._voices = {}
        return self._voices

    def work_dir(self, slot: Slot) -> Path:
        """Scratch folder of a slot's tools (emptied before each attempt, removed after)."""
        return self.run_dir / "work" / slot.item_id

    def program_media(self, slot: Slot, draft: Draft) -> Draft | Failure:
        """A program item spoken or rendered as its grounding's plan says (else as it is).

        The whole prompt is the text: a spoken open-book item reads its rows aloud, one
        sentence per row. The choices stay written. A program over pictures shows its
        records' own files (several in a grid) next to the written question.
        """
        grounding = self.groundings[slot.grounding_id]
        spec = grounding.program
        media: list[Path] = []
        if spec is not None and spec.media_field:
            # The records' own pictures, in the order the program shows them (A, B, ...).
            table = self.candidates.program_tables(grounding)[spec.table]
            rows = draft.item.metadata.get("program", {}).get("rows", [])
            media = [Path(table.media_file(int(r), spec.media_field)) for r in rows]
        if not grounding.plan and not media:
            return draft
        language = slot.language or "en"
        text = draft.item.input_text() if media else speakable(draft.item.input_text())
        work = self.work_dir(slot)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True, exist_ok=True)
        try:
            parts, trace, speech, image = media_for_text(
                text,
                grounding,
                slot_ranges(grounding, language, self.voices()),
                slot_id=slot.id,
                item_id=slot.item_id,
                language=language,
                bench_dir=self.bench_dir,
                work_dir=work,
                seed=self.config.seed,
                tool_context=self.tool_context,
                media=media,
            )
        except InstructionMissingError as exc:
            return Failure(reason=f"instruction: {exc}", check="instruction")
        except ToolError as exc:
            return Failure(reason=f"tool: {exc}", check="tool")
        item = draft.item.model_copy(deep=True)
        item.input = [Message(role="user", content=parts)]
        item.metadata["modalities"] = ["text", *(p.type for p in parts[1:])]
        item.metadata["trace"] = trace
        if speech is not None:
            item.metadata["spoken_text"] = text
        if image is not None:
            item.metadata["rendered_text"] = text  # the words drawn into the picture
        return Draft(
            item=item,
            question=draft.question,
            answer=draft.answer,
            trace=trace,
            clean_speech=speech,
            rendered_image=image,
            shown_text=parts[0].text,  # type: ignore[union-attr]
        )

    def check(self, slot: Slot, draft: Draft) -> Verification:
        """Verify a draft (structural, reviewer, duplicate and judge checks)."""
        grounding = self.groundings[slot.grounding_id]
        subtask = self.subtasks[grounding.subtask_id]
        judge = self._judge()
        common = {
            "subtask": subtask,
            "bench_dir": self.bench_dir,
            "languages": [slot.language] if slot.language else None,
            "judge": judge,
            "judge_enforced": judge is not None and self.config.judge in ("enforce", "auto"),
            "duplicates": self.duplicates,
            "limits": self.tool_context.limits,
        }
        language = slot.language or "en"
        if grounding.strategy == "question_program":
            return self._check_program(slot, grounding, draft, common)
        review = ReviewContext(language=language, max_words=150)
        return verify(draft.item, question=draft.question, review=review, **common)

    def _check_program(
        self, slot: Slot, grounding: Grounding, draft: Draft, common: dict[str, Any]
    ) -> Verification:
        """Verify a question-program item: the usual checks and the program re-executed."""
        program = draft.item.metadata.get("program") or {}
        kind = program.get("kind")
        names = tuple(program.get("named") or ())
        # A lookup names its record; a comparison names every record it ranks (the answer
        # is one of them by construction); an open-book item shows its rows.
        ranks = kind in ("compare", "superlative") or (kind == "multihop" and program.get("field"))
        entity = (
            names[0]
            if kind in ("lookup", "filtered_lookup", "multihop") and names and not ranks
            else None
        )
        aliases = names if ranks else ()
        spoken = draft.item.metadata.get("spoken_text")
        # A question that states values (a classification's features, the records a
        # closed-book count names) is longer by a few words per value.
        stated = 0
        if kind == "classify":
            stated = len(program.get("features") or {})
        elif kind == "count" and program.get("book") == "closed":
            stated = len(program.get("rows") or [])
        review = ReviewContext(
            language=slot.language or "en",
            sentence_words=40 + 5 * stated,
            entity=entity,
            alternatives=tuple(a for a in aliases if a != entity),
            dedupe_key=f"{kind}:{program.get('rows')}",
            clean_speech=draft.clean_speech,
            spoken_text=spoken,
            rendered_image=draft.rendered_image,
            rendered_text=draft.item.metadata.get("rendered_text"),
        )
        return verify(
            draft.item,
            question=draft.question,
            review=review,
            context_shown=program.get("book") == "open",
            # The program executed again, among the checks before the judge and duplicates.
            recomputed=check_program(draft.item, self.candidates.program_tables(grounding)),
            **common,
        )

    def _judge(self) -> RoleModel | None:
        """The verification role's model when the judge runs (None: judging is off).

        ``auto`` skips the judge when that role is the embedded model: its verdicts could
        not be enforced, and asking for them took nearly all of a build's time.
        """
        mode = self.config.judge
        if mode == "off":
            return None
        judge = get_model(self.config, "verification")
        if mode == "auto" and judge.spec.provider == "local":
            return None
        return judge

    def drop_media(self, draft: Draft) -> None:
        """Remove a failed draft's media from the benchmark folder."""
        for _kind, path in draft.item.media_paths():
            (self.bench_dir / path).unlink(missing_ok=True)

    def warm_packaging(self) -> None:
        """Load the packaging modules on a background thread, once per build.

        Packaging imports pyarrow's pandas layer, the card and the exports (about 0.5 s of
        CPU) and reads the source the exports copy: once the first item is accepted the
        slots spend most of their time waiting on the model, so this happens then rather
        than after the last item.
        """
        with self._lock:
            if self._warm_started:
                return
            self._warm_started = True

        def warm() -> None:
            with contextlib.suppress(Exception):  # packaging reports its own errors
                # Imported here, on this thread: loading them is the point.
                from benchsmith.package import card, inspect_export  # noqa: F401
                from benchsmith.package.hf_export import preload
                from benchsmith.package.lmeval_export import render_utils
                from benchsmith.review import journal  # noqa: F401

                preload()
                render_utils()

        threading.Thread(target=warm, name="benchsmith-warm-packaging", daemon=True).start()


def open_workspace(config: RunConfig) -> Workspace:
    """The workspace of the run whose configuration (graph context) is ``config``.

    Opened from ``spec.json`` on the first call of the run and shared by every later one,
    whatever the thread (``collect`` writes ``spec.json`` before the first slot is sent).

    Raises:
        ConfigError: No output folder, or no ``spec.json`` in it yet.
    """
    return config.shared.get(lambda: _open(config))


def _open(config: RunConfig) -> Workspace:
    if not config.paths.out_dir:
        raise ConfigError("a build needs an output folder (--out)")
    path = spec_path(config.paths.out_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"{path} is missing: the build's plan is written there before any slot runs"
        ) from exc
    return Workspace(config, BenchmarkSpec.model_validate_json(text))


def current_workspace(config: RunConfig) -> Workspace | None:
    """The run's workspace if it was opened (its slots ran in this process), else None."""
    return config.shared.peek()


def close_workspace(config: RunConfig) -> None:
    """Let go of the run's workspace (its loaded records) once the folder is packaged."""
    config.shared.clear()
