"""How well ``calibrate`` and ``perturb`` recover a simulated panel, end to end.

Six simulated models (abilities -2.5 ... 2.5) answer, through the fake OpenAI endpoint and
the whole ``eval`` machinery, items whose difficulty ``b`` and discrimination ``a`` are known
(:mod:`benchsmith.testing.panel`). The script reports, per number of answers per model per
item (``--epochs``): Pearson r of fitted and true difficulty, Spearman rho of fitted and true
ability, the separability share, the 100-item subset's ranking and score error, the flags,
and the seconds taken; then the contamination check with two models that memorized the
published items (their p-values and the others').

    python benchmarks/calibration_sim.py --items 400 --epochs 1 --epochs 5 [--seeds 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "evaluate"))

from eval_helpers import mc, write_bench  # noqa: E402

from benchsmith.config import RunConfig, RunPaths  # noqa: E402
from benchsmith.evaluate.calibrate import calibrate_benchmark  # noqa: E402
from benchsmith.evaluate.folder import load_items  # noqa: E402
from benchsmith.evaluate.perturb import perturb_benchmark  # noqa: E402
from benchsmith.llm.registry import register_runtime  # noqa: E402
from benchsmith.testing.fake_openai import FakeOpenAIServer  # noqa: E402
from benchsmith.testing.panel import SimulatedModel, SimulatedPanel  # noqa: E402
from benchsmith.testing.runtime import endpoint_runtime  # noqa: E402

ABILITIES = {"m1": -2.5, "m2": -1.5, "m3": -0.5, "m4": 0.5, "m5": 1.5, "m6": 2.5}


def items(n: int, seed: int, prefix: str) -> tuple[list[dict], dict]:
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for i in range(n):
        rows.append(
            mc(
                f"s-{i:05d}",
                f"{prefix} {seed}-{i}: which option?",
                ["w", "x", "y", "z"],
                "ABCD"[int(rng.integers(4))],
                subtask="s",
            )  # fmt: skip
        )
        truth[f"s-{i:05d}"] = (float(rng.uniform(0.8, 2.5)), float(rng.uniform(-2.5, 2.5)))
    return rows, truth


def with_panel(panel: SimulatedPanel, run_dir: Path, fn):
    config = RunConfig(paths=RunPaths(run_dir=str(run_dir)))
    with FakeOpenAIServer(default=panel) as server:
        register_runtime(config, endpoint_runtime(server.base_url, run_dir=run_dir, max_retries=0))
        try:
            return fn([f"{n}@{server.base_url}" for n in panel.models], config)
        finally:
            register_runtime(config, None)


def calibration(n: int, epochs: int, seed: int, root: Path) -> dict:
    rows, truth = items(n, seed, "q")
    bench = write_bench(root / f"cal-{epochs}-{seed}", rows)
    panel = SimulatedPanel([SimulatedModel(k, a) for k, a in ABILITIES.items()], seed=seed)
    panel.add_items(load_items(bench), truth)
    started = time.perf_counter()
    result = with_panel(
        panel,
        root / f"runs-{epochs}-{seed}",
        lambda models, config: calibrate_benchmark(
            bench, models, config=config, epochs=epochs, subset_size=100, concurrency=8
        ),
    )
    data = result.data
    fitted = {r["id"]: r for r in data["items"]}
    ids = list(fitted)
    return {
        "epochs": epochs,
        "seed": seed,
        "difficulty_r": pearsonr(
            [fitted[i]["difficulty"] for i in ids], [truth[i][1] for i in ids]
        )[0],  # fmt: skip
        "discrimination_r": pearsonr(
            [fitted[i]["discrimination"] for i in ids], [truth[i][0] for i in ids]
        )[0],  # fmt: skip
        "ability_rho": spearmanr([m["ability"] for m in data["panel"]], list(ABILITIES.values()))[
            0
        ],  # fmt: skip
        "separability": data["separability"]["share"],
        "subset_ranking_kept": data["subset"]["ranking_kept"],
        "subset_mean_abs_error": data["subset"]["mean_abs_error"],
        "flags": {k: len(v) for k, v in data["flags"].items()},
        "seconds": round(time.perf_counter() - started, 1),
    }


def contamination(n: int, seed: int, root: Path) -> dict:
    rows, truth = items(n, seed, "published")
    published = write_bench(root / f"pub-{seed}", rows)
    fresh_rows, _ = items(n, seed + 1, "fresh")
    fresh = write_bench(root / f"fresh-{seed}", fresh_rows)
    seen = frozenset(i.user_text().strip() for i in load_items(published))
    memorizers = {"m2", "m4"}
    panel = SimulatedPanel(
        [SimulatedModel(k, a, seen if k in memorizers else frozenset())
         for k, a in ABILITIES.items()],
        seed=seed,
    )  # fmt: skip
    panel.add_items(load_items(published), truth)
    panel.add_items(load_items(fresh), truth)
    result = with_panel(
        panel,
        root / f"runs-perturb-{seed}",
        lambda models, config: perturb_benchmark(
            published, models, seed=seed + 1000, fresh_dir=fresh, config=config, concurrency=8
        ),
    )
    return {
        m.split("@")[0]: {
            "memorized": m.split("@")[0] in memorizers,
            "gap": round(r["gap"], 3),
            "p": float(f"{r['p_value']:.3g}"),
            "p_holm": float(f"{r['p_holm']:.3g}"),
            "significant": r["significant"],
        }
        for m, r in result.data["models"].items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--epochs", type=int, action="append")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out: dict = {"calibration": [], "contamination": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for epochs in args.epochs or [1, 5]:
            for seed in range(args.seeds):
                row = calibration(args.items, epochs, seed, root)
                out["calibration"].append(row)
                print(json.dumps(row), flush=True)
        for seed in range(args.seeds):
            row = contamination(200, seed, root)
            out["contamination"].append(row)
            print(json.dumps(row), flush=True)
    for epochs in args.epochs or [1, 5]:
        rows = [r for r in out["calibration"] if r["epochs"] == epochs]
        r_b = np.median([r["difficulty_r"] for r in rows])
        print(
            f"epochs {epochs}: median difficulty r {r_b:.3f}"
            f", ability rho {np.median([r['ability_rho'] for r in rows]):.3f}, subset error "
            f"{np.median([r['subset_mean_abs_error'] for r in rows]):.4f}, ranking kept "
            f"{sum(r['subset_ranking_kept'] for r in rows)}/{len(rows)}"
        )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
