"""Image tools (Pillow), each writing one image and measuring it.

Resize, crop, rotate, blur, Gaussian noise, JPEG re-compression, grayscale, occlusion
patch, text rendering and labelled grids. Every tool decodes its inputs through
:func:`~benchsmith.tools.media.open_image` (the pixel cap is checked before decoding), works
on 8-bit ``L``, ``RGB`` or ``RGBA`` pixels, writes exactly one image with
:func:`~benchsmith.tools.media.save_image`, decodes and measures what it wrote, and checks
its own post-condition; an output that misses it is deleted and a
:class:`~benchsmith.errors.PostconditionError` is raised. Randomness (noise, random patch
positions) comes only from the call's seeded generators, so the same call with the same run
seed writes byte-identical files.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from benchsmith.errors import ToolParamError, ToolUnavailableError
from benchsmith.tools.context import ToolContext
from benchsmith.tools.media import IMAGE_FORMATS, measure_image, open_image, save_image
from benchsmith.tools.registry import InputSpec, ToolOutput, ToolParams, discard_output, tool

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image, ImageFont

ImageFormat = Literal["png", "jpeg", "webp"]
MAX_TEXT_CHARS = 4000
MAX_LABEL_CHARS = 100
# A written pixel may differ from the intended one by this much (0-255 units) in a lossy file.
_LOSSY_TOLERANCE = 12


# -- parameter helpers --------------------------------------------------------------------------
def _check_colour(value: str) -> str:
    """Accept a colour Pillow understands (a name, ``#rrggbb``, ``rgb(...)``, ``hsl(...)``)."""
    from PIL import ImageColor

    try:
        ImageColor.getrgb(value)
    except ValueError:
        raise ValueError(
            f"unknown colour {value!r}; use a colour name such as 'black' or 'red', "
            "or a hex code such as '#ff8800'"
        ) from None
    return value


def _check_fill(value: str) -> str:
    """Accept ``noise`` or a colour."""
    return value if value == "noise" else _check_colour(value)


Colour = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_check_colour)]
Fill = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_check_fill)]
# A position along the width or height as a share of it: 0 is the left/top border, 1 the
# right/bottom one (crop box edges, patch corners).
Fraction = Annotated[float, Field(ge=0, le=1)]


def _check_output_name(name: str | None, allowed: tuple[str, ...], what: str) -> None:
    """Refuse an ``output_name`` whose suffix would make ``save_image`` write another type.

    A name without a suffix is left to :func:`_output`, after the context has refused names
    that leave the media folder (``.``, ``..``), so those get the path-safety error.
    """
    suffix = PurePosixPath(name).suffix.lower() if name else ""
    if suffix and suffix not in allowed:
        raise ValueError(
            f"output_name {name!r} must end in {' or '.join(allowed)} to match {what}; "
            "change the name or leave it out"
        )


def _suffixes(fmt: str) -> tuple[str, ...]:
    """Every suffix that ``save_image`` writes as the same file type as ``fmt``."""
    kind = IMAGE_FORMATS[f".{fmt}"]
    return tuple(s for s, k in IMAGE_FORMATS.items() if k == kind)


class ImageOutParams(ToolParams):
    """Parameters shared by the image tools: the output file type."""

    format: ImageFormat = Field(
        default="png",
        description="Output file type: 'png' (lossless, exact pixels), 'jpeg' or 'webp' "
        "(lossy, quality 90). Keep 'png' unless the benchmark needs a compressed file.",
    )

    @model_validator(mode="after")
    def _output_name_matches_format(self) -> ImageOutParams:
        _check_output_name(self.output_name, _suffixes(self.format), f"format {self.format!r}")
        return self


# -- pixel helpers -------------------------------------------------------------------------------
def _normalize(img: Image.Image) -> Image.Image:
    """The image as 8-bit ``L``, ``RGB`` or ``RGBA`` (alpha kept, 16-bit scaled down)."""
    import numpy as np
    from PIL import Image

    if img.mode in ("L", "RGB", "RGBA"):
        return img
    if img.mode in ("I", "F") or img.mode.startswith("I;16"):
        arr = np.asarray(img, dtype=np.float64)
        if img.mode.startswith("I;16") or (arr.size and 255 < arr.max() <= 65535):
            arr = arr / 257.0
        return Image.fromarray(np.clip(np.rint(arr), 0, 255).astype(np.uint8))
    if img.mode in ("LA", "PA", "La", "RGBa") or "transparency" in img.info:
        return img.convert("RGBA")
    if img.mode == "1":
        return img.convert("L")
    return img.convert("RGB")


def _load(ctx: ToolContext, path: Path) -> Image.Image:
    """Open an input (pixel cap checked before decoding) and normalize its mode."""
    return _normalize(open_image(path, ctx.limits))


def _flatten(img: Image.Image, background: str = "white") -> Image.Image:
    """Composite an image with alpha onto a solid background (other images unchanged)."""
    from PIL import Image

    if img.mode != "RGBA":
        return img
    base = Image.new("RGBA", img.size, background)
    return Image.alpha_composite(base, img).convert("RGB")


def _encoded(img: Image.Image, out: Path) -> Image.Image:
    """What will really be encoded in ``out``: JPEG has no alpha, so it is flattened on white."""
    if IMAGE_FORMATS.get(out.suffix.lower()) == "JPEG":
        img = _flatten(img)
        return img if img.mode in ("L", "RGB") else img.convert("RGB")
    return img


def _rgb_array(img: Image.Image) -> np.ndarray:
    """Pixels as float64 RGB (alpha flattened on white), for comparing two images."""
    import numpy as np

    return np.asarray(_flatten(img).convert("RGB"), dtype=np.float64)


def _gray_array(img: Image.Image) -> np.ndarray:
    """Pixels as float64 grey levels (alpha flattened on white)."""
    import numpy as np

    return np.asarray(_flatten(img).convert("L"), dtype=np.float64)


def _sharpness(gray: np.ndarray) -> float:
    """Variance of the 4-neighbour Laplacian: high for crisp edges, low for blurred ones."""
    if gray.shape[0] < 3 or gray.shape[1] < 3:
        return 0.0
    lap = 4 * gray[1:-1, 1:-1] - gray[:-2, 1:-1] - gray[2:, 1:-1] - gray[1:-1, :-2] - gray[1:-1, 2:]
    return float(lap.var())


def _is_lossless(out: Path) -> bool:
    return IMAGE_FORMATS.get(out.suffix.lower()) == "PNG"


def _fit(width: int, height: int, max_width: int, max_height: int) -> tuple[int, int]:
    """The largest size with the aspect ratio of ``width x height`` inside the box."""
    scale = min(max_width / width, max_height / height)
    return (
        max(1, min(max_width, round(width * scale))),
        max(1, min(max_height, round(height * scale))),
    )


def _check_pixels(ctx: ToolContext, name: str, width: int, height: int) -> None:
    """Refuse to make an output over the run's pixel cap (it could not be measured)."""
    if width * height > ctx.limits.max_image_pixels:
        raise ToolParamError(
            f"tool {name}: the output would be {width}x{height} = {width * height} pixels, over "
            f"the {ctx.limits.max_image_pixels}-pixel limit; ask for a smaller output"
        )


@functools.lru_cache(maxsize=1)
def _font_file() -> str | None:
    """DejaVu Sans as matplotlib ships it (Latin with every accent, Greek, Cyrillic), or None.

    Pillow's own scalable font (Aileron) has no accented letters: "è" and "ü" come out as
    boxes, which an item in French, German or Italian cannot afford.
    """
    try:
        import matplotlib
    except ImportError:
        return None
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return str(path) if path.is_file() else None


def _font(size: int) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at ``size`` pixels (Pillow's built-in font where it is missing)."""
    from PIL import ImageFont

    try:
        found = _font_file()
        if found is not None:
            return ImageFont.truetype(found, size=size)
        return ImageFont.load_default(size=size)  # type: ignore[return-value]
    except (ImportError, OSError) as exc:
        raise ToolUnavailableError(
            f"Pillow's built-in font needs FreeType, which this Pillow lacks ({exc}); "
            "install a Pillow wheel with FreeType (pip install --force-reinstall pillow)"
        ) from exc


# -- output helpers ------------------------------------------------------------------------------
def _output(ctx: ToolContext, params: ToolParams, suffix: str, stem: str) -> Path:
    """The output path: ``output_name`` (confined to the media folder) or a derived name.

    Raises:
        UnsafePathError: ``output_name`` leaves the media folder.
        ToolParamError: ``output_name`` has no file suffix.
    """
    out = ctx.output_for(params.output_name, suffix, stem=stem)
    if not out.suffix:
        raise ToolParamError(
            f"output_name {params.output_name!r} has no file suffix; end it in {suffix}"
        )
    return out


def _save(ctx: ToolContext, img: Image.Image, out: Path, *, quality: int = 90) -> dict[str, Any]:
    """Write ``img`` to ``out`` and measure it; nothing is left behind if either fails."""
    try:
        save_image(img, out, quality=quality)
        return measure_image(out, ctx.limits)
    except BaseException:
        out.unlink(missing_ok=True)
        raise


def _write(
    ctx: ToolContext, params: ImageOutParams, img: Image.Image, stem: str
) -> tuple[Path, dict[str, Any]]:
    """Write ``img`` as the output (type from ``params.format``) and measure it."""
    out = _output(ctx, params, f".{params.format}", stem)
    return out, _save(ctx, img, out)


def _decoded(ctx: ToolContext, out: Path) -> Image.Image:
    """The written output, decoded again for a pixel-level post-condition."""
    return open_image(out, ctx.limits)


def _require(ok: bool, out: Path, message: str) -> None:
    """Delete ``out`` and raise :class:`PostconditionError` unless ``ok``."""
    if not ok:
        raise discard_output(out, f"{message}; the output {out.name!r} was deleted")


def _require_size(name: str, measured: dict[str, Any], out: Path, size: tuple[int, int]) -> None:
    """The output has exactly ``size`` (width, height), or it is deleted."""
    got = (measured["width"], measured["height"])
    message = f"tool {name}: output is {got[0]}x{got[1]}, not {size[0]}x{size[1]}"
    _require(got == tuple(size), out, message)


# -- resize --------------------------------------------------------------------------------------
class ResizeParams(ImageOutParams):
    """Parameters of ``image_resize``."""

    width: int = Field(ge=1, le=8192, description="Output width in pixels.")
    height: int = Field(ge=1, le=8192, description="Output height in pixels.")
    keep_aspect: bool = Field(
        default=False,
        description="If true, keep the aspect ratio: the output fits inside width x height "
        "and touches it on one side (the other side is smaller). If false, stretch to "
        "exactly width x height.",
    )


@tool("image_resize", params=ResizeParams, category="image", inputs=InputSpec("image"))
def image_resize(ctx: ToolContext, params: ResizeParams, inputs: list[Path]) -> ToolOutput:
    """Resize an image to a given size (Lanczos); for low-resolution robustness or input sizes.

    With ``keep_aspect`` the image fits inside the box unstretched. Post-condition: the
    output has exactly the computed size.
    """
    from PIL import Image

    img = _load(ctx, inputs[0])
    size = (params.width, params.height)
    if params.keep_aspect:
        size = _fit(img.width, img.height, params.width, params.height)
    _check_pixels(ctx, "image_resize", *size)
    resized = img.resize(size, Image.Resampling.LANCZOS)
    out, measured = _write(ctx, params, resized, inputs[0].stem)
    _require_size("image_resize", measured, out, size)
    return ToolOutput(files=[out], measured=measured)


# -- crop ----------------------------------------------------------------------------------------
class CropParams(ImageOutParams):
    """Parameters of ``image_crop``."""

    left: Fraction = Field(
        default=0.0,
        description="Left edge of the kept box, as a fraction of the "
        "width (0 = left border). Must be less than right.",
    )
    top: Fraction = Field(
        default=0.0,
        description="Top edge of the kept box, as a fraction of the "
        "height (0 = top border). Must be less than bottom.",
    )
    right: Fraction = Field(
        default=1.0,
        description="Right edge of the kept box, as a fraction of the width (1 = right border).",
    )
    bottom: Fraction = Field(
        default=1.0,
        description="Bottom edge of the kept box, as a fraction of the height (1 = bottom border).",
    )

    @model_validator(mode="after")
    def _box_is_ordered(self) -> CropParams:
        problems = []
        if not self.left < self.right:
            problems.append(f"left ({self.left:g}) must be less than right ({self.right:g})")
        if not self.top < self.bottom:
            problems.append(f"top ({self.top:g}) must be less than bottom ({self.bottom:g})")
        if problems:
            raise ValueError(
                "crop box is empty: " + " and ".join(problems) + "; the box is "
                "(left, top, right, bottom) as fractions of the image, e.g. 0, 0, 0.5, 0.5 "
                "for the top-left quarter"
            )
        return self


def _crop_box(params: CropParams, width: int, height: int) -> tuple[int, int, int, int]:
    """The pixel box of a fractional crop, at least one pixel each way."""

    def span(lo: float, hi: float, size: int) -> tuple[int, int]:
        a, b = round(lo * size), round(hi * size)
        a = min(a, size - 1)
        return a, max(b, a + 1)

    left, right = span(params.left, params.right, width)
    top, bottom = span(params.top, params.bottom, height)
    return left, top, right, bottom


@tool("image_crop", params=CropParams, category="image", inputs=InputSpec("image"))
def image_crop(ctx: ToolContext, params: CropParams, inputs: list[Path]) -> ToolOutput:
    """Crop an image to a box given as fractions; for zooming in or partial-view robustness.

    Measured: the pixel box ``box`` (left, top, right, bottom). Post-condition: the output
    size equals that box.
    """
    img = _load(ctx, inputs[0])
    box = _crop_box(params, img.width, img.height)
    out, measured = _write(ctx, params, img.crop(box), inputs[0].stem)
    measured["box"] = list(box)
    _require_size("image_crop", measured, out, (box[2] - box[0], box[3] - box[1]))
    return ToolOutput(files=[out], measured=measured)


# -- rotate --------------------------------------------------------------------------------------
class RotateParams(ImageOutParams):
    """Parameters of ``image_rotate``."""

    degrees: float = Field(
        ge=-360,
        le=360,
        description="Rotation angle in degrees; positive turns the image "
        "counter-clockwise, negative clockwise.",
    )
    expand: bool = Field(
        default=False,
        description="If true, enlarge the canvas so the whole rotated image is visible; if "
        "false, keep the original size and cut the corners off.",
    )
    fill: Colour = Field(
        default="black",
        description="Colour of the uncovered corners: a name such as 'black' or 'white', or a "
        "hex code such as '#808080'.",
    )


@tool("image_rotate", params=RotateParams, category="image", inputs=InputSpec("image"))
def image_rotate(ctx: ToolContext, params: RotateParams, inputs: list[Path]) -> ToolOutput:
    """Rotate an image by an angle (bicubic); for robustness to tilt and orientation changes.

    Post-condition: with ``expand`` false the size is unchanged; with ``expand`` true the
    canvas encloses the rotated image (at least the exact bounding box, at most two pixels
    over from Pillow's outward rounding; exact for multiples of 90 degrees).
    """
    from PIL import Image, ImageColor

    img = _load(ctx, inputs[0])
    w, h = img.size
    rad = math.radians(params.degrees)
    cos, sin = abs(round(math.cos(rad), 12)), abs(round(math.sin(rad), 12))
    exact = (w * cos + h * sin, w * sin + h * cos) if params.expand else (float(w), float(h))
    if params.expand:  # the largest canvas Pillow's outward rounding can give
        _check_pixels(ctx, "image_rotate", math.ceil(exact[0]) + 2, math.ceil(exact[1]) + 2)
    rotated = img.rotate(
        params.degrees,
        resample=Image.Resampling.BICUBIC,
        expand=params.expand,
        fillcolor=ImageColor.getcolor(params.fill, img.mode),
    )
    out, measured = _write(ctx, params, rotated, inputs[0].stem)
    measured["degrees"] = params.degrees
    got = (measured["width"], measured["height"])
    if params.expand:
        ok = all(e - 1e-6 <= g <= math.ceil(e - 1e-6) + 2 for g, e in zip(got, exact, strict=True))
        want = f"about {exact[0]:.1f}x{exact[1]:.1f} (the rotated bounding box)"
    else:
        ok, want = got == (w, h), f"{w}x{h} (the input size, expand=false)"
    _require(ok, out, f"tool image_rotate: output is {got[0]}x{got[1]}, not {want}")
    return ToolOutput(files=[out], measured=measured)


# -- blur ----------------------------------------------------------------------------------------
class BlurParams(ImageOutParams):
    """Parameters of ``image_blur``."""

    radius: float = Field(
        ge=0.1,
        le=50,
        description="Gaussian blur radius (standard deviation) in pixels: ~1 is "
        "slight softening, 3-5 clearly blurred, 10+ heavily blurred at typical photo sizes.",
    )


@tool("image_blur", params=BlurParams, category="image", inputs=InputSpec("image"))
def image_blur(ctx: ToolContext, params: BlurParams, inputs: list[Path]) -> ToolOutput:
    """Gaussian-blur an image; for robustness to blur, defocus and low image quality.

    Measured: ``sharpness_in``/``sharpness_out`` (variance of the Laplacian of the grey
    levels), their ratio, and the mean absolute grey-level difference to the input.
    Post-condition: the output is not sharper than the input (an allowance of 1 for
    rounding to integer levels, more for lossy-codec artefacts).
    """
    import numpy as np
    from PIL import ImageFilter

    img = _load(ctx, inputs[0])
    blurred = img.filter(ImageFilter.GaussianBlur(params.radius))
    out, measured = _write(ctx, params, blurred, inputs[0].stem)
    before, after = _gray_array(_encoded(img, out)), _gray_array(_decoded(ctx, out))
    sharp_in, sharp_out = _sharpness(before), _sharpness(after)
    measured.update(
        radius=params.radius,
        sharpness_in=round(sharp_in, 4),
        sharpness_out=round(sharp_out, 4),
        sharpness_ratio=round(sharp_out / sharp_in, 6) if sharp_in > 0 else None,
        mean_abs_diff=round(float(np.abs(after - before).mean()), 4),
    )
    # Rounding to integer levels adds a little Laplacian variance; lossy codecs add more.
    allowance = 1.0 if _is_lossless(out) else 0.05 * sharp_in + 2.0
    _require(
        sharp_out <= sharp_in * (1 + 1e-9) + allowance,
        out,
        f"tool image_blur: the output is sharper than the input (Laplacian variance "
        f"{sharp_out:.2f} > {sharp_in:.2f})",
    )
    return ToolOutput(files=[out], measured=measured)


# -- noise ---------------------------------------------------------------------------------------
class NoiseParams(ImageOutParams):
    """Parameters of ``image_noise``."""

    sigma: float = Field(
        ge=0.5,
        le=128,
        description="Standard deviation of the Gaussian noise in 0-255 grey "
        "levels: ~5 is faint, 15-25 clearly noisy, 50+ very noisy.",
    )
    format: Literal["png"] = Field(  # type: ignore[assignment]
        default="png",
        description="Output file type: always 'png', so the noise is stored exactly; apply "
        "image_jpeg afterwards for a compressed noisy image.",
    )


def _expected_noise_std(values: np.ndarray, sigma: float) -> float:
    """Std of ``clip(round(v + N(0, sigma)), 0, 255) - v`` over the input values ``v``.

    Each input level's clipped (censored) normal has closed-form moments; the rounding to
    integer levels adds about 1/12 to the variance of the unclipped samples.
    """
    import numpy as np

    weights = np.bincount(values.ravel(), minlength=256)[:256] / values.size
    v = np.arange(256, dtype=np.float64)
    lo, hi = -v, 255.0 - v  # the noise is clipped to [lo, hi]
    a, b = lo / sigma, hi / sigma
    cdf = np.vectorize(lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2))))
    ca, cb = cdf(a), cdf(b)
    pa, pb = (np.exp(-(x**2) / 2) / math.sqrt(2 * math.pi) for x in (a, b))
    inside = cb - ca
    m1 = lo * ca + hi * (1 - cb) + sigma * (pa - pb)
    m2 = lo**2 * ca + hi**2 * (1 - cb) + sigma**2 * (inside + a * pa - b * pb)
    mean = float(weights @ m1)
    var = float(weights @ m2) - mean**2 + float(weights @ inside) / 12
    return math.sqrt(max(var, 0.0))


@tool("image_noise", params=NoiseParams, category="image", inputs=InputSpec("image"))
def image_noise(ctx: ToolContext, params: NoiseParams, inputs: list[Path]) -> ToolOutput:
    """Add seeded Gaussian noise to an image; for robustness to sensor and low-light noise.

    The noise is drawn from the call's seeded generator, independently per colour channel
    (alpha untouched), so the same call and run seed give the same file. Measured:
    ``sigma_drawn`` (std of the drawn noise, before rounding and clipping),
    ``sigma_achieved`` (std of output minus input), ``sigma_expected`` (what clipping to
    0-255 leaves of the request, computed from the input's grey levels) and
    ``clipped_fraction``. Post-condition: the achieved std is within 5% (plus sampling
    error) of the expected one; for mid-grey inputs, which do not clip, that is within 5%
    of ``sigma`` itself.
    """
    import numpy as np
    from PIL import Image

    img = _load(ctx, inputs[0])
    arr = np.asarray(img, dtype=np.uint8)
    arr = arr[..., None] if arr.ndim == 2 else arr
    channels = 3 if img.mode == "RGBA" else arr.shape[2]  # alpha gets no noise
    colour = arr[..., :channels].astype(np.float64)
    noise = ctx.np_rng().normal(0.0, params.sigma, size=colour.shape)
    raw = np.rint(colour + noise)
    noisy = arr.copy()
    noisy[..., :channels] = np.clip(raw, 0, 255).astype(np.uint8)
    noisy_img = Image.fromarray(noisy[..., 0] if noisy.shape[2] == 1 else noisy)
    out, measured = _write(ctx, params, noisy_img, inputs[0].stem)

    written = np.asarray(_decoded(ctx, out), dtype=np.float64)
    written = written[..., None] if written.ndim == 2 else written
    ok_shape = written.shape == arr.shape
    achieved = float((written[..., :channels] - colour).std()) if ok_shape else float("nan")
    expected = _expected_noise_std(arr[..., :channels], params.sigma)
    tolerance = 0.05 * expected + 4 * expected / math.sqrt(2 * colour.size) + 0.05
    measured.update(
        sigma_requested=params.sigma,
        sigma_drawn=round(float(noise.std()), 4),
        sigma_achieved=round(achieved, 4),
        sigma_expected=round(expected, 4),
        clipped_fraction=round(float(((raw < 0) | (raw > 255)).mean()), 6),
    )
    _require(
        ok_shape and abs(achieved - expected) <= tolerance,
        out,
        f"tool image_noise: achieved noise std {achieved:.3f} is not within {tolerance:.3f} of "
        f"the expected {expected:.3f} (requested sigma {params.sigma:g})",
    )
    return ToolOutput(files=[out], measured=measured)


# -- JPEG ----------------------------------------------------------------------------------------
class JpegParams(ToolParams):
    """Parameters of ``image_jpeg``."""

    quality: int = Field(
        ge=1,
        le=95,
        description="JPEG quality: 90-95 near-lossless, 50-75 typical web images, "
        "10-30 visible blocking artefacts, below 10 severe degradation.",
    )

    @model_validator(mode="after")
    def _output_name_is_jpeg(self) -> JpegParams:
        _check_output_name(self.output_name, (".jpg", ".jpeg"), "a JPEG output")
        return self


@tool("image_jpeg", params=JpegParams, category="image", inputs=InputSpec("image"))
def image_jpeg(ctx: ToolContext, params: JpegParams, inputs: list[Path]) -> ToolOutput:
    """Re-compress an image as JPEG at a quality; for robustness to compression artefacts.

    Transparency is flattened on white. Measured: file size in ``bytes`` and PSNR in dB
    against the input (``psnr_db``; null when identical). Post-condition: the JPEG decodes
    and has the input's width and height.
    """
    import numpy as np

    out = _output(ctx, params, ".jpg", inputs[0].stem)
    img = _encoded(_load(ctx, inputs[0]), out)
    measured = _save(ctx, img, out, quality=params.quality)
    _require_size("image_jpeg", measured, out, img.size)
    decoded = _decoded(ctx, out)
    if img.mode == decoded.mode == "L":
        a, b = (np.asarray(x, dtype=np.float64) for x in (img, decoded))
    else:
        a, b = _rgb_array(img), _rgb_array(decoded)
    mse = float(((a - b) ** 2).mean())
    measured.update(
        quality=params.quality,
        bytes=out.stat().st_size,
        psnr_db=round(10 * math.log10(255.0**2 / mse), 3) if mse > 0 else None,
    )
    return ToolOutput(files=[out], measured=measured)


# -- grayscale -----------------------------------------------------------------------------------
class GrayscaleParams(ImageOutParams):
    """Parameters of ``image_grayscale``."""

    keep_channels: bool = Field(
        default=False,
        description="If true, write a 3-channel RGB image whose channels are equal (for models "
        "that need RGB input); if false, a single-channel grayscale image (mode L).",
    )
    format: Literal["png", "jpeg"] = Field(  # type: ignore[assignment]
        default="png",
        description="Output file type: 'png' (lossless) or 'jpeg' (lossy, quality 90). WebP "
        "has no single-channel mode, so it is not offered.",
    )


@tool("image_grayscale", params=GrayscaleParams, category="image", inputs=InputSpec("image"))
def image_grayscale(ctx: ToolContext, params: GrayscaleParams, inputs: list[Path]) -> ToolOutput:
    """Convert an image to grayscale; for testing whether answers rely on colour.

    ITU-R 601 luma; transparency is flattened on white. Post-condition: the mode is ``L``,
    or with ``keep_channels`` an RGB image whose three channels are equal (within the
    codec's tolerance for JPEG).
    """
    import numpy as np

    gray = _flatten(_load(ctx, inputs[0])).convert("L")
    img = gray.convert("RGB") if params.keep_channels else gray
    out, measured = _write(ctx, params, img, inputs[0].stem)
    want = "RGB" if params.keep_channels else "L"
    ok = measured["mode"] == want
    if ok and params.keep_channels:
        arr = np.asarray(_decoded(ctx, out), dtype=np.int16)
        spread = int((arr.max(axis=2) - arr.min(axis=2)).max()) if arr.size else 0
        measured["max_channel_spread"] = spread
        ok = spread <= (0 if _is_lossless(out) else _LOSSY_TOLERANCE)
    _require(
        ok, out, f"tool image_grayscale: output mode {measured['mode']} is not a grey {want} image"
    )
    return ToolOutput(files=[out], measured=measured)


# -- occlusion -----------------------------------------------------------------------------------
class OccludeParams(ImageOutParams):
    """Parameters of ``image_occlude``."""

    position: Literal["box", "random"] = Field(
        default="box",
        description="'box' places the patch at left/top; 'random' picks a position (seeded, "
        "reproducible) where the whole patch fits, ignoring left/top.",
    )
    left: Fraction = Field(
        default=0.375,
        description="Left edge of the patch as a fraction of the "
        "image width (with position 'box'); left + width must be at most 1.",
    )
    top: Fraction = Field(
        default=0.375,
        description="Top edge of the patch as a fraction of the "
        "image height (with position 'box'); top + height must be at most 1.",
    )
    width: float = Field(
        default=0.25, gt=0, le=1, description="Patch width as a fraction of the image width."
    )
    height: float = Field(
        default=0.25, gt=0, le=1, description="Patch height as a fraction of the image height."
    )
    fill: Fill = Field(
        default="black",
        description="Patch fill: a colour name or hex code such as 'black', 'gray' or "
        "'#ff0000', or 'noise' for seeded random pixels.",
    )

    @model_validator(mode="after")
    def _patch_fits(self) -> OccludeParams:
        if self.position == "box":
            problems = []
            if self.left + self.width > 1 + 1e-9:
                problems.append(f"left + width = {self.left + self.width:g}")
            if self.top + self.height > 1 + 1e-9:
                problems.append(f"top + height = {self.top + self.height:g}")
            if problems:
                raise ValueError(
                    f"the patch leaves the image ({', '.join(problems)} > 1); lower left/top "
                    "or the patch size, or use position 'random'"
                )
        return self


@tool("image_occlude", params=OccludeParams, category="image", inputs=InputSpec("image"))
def image_occlude(ctx: ToolContext, params: OccludeParams, inputs: list[Path]) -> ToolOutput:
    """Cover a box of an image with a colour or noise; for robustness to occlusion.

    Hide the object a question asks about, or a random region (seeded). Measured: the
    patch as a pixel box ``patch_box`` (left, top, right, bottom) and its area fraction.
    Post-condition: the patch pixels hold the fill (exactly for PNG; for lossy files the
    patch is closer to the fill than to the old pixels, and a solid fill's inside is within
    a small tolerance).
    """
    import numpy as np
    from PIL import Image, ImageColor

    img = _load(ctx, inputs[0])
    w, h = img.size
    pw, ph = max(1, min(w, round(params.width * w))), max(1, min(h, round(params.height * h)))
    if params.position == "random":
        rng = ctx.rng
        left, top = rng.randint(0, w - pw), rng.randint(0, h - ph)
    else:
        left, top = min(round(params.left * w), w - pw), min(round(params.top * h), h - ph)
    box = (left, top, left + pw, top + ph)

    if params.fill == "noise":
        bands = len(img.getbands())
        patch_arr = ctx.np_rng().integers(0, 256, size=(ph, pw, bands), dtype=np.uint8)
        if img.mode == "RGBA":
            patch_arr[..., 3] = 255
        patch = Image.fromarray(patch_arr[..., 0] if bands == 1 else patch_arr)
    else:
        patch = Image.new(img.mode, (pw, ph), ImageColor.getcolor(params.fill, img.mode))
    occluded = img.copy()
    occluded.paste(patch, box[:2])

    out, measured = _write(ctx, params, occluded, inputs[0].stem)
    got = _rgb_array(_decoded(ctx, out))
    if got.shape[:2] != (h, w):
        _require(False, out, f"tool image_occlude: output is not {w}x{h}")
    region = (slice(top, top + ph), slice(left, left + pw))
    want = _rgb_array(_encoded(occluded, out))[region]
    before = _rgb_array(_encoded(img, out))[region]
    err = float(np.abs(got[region] - want).mean())
    measured.update(
        patch_box=list(box),
        patch_fraction=round(pw * ph / (w * h), 6),
        fill=params.fill,
        patch_mean_abs_error=round(err, 4),
    )
    if _is_lossless(out):
        ok = err == 0.0
    else:
        # A lossy codec blurs the patch edges (chroma subsampling, 8x8 blocks): the patch as a
        # whole must be closer to the fill than to the old pixels, and for a solid fill its
        # inside (4 pixels in from the edges) must be within the codec tolerance.
        ok = err <= float(np.abs(got[region] - before).mean()) + 1.0
        inner = got[region][4:-4, 4:-4] - want[4:-4, 4:-4]
        if ok and params.fill != "noise" and inner.size:
            ok = float(np.abs(inner).mean()) <= _LOSSY_TOLERANCE
    _require(ok, out, f"tool image_occlude: the patch {box} does not hold the fill {params.fill!r}")
    return ToolOutput(files=[out], measured=measured)


# -- text ----------------------------------------------------------------------------------------
TextPosition = Literal[
    "top-left",
    "top",
    "top-right",
    "left",
    "center",
    "right",
    "bottom-left",
    "bottom",
    "bottom-right",
]


class TextParams(ImageOutParams):
    """Parameters of ``image_text``."""

    text: str = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description=f"The text to draw (at most {MAX_TEXT_CHARS} characters; '\\n' starts a "
        "new line).",
    )
    position: TextPosition = Field(
        default="center",
        description="Where the text block goes: a corner, an edge centre or 'center'; a small "
        "margin is kept from the borders.",
    )
    font_size: int = Field(default=32, ge=6, le=512, description="Font height in pixels.")
    color: Colour = Field(
        default="black", description="Text colour: a name such as 'black' or a hex code."
    )
    wrap: bool = Field(
        default=True,
        description="If true, break long lines at spaces so the text fits the image width.",
    )
    width: int = Field(
        default=512,
        ge=16,
        le=4096,
        description="Canvas width in pixels; used only when no input image is given.",
    )
    height: int = Field(
        default=256,
        ge=16,
        le=4096,
        description="Canvas height in pixels; used only when no input image is given.",
    )
    background: Colour = Field(
        default="white",
        description="Canvas colour; used only when no input image is given.",
    )
    grow: bool = Field(
        default=True,
        description="If true and no input image is given, the canvas grows taller than "
        "'height' (up to 4096 px) until the whole text fits.",
    )

    @model_validator(mode="after")
    def _text_has_ink(self) -> TextParams:
        if not self.text.strip():
            raise ValueError("text is only whitespace; give some visible text")
        return self


def _wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Break ``text`` into lines no wider than ``max_width`` (at spaces; long words split)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if font.getlength(candidate) <= max_width:
                line = candidate
                continue
            if line:
                lines.append(line)
            while len(word) > 1 and font.getlength(word) > max_width:
                cut = 1  # the longest head of the word that fits (at least one character)
                while cut < len(word) and font.getlength(word[: cut + 1]) <= max_width:
                    cut += 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


@tool("image_text", params=TextParams, category="image", inputs=InputSpec("image", min=0, max=1))
def image_text(ctx: ToolContext, params: TextParams, inputs: list[Path]) -> ToolOutput:
    """Draw text on an image or a blank canvas; for OCR questions and text distractors.

    Also for typographic attacks (a misleading word on a photo). Uses Pillow's built-in
    font (Latin script). Measured: the drawn text's bounding box ``text_box`` (left, top,
    right, bottom, clipped to the image), ``text_fits`` and the number of lines.
    Post-condition: pixels inside the text box changed.
    """
    import numpy as np
    from PIL import Image, ImageColor, ImageDraw

    if inputs:
        base = _load(ctx, inputs[0])
    else:
        if ImageColor.getrgb(params.color) == ImageColor.getrgb(params.background):
            raise ToolParamError(
                f"tool image_text: text colour {params.color!r} equals the background "
                f"{params.background!r}, so nothing would be visible; choose another colour"
            )
        height = params.height
        if params.grow:  # a blank canvas as tall as its text needs (a drawn table's rows)
            font = _font(params.font_size)
            margin = round(0.03 * min(params.width, params.height))
            lines = (
                _wrap(params.text, font, params.width - 2 * margin)
                if params.wrap
                else (params.text.split("\n"))
            )
            probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
            top, bottom = probe.multiline_textbbox(
                (0, 0), "\n".join(lines), font=font, spacing=max(1, params.font_size // 4)
            )[1::2]
            height = min(4096, max(height, math.ceil(bottom - top) + 2 * margin))
        base = Image.new("RGB", (params.width, height), params.background)
    w, h = base.size
    font = _font(params.font_size)
    margin = round(0.03 * min(w, h))
    lines = _wrap(params.text, font, w - 2 * margin) if params.wrap else params.text.split("\n")
    block = "\n".join(lines)
    spacing = max(1, params.font_size // 4)
    canvas = base.copy()
    draw = ImageDraw.Draw(canvas)
    align = (
        "left" if "left" in params.position else "right" if "right" in params.position else "center"
    )
    x0, y0, x1, y1 = draw.multiline_textbbox((0, 0), block, font=font, spacing=spacing, align=align)
    tw, th = x1 - x0, y1 - y0
    horizontal = {"left": margin, "right": w - margin - tw}
    vertical = {"top": margin, "bottom": h - margin - th}
    x = next((v for k, v in horizontal.items() if k in params.position), (w - tw) // 2)
    y = next((v for k, v in vertical.items() if params.position.startswith(k)), (h - th) // 2)
    origin = (x - x0, y - y0)
    draw.multiline_text(
        origin,
        block,
        font=font,
        fill=ImageColor.getcolor(params.color, canvas.mode),
        spacing=spacing,
        align=align,
    )
    bl, bt, br, bb = draw.multiline_textbbox(origin, block, font=font, spacing=spacing, align=align)
    # Pixel box of the ink, rounded outwards and clipped to the image.
    box = (
        max(0, math.floor(bl)),
        max(0, math.floor(bt)),
        min(w, math.ceil(br)),
        min(h, math.ceil(bb)),
    )

    stem = inputs[0].stem if inputs else "text"
    out, measured = _write(ctx, params, canvas, stem)
    changed = 0.0
    if box[0] < box[2] and box[1] < box[3]:
        region = (slice(box[1], box[3]), slice(box[0], box[2]))
        got = _rgb_array(_decoded(ctx, out))[region]
        before = _rgb_array(_encoded(base, out))[region]
        diff = np.abs(got - before).max(axis=2)
        changed = float((diff > (0 if _is_lossless(out) else _LOSSY_TOLERANCE)).mean())
    measured.update(
        text_box=list(box),
        text_fits=bl >= 0 and bt >= 0 and br <= w and bb <= h,
        lines=len(lines),
        font_size=params.font_size,
        changed_fraction=round(changed, 6),
    )
    needed = 0.0 if _is_lossless(out) else 0.005
    _require(
        changed > needed,
        out,
        f"tool image_text: no pixel changed inside the text box {box} (text colour "
        f"{params.color!r} invisible on this image?)",
    )
    return ToolOutput(files=[out], measured=measured)


# -- grid ----------------------------------------------------------------------------------------
class GridParams(ImageOutParams):
    """Parameters of ``image_grid``."""

    labels: list[Annotated[str, Field(max_length=MAX_LABEL_CHARS)]] | None = Field(
        default=None,
        max_length=16,
        description="One caption per input image, in input order, drawn under its cell; "
        "default 'A', 'B', 'C', ... (so a question can refer to 'image B').",
    )
    columns: int | None = Field(
        default=None,
        ge=1,
        le=16,
        description="Images per row (at most the number of inputs); default: a near-square grid.",
    )
    cell_width: int = Field(
        default=256, ge=16, le=2048, description="Width in pixels of each cell."
    )
    cell_height: int = Field(
        default=256,
        ge=16,
        le=2048,
        description="Height in pixels of each cell's image area (the label band is extra).",
    )
    label_size: int = Field(default=20, ge=6, le=128, description="Label font size in pixels.")
    background: Colour = Field(default="white", description="Background colour of the grid.")
    label_color: Colour = Field(default="black", description="Label text colour.")


def _default_label(i: int) -> str:
    """A, B, ..., Z, AA, AB, ..."""
    name = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        name = chr(ord("A") + rem) + name
    return name


def _fit_label(label: str, font: ImageFont.FreeTypeFont, max_width: float) -> str:
    """``label``, shortened with '...' if it is wider than ``max_width``."""
    if font.getlength(label) <= max_width:
        return label
    while label and font.getlength(label + "...") > max_width:
        label = label[:-1]
    return label + "..."


@tool("image_grid", params=GridParams, category="image", inputs=InputSpec("image", min=2, max=16))
def image_grid(ctx: ToolContext, params: GridParams, inputs: list[Path]) -> ToolOutput:
    """Tile 2-16 images into one grid labelled A, B, ...; for multi-image comparison questions.

    Each image is fitted into its cell. Measured: ``columns``, ``rows``, the ``label_band``
    height, each image's pixel box in ``cells`` and the drawn ``labels``. Post-condition:
    the output is exactly columns x cell_width wide and rows x (cell_height + label band)
    high.
    """
    from PIL import Image, ImageColor, ImageDraw

    n = len(inputs)
    labels = params.labels if params.labels is not None else [_default_label(i) for i in range(n)]
    if len(labels) != n:
        raise ToolParamError(
            f"tool image_grid: {len(labels)} label(s) for {n} input image(s); give one label "
            "per input, in input order, or leave labels out for A, B, C, ..."
        )
    columns = min(params.columns or math.ceil(math.sqrt(n)), n)
    rows = math.ceil(n / columns)
    band = math.ceil(params.label_size * 1.6)
    cw, ch = params.cell_width, params.cell_height
    size = (columns * cw, rows * (ch + band))
    _check_pixels(ctx, "image_grid", *size)

    grid = Image.new("RGB", size, params.background)
    draw = ImageDraw.Draw(grid)
    font = _font(params.label_size)
    ink = ImageColor.getcolor(params.label_color, "RGB")
    cells, drawn = [], []
    for i, path in enumerate(inputs):
        img = _flatten(_load(ctx, path), params.background).convert("RGB")
        fitted = img.resize(_fit(img.width, img.height, cw, ch), Image.Resampling.LANCZOS)
        col, row = i % columns, i // columns
        x = col * cw + (cw - fitted.width) // 2
        y = row * (ch + band) + (ch - fitted.height) // 2
        grid.paste(fitted, (x, y))
        cells.append([x, y, x + fitted.width, y + fitted.height])
        label = _fit_label(" ".join(labels[i].split()), font, cw - 4)
        centre = (col * cw + cw / 2, row * (ch + band) + ch + band / 2)
        draw.text(centre, label, font=font, fill=ink, anchor="mm")
        drawn.append(label)

    out, measured = _write(ctx, params, grid, "grid")
    measured.update(columns=columns, rows=rows, label_band=band, cells=cells, labels=drawn)
    _require_size("image_grid", measured, out, size)
    return ToolOutput(files=[out], measured=measured)
