"""Core benchmarks: cold start, in-process render, registry construction, each against a baseline.

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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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


# --- (2) in-process render ------------------------------------------------------------

SPEC: dict[str, Any] = {
    "replica_id": "r1",
    "shard_id": "r1-0",
    "http_port": 8000,
    "bind_addr": "10.0.0.5",
    "gpu_indices": [0, 1, 2, 3, 4, 5, 6, 7],
    "hcas": ["mlx5_0:1", "mlx5_1:1"],
    "gid_index": 3,
    "mgmt_interface": "eth0",
    "api_key": "sk-bench-0123456789abcdef",
    "profile": {
        "name": "llama-70b-tp8",
        "engine": "benchvllm",
        "model_path": "/models/llama-70b",
        "served_model_name": "llama-70b",
        "tp": 8,
        "args": ["--max-model-len", "8192"],
        "env": {"NCCL_DEBUG": "WARN"},
    },
}


def make_engine() -> Any:
    """A vLLM-shaped engine plugin, registered the way every real one is."""
    from enginekit import Command, Registry, hookimpl
    from enginekit.ncclenv import placement_env

    class BenchVllm:
        @hookimpl
        def validate(self) -> list[str]:
            return []

        @hookimpl
        def commands(self, shard: Any) -> list[Any]:
            p = shard.profile
            build = placement_env(shard)
            env = {**build.env, "VLLM_API_KEY": shard.api_key}
            args = (
                "serve",
                p.model_path,
                "--host",
                shard.host(),
                "--port",
                str(shard.http_port),
                "--served-model-name",
                p.model_name(),
                "--tensor-parallel-size",
                str(p.tp),
                "--pipeline-parallel-size",
                str(p.pipeline_degree),
                *p.args,
            )
            return [
                Command(
                    path="vllm",
                    args=args,
                    env=env,
                    why=build.why,
                    secret_env=frozenset({"VLLM_API_KEY"}),
                    name="vllm",
                )
            ]

    registry = Registry()
    registry.add(BenchVllm(), name="benchvllm")
    return registry


def render_ours(registry: Any, raw: Mapping[str, Any]) -> Any:
    from enginekit import ShardSpec
    from enginekit.convert import structure

    spec, _ = structure(raw, ShardSpec, path="spec")
    return registry.engine(spec.profile.engine).plan(spec)


# The same argv, env and checks, by hand: dicts in, dicts out, no pluggy, attrs or cattrs.
_RESERVED = {
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NCCL_IB_HCA",
    "NCCL_SOCKET_IFNAME",
    "GLOO_SOCKET_IFNAME",
    "NCCL_IB_GID_INDEX",
    "VLLM_API_KEY",
    "PATH",
    "HOME",
}
_DENY_PREFIXES = ("LD_", "PYTHON", "RAY_", "TRITON_", "OMPI_")
_OPEN = ("VLLM_", "NCCL_", "OMP_")


def render_by_hand(raw: Mapping[str, Any]) -> dict[str, Any]:
    known = {
        "replica_id",
        "shard_id",
        "http_port",
        "bind_addr",
        "gpu_indices",
        "hcas",
        "gid_index",
        "mgmt_interface",
        "api_key",
        "profile",
        "rank",
        "nnodes",
    }
    pknown = {"name", "engine", "model_path", "served_model_name", "tp", "pp", "args", "env"}
    problems = [k for k in raw if k not in known] + [k for k in raw["profile"] if k not in pknown]
    p = raw["profile"]
    for value in (raw["http_port"], p["tp"], *raw["gpu_indices"]):
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append("not an int")
    for value in (
        raw["replica_id"],
        raw["shard_id"],
        raw["bind_addr"],
        p["name"],
        p["model_path"],
        *p["args"],
    ):
        if not isinstance(value, str) or any(ord(c) < 32 for c in value):
            problems.append("bad string")
    if not 1 <= raw["http_port"] <= 65535:
        problems.append("port")
    gpus = raw["gpu_indices"]
    if len(set(gpus)) != len(gpus) or min(gpus) < 0 or len(gpus) != p["tp"]:
        problems.append("gpus")
    if not p["model_path"] or p["tp"] <= 0:
        problems.append("profile")
    for key, value in p["env"].items():
        upper = key.upper()
        if upper in _RESERVED or upper.startswith(_DENY_PREFIXES) or not upper.startswith(_OPEN):
            problems.append(key)
        if "/" in value or any(ord(c) < 32 for c in value):
            problems.append(key)
    if problems:
        raise ValueError(problems)
    env = {
        "CUDA_VISIBLE_DEVICES": ",".join(map(str, gpus)),
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_HCA": ",".join(raw["hcas"]),
        "NCCL_IB_DISABLE": "0",
        "NCCL_IB_GID_INDEX": str(raw["gid_index"]),
        "NCCL_SOCKET_IFNAME": raw["mgmt_interface"],
        "GLOO_SOCKET_IFNAME": raw["mgmt_interface"],
        "VLLM_API_KEY": raw["api_key"],
        **p["env"],
    }
    argv = [
        "vllm",
        "serve",
        p["model_path"],
        "--host",
        raw["bind_addr"],
        "--port",
        str(raw["http_port"]),
        "--served-model-name",
        p["served_model_name"],
        "--tensor-parallel-size",
        str(p["tp"]),
        "--pipeline-parallel-size",
        "1",
        *p["args"],
    ]
    if any(raw["api_key"] in a for a in argv):
        raise ValueError("key in argv")
    base = f"http://{raw['bind_addr']}:{raw['http_port']}"
    return {"argv": argv, "env": env, "health": base + "/health", "metrics": base + "/metrics"}


def bench_render(runs: int) -> None:
    registry = make_engine()
    plan = render_ours(registry, SPEC)
    by_hand = render_by_hand(SPEC)
    assert plan.commands[0].argv() == by_hand["argv"]
    assert dict(plan.commands[0].env) == by_hand["env"]
    loops = 300

    def ours() -> float:
        start = time.perf_counter()
        for _ in range(loops):
            render_ours(registry, SPEC)
        return (time.perf_counter() - start) / loops

    def hand() -> float:
        start = time.perf_counter()
        for _ in range(loops):
            render_by_hand(SPEC)
        return (time.perf_counter() - start) / loops

    a, b = alternate(ours, hand, runs)
    print(
        f"(2) in-process render (structure + validate + commands + plan): {a * 1e6:7.1f} us   "
        f"hand-written: {b * 1e6:6.1f} us   ratio {a / b:.2f}x   (target <= 2x)"
    )
    from enginekit import ShardSpec
    from enginekit.convert import structure

    spec, _ = structure(SPEC, ShardSpec, path="spec")
    engine = registry.engine("benchvllm")
    start = time.perf_counter()
    for _ in range(loops):
        structure(SPEC, ShardSpec, path="spec")
    middle = time.perf_counter()
    for _ in range(loops):
        engine.plan(spec)
    end = time.perf_counter()
    print(
        f"    of which structuring (cattrs): {(middle - start) / loops * 1e6:6.1f} us, "
        f"validate + commands + plan (pluggy, checks): {(end - middle) / loops * 1e6:6.1f} us"
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
    bench_render(runs)
    bench_registry(runs)


if __name__ == "__main__":
    main()
