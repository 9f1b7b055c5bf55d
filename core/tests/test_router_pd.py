"""vllm-router in PD mode from a disaggregated replica's plans: prefills, decodes, the key, every refusal."""

from __future__ import annotations

import attrs
import pytest
from enginekit import LaunchPlan, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.replica.router import RouterOptions, is_disaggregated, router_command, router_problems
from enginekit.spec.model import Command, Profile

KEY = "d41d8cd98f00b204e9800998ecf8427e"
OPTIONS = RouterOptions(port=30000, policy="round_robin", metrics_port=30001)


def plan(n: int, role: str, *, key: str = KEY, args: tuple[str, ...] = (), **fields: object) -> LaunchPlan:
    profile = fields.pop("profile", None) or Profile(
        name="p", engine="tiny", model_path="/m", served_model_name="tiny"
    )
    shard = ShardSpec(
        shard_id=f"{role}{n}",
        profile=profile,  # type: ignore[arg-type]
        http_port=8000 + n,
        bind_addr="127.0.0.1",
        api_key=key,
        role=role,
        **{"kv_transfer_port": 5600 + n, **fields},  # type: ignore[arg-type]
    )
    return LaunchPlan(
        engine="tiny",
        shard=shard,
        commands=(Command(path="/usr/bin/tiny", args=("serve", *args)),),
        serves_http=True,
        health_path="/health",
        metrics_path="/metrics",
    )


def pd() -> list[LaunchPlan]:
    return [plan(0, "prefill"), plan(1, "prefill"), plan(2, "decode")]


def test_each_prefill_and_decode_is_named_with_the_connector_and_the_key_only_in_the_environment() -> None:
    command = router_command(pd(), OPTIONS)
    assert tuple(command.argv()) == (
        "vllm-router",
        *("--host", "127.0.0.1", "--port", "30000", "--policy", "round_robin"),
        *("--prometheus-host", "127.0.0.1", "--prometheus-port", "30001"),
        "--vllm-pd-disaggregation",
        *("--prefill", "http://127.0.0.1:8000", "--prefill", "http://127.0.0.1:8001"),
        *("--decode", "http://127.0.0.1:8002"),
        *("--kv-connector", "nixl"),
    )
    assert KEY not in " ".join(command.argv())
    # vllm-router's PD mode calls the instances with Bearer $OPENAI_API_KEY and nothing else.
    assert dict(command.env) == {"OPENAI_API_KEY": KEY}
    assert command.secret_env == frozenset({"OPENAI_API_KEY"})
    assert is_disaggregated(pd())
    assert not is_disaggregated([plan(0, "aggregated")])


def test_without_a_key_the_router_is_given_none() -> None:
    command = router_command([plan(0, "prefill", key=""), plan(1, "decode", key="")], OPTIONS)
    assert dict(command.env) == {}


def test_a_router_holding_the_key_beyond_loopback_is_refused_unless_a_gateway_checks_clients() -> None:
    wide = attrs.evolve(OPTIONS, host="10.0.0.5")
    (problem,) = router_problems(pd(), wide)
    assert problem.startswith("router host: 10.0.0.5: vllm-router's PD mode checks no client's key")
    assert "--unchecked-clients" in problem
    assert router_problems(pd(), attrs.evolve(wide, unchecked_clients=True)) == []
    # Without a key there is nothing to give away.
    open_ = [plan(0, "prefill", key=""), plan(1, "decode", key="")]
    assert router_problems(open_, wide) == []


@pytest.mark.parametrize(
    ("plans", "expected"),
    [
        (
            [plan(0, "prefill"), plan(1, "aggregated")],
            "some workers are prefill or decode instances and some aggregated",
        ),
        ([plan(0, "prefill"), plan(1, "prefill")], "no decode instance among the workers"),
        ([plan(0, "decode")], "no prefill instance among the workers"),
        ([plan(0, "prefill"), plan(1, "decode", key="another-key-0123456789")], "demand different API keys"),
        (
            [plan(0, "prefill", args=("--block-size", "32")), plan(1, "decode")],
            "the instances' --block-size differ (32, the default)",
        ),
        (
            [plan(0, "prefill"), plan(1, "decode", kv_connector="mooncake")],
            "the instances say mooncake, nixl",
        ),
        (
            [plan(0, "prefill"), plan(0, "decode")],
            "serves at http://127.0.0.1:8000, as the router's worker 1 does",
        ),
    ],
)
def test_instances_no_pd_router_can_front_are_refused(plans: list[LaunchPlan], expected: str) -> None:
    problems = router_problems(plans, OPTIONS)
    assert any(expected in p for p in problems), problems
    with pytest.raises(SpecError):
        router_command(plans, OPTIONS)


def test_kv_aware_in_pd_mode_is_refused_as_not_built() -> None:
    problems = router_problems(pd(), attrs.evolve(OPTIONS, policy="kv_aware"))
    assert problems == [
        "router policy: kv_aware in front of prefill and decode instances is not built yet: "
        "give --policy round_robin (or another)"
    ]


def test_the_routers_ports_may_not_be_an_instances() -> None:
    problems = router_problems(pd(), attrs.evolve(OPTIONS, port=8001))
    assert problems == ["router port: 8001 is shard spec prefill1's HTTP port, on the same host"]


def sglang_plan(n: int, role: str, **fields: object) -> LaunchPlan:
    made = plan(n, role, **fields)  # type: ignore[arg-type]
    mode = ("--disaggregation-mode", role)
    return attrs.evolve(made, commands=(Command(path="/usr/bin/python3", args=("-I", "-c", "x", *mode)),))


def test_sglang_instances_get_sglang_router_with_each_prefills_bootstrap_port_and_no_key() -> None:
    plans = [sglang_plan(0, "prefill"), sglang_plan(1, "prefill"), sglang_plan(2, "decode")]
    command = router_command(plans, OPTIONS)
    assert tuple(command.argv()) == (
        "sglang-router",
        *("launch", "--pd-disaggregation"),
        *("--prefill", "http://127.0.0.1:8000", "5600", "--prefill", "http://127.0.0.1:8001", "5601"),
        *("--decode", "http://127.0.0.1:8002"),
        *("--host", "127.0.0.1", "--port", "30000", "--policy", "round_robin"),
        *("--prometheus-host", "127.0.0.1", "--prometheus-port", "30001"),
    )
    # It forwards each client's Authorization to both instances: it holds no key, anywhere.
    assert dict(command.env) == {}
    assert KEY not in " ".join(command.argv())
    # So it may serve beyond loopback: the instances check every request.
    assert router_problems(plans, attrs.evolve(OPTIONS, host="10.0.0.5")) == []
    custom = router_command(plans, attrs.evolve(OPTIONS, executable="/opt/smg/bin/sglang-router"))
    assert custom.path == "/opt/smg/bin/sglang-router"


def test_sglang_instances_refuse_what_sglang_router_lacks() -> None:
    plans = [sglang_plan(0, "prefill", kv_transfer_port=0), sglang_plan(1, "decode")]
    assert router_problems(plans, OPTIONS) == [
        "shard spec prefill0: kv_transfer_port: a prefill instance of SGLang's protocol needs its bootstrap "
        "port, which the router gives every decode"
    ]
    plans = [sglang_plan(0, "prefill"), sglang_plan(1, "decode")]
    assert router_problems(plans, attrs.evolve(OPTIONS, policy="consistent_hash")) == [
        "router policy: sglang-router has no 'consistent_hash' policy "
        "(it has random, round_robin, cache_aware, power_of_two, manual)"
    ]
    mixed = [sglang_plan(0, "prefill"), plan(1, "decode")]
    assert any("one router serves one protocol" in p for p in router_problems(mixed, OPTIONS))


@pytest.mark.parametrize("host", ["127.attacker.example", "localhost.example", "0.0.0.0", "10.0.0.5", "::"])
def test_a_name_that_looks_like_loopback_is_no_loopback_for_a_router_holding_the_key(host: str) -> None:
    (problem,) = router_problems(pd(), attrs.evolve(OPTIONS, host=host))
    assert problem.startswith(f"router host: {host}: vllm-router's PD mode checks no client's key")


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.8.9.10", "localhost", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]
)
def test_every_spelling_of_loopback_may_hold_the_key(host: str) -> None:
    assert router_problems(pd(), attrs.evolve(OPTIONS, host=host)) == []


def test_the_connector_an_instance_leaves_out_is_its_engines_default() -> None:
    # SGLang's default is Mooncake: an instance saying nothing and one saying nixl cannot meet.
    mixed = [sglang_plan(0, "prefill"), sglang_plan(1, "decode", kv_connector="nixl")]
    assert any("the instances say mooncake, nixl" in p for p in router_problems(mixed, OPTIONS))
    same = [sglang_plan(0, "prefill"), sglang_plan(1, "decode", kv_connector="mooncake")]
    assert router_problems(same, OPTIONS) == []


def test_each_router_takes_only_its_own_policies() -> None:
    sglang = [sglang_plan(0, "prefill"), sglang_plan(1, "decode")]
    assert router_problems(sglang, attrs.evolve(OPTIONS, policy="manual")) == []
    assert router_problems(pd(), attrs.evolve(OPTIONS, policy="manual")) == [
        "router policy: vllm-router has no 'manual' policy (it has kv_aware, cache_aware, round_robin, "
        "random, power_of_two, consistent_hash, sticky_least_loaded)"
    ]
    assert router_problems(pd(), attrs.evolve(OPTIONS, policy="x" * 60)) == [
        f"router policy: vllm-router has no {'x' * 40!r} policy (it has kv_aware, cache_aware, round_robin, "
        "random, power_of_two, consistent_hash, sticky_least_loaded)"
    ]


def test_the_pd_command_is_named_router_and_says_why_the_key_is_in_its_environment() -> None:
    command = router_command(pd(), OPTIONS)
    assert command.name == "router"
    assert dict(command.why) == {
        "OPENAI_API_KEY": "the key vllm-router's PD mode calls the instances with (it reads no other)"
    }
    bare = router_command([plan(0, "prefill", key=""), plan(1, "decode", key="")], OPTIONS)
    assert (dict(bare.env), dict(bare.why), bare.secret_env) == ({}, {}, frozenset())
    sglang = router_command([sglang_plan(0, "prefill"), sglang_plan(1, "decode")], OPTIONS)
    assert sglang.name == "router"
    # An instance that leaves its connector out takes its engine's: both here say nixl.
    named = router_command([plan(0, "prefill", kv_connector="nixl"), plan(1, "decode")], OPTIONS)
    assert named.args[-2:] == ("--kv-connector", "nixl")


def test_every_problem_of_pd_instances_is_said_exactly_and_at_once() -> None:
    unnamed = attrs.evolve(plan(3, "decode"), shard=attrs.evolve(plan(3, "decode").shard, shard_id=""))
    wide = plan(
        4, "decode", profile=Profile(name="w", engine="tiny", model_path="/m", dp=2, served_model_name="tiny")
    )
    worker = attrs.evolve(plan(5, "decode"), serves_http=False)
    other = plan(6, "decode", profile=Profile(name="o", engine="tiny", model_path="/o"))
    third = plan(7, "decode", profile=Profile(name="t", engine="tiny", model_path="/t"))
    keyed = plan(8, "decode", key="another-key-0123456789")
    problems = router_problems(
        [plan(0, "prefill"), worker, unnamed, wide, other, third, keyed, plan(0, "decode")], OPTIONS
    )
    assert problems == [
        "router: its workers serve different models (/o, /t, tiny)",
        "router: the instances demand different API keys, and the router calls them all with one",
        "shard spec decode5: serves no HTTP (a worker rank): give the router the API servers only",
        "shard spec decode4: profile 'w': a data-parallel instance behind vllm-router is not built yet",
        "shard spec decode0: serves at http://127.0.0.1:8000, as the router's worker 1 does",
    ]


def test_a_mix_of_roles_and_of_protocols_is_said_whole() -> None:
    assert router_problems([plan(0, "prefill"), plan(1, "aggregated"), plan(2, "decode")], OPTIONS) == [
        "router: some workers are prefill or decode instances and some aggregated: a PD router fronts "
        "prefill and decode instances only"
    ]
    assert router_problems([sglang_plan(0, "prefill"), plan(1, "decode")], OPTIONS) == [
        "router: some instances speak SGLang's protocol (--disaggregation-mode) and some vLLM's: one "
        "router serves one protocol",
        "router: kv_connector: the instances say mooncake, nixl: a prefill and a decode move the cache "
        "with one connector (nixl or mooncake or moriio), and the router names one for all of them",
    ]


def test_an_unnamed_prefill_without_its_bootstrap_port_is_said_with_the_ports_problem() -> None:
    prefill = sglang_plan(0, "prefill", kv_transfer_port=0)
    prefill = attrs.evolve(prefill, shard=attrs.evolve(prefill.shard, shard_id=""))
    problems = router_problems([prefill, sglang_plan(1, "decode")], attrs.evolve(OPTIONS, port=0))
    assert problems == [
        "router port: expected a port in 1-65535, got 0",
        "shard spec (unnamed): kv_transfer_port: a prefill instance of SGLang's protocol needs its bootstrap "
        "port, which the router gives every decode",
    ]
    long_policy = router_problems(
        [sglang_plan(0, "prefill"), sglang_plan(1, "decode")], attrs.evolve(OPTIONS, policy="p" * 60)
    )
    assert long_policy == [
        f"router policy: sglang-router has no {'p' * 40!r} policy (it has random, round_robin, cache_aware, "
        "power_of_two, manual)"
    ]
