"""SGLang's disaggregated prefill and decode: its mode, transfer backend and bootstrap port, from the role.

A prefill instance's leader runs a bootstrap server (an HTTP server in the main process)
on ``--disaggregation-bootstrap-port``: a decode instance asks it where the prefill's ranks
are, then reads the KV cache with the transfer backend (Mooncake or NIXL over UCX), whose
own ports are ephemeral. The router tells the decode each request's prefill and bootstrap
port (``bootstrap_host``, ``bootstrap_port``, ``bootstrap_room`` in the request), so a
decode instance listens on none of it. The bootstrap port is the instance's
``kv_transfer_port``, laid out by :mod:`enginekit.layout` so two prefill instances on a
node never take one port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.plugin import AGGREGATED, PREFILL

if TYPE_CHECKING:
    from enginekit.plugin import KVTransferPorts, ShardSpec

#: The transfer backends enginekit configures, by the routers' names, in SGLang's words:
#: the two every release of the tables has and a GPU node runs (``ascend`` and ``mori`` are
#: other vendors', ``fake`` a benchmark's, ``mooncake_tcp`` from 0.5.23 only).
BACKENDS = {"mooncake": "mooncake", "nixl": "nixl"}
#: SGLang's own default backend.
DEFAULT_BACKEND = "mooncake"
#: What a role sets, which a profile may then not set itself.
OPTIONS = (
    "--disaggregation-mode",
    "--disaggregation-transfer-backend",
    "--disaggregation-bootstrap-port",
    "--disaggregation-ib-device",
)


def kv_transfer_ports() -> KVTransferPorts:
    """The bootstrap server: on a prefill instance's first process, at its base port alone."""
    from enginekit.plugin import TRANSFER_LEADER, KVTransferPorts

    return KVTransferPorts(roles=frozenset({PREFILL}), scope=TRANSFER_LEADER)


def transfer_problem(shard: ShardSpec) -> str | None:
    """Why SGLang cannot serve ``shard``'s role as given; None when it can (or it has no role)."""
    if shard.role == AGGREGATED:
        return None
    where = f"shard {shard.shard_id or '(unnamed)'}"
    backend = shard.kv_connector or DEFAULT_BACKEND
    if backend not in BACKENDS:
        return (
            f"{where}: kv_connector: enginekit configures SGLang's {' or '.join(sorted(BACKENDS))} "
            f"transfer backend for a {shard.role} instance, not {backend!r}"
        )
    if shard.role == PREFILL and not shard.kv_transfer_port:
        return (
            f"{where}: kv_transfer_port: a prefill instance's bootstrap server needs its port from the "
            f"layout (SGLang's default, 8998, is every instance's on a node)"
        )
    from enginekit_sglang.flags import SYNTAX

    given = SYNTAX.parse(shard.profile.args).find(OPTIONS)
    if given:
        return (
            f"{where}: profile {shard.profile.name!r}: args: {given[0].option} is set from the shard's "
            f"role ({shard.role!r}), kv_connector, kv_transfer_port and hcas: leave it out"
        )
    return None


def transfer_args(shard: ShardSpec) -> list[str]:
    """A prefill or decode instance's flags; nothing for an aggregated shard."""
    if shard.role == AGGREGATED:
        return []
    args = ["--disaggregation-mode", shard.role]
    args += ["--disaggregation-transfer-backend", BACKENDS[shard.kv_connector or DEFAULT_BACKEND]]
    if shard.role == PREFILL:
        args += ["--disaggregation-bootstrap-port", str(shard.kv_transfer_port)]
    if shard.hcas:
        # The adapters by name: SGLang's backends take devices, not ports (mlx5_0, not mlx5_0:1).
        args += [
            "--disaggregation-ib-device",
            ",".join(dict.fromkeys(h.partition(":")[0] for h in shard.hcas)),
        ]
    return args
