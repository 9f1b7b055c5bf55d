"""vLLM's disaggregated prefill and decode: the KV connector's settings, from the shard's role and placement.

A prefill and a decode instance of vLLM move the KV cache with NIXL (``NixlConnector``):
each worker listens on a side channel where the other instance's workers ask for its
cache's layout, then the blocks move over UCX. The side channel's host is the node's own
address, said to vLLM in ``VLLM_NIXL_SIDE_CHANNEL_HOST`` (its default, ``localhost``, is
right on one host alone); its port is a base vLLM moves by the data-parallel and
tensor-parallel rank, laid out by :mod:`enginekit.layout` so that no two instances on a
node derive the same port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.plugin import AGGREGATED, PREFILL

from enginekit_vllm.versions import vllm_release

if TYPE_CHECKING:
    # Each function imports what it uses: a shard with no role loads none of the layout.
    from enginekit.plugin import KVTransferPorts, ShardSpec, Version

#: The connectors enginekit configures, by the name the routers use, and vLLM's class for each.
#: NIXL alone: it is the one vLLM's own disaggregation docs and vllm-router's PD mode
#: default to, and the one whose ports the layout knows. Mooncake's and MoRIIO's connectors
#: bring their own bootstrap services, and LMCache's is an offload, not a transfer.
CONNECTORS = {"nixl": "NixlConnector"}
DEFAULT_CONNECTOR = "nixl"
#: The first release with ``NixlConnector`` (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py).
NIXL_SINCE = vllm_release("0.9.0")
#: The options a role sets, which a profile may then not set itself.
TRANSFER_OPTIONS = ("--kv-transfer-config",)
SIDE_CHANNEL_HOST = "VLLM_NIXL_SIDE_CHANNEL_HOST"
SIDE_CHANNEL_PORT = "VLLM_NIXL_SIDE_CHANNEL_PORT"
#: From 0.11.1 one side channel per engine core, in its scheduler, at the base plus its
#: data-parallel rank (``side_channel_port``, nixl/base_scheduler.py in 0.34.0); up to
#: 0.11.0 each tensor-parallel worker listened, at the base plus its data-parallel rank
#: times the tensor-parallel size, plus its tensor-parallel rank.
SIDE_CHANNEL_PER_ENGINE_SINCE = vllm_release("0.11.1")
#: ``kv_load_failure_policy`` exists from 0.13.0 (``recompute`` by default until 0.17.0).
LOAD_FAILURE_POLICY_SINCE = vllm_release("0.13.0")
#: ``kv_role`` ``kv_both`` warns as deprecated for NixlConnector from 0.24.0, whose docs give
#: a prefill ``kv_producer`` and a decode ``kv_consumer``.
PRODUCER_CONSUMER_SINCE = vllm_release("0.24.0")


def kv_transfer_ports(release: Version) -> KVTransferPorts:
    """Where this release's NIXL side channels listen, on both roles."""
    from enginekit.plugin import TRANSFER_RANK, TRANSFER_TP_RANK, KVTransferPorts

    scope = TRANSFER_RANK if release >= SIDE_CHANNEL_PER_ENGINE_SINCE else TRANSFER_TP_RANK
    return KVTransferPorts(scope=scope)


def transfer_problem(shard: ShardSpec, release: Version) -> str | None:
    """Why this vLLM cannot serve ``shard``'s role with its connector; None when it can (or no role)."""
    if shard.role == AGGREGATED:
        return None
    where = f"shard {shard.shard_id or '(unnamed)'}"
    connector = shard.kv_connector or DEFAULT_CONNECTOR
    if connector not in CONNECTORS:
        return (
            f"{where}: kv_connector: enginekit configures vLLM's {', '.join(sorted(CONNECTORS))} "
            f"connector for a {shard.role} instance, not {connector!r}"
        )
    if release < NIXL_SINCE:
        return (
            f"{where}: role: vLLM {release} has no NixlConnector (from {NIXL_SINCE}): "
            f"a {shard.role} instance needs a newer vLLM"
        )
    from enginekit_vllm.argpolicy import SYNTAX

    given = SYNTAX.parse(shard.profile.args).find(TRANSFER_OPTIONS)
    if given:
        return (
            f"{where}: profile {shard.profile.name!r}: args: {TRANSFER_OPTIONS[0]} is set from the "
            f"shard's role ({shard.role!r}) and kv_connector: leave it out (an aggregated shard may "
            f"still give its own, for an offloading connector)"
        )
    return None


def transfer_args(shard: ShardSpec, release: Version) -> list[str]:
    """``--kv-transfer-config`` for a prefill or decode instance; nothing for an aggregated one."""
    if shard.role == AGGREGATED:
        return []
    import json  # here: most shards have no role, and start-up time counts

    connector = CONNECTORS[shard.kv_connector or DEFAULT_CONNECTOR]
    # What a request does is said per request (kv_transfer_params); the instance's role is
    # said too where vLLM asks for it, and kv_both before.
    role = "kv_both"
    if release >= PRODUCER_CONSUMER_SINCE:
        role = "kv_producer" if shard.role == PREFILL else "kv_consumer"
    config = {"kv_connector": connector, "kv_role": role}
    if release >= LOAD_FAILURE_POLICY_SINCE:
        # A decode that cannot read the prefill's cache fails the request rather than
        # recomputing the prompt: a broken fabric then shows in the router's errors instead
        # of as prefill work silently landing on the decode instances.
        config["kv_load_failure_policy"] = "fail"
    return ["--kv-transfer-config", json.dumps(config, separators=(",", ":"))]


def transfer_env(shard: ShardSpec) -> dict[str, tuple[str, str]]:
    """The side channel's variables, each with why it is set; none for an aggregated shard."""
    if shard.role == AGGREGATED:
        return {}
    from enginekit.plugin import reachable_host

    env = {
        SIDE_CHANNEL_HOST: (
            reachable_host(shard),
            "where the other instances' workers reach this one's NIXL side channel: the node's own "
            "address (vLLM's default, localhost, reaches no other host)",
        )
    }
    if shard.kv_transfer_port:
        env[SIDE_CHANNEL_PORT] = (
            str(shard.kv_transfer_port),
            "the side channel's base port, from the layout: vLLM derives each engine core's from "
            "it (base plus its data-parallel rank; before 0.11.1 each worker's, plus its rank "
            "times the tensor-parallel size and its tensor-parallel rank), and the layout the same, "
            "so no two instances on a node take one port",
        )
    return env
