"""Rank, leader and bind address, and the API key taken from named variables, checked like any spec value."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from enginekit import ShardSpec, SpecError
from enginekit.run import FromEnv, resolve
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "sk-env-0123456789abcdef"

MakeShard = Callable[..., ShardSpec]


def two_node(make_shard: MakeShard) -> ShardSpec:
    return make_shard(
        nnodes=2,
        rank=0,
        leader_addr="10.0.0.1",
        leader_port=29500,
        profile_nodes=2,
        profile_tp=2,
        profile_gpus_per_node=1,
    )


def problems(spec: ShardSpec, environ: dict[str, str], names: FromEnv) -> list[str]:
    with pytest.raises(SpecError) as caught:
        resolve(spec, environ, names)
    return list(caught.value.problems)


def test_each_field_is_taken_from_its_variable(make_shard: MakeShard) -> None:
    spec = two_node(make_shard)
    environ = {
        "LWS_WORKER_INDEX": "1",
        "LWS_LEADER_ADDRESS": "leader.lws.svc",
        "POD_IP": "10.0.0.7",
        "K": KEY,
    }
    names = FromEnv(
        rank="LWS_WORKER_INDEX", leader_addr="LWS_LEADER_ADDRESS", bind_addr="POD_IP", api_key="K"
    )
    resolved = resolve(spec, environ, names)
    assert (resolved.spec.rank, resolved.spec.leader_addr) == (1, "leader.lws.svc")
    # Rank 1 serves no API: its variable is checked and consumed, its engine gets no key.
    assert (resolved.spec.bind_addr, resolved.spec.api_key) == ("10.0.0.7", "")
    assert resolved.consumed == {"K"}  # the key's variable only: the children never inherit it


def test_a_rank_from_a_variable_names_its_shard_after_the_replica(make_shard: MakeShard) -> None:
    template = attrs.evolve(two_node(make_shard), replica_id="llama-r1", shard_id="")
    names = FromEnv(rank="SLURM_PROCID")
    assert resolve(template, {"SLURM_PROCID": "1"}, names).spec.shard_id == "llama-r1-1"
    named = attrs.evolve(template, shard_id="given")
    assert resolve(named, {"SLURM_PROCID": "1"}, names).spec.shard_id == "given", "a given name is kept"
    unnamed = attrs.evolve(template, replica_id="")
    assert resolve(unnamed, {"SLURM_PROCID": "1"}, names).spec.shard_id == ""


def test_no_names_leave_the_spec_as_it_is(make_shard: MakeShard) -> None:
    spec = two_node(make_shard)
    assert resolve(spec, {"LWS_WORKER_INDEX": "1"}, FromEnv()) == (spec, frozenset())


def test_missing_empty_and_garbage_are_each_named_with_the_variable(make_shard: MakeShard) -> None:
    names = FromEnv(rank="IDX", leader_addr="LEADER", bind_addr="POD_IP", api_key="KEY_VAR")
    found = problems(two_node(make_shard), {"IDX": " 1", "LEADER": ""}, names)
    assert found == [
        "rank from $IDX: expected a plain decimal such as 0 or 3, got ' 1'",
        "leader_addr from $LEADER: empty",
        "bind_addr from $POD_IP: not set",
        "api_key from $KEY_VAR: not set",
    ]


@pytest.mark.parametrize("value", ["-1", "+1", "1.0", "0x1", "١", "1_0", "9999999999", "one"])
def test_a_rank_is_a_plain_decimal(make_shard: MakeShard, value: str) -> None:
    found = problems(two_node(make_shard), {"IDX": value}, FromEnv(rank="IDX"))
    assert found == [f"rank from $IDX: expected a plain decimal such as 0 or 3, got {value!r}"]


def test_values_are_judged_by_the_spec_rules_and_the_variable_named(make_shard: MakeShard) -> None:
    environ = {"IDX": "2", "LEADER": "bad host", "POD_IP": "127.1"}
    names = FromEnv(rank="IDX", leader_addr="LEADER", bind_addr="POD_IP")
    assert problems(two_node(make_shard), environ, names) == [
        "rank from $IDX: must be in 0..1 for 2 node(s), got 2",
        "leader_addr from $LEADER: expected a host name or IP address, got 'bad host'",
        "bind_addr from $POD_IP: expected a host name or IP address, got '127.1'",
    ]


def test_a_short_key_is_refused_without_showing_it(make_shard: MakeShard) -> None:
    found = problems(make_shard(), {"K": "short-key"}, FromEnv(api_key="K"))
    assert found == ["api_key from $K: shorter than 16 characters, so guessable (the value is not shown)"]


@settings(max_examples=100, deadline=None)
@given(key=st.text(min_size=10, max_size=40).filter(lambda k: "\x00" not in k))
def test_no_message_about_the_key_shows_it(key: str) -> None:
    from enginekit import Profile

    spec = ShardSpec(replica_id="r", shard_id="s", http_port=8000, profile=Profile(name="p", engine="x"))
    found: list[str] = []
    try:
        assert resolve(spec, {"K": key}, FromEnv(api_key="K")).spec.api_key == key
    except SpecError as exc:
        found = list(exc.problems)
    assert all(key not in problem for problem in found)


def test_a_rank_with_a_leading_zero_is_refused_as_a_spec_file_would_refuse_it(make_shard: MakeShard) -> None:
    names = FromEnv(rank="IDX")
    assert problems(two_node(make_shard), {"IDX": "01"}, names) == [
        "rank from $IDX: expected a plain decimal such as 0 or 3, got '01'"
    ]
    assert resolve(two_node(make_shard), {"IDX": "0"}, names).spec.rank == 0


def test_a_huge_value_is_refused_without_being_echoed_whole(make_shard: MakeShard) -> None:
    # A variable can hold megabytes; the spec's rules quote the value they refuse.
    (problem,) = problems(two_node(make_shard), {"LEADER": "x" * 100_000}, FromEnv(leader_addr="LEADER"))
    assert problem.startswith("leader_addr from $LEADER: expected a host name or IP address, got 'xxx")
    assert len(problem) < 400


def test_a_worker_checks_and_consumes_the_key_variable_but_its_engine_never_gets_the_key(
    make_shard: MakeShard,
) -> None:
    names = FromEnv(rank="IDX", api_key="K")
    worker = resolve(two_node(make_shard), {"IDX": "1", "K": KEY}, names)
    assert (worker.spec.rank, worker.spec.api_key, worker.consumed) == (1, "", {"K"})
    leader = resolve(two_node(make_shard), {"IDX": "0", "K": KEY}, names)
    assert (leader.spec.rank, leader.spec.api_key) == (0, KEY)
    assert problems(two_node(make_shard), {"IDX": "1", "K": "short"}, names) == [
        "api_key from $K: shorter than 16 characters, so guessable (the value is not shown)"
    ]


def test_a_name_no_such_value_may_travel_in_is_refused_before_anything_is_read(make_shard: MakeShard) -> None:
    # A scheduler embedding the core is held to the command line's rule.
    names = FromEnv(rank="PATH", api_key="spec_dir", bind_addr="POD_IP")
    environ = {"PATH": "/bin", "spec_dir": "/tmp/enginekit-7", "POD_IP": "x y"}
    assert problems(two_node(make_shard), environ, names) == [
        "rank from $PATH: 'PATH' is a variable the shell, the runtime or enginekit reads itself; "
        "name one of your own",
        "api_key from $spec_dir: the key's variable must be upper case (a letter, then letters, "
        "digits and '_'), got 'spec_dir'",
    ]
    assert problems(two_node(make_shard), {"K": KEY}, FromEnv(rank="K", api_key="K")) == [
        "rank from $K: the API key's variable too; one cannot be both"
    ]
