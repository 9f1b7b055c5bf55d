"""The router's command from its workers' plans: their URLs, their KV-event endpoints, and every refusal."""

from __future__ import annotations

import attrs
import pytest
from enginekit import LaunchPlan, ShardSpec
from enginekit.base.errors import SpecError
from enginekit.layout.model import KVEventSource
from enginekit.replica.router import RouterOptions, block_size, router_command, router_problems, router_url
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
        commands=(Command(path="/usr/bin/tiny", args=("serve", "--enable-scale-out")),),
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
        *("--prometheus-host", "127.0.0.1", "--prometheus-port", "29000"),
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
    options = RouterOptions(port=30000, policy="round_robin", host="::1", metrics_port=30001)
    command = router_command([quiet], options)
    assert tuple(command.argv()) == (
        "vllm-router",
        *("--host", "::1", "--port", "30000", "--policy", "round_robin"),
        *("--prometheus-host", "::1", "--prometheus-port", "30001"),
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


def test_a_worker_s_ranks_are_listed_in_order_and_one_worker_is_enough() -> None:
    two = (
        KVEventSource(rank=0, endpoint="tcp://127.0.0.1:5557", replay="tcp://127.0.0.1:5559"),
        KVEventSource(rank=1, endpoint="tcp://127.0.0.1:5558", replay="tcp://127.0.0.1:5560"),
    )
    command = router_command([plan(0, kv_events=two)], RouterOptions(port=30000, executable="/opt/vr"))
    assert (command.path, command.name) == ("/opt/vr", "router")
    assert tuple(command.argv()[13:]) == (
        *("--kv-event-source", "http://127.0.0.1:8000=tcp://127.0.0.1:5557,tcp://127.0.0.1:5558"),
        *("--kv-event-replay-source", "http://127.0.0.1:8000=tcp://127.0.0.1:5559,tcp://127.0.0.1:5560"),
        *("--kv-event-block-size", "16", "--kv-event-model", "tiny"),
    )


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (RouterOptions(port=65536), "router port: expected a port in 1-65535, got 65536"),
        (RouterOptions(port=1, metrics_port=0), "router metrics port: expected a port in 1-65535, got 0"),
        (
            RouterOptions(port=1, metrics_port=65536),
            "router metrics port: expected a port in 1-65535, got 65536",
        ),
        (RouterOptions(port=29000), "router metrics port: 29000 is the router's own port"),
        (RouterOptions(port=1, block_size=4097), "router block size: expected 1-4096 tokens, got 4097"),
        (
            RouterOptions(port=1, policy="p" * 50),
            "router policy: expected one of kv_aware, cache_aware, round_robin, random, power_of_two, "
            f"consistent_hash, sticky_least_loaded, got {'p' * 40!r}",
        ),
    ],
)
def test_each_option_is_held_to_its_range(options: RouterOptions, problem: str) -> None:
    assert router_problems([plan(0)], options) == [problem]


@pytest.mark.parametrize("block_size", [1, 4096])
def test_the_block_size_range_is_inclusive(block_size: int) -> None:
    assert router_problems([plan(0)], RouterOptions(port=1, block_size=block_size)) == []


def test_a_shard_without_an_id_is_named_unnamed() -> None:
    headless = attrs.evolve(plan(0), serves_http=False)
    headless = attrs.evolve(headless, shard=attrs.evolve(headless.shard, shard_id=""))
    assert router_problems([headless], RouterOptions(port=1)) == [
        "shard spec (unnamed): serves no HTTP (a worker rank): give the router the API servers only"
    ]


def test_kv_aware_needs_workers_that_render_prompts_into_token_ids() -> None:
    # vllm-router asks each worker for /v1/completions/render before it routes; vLLM answers
    # it only with --enable-scale-out, and without it the router routes every request blind.
    blind = plan(0, commands=(Command(path="/usr/bin/tiny", args=("serve",)),))
    assert router_problems([blind], RouterOptions(port=1)) == [
        "shard spec s0: profile 'p': args: add --enable-scale-out: the kv_aware policy asks every "
        "worker for the prompt's token ids (POST /v1/completions/render) before it routes, which vLLM "
        "answers only with it"
    ]
    assert router_problems([blind], RouterOptions(port=1, policy="round_robin")) == []


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (RouterOptions(port=8000), "router port: 8000 is shard spec s0's HTTP port, on the same host"),
        (
            RouterOptions(port=30000, metrics_port=5557),
            "router metrics port: 5557 is shard spec s0's KV-event publisher, on the same host",
        ),
        (
            RouterOptions(port=5558, host="localhost"),
            "router port: 5558 is shard spec s0's KV-event replay endpoint, on the same host",
        ),
        # The publisher binds every address: another address of the host is no way around it.
        (
            RouterOptions(port=5557, host="10.9.9.9"),
            "router port: 5557 is shard spec s0's KV-event publisher, on the same host",
        ),
    ],
)
def test_a_router_port_a_worker_listens_on_is_refused(options: RouterOptions, problem: str) -> None:
    assert router_problems([plan(0)], options) == [problem]


def test_a_router_at_another_address_may_take_a_workers_http_and_replay_ports() -> None:
    # The worker listens on 127.0.0.1 (HTTP, replay): another address is another listener.
    assert router_problems([plan(0)], RouterOptions(port=8000, metrics_port=5558, host="10.9.9.9")) == []


def test_two_loopback_addresses_are_one_host() -> None:
    assert router_problems([plan(0)], RouterOptions(port=8000, metrics_port=5558, host="::1")) == [
        "router port: 8000 is shard spec s0's HTTP port, on the same host",
        "router metrics port: 5558 is shard spec s0's KV-event replay endpoint, on the same host",
    ]


@pytest.mark.parametrize(
    ("args", "size"),
    [
        (("serve", "--block-size", "8"), 8),
        (("serve", "--block-size=32"), 32),
        (("serve", "--block_size", "64"), 64),
        (("--block-size", "8", "--block-size", "128"), 128),  # the last one wins, as argparse's
        (("--block-size", "8", "--block-size", "x"), 8),  # what the engine itself would refuse
        (("serve", "--block-size"), None),
        (("serve", "--block-sizes", "8"), None),
        (("serve", "--max-block-size", "8"), None),
        (("serve", "8"), None),
        (("--block-size", "٣"), None),  # a digit, but not an ASCII one
        (("-x=1", "--block-size", "16"), 16),
        (("--block-size=8=9",), None),
    ],
)
def test_the_block_size_a_command_line_says(args: tuple[str, ...], size: int | None) -> None:
    assert block_size(args) == size


def test_a_router_block_size_other_than_the_workers_is_refused() -> None:
    sized = plan(
        0,
        commands=(Command(path="/usr/bin/tiny", args=("serve", "--enable-scale-out", "--block-size", "8")),),
    )
    assert router_problems([sized], RouterOptions(port=1)) == [
        "shard spec s0: its command says --block-size 8, and the router hashes blocks of 16 tokens: give "
        "the router --block-size 8, the workers' block size"
    ]
    assert router_problems([sized], RouterOptions(port=1, block_size=8)) == []


@pytest.mark.parametrize("host", ["", "a b", "--api-key=x", "-h"])
def test_the_router_host_is_a_host(host: str) -> None:
    assert router_problems([plan(0)], RouterOptions(port=1, host=host)) == [
        f"router host: expected a host name or IP address, got {host!r}"
    ]


@pytest.mark.parametrize("port", [1, 65535])
def test_the_metrics_port_range_is_inclusive(port: int) -> None:
    assert router_problems([plan(0)], RouterOptions(port=30000, metrics_port=port)) == []


def test_a_replay_endpoint_at_an_ipv6_address_is_compared_without_its_brackets() -> None:
    six = (KVEventSource(rank=0, endpoint="tcp://127.0.0.1:5557", replay="tcp://[::1]:5558"),)
    assert router_problems(
        [plan(0, kv_events=six)], RouterOptions(port=30000, metrics_port=5558, host="::1")
    ) == ["router metrics port: 5558 is shard spec s0's KV-event replay endpoint, on the same host"]
