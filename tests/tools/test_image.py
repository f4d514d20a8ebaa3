"""Image tools on real pixels: sizes, modes, post-conditions, determinism and refusals.

No photo ships with the installed packages (scikit-image is not installed), so the tests use
a synthesized photo-like image: smooth colour gradients, sensor-like texture, filled shapes
and a bright diagonal edge. Every tool is called through ``run_tool``.
"""

from __future__ import annotations

import hashlib
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFile

from benchsmith.errors import (
    InputRejectedError,
    PostconditionError,
    ToolParamError,
    UnsafePathError,
)
from benchsmith.tools import image as image_tools
from benchsmith.tools.context import ToolContext
from benchsmith.tools.registry import ToolResult, get_tool, render_tools, run_tool

IMAGE_TOOLS = [
    "image_resize",
    "image_crop",
    "image_rotate",
    "image_blur",
    "image_noise",
    "image_jpeg",
    "image_grayscale",
    "image_occlude",
    "image_text",
    "image_grid",
]


# -- inputs ------------------------------------------------------------------------------------
def make_photo(path: Path, width: int = 160, height: int = 120, seed: int = 1) -> Path:
    """A photo-like RGB image: gradients, texture, shapes and a sharp diagonal edge."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    rng = np.random.default_rng(seed)
    r = 40 + 150 * x / width
    g = 60 + 120 * y / height
    b = 120 + 60 * np.sin(x / 9.0) * np.cos(y / 7.0)
    arr = np.stack([r, g, b], axis=-1) + rng.normal(0, 4, (height, width, 3))
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    draw.ellipse((width // 8, height // 6, width // 2.3, height // 1.7), fill=(220, 40, 40))
    draw.rectangle((width // 1.8, height // 2.4, width - 10, height - 10), fill=(30, 30, 160))
    draw.line((0, height - 1, width - 1, 0), fill=(250, 250, 250), width=3)
    img.save(path)
    return path


@pytest.fixture
def photo(tmp_path) -> Path:
    return make_photo(tmp_path / "photo.png")


@pytest.fixture
def photo_jpeg(tmp_path, photo) -> Path:
    path = tmp_path / "photo.jpg"
    Image.open(photo).save(path, "JPEG", quality=92)
    return path


def solid(path: Path, mode: str, size: tuple[int, int], colour) -> Path:
    Image.new(mode, size, colour).save(path)
    return path


def bomb_png(path: Path, width: int = 20000, height: int = 20000) -> Path:
    """A PNG whose valid IHDR declares ``width x height`` pixels, with a tiny IDAT."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    idat = zlib.compress(b"\x00" * 64)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )
    return path


# -- checks shared by every tool ----------------------------------------------------------------
def run_checked(
    name: str, params: dict, inputs: list, ctx: ToolContext
) -> tuple[ToolResult, Image.Image]:
    """Run a tool, check its file and provenance, and return the result and decoded output."""
    result = run_tool(name, params, inputs, ctx)
    assert result.tool == name
    assert len(result.outputs) == 1
    path = ctx.media_dir / result.outputs[0]
    assert path.is_file()
    data = path.read_bytes()
    with Image.open(path) as img:
        img.load()
        decoded = img.copy()
        decoded.format = img.format  # what the bytes are, sniffed by Pillow
    kinds = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}
    assert decoded.format == kinds[path.suffix]
    prov = result.provenance
    assert prov.tool == name
    expected_params = get_tool(name).params.model_validate(params).model_dump(mode="json")
    assert prov.params == expected_params
    assert [r.sha256 for r in prov.inputs] == [
        hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in inputs
    ]
    assert prov.outputs[0].path == result.outputs[0]
    assert prov.outputs[0].sha256 == hashlib.sha256(data).hexdigest()
    assert prov.outputs[0].bytes == len(data)
    m = prov.measured
    assert (m["width"], m["height"], m["mode"]) == (decoded.width, decoded.height, decoded.mode)
    assert m["format"] == path.suffix[1:]
    return result, decoded


def media_files(ctx: ToolContext) -> list[Path]:
    return [p for p in ctx.media_dir.rglob("*") if p.is_file()] if ctx.media_dir.exists() else []


# -- registry ------------------------------------------------------------------------------------
def test_every_image_tool_is_registered_with_a_useful_description():
    for name in IMAGE_TOOLS:
        spec = get_tool(name)
        assert spec.category == "image"
        assert " for " in spec.description, spec.description  # says what it is good for
        schema = spec.parameters_schema()
        assert "output_name" not in schema["properties"]
        for prop in schema["properties"].values():
            assert prop.get("description"), (name, prop)
    text = render_tools(IMAGE_TOOLS)
    assert "image_text (image; takes 0-1 image file(s))" in text
    assert "image_grid (image; takes 2-16 image file(s))" in text


# -- resize --------------------------------------------------------------------------------------
def test_resize_exact_size(tool_ctx, photo):
    _, img = run_checked("image_resize", {"width": 64, "height": 40}, [photo], tool_ctx)
    assert img.size == (64, 40) and img.mode == "RGB"


def test_resize_keep_aspect_fits_inside_the_box(tool_ctx, photo):
    result, img = run_checked(
        "image_resize", {"width": 64, "height": 64, "keep_aspect": True}, [photo], tool_ctx
    )
    assert img.size == (64, 48)  # 160x120 is 4:3
    assert result.outputs[0].startswith("photo-") and result.outputs[0].endswith(".png")


def test_resize_jpeg_input_to_webp(tool_ctx, photo_jpeg):
    result, img = run_checked(
        "image_resize", {"width": 80, "height": 60, "format": "webp"}, [photo_jpeg], tool_ctx
    )
    assert img.format == "WEBP" and img.size == (80, 60)
    assert result.outputs[0].endswith(".webp")


def test_resize_over_the_pixel_cap_is_refused_before_writing(tmp_path, photo):
    from benchsmith.tools.context import Limits

    ctx = ToolContext(media_dir=tmp_path / "m", limits=Limits(max_image_pixels=100_000))
    with pytest.raises(ToolParamError, match="over the 100000-pixel limit"):
        run_tool("image_resize", {"width": 1000, "height": 1000}, [photo], ctx)
    assert media_files(ctx) == []


# -- crop ----------------------------------------------------------------------------------------
def test_crop_box_in_fractions(tool_ctx, photo):
    params = {"left": 0.1, "top": 0.2, "right": 0.6, "bottom": 0.9}
    result, img = run_checked("image_crop", params, [photo], tool_ctx)
    assert result.provenance.measured["box"] == [16, 24, 96, 108]
    assert img.size == (80, 84)
    expected = Image.open(photo).convert("RGB").crop((16, 24, 96, 108))
    assert np.array_equal(np.asarray(img), np.asarray(expected))


def test_crop_bad_box_is_a_clear_param_error(tool_ctx, photo):
    with pytest.raises(ToolParamError) as info:
        run_tool("image_crop", {"left": 0.8, "right": 0.2}, [photo], tool_ctx)
    message = str(info.value)
    assert "image_crop" in message
    assert "left (0.8) must be less than right (0.2)" in message
    with pytest.raises(ToolParamError, match="less than or equal to 1"):
        run_tool("image_crop", {"right": 1.5}, [photo], tool_ctx)
    assert media_files(tool_ctx) == []


def test_tiny_crop_keeps_at_least_one_pixel(tool_ctx, photo):
    params = {"left": 0.5, "right": 0.501, "top": 0.999, "bottom": 1.0}
    result, img = run_checked("image_crop", params, [photo], tool_ctx)
    assert img.size == (1, 1)


# -- rotate --------------------------------------------------------------------------------------
def test_rotate_without_expand_keeps_size_and_fills_corners(tool_ctx, photo):
    params = {"degrees": 30, "fill": "#00ff00"}
    _, img = run_checked("image_rotate", params, [photo], tool_ctx)
    assert img.size == (160, 120)
    assert img.getpixel((0, 0)) == (0, 255, 0)


def test_rotate_expand_90_swaps_width_and_height(tool_ctx, photo):
    _, img = run_checked("image_rotate", {"degrees": 90, "expand": True}, [photo], tool_ctx)
    assert img.size == (120, 160)


def test_rotate_expand_encloses_the_rotated_image(tool_ctx, photo):
    _, img = run_checked("image_rotate", {"degrees": -33, "expand": True}, [photo], tool_ctx)
    rad = np.radians(33)
    exact_w = 160 * np.cos(rad) + 120 * np.sin(rad)
    exact_h = 160 * np.sin(rad) + 120 * np.cos(rad)
    assert exact_w <= img.width <= exact_w + 2
    assert exact_h <= img.height <= exact_h + 2


def test_rotate_unknown_colour_is_a_param_error(tool_ctx, photo):
    with pytest.raises(ToolParamError, match="unknown colour 'blurple'"):
        run_tool("image_rotate", {"degrees": 10, "fill": "blurple"}, [photo], tool_ctx)


# -- blur ----------------------------------------------------------------------------------------
def test_blur_lowers_sharpness_more_with_a_larger_radius(tool_ctx, photo):
    small, img = run_checked("image_blur", {"radius": 1}, [photo], tool_ctx)
    large, _ = run_checked("image_blur", {"radius": 6}, [photo], tool_ctx)
    assert img.size == (160, 120) and img.mode == "RGB"
    s, L = small.provenance.measured, large.provenance.measured
    assert s["sharpness_in"] == L["sharpness_in"] > 0
    assert L["sharpness_out"] < s["sharpness_out"] < s["sharpness_in"]
    assert L["sharpness_ratio"] < s["sharpness_ratio"] < 1
    assert L["mean_abs_diff"] > s["mean_abs_diff"] > 0


def test_blur_as_jpeg(tool_ctx, photo):
    result, img = run_checked("image_blur", {"radius": 2, "format": "jpeg"}, [photo], tool_ctx)
    assert img.format == "JPEG" and img.size == (160, 120)
    assert result.provenance.measured["format"] == "jpeg"


def test_blur_radius_out_of_range(tool_ctx, photo):
    with pytest.raises(ToolParamError, match="radius"):
        run_tool("image_blur", {"radius": 0}, [photo], tool_ctx)


# -- noise ---------------------------------------------------------------------------------------
def test_noise_on_mid_grey_achieves_the_requested_sigma(tool_ctx, tmp_path):
    grey = solid(tmp_path / "grey.png", "RGB", (128, 96), (128, 128, 128))
    result, img = run_checked("image_noise", {"sigma": 20}, [grey], tool_ctx)
    assert img.size == (128, 96) and img.mode == "RGB"
    m = result.provenance.measured
    assert m["clipped_fraction"] < 0.001
    assert abs(m["sigma_achieved"] - 20) <= 0.05 * 20
    # Independently: the std of (output - input) read back from the file.
    diff = np.asarray(img, dtype=np.float64) - 128
    assert diff.std() == pytest.approx(m["sigma_achieved"], abs=1e-3)
    assert abs(diff.mean()) < 1


def test_noise_near_white_is_reduced_by_clipping_as_predicted(tool_ctx, tmp_path):
    light = solid(tmp_path / "light.png", "L", (128, 96), 240)
    result, img = run_checked("image_noise", {"sigma": 40}, [light], tool_ctx)
    assert img.mode == "L"
    m = result.provenance.measured
    assert m["clipped_fraction"] > 0.3
    assert m["sigma_achieved"] < 0.8 * 40
    assert m["sigma_achieved"] == pytest.approx(m["sigma_expected"], rel=0.05)
    assert m["sigma_drawn"] == pytest.approx(40, rel=0.05)


def test_noise_keeps_alpha(tool_ctx, tmp_path):
    rgba = solid(tmp_path / "rgba.png", "RGBA", (64, 48), (100, 120, 140, 77))
    _, img = run_checked("image_noise", {"sigma": 10}, [rgba], tool_ctx)
    assert img.mode == "RGBA"
    assert set(np.asarray(img)[..., 3].ravel().tolist()) == {77}


def test_noise_only_writes_png(tool_ctx, photo):
    with pytest.raises(ToolParamError, match="format"):
        run_tool("image_noise", {"sigma": 5, "format": "jpeg"}, [photo], tool_ctx)


# -- jpeg ----------------------------------------------------------------------------------------
def test_jpeg_quality_trades_size_for_fidelity(tool_ctx, photo):
    low, img = run_checked("image_jpeg", {"quality": 10}, [photo], tool_ctx)
    high, _ = run_checked("image_jpeg", {"quality": 90}, [photo], tool_ctx)
    assert low.outputs[0].endswith(".jpg") and img.format == "JPEG"
    assert img.size == (160, 120) and img.mode == "RGB"
    lo, hi = low.provenance.measured, high.provenance.measured
    assert lo["bytes"] < hi["bytes"]
    assert lo["bytes"] == low.provenance.outputs[0].bytes
    assert 15 < lo["psnr_db"] < hi["psnr_db"] < 60


def test_jpeg_flattens_transparency_and_keeps_grey(tool_ctx, tmp_path):
    rgba = solid(tmp_path / "rgba.png", "RGBA", (40, 30), (0, 0, 0, 0))
    _, img = run_checked("image_jpeg", {"quality": 80}, [rgba], tool_ctx)
    assert img.mode == "RGB"
    assert np.asarray(img).min() >= 250  # transparent -> white, not black
    grey = solid(tmp_path / "grey.png", "L", (40, 30), 90)
    _, img = run_checked("image_jpeg", {"quality": 80}, [grey], tool_ctx)
    assert img.mode == "L"


def test_jpeg_output_name_must_be_jpeg(tool_ctx, photo):
    with pytest.raises(ToolParamError, match=r"must end in \.jpg or \.jpeg"):
        run_tool("image_jpeg", {"quality": 50, "output_name": "x.png"}, [photo], tool_ctx)
    result, _ = run_checked(
        "image_jpeg", {"quality": 50, "output_name": "deg/q50.jpeg"}, [photo], tool_ctx
    )
    assert result.outputs == ["deg/q50.jpeg"]


# -- grayscale -----------------------------------------------------------------------------------
def test_grayscale_single_channel(tool_ctx, photo):
    _, img = run_checked("image_grayscale", {}, [photo], tool_ctx)
    assert img.mode == "L" and img.size == (160, 120)
    expected = Image.open(photo).convert("L")
    assert np.array_equal(np.asarray(img), np.asarray(expected))


@pytest.mark.parametrize("fmt", ["png", "jpeg"])
def test_grayscale_keep_channels(tool_ctx, photo, fmt):
    result, img = run_checked(
        "image_grayscale", {"keep_channels": True, "format": fmt}, [photo], tool_ctx
    )
    assert img.mode == "RGB"
    arr = np.asarray(img, dtype=np.int16)
    spread = int((arr.max(axis=2) - arr.min(axis=2)).max())
    assert spread == result.provenance.measured["max_channel_spread"]
    assert spread <= (0 if fmt == "png" else 12)


def test_grayscale_offers_no_webp(tool_ctx, photo):
    with pytest.raises(ToolParamError, match="format"):
        run_tool("image_grayscale", {"format": "webp"}, [photo], tool_ctx)


# -- occlude -------------------------------------------------------------------------------------
def test_occlude_box_with_colour(tool_ctx, photo):
    params = {"left": 0.5, "top": 0.25, "width": 0.25, "height": 0.5, "fill": "#102030"}
    result, img = run_checked("image_occlude", params, [photo], tool_ctx)
    assert img.size == (160, 120) and img.mode == "RGB"
    box = result.provenance.measured["patch_box"]
    assert box == [80, 30, 120, 90]
    arr = np.asarray(img)
    assert (arr[30:90, 80:120] == (16, 32, 48)).all()
    original = np.asarray(Image.open(photo).convert("RGB"))
    outside = np.ones(arr.shape[:2], bool)
    outside[30:90, 80:120] = False
    assert np.array_equal(arr[outside], original[outside])


def test_occlude_noise_as_jpeg(tool_ctx, photo):
    params = {"position": "random", "fill": "noise", "format": "jpeg"}
    result, img = run_checked("image_occlude", params, [photo], tool_ctx)
    left, top, right, bottom = result.provenance.measured["patch_box"]
    assert (right - left, bottom - top) == (40, 30)
    assert 0 <= left and right <= 160 and 0 <= top and bottom <= 120


def test_occlude_patch_must_fit(tool_ctx, photo):
    with pytest.raises(ToolParamError, match=r"the patch leaves the image \(left \+ width"):
        run_tool("image_occlude", {"left": 0.9, "width": 0.5}, [photo], tool_ctx)


# -- text ----------------------------------------------------------------------------------------
def test_text_on_a_blank_canvas(tool_ctx):
    params = {"text": "The quick brown fox jumps over the lazy dog", "width": 320, "height": 120}
    result, img = run_checked("image_text", params, [], tool_ctx)
    assert img.size == (320, 120) and img.mode == "RGB"
    assert result.outputs[0].startswith("text-")
    m = result.provenance.measured
    left, top, right, bottom = m["text_box"]
    assert m["text_fits"] and m["lines"] >= 2  # wrapped to fit 320 px
    assert 0 <= left < right <= 320 and 0 <= top < bottom <= 120
    arr = np.asarray(img)
    inside = arr[top:bottom, left:right]
    assert (inside < 128).any()  # black ink in the box
    mask = np.ones(arr.shape[:2], bool)
    mask[top:bottom, left:right] = False
    assert (arr[mask] == 255).all()  # and nothing outside it


def test_text_on_a_photo_in_a_corner(tool_ctx, photo):
    params = {"text": "STOP", "position": "bottom-right", "color": "yellow", "font_size": 24}
    result, img = run_checked("image_text", params, [photo], tool_ctx)
    assert img.size == (160, 120)
    left, top, right, bottom = result.provenance.measured["text_box"]
    assert right > 120 and bottom > 90  # bottom-right quadrant
    assert result.provenance.measured["changed_fraction"] > 0.05


def test_text_limits_and_invisible_text(tool_ctx):
    with pytest.raises(ToolParamError, match="at most 4000 characters"):
        run_tool("image_text", {"text": "x" * 4001}, [], tool_ctx)
    with pytest.raises(ToolParamError, match="only whitespace"):
        run_tool("image_text", {"text": "  \n "}, [], tool_ctx)
    with pytest.raises(ToolParamError, match="equals the background"):
        run_tool("image_text", {"text": "hi", "color": "white"}, [], tool_ctx)
    assert media_files(tool_ctx) == []


def test_a_blank_canvas_grows_until_a_drawn_table_fits(tool_ctx):
    rows = "\n".join(f"| chevrolet impala {i} | {150 + i} | {4300 + 7 * i} |" for i in range(12))
    text = f"| Model | Horsepower | Weight |\n| --- | --- | --- |\n{rows}\n\nWhat is the mean?"
    assert len(text) > 500
    result, img = run_checked("image_text", {"text": text, "font_size": 24}, [], tool_ctx)
    m = result.provenance.measured
    assert img.size[0] == 512 and img.size[1] > 256  # taller than the default height
    assert m["text_fits"] and m["lines"] >= 15
    fixed, small = run_checked(
        "image_text", {"text": text, "font_size": 24, "grow": False}, [], tool_ctx
    )
    assert small.size == (512, 256) and not fixed.provenance.measured["text_fits"]


def test_accented_letters_are_drawn_not_boxed(tool_ctx):
    """ "qual è", "Größe", "déjà": each letter its own glyph, not the font's missing-glyph box."""

    def drawn(text: str) -> np.ndarray:
        params = {"text": text, "width": 200, "height": 80, "font_size": 40}
        return np.asarray(run_checked("image_text", params, [], tool_ctx)[1])

    missing = drawn("\u0378")  # an unassigned code point: the missing-glyph box
    for letter in "èéüößçãñ":
        assert not np.array_equal(drawn(letter), missing), letter
    assert not np.array_equal(drawn("è"), drawn("e"))


def test_text_long_word_is_split_to_fit(tool_ctx):
    params = {"text": "W" * 60, "width": 100, "height": 400, "font_size": 20}
    result, _ = run_checked("image_text", params, [], tool_ctx)
    m = result.provenance.measured
    assert m["text_fits"] and m["lines"] > 1


# -- grid ----------------------------------------------------------------------------------------
def test_grid_of_three_with_default_labels(tool_ctx, tmp_path, photo):
    other = make_photo(tmp_path / "other.png", 90, 160, seed=2)
    grey = solid(tmp_path / "grey.png", "L", (50, 50), 128)
    params = {"columns": 2, "cell_width": 100, "cell_height": 80, "label_size": 20}
    result, img = run_checked("image_grid", params, [photo, other, grey], tool_ctx)
    m = result.provenance.measured
    band = m["label_band"]
    assert (m["columns"], m["rows"]) == (2, 2)
    assert img.size == (2 * 100, 2 * (80 + band)) and img.mode == "RGB"
    assert m["labels"] == ["A", "B", "C"]
    assert result.outputs[0].startswith("grid-")
    for left, top, right, bottom in m["cells"]:
        # Each image is fitted into its 100x80 cell, touching it on one side.
        assert right - left <= 100 and bottom - top <= 80
        assert right - left == 100 or bottom - top == 80
    # Each label band has ink under its image.
    arr = np.asarray(img.convert("L"))
    assert (arr[80 : 80 + band, 0:100] < 128).any()
    assert (arr[80 : 80 + band, 100:200] < 128).any()


def test_grid_labels_must_match_inputs(tool_ctx, tmp_path, photo):
    other = make_photo(tmp_path / "other.png", seed=3)
    with pytest.raises(ToolParamError, match=r"1 label\(s\) for 2 input image\(s\)"):
        run_tool("image_grid", {"labels": ["only one"]}, [photo, other], tool_ctx)
    with pytest.raises(ToolParamError, match="takes 2-16 image file"):
        run_tool("image_grid", {}, [photo], tool_ctx)
    params = {"labels": ["left", "a label far too long for a cell"], "cell_width": 64}
    result, img = run_checked("image_grid", params, [photo, other], tool_ctx)
    assert result.provenance.measured["labels"][0] == "left"
    assert result.provenance.measured["labels"][1].endswith("...")
    assert img.width == 2 * 64


# -- determinism ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("image_noise", {"sigma": 25}),
        ("image_occlude", {"position": "random", "fill": "noise"}),
        ("image_occlude", {"position": "random", "fill": "black"}),
    ],
)
def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, photo, name, params):
    def run(seed: int, folder: str) -> bytes:
        ctx = ToolContext(media_dir=tmp_path / folder, seed=seed)
        result = run_tool(name, params, [photo], ctx)
        return (ctx.media_dir / result.outputs[0]).read_bytes()

    first, second, other = run(7, "a"), run(7, "b"), run(8, "c")
    assert first == second
    assert first != other


def test_every_tool_is_deterministic(tmp_path, photo):
    other = make_photo(tmp_path / "other.png", seed=4)
    calls = [
        ("image_resize", {"width": 50, "height": 30}, [photo]),
        ("image_crop", {"left": 0.25}, [photo]),
        ("image_rotate", {"degrees": 12.5}, [photo]),
        ("image_blur", {"radius": 1.5, "format": "webp"}, [photo]),
        ("image_jpeg", {"quality": 40}, [photo]),
        ("image_grayscale", {}, [photo]),
        ("image_text", {"text": "same"}, []),
        ("image_grid", {}, [photo, other]),
    ]
    for name, params, inputs in calls:
        digests = []
        for folder in ("x", "y"):
            ctx = ToolContext(media_dir=tmp_path / folder, seed=7)
            digests.append(run_tool(name, params, inputs, ctx).provenance.outputs[0].sha256)
        assert digests[0] == digests[1], name


# -- failures ------------------------------------------------------------------------------------
def test_postcondition_failure_deletes_the_output(tool_ctx, photo, monkeypatch):
    real_save = image_tools.save_image

    def wrong_size(img, path, **kwargs):
        real_save(img.resize((img.width + 1, img.height)), path, **kwargs)

    monkeypatch.setattr(image_tools, "save_image", wrong_size)
    for name, params in [
        ("image_resize", {"width": 32, "height": 32}),
        ("image_crop", {"right": 0.5}),
        ("image_rotate", {"degrees": 5}),
        ("image_jpeg", {"quality": 50}),
    ]:
        with pytest.raises(PostconditionError, match=f"tool {name}: output is"):
            run_tool(name, params, [photo], tool_ctx)
    assert media_files(tool_ctx) == []


def test_postcondition_failure_of_pixel_checks(tool_ctx, photo, monkeypatch):
    real_save = image_tools.save_image

    def sharpen_and_lose_noise(img, path, **kwargs):
        from PIL import ImageFilter

        real_save(img.filter(ImageFilter.UnsharpMask(4, 300, 0)), path, **kwargs)

    monkeypatch.setattr(image_tools, "save_image", sharpen_and_lose_noise)
    with pytest.raises(PostconditionError, match="sharper than the input"):
        run_tool("image_blur", {"radius": 0.3}, [photo], tool_ctx)
    with pytest.raises(PostconditionError, match="does not hold the fill"):
        run_tool("image_occlude", {"fill": "noise"}, [photo], tool_ctx)

    def write_the_original(img, path, **kwargs):
        real_save(Image.open(photo).convert(img.mode), path, **kwargs)

    monkeypatch.setattr(image_tools, "save_image", write_the_original)
    with pytest.raises(PostconditionError, match="achieved noise std"):
        run_tool("image_noise", {"sigma": 10}, [photo], tool_ctx)
    with pytest.raises(PostconditionError, match="no pixel changed inside the text box"):
        run_tool("image_text", {"text": "hello"}, [photo], tool_ctx)
    assert media_files(tool_ctx) == []


@pytest.mark.parametrize("name", ["image_resize", "image_blur", "image_noise", "image_text"])
def test_decompression_bomb_is_refused_before_decoding(tool_ctx, tmp_path, name, monkeypatch):
    bomb = bomb_png(tmp_path / "bomb.png")
    assert bomb.stat().st_size < 200
    params = {
        "image_resize": {"width": 10, "height": 10},
        "image_blur": {"radius": 1},
        "image_noise": {"sigma": 5},
        "image_text": {"text": "x"},
    }[name]

    def no_decoding(self):
        raise AssertionError("the bomb was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    started = time.perf_counter()
    with pytest.raises(InputRejectedError, match="20000x20000") as info:
        run_tool(name, params, [bomb], tool_ctx)
    assert time.perf_counter() - started < 2.0
    assert "refused before decoding" in str(info.value)
    assert media_files(tool_ctx) == []


def test_bomb_inside_a_grid_is_refused(tool_ctx, tmp_path, photo):
    bomb = bomb_png(tmp_path / "bomb.png", 30000, 30000)
    with pytest.raises(InputRejectedError, match="30000x30000"):
        run_tool("image_grid", {}, [photo, bomb], tool_ctx)
    assert media_files(tool_ctx) == []


def test_not_an_image_is_rejected(tool_ctx, tmp_path):
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"this is not a png")
    with pytest.raises(InputRejectedError, match="not a readable image"):
        run_tool("image_blur", {"radius": 1}, [fake], tool_ctx)


def test_output_name_suffix_must_match_format(tool_ctx, photo):
    with pytest.raises(ToolParamError, match=r"must end in \.png to match format 'png'"):
        run_tool("image_blur", {"radius": 1, "output_name": "b.jpg"}, [photo], tool_ctx)
    result, img = run_checked(
        "image_blur",
        {"radius": 1, "format": "jpeg", "output_name": "b/blur.jpg"},
        [photo],
        tool_ctx,
    )
    assert result.outputs == ["b/blur.jpg"] and img.format == "JPEG"
    with pytest.raises(ToolParamError, match="has no file suffix; end it in .png"):
        run_tool("image_blur", {"radius": 1, "output_name": "blurred"}, [photo], tool_ctx)
    with pytest.raises(UnsafePathError, match="outside the media folder"):
        run_tool("image_blur", {"radius": 1, "output_name": "."}, [photo], tool_ctx)


def test_palette_and_16_bit_inputs_are_normalized(tool_ctx, tmp_path, photo):
    pal = tmp_path / "pal.png"
    Image.open(photo).convert("P", palette=Image.Palette.ADAPTIVE).save(pal)
    _, img = run_checked("image_crop", {"right": 0.5}, [pal], tool_ctx)
    assert img.mode == "RGB"
    deep = tmp_path / "deep.png"
    Image.fromarray(np.full((20, 30), 65535, dtype=np.uint16)).save(deep)
    _, img = run_checked("image_blur", {"radius": 1}, [deep], tool_ctx)
    assert img.mode == "L" and np.asarray(img).min() == 255
