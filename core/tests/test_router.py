"""The router's command from its workers' plans: their URLs, their KV-event endpoints, and every refusal."""

from __future__ import annotations

import attrs
import pytest
from enginekit import LaunchPlan, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.layout.model import KVEventSource
from enginekit.replica.router import RouterOptions, router_command, router_problems, router_url
from enginekit.spec.model import Command, Profile

KEY = "d41d8cd98f00b204e9800998ecf8427e"


def plan(n: int, *, replay: bool = True, key: str = KEY, **fields: object) -> LaunchPlan:
    profile = Profile(name="p", engine="tiny", model_path="/m", served_model_name="tiny", kv_events=True)
    shard = ShardSpec(
        shard_id=f"s{n}",
        profile=profile,
        http_port=8000 + n,
        bind_addr="127.0.0.1",
        kv_events_port=5557 + 2 * n,
        api_key=key,
    )
    source = KVEventSource(
        rank=0,
        endpoint=f"tcp://127.0.0.1:{5557 + 2 * n}",
        replay=f"tcp://127.0.0.1:{5558 + 2 * n}" if replay else "",
    )
    made = LaunchPlan(
        engine="tiny",
        shard=shard,
        commands=(Command(path="/usr/bin/tiny", args=("serve",)),),
        serves_http=True,
        health_path="/health",
        metrics_path="/metrics",
        kv_events=(source,),
    )
    return attrs.evolve(made, **fields)


def test_kv_aware_subscribes_to_each_worker_where_its_plan_says() -> None:
    command = router_command([plan(0), plan(1, replay=False)], RouterOptions(port=30000, block_size=4))
    assert tuple(command.argv()) == (
        "vllm-router",
        *("--host", "127.0.0.1", "--port", "30000", "--policy", "kv_aware"),
        *("--worker-urls", "http://127.0.0.1:8000", "http://127.0.0.1:8001"),
        *("--kv-event-source", "http://127.0.0.1:8000=tcp://127.0.0.1:5557"),
        *("--kv-event-replay-source", "http://127.0.0.1:8000=tcp://127.0.0.1:5558"),
        *("--kv-event-source", "http://127.0.0.1:8001=tcp://127.0.0.1:5559"),
        *("--kv-event-block-size", "4", "--kv-event-model", "tiny"),
    )
    # The key is the workers': it never reaches the router's command line or environment.
    assert KEY not in " ".join(command.argv())
    assert dict(command.env) == {}


def test_another_policy_needs_no_events() -> None:
    quiet = plan(0, kv_events=())
    command = router_command([quiet], RouterOptions(port=30000, policy="round_robin", host="::1"))
    assert tuple(command.argv()) == (
        "vllm-router",
        *("--host", "::1", "--port", "30000", "--policy", "round_robin"),
        *("--worker-urls", "http://127.0.0.1:8000"),
    )
    assert router_url(RouterOptions(port=30000, host="::1")) == "http://[::1]:30000"


def test_every_problem_is_said_at_once_naming_the_shard() -> None:
    other = attrs.evolve(
        plan(1),
        shard=attrs.evolve(
            plan(1).shard, profile=attrs.evolve(plan(1).shard.profile, served_model_name="big")
        ),
    )
    headless = attrs.evolve(plan(2), serves_http=False)
    quiet = plan(3, kv_events=())
    same = plan(0)
    dp_profile = attrs.evolve(plan(4).shard.profile, dp=2)
    dp = attrs.evolve(plan(4), shard=attrs.evolve(plan(4).shard, profile=dp_profile))
    options = RouterOptions(port=0, policy="fastest", block_size=0)
    assert router_problems([plan(0), other, headless, quiet, same, dp], options) == [
        "router port: expected a port in 1-65535, got 0",
        "router policy: expected one of kv_aware, cache_aware, round_robin, random, power_of_two, "
        "consistent_hash, sticky_least_loaded, got 'fastest'",
        "router block size: expected 1-4096 tokens, got 0",
        "router: its workers serve different models (big, tiny): one model per router",
        "shard spec s2: serves no HTTP (a worker rank): give the router the API servers only",
        "shard spec s0: serves at http://127.0.0.1:8000, as the router's worker 1 does",
        "shard spec s4: profile 'p': a data-parallel replica behind vllm-router is not built yet (its "
        "ranks' events would need the router's data-parallel routing)",
    ]
    # Under kv_aware, a worker without events a router can subscribe to is refused.
    assert router_problems([quiet], RouterOptions(port=1)) == [
        "shard spec s3: the kv_aware policy routes by the workers' KV-cache events, and this shard "
        "publishes none a router can subscribe to: set the profile's kv_events, a kv_events_port, and "
        "kv_events_mode 'bind'"
    ]
    assert router_problems([], RouterOptions(port=65535, block_size=4096)) == [
        "router: give the shard specs of the API servers it fronts"
    ]
    with pytest.raises(SpecError):
        router_command([quiet], RouterOptions(port=1))
