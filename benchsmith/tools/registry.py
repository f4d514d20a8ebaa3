"""The tool registry: a decorator, a name-to-tool map, typed parameters, provenance.

A tool is a function ``fn(ctx, params, inputs) -> ToolOutput`` registered with::

    @tool("image_resize", params=ResizeParams, category="image", inputs=InputSpec("image"))
    def resize(ctx: ToolContext, params: ResizeParams, inputs: list[Path]) -> ToolOutput:
        '''Resize an image ... (this docstring is the description the planner reads).'''

:func:`run_tool` validates the parameters, checks the inputs, derives the call's seed and
output names from (tool, parameters, input contents, run seed) so that the same call gives
byte-identical files, runs the tool, and returns its outputs with a provenance record:
tool, parameters, inputs and outputs (with SHA-256), measured properties and values. The
provenance holds no timings, so it is reproducible too; the elapsed time is kept beside it.

The registry is a leaf: it imports none of the tools. The package ``benchsmith.tools``
imports the tool modules, whose decorators register them, so importing anything from the
package (this module included) registers every built-in tool.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchsmith.errors import (
    PostconditionError,
    ToolParamError,
    UnknownToolError,
    describe_validation_error,
)
from benchsmith.files import canonical_json
from benchsmith.tools.context import ToolContext, check_input_file, stable_seed

Category = Literal["speech", "image", "audio", "search", "convert", "text", "data"]
InputKind = Literal["image", "audio", "text", "table", "json", "any"]


class ToolParams(BaseModel):
    """Base of every tool's parameter model: strict, with an optional output name."""

    model_config = ConfigDict(extra="forbid")

    output_name: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Relative file name for the output inside the media folder; "
        "default: derived from the tool, its inputs and parameters.",
    )


@dataclass(frozen=True)
class InputSpec:
    """What input files a tool takes."""

    kind: InputKind = "any"
    min: int = 1
    max: int = 1

    def describe(self) -> str:
        """E.g. ``1 image`` or ``2-8 audio files``."""
        if self.max == 0:
            return "no input files"
        count = str(self.min) if self.min == self.max else f"{self.min}-{self.max}"
        return f"{count} {self.kind} file(s)"


# For tools that make their output from their parameters alone (speech, search, fetch).
NO_INPUTS = InputSpec("any", min=0, max=0)


@dataclass
class ToolOutput:
    """What a tool function returns: files it wrote, what it measured, other values."""

    files: list[Path] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)


class FileRecord(BaseModel):
    """A file a tool read or wrote."""

    path: str
    sha256: str
    bytes: int


class Provenance(BaseModel):
    """How an output was made; enough to make it again."""

    tool: str
    params: dict[str, Any]
    seed: int
    inputs: list[FileRecord]
    outputs: list[FileRecord]
    measured: dict[str, Any]


class ToolResult(BaseModel):
    """The result of one tool call."""

    tool: str
    outputs: list[str] = Field(description="Output files, relative to the media folder.")
    values: dict[str, Any] = Field(default_factory=dict)
    provenance: Provenance
    elapsed_s: float


@dataclass(frozen=True)
class ToolSpec:
    """A registered tool."""

    name: str
    fn: Callable[[ToolContext, Any, list[Path]], ToolOutput]
    params: type[ToolParams]
    category: Category
    inputs: InputSpec
    description: str
    outputs: str = "file"

    def parameters_schema(self) -> dict[str, Any]:
        """The compact JSON schema of the parameters, for planners.

        Titles and the model's own docstring are dropped, and so is ``output_name`` (the
        executor names outputs).
        """
        schema = _strip_titles(self.params.model_json_schema())
        schema.get("properties", {}).pop("output_name", None)
        schema.pop("description", None)
        return schema


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


_REGISTRY: dict[str, ToolSpec] = {}
_SECTIONS = ("Args:", "Returns:", "Raises:", "Yields:", "Examples:", "Note:", "Notes:")


def planner_description(doc: str) -> str:
    """The docstring paragraphs before any Google-style section, joined into one text."""
    import inspect

    kept = []
    for paragraph in inspect.cleandoc(doc).split("\n\n"):
        if paragraph.strip().startswith(_SECTIONS):
            break
        kept.append(" ".join(paragraph.split()))
    return " ".join(p for p in kept if p)


def discard_output(path: Path | None, message: str) -> PostconditionError:
    """Delete an output that missed its post-condition and return the error to raise.

    Every tool uses this, so a failed check never leaves a bad file in the media folder.
    """
    if path is not None:
        Path(path).unlink(missing_ok=True)
    return PostconditionError(message)


def tool(
    name: str,
    *,
    params: type[ToolParams],
    category: Category,
    inputs: InputSpec | None = None,
    outputs: str = "file",
) -> Callable[[Callable[..., ToolOutput]], Callable[..., ToolOutput]]:
    """Register a tool function under ``name``; its docstring is its description."""
    if not name.replace("_", "").isalnum() or not name.islower():
        raise ValueError(f"tool name {name!r}: use lowercase letters, digits and underscores")

    def register(fn: Callable[..., ToolOutput]) -> Callable[..., ToolOutput]:
        if name in _REGISTRY and _REGISTRY[name].fn is not fn:
            raise ValueError(f"tool {name!r} is already registered")
        description = planner_description(fn.__doc__ or "")
        if not description:
            raise ValueError(f"tool {name!r} needs a docstring: it is the planner's description")
        _REGISTRY[name] = ToolSpec(
            name=name,
            fn=fn,
            params=params,
            category=category,
            inputs=inputs or InputSpec(),
            description=description,
            outputs=outputs,
        )
        return fn

    return register


def registry() -> dict[str, ToolSpec]:
    """Every registered tool by name (the tool package registered the built-ins)."""
    return dict(sorted(_REGISTRY.items()))


def get_tool(name: str) -> ToolSpec:
    """The tool called ``name``.

    Raises:
        UnknownToolError: No such tool; the message lists the close names.
    """
    spec = _REGISTRY.get(name)  # no sorted copy: this runs on every tool call
    if spec is None:
        import difflib

        close = difflib.get_close_matches(name, sorted(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `benchsmith tools list`"
        raise UnknownToolError(f"no tool named {name!r}{hint}")
    return spec


def tool_names(category: str | None = None) -> list[str]:
    """Names of the registered tools (of one category, if given)."""
    return [n for n, s in registry().items() if category is None or s.category == category]


def tool_name_type(names: Iterable[str] | None = None) -> Any:
    """A ``Literal`` of tool names, for pydantic fields that must name a real tool."""
    chosen = tuple(names) if names is not None else tuple(tool_names())
    if not chosen:
        raise ValueError("no tools to choose from")
    return Literal[chosen]  # type: ignore[valid-type]


def render_tools(names: Iterable[str] | None = None) -> str:
    """The tool list for a prompt: name, inputs, description and parameter schema of each."""
    tools = registry()
    chosen = list(names) if names is not None else list(tools)
    blocks = []
    for name in chosen:
        spec = tools[name]
        schema = canonical_json(spec.parameters_schema())
        blocks.append(
            f"- {name} ({spec.category}; takes {spec.inputs.describe()}): {spec.description}\n"
            f"  parameters: {schema}"
        )
    return "\n".join(blocks)


@functools.lru_cache(maxsize=4096)
def _sha256(path: str, size: int, mtime_ns: int, inode: int) -> str:
    """SHA-256 of a file, cached by (path, size, mtime, inode).

    An input reused by several steps is read once.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_record(path: Path, ctx: ToolContext | None = None, *, cached: bool = True) -> FileRecord:
    """SHA-256 and size of a file (``cached``: reuse the hash of an unchanged input)."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns, st.st_ino)
    sha = _sha256(*key) if cached else _sha256.__wrapped__(*key)
    shown = ctx.relative(path) if ctx is not None else str(path)
    return FileRecord(path=shown, sha256=sha, bytes=st.st_size)


def run_tool(
    name: str,
    params: dict[str, Any] | ToolParams | None,
    inputs: Sequence[str | Path] = (),
    ctx: ToolContext | None = None,
) -> ToolResult:
    """Run one tool with checked parameters and inputs; return outputs and provenance.

    Args:
        name: The tool's registered name.
        params: Its parameters (validated against its parameter model).
        inputs: Input files.
        ctx: The context (media folder, run seed, limits); a ``media`` folder in the current
            directory with seed 0 when None.

    Raises:
        UnknownToolError: No such tool.
        ToolParamError: The parameters or the number of inputs are wrong.
        InputRejectedError: An input is missing, empty, too large or undecodable.
        PostconditionError: The tool's output missed its own check.
    """
    spec = get_tool(name)
    ctx = ctx or ToolContext(media_dir=Path("media"))
    try:
        parsed = (
            params if isinstance(params, spec.params) else spec.params.model_validate(params or {})
        )
    except ValidationError as exc:
        errors = describe_validation_error(exc)
        raise ToolParamError(f"tool {name}: bad parameters: {errors}") from exc
    if not spec.inputs.min <= len(inputs) <= spec.inputs.max:
        raise ToolParamError(
            f"tool {name} takes {spec.inputs.describe()}, got {len(inputs)} input(s)"
        )
    paths = [check_input_file(ctx.check_readable(p), ctx.limits) for p in inputs]
    input_records = [file_record(p) for p in paths]
    params_json = parsed.model_dump(mode="json")
    call_key = hashlib.sha256(
        canonical_json(
            {
                "tool": name,
                "params": params_json,
                "inputs": [r.sha256 for r in input_records],
                "seed": ctx.seed,
            }
        ).encode()
    ).hexdigest()
    call_ctx = ctx.for_call(call_key, stable_seed(ctx.seed, call_key))
    started = time.perf_counter()
    output = spec.fn(call_ctx, parsed, paths)
    elapsed = time.perf_counter() - started
    for path in output.files:
        if not Path(path).is_file() or Path(path).stat().st_size == 0:
            raise PostconditionError(f"tool {name} did not write its output {str(path)!r}")
    provenance = Provenance(
        tool=name,
        params=params_json,
        seed=call_ctx.seed,
        inputs=[
            r.model_copy(update={"path": str(p)})
            for r, p in zip(input_records, inputs, strict=True)
        ],
        # Outputs are hashed afresh: a file rewritten in place within one timestamp tick
        # could otherwise be taken for the cached one.
        outputs=[file_record(Path(p), call_ctx, cached=False) for p in output.files],
        measured=output.measured,
    )
    return ToolResult(
        tool=name,
        outputs=[r.path for r in provenance.outputs],
        values=output.values,
        provenance=provenance,
        elapsed_s=round(elapsed, 6),
    )
