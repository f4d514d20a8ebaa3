"""What the tool registry adds, and how fast speech synthesis is.

For each tool, one representative call is timed three ways (median of N repeats):

* ``registry``: ``run_tool`` (parameter validation, input checks, hashing, provenance, the
  tool's own output measurement and post-condition);
* ``tool_fn``: the same tool function called directly with already-validated parameters
  (so ``registry / tool_fn`` is the registry's own overhead);
* ``library`` (where a one-line library equivalent exists): the bare Pillow / espeak-ng /
  pydub / ffmpeg call with no measuring or checking.

Also reports text-to-speech speed in seconds of audio per second of wall time.
Usage: ``python benchmarks/tools_overhead.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchsmith.tools.context import ToolContext, stable_seed
from benchsmith.tools.registry import get_tool, run_tool

TEXT = (
    "The capital of France is Paris. It lies on the Seine, in the north of the country, "
    "and has been the seat of government for most of the last thousand years."
)


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def make_inputs(folder: Path) -> dict[str, Path]:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:384, 0:512]
    photo = np.stack([x % 256, y % 256, (x + y) % 256], axis=-1).astype(np.uint8)
    photo = np.clip(photo + rng.normal(0, 8, photo.shape), 0, 255).astype(np.uint8)
    Image.fromarray(photo).save(folder / "photo.png")
    subprocess.run(["espeak-ng", "-w", str(folder / "speech.wav"), TEXT], check=True)
    return {"image": folder / "photo.png", "audio": folder / "speech.wav"}


def library_calls(inputs: dict[str, Path], out: Path) -> dict[str, Callable[[], object]]:
    from PIL import Image, ImageFilter
    from pydub import AudioSegment

    def resize() -> None:
        with Image.open(inputs["image"]) as img:
            img.resize((256, 192), Image.Resampling.LANCZOS).save(out / "lib.png")

    def blur() -> None:
        with Image.open(inputs["image"]) as img:
            img.filter(ImageFilter.GaussianBlur(3)).save(out / "lib.png")

    def jpeg() -> None:
        with Image.open(inputs["image"]) as img:
            img.convert("RGB").save(out / "lib.jpg", "JPEG", quality=30)

    def gain() -> None:
        (AudioSegment.from_wav(inputs["audio"]) + 6).export(out / "lib.wav", format="wav")

    def speak() -> None:
        subprocess.run(["espeak-ng", "-v", "en", "-w", str(out / "lib.wav"), TEXT], check=True)

    def to_mp3() -> None:
        subprocess.run(
            ["ffmpeg", "-y", "-loglevel", "error", "-i", str(inputs["audio"]), str(out / "l.mp3")],
            check=True,
        )

    return {
        "image_resize": resize,
        "image_blur": blur,
        "image_jpeg": jpeg,
        "audio_gain": gain,
        "tts_speak": speak,
        "convert_audio": to_mp3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = make_inputs(folder)
        img, wav = [inputs["image"]], [inputs["audio"]]
        calls: dict[str, tuple[dict, list[Path]]] = {
            "image_resize": ({"width": 256, "height": 192}, img),
            "image_crop": ({"left": 0.1, "top": 0.1, "right": 0.8, "bottom": 0.9}, img),
            "image_rotate": ({"degrees": 15}, img),
            "image_blur": ({"radius": 3}, img),
            "image_noise": ({"sigma": 20}, img),
            "image_jpeg": ({"quality": 30}, img),
            "image_grayscale": ({}, img),
            "image_occlude": ({"position": "random", "width": 0.3, "height": 0.3}, img),
            "image_text": ({"text": "Which city is this?"}, img),
            "audio_gain": ({"gain_db": 6}, wav),
            "audio_add_noise": ({"snr_db": 10, "kind": "white"}, wav),
            "audio_tempo": ({"factor": 1.25}, wav),
            "audio_trim": ({"start_s": 1.0, "end_s": 3.0}, wav),
            "tts_speak": ({"text": TEXT, "voice": "en"}, []),
            "convert_audio": ({"format": "mp3"}, wav),
        }
        ctx = ToolContext(media_dir=folder / "media", seed=0)
        library = library_calls(inputs, folder)
        rows = {}
        for name, (params, paths) in calls.items():
            spec = get_tool(name)
            parsed = spec.params.model_validate(params)
            call_ctx = ctx.for_call(f"bench-{name}", stable_seed(0, name))
            registry_ms = median_ms(
                lambda n=name, p=params, i=paths: run_tool(n, p, i, ctx), args.repeats
            )
            fn_ms = median_ms(
                lambda s=spec, p=parsed, i=paths, c=call_ctx: s.fn(c, p, i), args.repeats
            )
            row = {
                "registry_ms": round(registry_ms, 2),
                "tool_fn_ms": round(fn_ms, 2),
                "registry_overhead": round(registry_ms / fn_ms - 1, 4),
            }
            if name in library:
                lib_ms = median_ms(library[name], args.repeats)
                row["library_ms"] = round(lib_ms, 2)
                row["registry_over_library"] = round(registry_ms / lib_ms, 3)
            rows[name] = row
        # Speech speed: seconds of audio per second of wall time.
        speech = []
        for rate in (120, 175, 260):
            started = time.perf_counter()
            result = run_tool("tts_speak", {"text": TEXT * 3, "voice": "en", "rate": rate}, [], ctx)
            wall = time.perf_counter() - started
            audio_s = result.provenance.measured["duration_s"]
            speech.append(
                {
                    "rate_wpm": rate,
                    "audio_s": audio_s,
                    "wall_s": round(wall, 3),
                    "audio_s_per_s": round(audio_s / wall, 1),
                }
            )
    overheads = [r["registry_overhead"] for r in rows.values()]
    print(
        json.dumps(
            {
                "repeats": args.repeats,
                "tools": rows,
                "registry_overhead_median": round(statistics.median(overheads), 4),
                "registry_overhead_max": round(max(overheads), 4),
                "tts_speed": speech,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
