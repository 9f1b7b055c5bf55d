"""Planning benchmarks with the real vLLM plugin, each against an honest baseline measured in the same run.

(P1) ``Engine.plan()`` of a vLLM tensor-parallel-8 shard against a hand-written builder
     that produces the same argv and env and runs the same checks: the spec rules, the
     bounds, the shared profile checks with the same env policy, the same one reading of
     the arguments, the flag policy vLLM declares and vLLM's own ``validate`` and
     ``notes``, called directly. What the baseline leaves out is the platform itself:
     pluggy dispatch, checking every hook's answer, the command builder, the placement
     check, the profile-env merge with reasons, and the plan object. Outputs are compared
     before timing. Each shard is a new object whose args were never read before, so
     neither side is helped by remembering a profile.
(P2) 200 pass-through arguments per shard, each shard's list new (nothing remembered).
(P3) 10,000 shards of a fleet planned one after another on one core: 10,000 single-node
     TP8 replicas, every shard its own spec and profile object, all with the same args
     (as a scheduler holding a few profiles plans them: the args are read once, then
     remembered).

A ratio is the median of the per-run ratios of alternated runs, with their quartiles.
Run from the repository root with the workspace environment::

    python bench/bench_plan.py [--quick]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from enginekit import Engine, GPUInfo, Registry, ShardSpec
from enginekit.platform.inputs import Inputs
from enginekit.policy.checks import arg_policy_problems, bounds_problems, validate_common
from enginekit.spec.rules import check_spec

MODEL = "/models/meta-llama/Llama-3.1-70B-Instruct"
ARGS = ("--max-model-len", "32768", "--gpu-memory-utilization", "0.92", "--enable-prefix-caching")
GPUS = tuple(GPUInfo(index=i, name="NVIDIA H100 80GB HBM3", compute_capability="9.0") for i in range(8))


def shard(i: int, args: Sequence[str] = ARGS, *, fresh_args: bool = True) -> ShardSpec:
    """Shard ``i`` of a fleet; ``fresh_args`` makes its args a list never read before."""
    from enginekit import Profile

    tail = (f"--seed={i}",) if fresh_args else ()
    profile = Profile(
        name="llama-3.1-70b-h100x8",
        engine="vllm",
        model_path=MODEL,
        served_model_name="llama-3.1-70b",
        tp=8,
        args=(*args, *tail),
        env={"VLLM_LOGGING_LEVEL": "INFO"},
    )
    return ShardSpec(
        replica_id=f"r{i}",
        shard_id=f"r{i}-0",
        gpu_indices=tuple(range(8)),
        http_port=8000 + i % 1000,
        bind_addr="10.1.0.21",
        api_key="sk-example-2f7d9c41b6e84a0d9e3f5a7c1b2d4e6f",
        profile=profile,
    )


def plan_by_hand(engine: Engine, spec: ShardSpec) -> dict[str, Any]:
    """The same checks, called directly, and the same argv and env, written out by hand."""
    plugin: Any = engine.plugin
    policy = engine.policy
    env_policy = engine.env_policy
    profile = spec.profile
    problems = check_spec(spec) + bounds_problems(profile) + validate_common(profile, GPUS, env_policy)
    args = policy.syntax.parse(profile.args)
    problems += arg_policy_problems(profile, args, policy, "vllm")
    problems += plugin.validate(profile, GPUS, args)
    if problems:
        raise ValueError(problems)
    env = {
        "CUDA_VISIBLE_DEVICES": ",".join(map(str, spec.gpu_indices)),
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
        "NCCL_IB_DISABLE": "1",
        "VLLM_API_KEY": spec.api_key,
        **profile.env,
    }
    argv = [
        "vllm", "serve", profile.model_path, "--host", spec.bind_addr, "--port", str(spec.http_port),
        "--served-model-name", profile.served_model_name, "--tensor-parallel-size", str(profile.tp),
        "--pipeline-parallel-size", "1", *profile.args,
    ]  # fmt: skip
    if any(spec.api_key in arg for arg in argv):
        raise ValueError("key in argv")
    base = f"http://{spec.bind_addr}:{spec.http_port}"
    return {
        "argv": argv,
        "env": env,
        "health": base + "/health",
        "metrics": base + "/metrics",
        "notes": plugin.notes(spec),
    }


def plan_ours(engine: Engine, spec: ShardSpec) -> dict[str, Any]:
    plan = engine.plan(spec, GPUS)
    main = plan.commands[-1]
    return {
        "argv": main.argv(),
        "env": dict(main.env),
        "health": plan.base_url + plan.health_path,
        "metrics": plan.base_url + plan.metrics_path,
        "notes": list(plan.notes),
    }


def alternate(a: Callable[[], float], b: Callable[[], float], runs: int) -> tuple[float, float, list[float]]:
    """Medians of ``a`` and ``b`` run alternately, and the per-run ratios a/b, sorted.

    Each run's ratio compares two measurements taken one right after the other, so drift
    on a shared machine cancels out of it; its median is the figure, its quartiles the spread.
    """
    xs, ys = [], []
    for _ in range(runs):
        xs.append(a())
        ys.append(b())
    ratios = sorted(x / y for x, y in zip(xs, ys, strict=True))
    return statistics.median(xs), statistics.median(ys), ratios


def per_shard(function: Callable[[ShardSpec], object], specs: Sequence[ShardSpec]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        for spec in specs:
            function(spec)
        return (time.perf_counter() - start) / len(specs)

    return run


def bench_tp8(engine: Engine, runs: int, loops: int) -> None:
    probe = shard(0)
    ours, hand = plan_ours(engine, probe), plan_by_hand(engine, probe)
    assert ours == hand, (ours, hand)
    made = iter(range(10**9))

    def measure(function: Callable[[Engine, ShardSpec], object]) -> Callable[[], float]:
        def run() -> float:
            # Each run's shards are made just before it (untimed), so the heap the garbage
            # collector walks is a run's, not every run's at once.
            batch = [shard(next(made)) for _ in range(loops)]
            return per_shard(lambda s: function(engine, s), batch)()

        return run

    a, b, ratios = alternate(measure(plan_ours), measure(plan_by_hand), runs)
    low, median, high = statistics.quantiles(ratios, n=4)
    print(
        f"(P1) vLLM TP8 plan(): {a * 1e6:7.1f} us   hand-written, same checks and output: "
        f"{b * 1e6:7.1f} us   ratio {median:.2f}x (quartiles {low:.2f}-{high:.2f}, "
        f"{runs} alternated runs)   (target <= 2x)"
    )


def bench_many_args(engine: Engine, runs: int) -> None:
    options = [f"--max-num-seqs={i}" if i % 2 else "--enable-prefix-caching" for i in range(200)]
    specs = [shard(i, options) for i in range(runs * 20)]
    assert len(specs[0].profile.args) == 201
    run = per_shard(lambda s: engine.plan(s, GPUS), specs)
    seconds = run()
    print(
        f"(P2) 200 pass-through args, never read before: {seconds * 1e3:6.3f} ms per shard   (target <= 1 ms)"
    )


def bench_fleet(engine: Engine, count: int) -> None:
    specs = [shard(i, fresh_args=False) for i in range(count)]
    start = time.perf_counter()
    for spec in specs:
        engine.plan(spec, GPUS)
    seconds = time.perf_counter() - start
    print(
        f"(P3) {count:,} shards planned on one core: {seconds:6.3f} s   "
        f"({seconds / count * 1e6:.1f} us per shard; target < 1 s)"
    )


def bench_input_guard(engine: Engine, runs: int, loops: int) -> None:
    """The check that no hook changed its input: a record and a comparison, against a deep copy."""
    specs = [shard(i) for i in range(loops)]

    def recorded() -> float:
        start = time.perf_counter()
        for spec in specs:
            Inputs((spec, GPUS)).changed()
        return (time.perf_counter() - start) / loops

    def copied() -> float:
        # The other way: hand the hooks a deep copy, and compare it with the original after.
        start = time.perf_counter()
        for spec in specs:
            _ = copy.deepcopy((spec, GPUS)) == (spec, GPUS)
        return (time.perf_counter() - start) / loops

    a, b, ratios = alternate(recorded, copied, runs)
    low, median, high = statistics.quantiles(ratios, n=4)
    planned = per_shard(lambda s: engine.plan(s, GPUS), specs)()
    print(
        f"(P4) input check per plan: {a * 1e6:6.1f} us   deep copy and compare: {b * 1e6:6.1f} us   "
        f"ratio {median:.2f}x (quartiles {low:.2f}-{high:.2f}, {runs} alternated runs); "
        f"{a / planned:.0%} of the {planned * 1e6:.1f} us plan it guards"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (for CI smoke)")
    options = parser.parse_args()
    runs = 5 if options.quick else 41
    registry = Registry.from_entry_points(enable=["vllm"])
    engine = registry.engine("vllm")
    bench_tp8(engine, runs, loops=50 if options.quick else 200)
    bench_many_args(engine, runs)
    bench_fleet(engine, 1_000 if options.quick else 10_000)
    bench_input_guard(engine, runs, loops=50 if options.quick else 200)


if __name__ == "__main__":
    main()
