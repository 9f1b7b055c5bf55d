"""Core benchmarks: cold start and registry construction, each against a baseline.

In-process planning, against a hand-written builder with the same checks, is
``bench/bench_plan.py``.

Every figure is a ratio against a baseline measured in the same run, with the two
alternated so that drift on a shared machine hits both alike; medians over many runs.
Run from the repository root with the workspace environment::

    python bench/bench_core.py [--example examples/vllm-single-node-tp8.toml] [--quick]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def alternate(a: Callable[[], float], b: Callable[[], float], runs: int) -> tuple[float, float]:
    """Median seconds of ``a`` and ``b``, measured alternately ``runs`` times each."""
    xs, ys = [], []
    for _ in range(runs):
        xs.append(a())
        ys.append(b())
    return statistics.median(xs), statistics.median(ys)


def timed_process(argv: list[str]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        subprocess.run(
            argv, check=True, stdout=subprocess.DEVNULL, env={"ENGINEKIT_CONFIG": ""} | _path_env()
        )
        return time.perf_counter() - start

    return run


def _path_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}


def bench_cold_start(example: Path, runs: int) -> None:
    bare = timed_process([sys.executable, "-c", "import pluggy, attrs, cattrs, importlib.metadata"])
    render = timed_process([sys.executable, "-m", "enginekit", "render", str(example)])
    ours, base = alternate(render, bare, runs)
    print(
        f"(1) cold start  render {example.name}: {ours * 1e3:7.1f} ms   bare deps import: "
        f"{base * 1e3:7.1f} ms   ratio {ours / base:.2f}x   (target <= 1.5x)"
    )


# --- (3) registry construction with 300 installed distributions ------------------------


def bench_registry(runs: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="enginekit-bench-"))
    try:
        for i in range(300):
            info = tmp / f"bench_engine_{i}-1.0.dist-info"
            info.mkdir()
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: bench-engine-{i}\nVersion: 1.0\n")
            (info / "entry_points.txt").write_text(
                f"[enginekit.engines]\nbench{i} = bench_engine_{i}.plugin:Engine\n"
            )
        code = (
            f"import sys, time, json; sys.path.insert(0, {str(tmp)!r});"
            "from importlib.metadata import entry_points; from enginekit import Registry;"
            "kind = sys.argv[1]; start = time.perf_counter();"
            "r = Registry.from_entry_points() if kind == 'ours' else entry_points(group='enginekit.engines');"
            "n = len(r.names()) if kind == 'ours' else len(r);"
            "print(json.dumps([time.perf_counter() - start, n]))"
        )

        def measure(kind: str) -> Callable[[], float]:
            def run() -> float:
                out = subprocess.run(
                    [sys.executable, "-c", code, kind], check=True, capture_output=True, text=True
                )
                seconds, count = json.loads(out.stdout)
                assert count >= 300, count
                return float(seconds)

            return run

        a, b = alternate(measure("ours"), measure("bare"), runs)
        print(
            f"(3) registry from 300 distributions: {a * 1e3:6.2f} ms   bare entry_points(group=): "
            f"{b * 1e3:6.2f} ms   ratio {a / b:.2f}x   (target <= 1.5x)"
        )
    finally:
        shutil.rmtree(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", type=Path, default=ROOT / "examples" / "vllm-single-node-tp8.toml")
    parser.add_argument("--quick", action="store_true", help="fewer runs (for CI smoke)")
    args = parser.parse_args()
    runs = 5 if args.quick else 21
    if args.example.exists():
        bench_cold_start(args.example, runs)
    else:
        print(f"(1) skipped: {args.example} not found")
    bench_registry(runs)


if __name__ == "__main__":
    main()
