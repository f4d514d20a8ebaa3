"""Each tool against the plain library call that does the same work, and speech speed.

For every tool, three arms are timed interleaved (one round = one call of each arm, the
order rotated each round), each call on a fresh input file of its own (a new noise seed), so
no hash or decode cache of an earlier call is hit:

* ``library``: the bare Pillow / numpy / espeak-ng / ffmpeg call that makes the same output
  (decode, transform, encode), with no validation, measuring or checking; in process where
  the tool works in process (gain, noise, trim on WAV with numpy), ffmpeg where the tool
  runs ffmpeg (tempo, conversion);
* ``tool_fn``: the tool's function with already-validated parameters;
* ``registry``: ``run_tool`` (parameter validation, input checks, hashing, provenance, the
  tool's own output measurement and post-condition): what a build pays.

Reported per tool: the medians with ranges, and the per-round ratio ``registry / library``
(and ``registry / tool_fn``) as a median with its range. A ratio below 1 is reported as the
measured ratio, not as a "negative overhead": with noise both arms overlap.
Also reports text-to-speech speed in seconds of audio per second of wall time.

Usage: ``python benchmarks/tools_overhead.py [--repeats N] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path

from _common import Summary, figure, interleaved, load_average, ratios

from benchsmith.tools.context import ToolContext, stable_seed
from benchsmith.tools.registry import get_tool, run_tool

TEXT = (
    "The capital of France is Paris. It lies on the Seine, in the north of the country, "
    "and has been the seat of government for most of the last thousand years."
)
ARMS = ("library", "tool_fn", "registry")

CALLS: dict[str, tuple[dict, str]] = {
    "image_resize": ({"width": 256, "height": 192}, "image"),
    "image_crop": ({"left": 0.1, "top": 0.1, "right": 0.8, "bottom": 0.9}, "image"),
    "image_rotate": ({"degrees": 15}, "image"),
    "image_blur": ({"radius": 3}, "image"),
    "image_noise": ({"sigma": 20}, "image"),
    "image_jpeg": ({"quality": 30}, "image"),
    "image_grayscale": ({}, "image"),
    "image_occlude": ({"position": "box", "width": 0.3, "height": 0.3}, "image"),
    "image_text": ({"text": "Which city is this?"}, "image"),
    "audio_gain": ({"gain_db": 6}, "audio"),
    "audio_add_noise": ({"snr_db": 10, "kind": "white"}, "audio"),
    "audio_tempo": ({"factor": 1.25}, "audio"),
    "audio_trim": ({"start_s": 1.0, "end_s": 3.0}, "audio"),
    "tts_speak": ({"text": TEXT, "voice": "en"}, "none"),
    "convert_audio": ({"format": "mp3"}, "audio"),
}


def make_image(path: Path, seed: int) -> None:
    """A 512x384 gradient photo with noise of ``seed``."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:384, 0:512]
    photo = np.stack([x % 256, y % 256, (x + y) % 256], axis=-1).astype(np.float64)
    photo = np.clip(photo + rng.normal(0, 8, photo.shape), 0, 255).astype(np.uint8)
    Image.fromarray(photo).save(path)


def make_audio(path: Path, speech: bytes, params: wave._wave_params, seed: int) -> None:
    """The speech with a little noise of ``seed`` (a new file, the same length)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    samples = np.frombuffer(speech, dtype=np.int16).astype(np.int32)
    samples = np.clip(samples + rng.integers(-3, 4, samples.shape), -32768, 32767)
    with wave.open(str(path), "wb") as out:
        out.setparams(params)
        out.writeframes(samples.astype(np.int16).tobytes())


def ffmpeg(*args: str) -> None:
    """Run ffmpeg quietly."""
    subprocess.run(["ffmpeg", "-y", "-loglevel", "error", *args], check=True)


def library_calls(out: Path) -> dict[str, Callable[[Path], object]]:
    """The plain library call of each tool: input file -> output file."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    def pil(fn: Callable[[Image.Image], Image.Image], name: str = "lib.png") -> Callable:
        def run(src: Path) -> None:
            with Image.open(src) as img:
                fn(img).save(out / name)

        return run

    def noise(img: Image.Image) -> Image.Image:
        arr = np.asarray(img, dtype=np.float64)
        arr += np.random.default_rng(0).normal(0, 20, arr.shape)
        return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))

    def occlude(img: Image.Image) -> Image.Image:
        img = img.copy()
        w, h = img.size
        ImageDraw.Draw(img).rectangle([0, 0, int(0.3 * w), int(0.3 * h)], fill="black")
        return img

    def text(img: Image.Image) -> Image.Image:
        img = img.copy()
        draw = ImageDraw.Draw(img)
        draw.text((20, 20), "Which city is this?", fill="black", font=ImageFont.load_default(32))
        return img

    def numpy_wav(fn: Callable[[np.ndarray, int], np.ndarray]) -> Callable[[Path], None]:
        def run(src: Path) -> None:
            with wave.open(str(src), "rb") as handle:
                params = handle.getparams()
                samples = np.frombuffer(handle.readframes(params.nframes), dtype=np.int16)
            result = fn(samples.astype(np.float64), params.framerate)
            with wave.open(str(out / "lib.wav"), "wb") as handle:
                handle.setparams(params)
                handle.writeframes(np.clip(result, -32768, 32767).astype(np.int16).tobytes())

        return run

    def audio_noise(signal: np.ndarray, _rate: int) -> np.ndarray:
        power = np.mean(signal**2) / 10 ** (10 / 10)
        return signal + np.random.default_rng(0).normal(0, np.sqrt(power), signal.shape)

    def jpeg(src: Path) -> None:
        with Image.open(src) as img:
            img.convert("RGB").save(out / "lib.jpg", "JPEG", quality=30)

    wav = str(out / "lib.wav")
    return {
        "image_resize": pil(lambda i: i.resize((256, 192), Image.Resampling.LANCZOS)),
        "image_crop": pil(lambda i: i.crop((51, 38, 410, 346))),
        "image_rotate": pil(lambda i: i.rotate(15, resample=Image.Resampling.BICUBIC)),
        "image_blur": pil(lambda i: i.filter(ImageFilter.GaussianBlur(3))),
        "image_noise": pil(noise),
        "image_jpeg": jpeg,
        "image_grayscale": pil(lambda i: i.convert("L")),
        "image_occlude": pil(occlude),
        "image_text": pil(text),
        "audio_gain": numpy_wav(lambda x, _rate: x * 10 ** (6 / 20)),
        "audio_add_noise": numpy_wav(audio_noise),
        "audio_tempo": lambda src: ffmpeg("-i", str(src), "-af", "atempo=1.25", wav),
        "audio_trim": numpy_wav(lambda x, rate: x[rate : 3 * rate]),
        "tts_speak": lambda _src: subprocess.run(
            ["espeak-ng", "-v", "en", "-w", wav, TEXT], check=True
        ),
        "convert_audio": lambda src: ffmpeg("-i", str(src), str(out / "lib.mp3")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tools", nargs="*", default=list(CALLS), choices=list(CALLS))
    parser.add_argument("--quick", action="store_true", help="three repeats, four tools")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 3
        args.tools = ["image_resize", "image_blur", "audio_gain", "convert_audio"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run(["espeak-ng", "-w", str(folder / "speech.wav"), TEXT], check=True)
        with wave.open(str(folder / "speech.wav"), "rb") as handle:
            wav_params = handle.getparams()
            speech = handle.readframes(wav_params.nframes)
        # A fresh input per arm and repeat (index 0 for the warm-up).
        fresh: dict[tuple[str, str, int], Path] = {}
        kinds = {CALLS[name][1] for name in args.tools}
        for a, arm in enumerate(ARMS):
            for r in range(args.repeats + 1):
                seed = 1000 * a + r
                if "image" in kinds:
                    path = folder / f"photo-{arm}-{r}.png"
                    make_image(path, seed)
                    fresh["image", arm, r] = path
                if "audio" in kinds:
                    path = folder / f"speech-{arm}-{r}.wav"
                    make_audio(path, speech, wav_params, seed)
                    fresh["audio", arm, r] = path
        ctx = ToolContext(media_dir=folder / "media", seed=0)
        library = library_calls(folder)
        rows = {}
        for name in args.tools:
            params, kind = CALLS[name]
            spec = get_tool(name)
            parsed = spec.params.model_validate(params)

            def inputs(arm: str, r: int, kind: str = kind) -> list[Path]:
                return [] if kind == "none" else [fresh[kind, arm, r + 1]]

            def lib_arm(r: int, n: str = name) -> None:
                library[n]((inputs("library", r) or [Path()])[0])

            def fn_arm(r: int, s=spec, p=parsed, n=name) -> None:
                s.fn(ctx.for_call(f"bench-{n}-{r}", stable_seed(0, n)), p, inputs("tool_fn", r))

            def registry_arm(r: int, n: str = name, p: dict = params) -> None:
                run_tool(n, p, inputs("registry", r), ctx)

            samples = interleaved(
                {"library": lib_arm, "tool_fn": fn_arm, "registry": registry_arm}, args.repeats
            )
            ms = {arm: Summary.of([s * 1000 for s in samples[arm]]) for arm in ARMS}
            over_lib = Summary.of(ratios(samples["registry"], samples["library"]))
            over_fn = Summary.of(ratios(samples["registry"], samples["tool_fn"]))
            rows[name] = {
                "library_ms": ms["library"].as_dict(2),
                "tool_fn_ms": ms["tool_fn"].as_dict(2),
                "registry_ms": ms["registry"].as_dict(2),
                "registry_over_library": over_lib.as_dict(3),
                "registry_over_tool_fn": over_fn.as_dict(3),
            }
            print(
                f"{name:16} library {ms['library'].text('.1f', ' ms'):24} "
                f"registry {ms['registry'].text('.1f', ' ms'):24} "
                f"registry/library {over_lib.text('.2f')}; registry/tool_fn {over_fn.text('.3f')}",
                flush=True,
            )
        # Speech speed: seconds of audio per second of wall time.
        speech_rows = []
        for rate in (120, 175, 260):
            started = time.perf_counter()
            result = run_tool("tts_speak", {"text": TEXT * 3, "voice": "en", "rate": rate}, [], ctx)
            wall = time.perf_counter() - started
            audio_s = result.provenance.measured["duration_s"]
            speech_rows.append(
                {"rate_wpm": rate, "audio_s": audio_s, "audio_s_per_s": round(audio_s / wall, 1)}
            )
        shutil.rmtree(folder / "media", ignore_errors=True)
    medians = [row["registry_over_library"]["median"] for row in rows.values()]
    print(
        json.dumps(
            {"repeats": args.repeats, "tools": rows, "tts_speed": speech_rows},
        )
    )
    print(
        f"registry / library over {len(medians)} tools: median {statistics.median(medians):.2f}, "
        f"range {min(medians):.2f}-{max(medians):.2f}; {load_average()}"
    )
    figure(
        "tool_over_library",
        f"tool via registry / plain library call, median over {len(medians)} tools [range]",
        "-",
        f"{statistics.median(medians):.2f} [{min(medians):.2f}-{max(medians):.2f}]",
    )


if __name__ == "__main__":
    main()
