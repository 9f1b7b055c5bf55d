"""CommandBuilder and the endpoint helpers: every command starts from the shard's placement."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import ShardSpec
from enginekit.placement.builder import KEY_WHY, CommandBuilder, host_port, is_ip, leader_endpoint, node_ip
from enginekit.placement.env import placement_env

Make = Callable[..., ShardSpec]
KEY = "sk-builder-0123456789abcdef"


def _two_nodes(make_shard: Make, **fields: object) -> ShardSpec:
    defaults: dict[str, object] = {
        "nnodes": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 29500,
        "profile_nodes": 2,
        "profile_gpus_per_node": 1,
        "mgmt_interface": "eth0",
    }
    return make_shard(**{**defaults, **fields})


def test_a_builder_starts_from_the_shards_placement(make_shard: Make) -> None:
    shard = _two_nodes(make_shard, rank=1)
    placed = placement_env(shard)
    build = CommandBuilder(shard)
    assert build.env == dict(placed.env)
    assert build.why == dict(placed.why)
    assert build.secret == set()
    command = build.command("engine", ["serve"])
    assert command.env == dict(placed.env)
    assert command.why == dict(placed.why)
    assert command.secret_env == frozenset()


def test_a_builder_never_changes_the_placement_it_started_from(make_shard: Make) -> None:
    shard = make_shard()
    before = dict(placement_env(shard).env)
    CommandBuilder(shard).put("CUDA_VISIBLE_DEVICES", "7", "mine").remove("CUDA_DEVICE_ORDER")
    assert dict(placement_env(shard).env) == before
    assert CommandBuilder(shard).env == before


def test_each_command_is_a_snapshot_of_the_variables_as_they_were(make_shard: Make) -> None:
    build = CommandBuilder(make_shard(api_key=KEY))
    sidecar = build.command("sidecar", [], name="head")
    build.put("MYENGINE_THREADS", "8", "the cores placement reserved").put_secret("MYENGINE_API_KEY", KEY)
    server = build.command("server", ("--port", "8000"), name="server", wait_for_leader_port=True)
    build.put("MYENGINE_LATE", "1", "after both")
    # The sidecar was started before the key was put: it never sees it.
    assert "MYENGINE_API_KEY" not in sidecar.env
    assert "MYENGINE_THREADS" not in sidecar.env
    assert sidecar.secret_env == frozenset()
    assert (sidecar.name, sidecar.wait_for_leader_port) == ("head", False)
    assert server.env["MYENGINE_THREADS"] == "8"
    assert server.env["MYENGINE_API_KEY"] == KEY
    assert "MYENGINE_LATE" not in server.env
    assert server.secret_env == frozenset({"MYENGINE_API_KEY"})
    assert server.args == ("--port", "8000")
    assert (server.name, server.wait_for_leader_port) == ("server", True)
    assert server.why["MYENGINE_THREADS"] == "the cores placement reserved"
    assert server.why["MYENGINE_API_KEY"] == KEY_WHY


def test_a_command_does_not_share_its_tables_with_the_builder(make_shard: Make) -> None:
    build = CommandBuilder(make_shard())
    command = build.command("engine", [])
    build.env["MYENGINE_X"] = "1"
    build.why["MYENGINE_X"] = "later"
    assert "MYENGINE_X" not in command.env
    assert "MYENGINE_X" not in command.why


def test_args_are_a_tuple_whatever_iterable_gave_them(make_shard: Make) -> None:
    command = CommandBuilder(make_shard()).command("engine", (arg for arg in ["--a", "1"]))
    assert command.args == ("--a", "1")
    assert command.argv() == ["engine", "--a", "1"]


@pytest.mark.parametrize("value", ["", None])
def test_put_secret_with_no_key_puts_nothing(make_shard: Make, value: str | None) -> None:
    # A shard without an API key: no empty variable, nothing marked secret.
    build = CommandBuilder(make_shard())
    before = dict(build.env)
    assert build.put_secret("MYENGINE_API_KEY", value or "") is build
    assert build.env == before
    assert "MYENGINE_API_KEY" not in build.why
    assert build.command("engine", []).secret_env == frozenset()


def test_put_secret_says_why_as_told(make_shard: Make) -> None:
    build = CommandBuilder(make_shard()).put_secret("MYENGINE_API_KEY", KEY, "the engine's own reason")
    assert build.why["MYENGINE_API_KEY"] == "the engine's own reason"
    assert build.secret == {"MYENGINE_API_KEY"}


def test_remove_forgets_a_variable_its_reason_and_its_secrecy(make_shard: Make) -> None:
    build = CommandBuilder(make_shard()).put_secret("MYENGINE_API_KEY", KEY).put("MYENGINE_X", "1", "x")
    build.remove("MYENGINE_API_KEY").remove("MYENGINE_X").remove("NEVER_SET")
    command = build.command("engine", [])
    assert "MYENGINE_API_KEY" not in command.env
    assert "MYENGINE_API_KEY" not in command.why
    assert "MYENGINE_X" not in command.env
    assert command.secret_env == frozenset()


def test_put_replaces_a_value_and_its_reason(make_shard: Make) -> None:
    build = CommandBuilder(make_shard()).put("MYENGINE_X", "1", "first").put("MYENGINE_X", "2", "second")
    assert (build.env["MYENGINE_X"], build.why["MYENGINE_X"]) == ("2", "second")


@pytest.mark.parametrize(
    ("host", "port", "expected"),
    [
        ("10.0.0.1", 29500, "10.0.0.1:29500"),
        ("node-1.example", 80, "node-1.example:80"),
        ("fd00::1", 29500, "[fd00::1]:29500"),
        ("::1", 8000, "[::1]:8000"),
        ("fe80::1%eth0", 1, "[fe80::1%eth0]:1"),
        ("2001:db8::8a2e:370:7334", 65535, "[2001:db8::8a2e:370:7334]:65535"),
    ],
)
def test_host_port_puts_an_ipv6_address_in_brackets(host: str, port: int, expected: str) -> None:
    # Every parser splits host:port at the last colon: an unbracketed IPv6 address breaks it.
    assert host_port(host, port) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10.0.0.1", True),
        ("fd00::1", True),
        ("::", True),
        ("node-1", False),
        ("", False),
        ("10.0.0", False),
        ("10.0.0.1:80", False),
        ("[fd00::1]", False),
    ],
)
def test_is_ip_is_an_address_never_a_host_name(text: str, expected: bool) -> None:
    assert is_ip(text) is expected


@pytest.mark.parametrize(
    ("leader", "expected"),
    [("10.0.0.1", "10.0.0.1:29500"), ("fd00::1", "[fd00::1]:29500"), ("head.example", "head.example:29500")],
)
def test_leader_endpoint_is_the_leaders_address_and_port(
    make_shard: Make, leader: str, expected: str
) -> None:
    for rank in (0, 1):
        assert leader_endpoint(_two_nodes(make_shard, rank=rank, leader_addr=leader)) == expected


@pytest.mark.parametrize(
    ("rank", "leader", "bind", "expected"),
    [
        (0, "10.0.0.1", "10.0.0.9", "10.0.0.1"),  # the leader is known by the address the workers dial
        (0, "head.example", "10.0.0.9", "10.0.0.9"),  # a host name is no IP: its own bind address
        (0, "head.example", "", None),
        (0, "fd00::1", "", "fd00::1"),
        (1, "10.0.0.1", "10.0.0.2", "10.0.0.2"),  # a worker is never the leader's address
        (1, "10.0.0.1", "", None),
        (1, "10.0.0.1", "worker.example", None),
    ],
)
def test_node_ip_is_this_nodes_own_address_when_the_spec_gives_one(
    make_shard: Make, rank: int, leader: str, bind: str, expected: str | None
) -> None:
    assert node_ip(_two_nodes(make_shard, rank=rank, leader_addr=leader, bind_addr=bind)) == expected


def test_a_single_node_shard_has_an_ip_only_when_it_binds_one(make_shard: Make) -> None:
    assert node_ip(make_shard()) is None
    assert node_ip(make_shard(bind_addr="10.1.2.3")) == "10.1.2.3"


def test_a_builder_keeps_its_shard_and_commands_are_unnamed_unless_named(make_shard: Make) -> None:
    shard = make_shard()
    build = CommandBuilder(shard)
    assert build.shard is shard  # plugins read the shard from the builder they were given
    assert build.command("srv", ["serve"]).name == ""
    assert build.command("srv", ["serve"], name="server").name == "server"
