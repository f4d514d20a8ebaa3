"""Image tools (Pillow), each writing one image and measuring it.

Resize, crop, rotate, blur, Gaussian noise, JPEG re-compression, grayscale, occlusion
patch, text rendering and labelled grids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from benchsmith.tools.context import ToolContext
from benchsmith.tools.media import measure_image, open_image, save_image
from benchsmith.tools.registry import InputSpec, ToolOutput, ToolParams, tool


class ResizeParams(ToolParams):
    """Parameters of ``image_resize``."""

    width: int = Field(ge=1, le=8192, description="Output width in pixels.")
    height: int = Field(ge=1, le=8192, description="Output height in pixels.")
    format: Literal["png", "jpeg", "webp"] = Field(default="png", description="Output file type.")


@tool("image_resize", params=ResizeParams, category="image", inputs=InputSpec("image"))
def image_resize(ctx: ToolContext, params: ResizeParams, inputs: list[Path]) -> ToolOutput:
    """Resize an image to an exact width and height (Lanczos resampling)."""
    from PIL import Image

    img = open_image(inputs[0], ctx.limits)
    out = ctx.output_for(params.output_name, f".{params.format}", stem=inputs[0].stem)
    save_image(img.resize((params.width, params.height), Image.Resampling.LANCZOS), out)
    measured = measure_image(out, ctx.limits)
    return ToolOutput(files=[out], measured=measured)
