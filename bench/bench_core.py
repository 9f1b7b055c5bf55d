"""Core benchmarks: cold start (render, engines, --version) and building the registry, against baselines.

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
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def alternate(a: Callable[[], float], b: Callable[[], float], runs: int) -> tuple[float, float]:
    """Median seconds of ``a`` and ``b``, measured alternately ``runs`` times each."""
    xs, ys = [], []
    for _ in range(runs):
        xs.append(a())
        ys.append(b())
    return statistics.median(xs), statistics.median(ys)


@dataclass
class Samples:
    """Wall-clock and CPU (user + system) seconds of each run of one command."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def timed_process(argv: list[str]) -> Callable[[Samples], None]:
    """A function that runs ``argv`` once, cold, and adds its wall and CPU seconds to ``Samples``.

    CPU time is the child's own (``wait4``): on a shared machine it moves less than the
    wall clock, which also counts the time other work held the cores.
    """

    def run(samples: Samples) -> None:
        start = time.perf_counter()
        process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, env={"ENGINEKIT_CONFIG": ""} | _path_env()
        )
        _, status, usage = os.wait4(process.pid, 0)
        samples.wall.append(time.perf_counter() - start)
        samples.cpu.append(usage.ru_utime + usage.ru_stime)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in (0, 1):  # 1: `engines` with an engine that failed to load
            raise SystemExit(f"{' '.join(argv)} exited {process.returncode}")

    return run


def _path_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}


def _enginekit() -> list[str]:
    """The console script next to this interpreter, as an operator runs it; ``-m`` without one."""
    script = Path(sys.executable).with_name("enginekit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "enginekit"]


def _spread(values: list[float]) -> str:
    low, _, high = statistics.quantiles(values, n=4)
    return f"{low * 1e3:6.1f}-{high * 1e3:6.1f}"


DEPS = "import pluggy, attrs, cattrs, importlib.metadata"
PLUGINS = "[ep.load() for ep in importlib.metadata.entry_points(group='enginekit.engines')]"


def bench_cold_start(example: Path, runs: int) -> None:
    """Cold ``render``, ``engines`` and ``--version`` against importing the dependencies, interleaved."""
    floor = "bare deps import"
    commands = {
        floor: ([sys.executable, "-c", DEPS], ""),
        # Not a target: what importing the installed plugins alone costs, which `engines` must.
        "deps + every engine plugin import": ([sys.executable, "-c", DEPS + "; " + PLUGINS], ""),
        f"render {example.name}": ([*_enginekit(), "render", str(example)], "<= 1.25x"),
        # Every installed engine imported and checked: the plugins' own import time counts.
        "engines": ([*_enginekit(), "engines"], "<= 1.5x"),
        "--version": ([*_enginekit(), "--version"], ""),
    }
    runners = {name: timed_process(argv) for name, (argv, _) in commands.items()}
    samples = {name: Samples() for name in commands}
    for run in runners.values():  # once each, unmeasured: bytecode caches written, files cached
        run(Samples())
    for _ in range(runs):
        for name, run in runners.items():
            run(samples[name])
    wall0, cpu0 = statistics.median(samples[floor].wall), statistics.median(samples[floor].cpu)
    print(f"(1) cold start, median of {runs} interleaved runs each; wall clock, then the process's CPU time:")
    for name, got in samples.items():
        wall, cpu = statistics.median(got.wall), statistics.median(got.cpu)
        target = f"   (target {commands[name][1]})" if commands[name][1] else ""
        print(
            f"    {name:34} {wall * 1e3:6.1f} ms (middle half {_spread(got.wall)})  ratio {wall / wall0:.2f}x"
            f"   cpu {cpu * 1e3:6.1f} ms  ratio {cpu / cpu0:.2f}x{target}"
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
