"""The one shard spec every rank of an exported replica starts from, and the checks that make that honest."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from enginekit.base.errors import SpecError
from enginekit.layout.compute import needs_layout
from enginekit.replica.spec import Placement, ReplicaSpec, expand, node_count_problem, with_addresses
from enginekit.spec.convert import unstructure
from enginekit.spec.model import ShardSpec

#: Addresses from TEST-NET-1 (RFC 5737), never a real host: each rank is planned with them
#: before anything is submitted, and the scheduler gives the real ones at start.
STAND_IN_PREFIX = "192.0.2."
#: The fields of a rank's spec that ``enginekit run`` fills in at start, or that differ
#: by rank without changing what runs.
PER_RANK = ("rank", "shard_id", "leader_addr", "bind_addr", "api_key", "dp_rank")


@attrs.frozen(kw_only=True)
class RankTemplate:
    """An exported replica: the spec every rank starts from, and each rank as it will be completed."""

    replica: ReplicaSpec
    #: Every rank's spec with ``rank`` 0, no shard id, no key, and the addresses cleared
    #: unless they are fixed (every rank on one host).
    template: ShardSpec
    #: Each rank's spec as the scheduler completes it, with stand-in addresses where the
    #: scheduler gives them: what the export plans to check every rank.
    ranks: tuple[ShardSpec, ...]
    #: Whether the addresses are the replica's own (``--one-node``), not the scheduler's.
    fixed_addresses: bool

    @property
    def every_node_serves(self) -> bool:
        """Whether every rank serves the API (data parallel under hybrid or external balancing).

        Then every pod or task gets the key, the probes and a place behind the Service;
        otherwise the leader alone does.
        """
        profile = self.replica.profile
        return profile.data_parallel > 1 and profile.dp_balancing != "internal"

    @property
    def gpus_per_node(self) -> int:
        """How many GPUs each node asks the scheduler for; 0 for a CPU replica."""
        return len(self.template.gpu_indices)


def rank_template(replica: ReplicaSpec, *, one_host: bool = False) -> RankTemplate:
    """Check that one spec can start every rank of ``replica`` under a scheduler, and make it.

    :param one_host: every rank runs on one host, at the replica's own (equal) addresses;
        otherwise the scheduler gives the addresses at start and the replica's are not used.
    :raises SpecError: every problem, each naming the replica's field.
    """
    profile = replica.profile
    if needs_layout(profile) and profile.dp_balancing == "external" and profile.dp_local > 1:
        # A pod or task is one `enginekit run` of one process; external balancing runs one
        # process per rank, so a node of several ranks would need several.
        raise SpecError(
            [
                f"profile {profile.name!r}: dp_per_node: external balancing runs each rank as its own "
                f"process and API server, and an export starts one per node, not "
                f"{profile.dp_local}; set dp_per_node = 1 (a pod or task per rank, gpus_per_node its "
                f"tp x pp), or start each process with `enginekit layout --shards` and `enginekit run`"
            ]
        )
    miscounted = node_count_problem(replica)
    if miscounted:
        # Said before anything is placed: one stand-in address per listed node would not fit.
        raise SpecError([miscounted])
    problems = list(_devices(replica, one_host=one_host))
    count = replica.profile.node_count
    placed = with_addresses(replica, [f"{STAND_IN_PREFIX}{rank + 1}" for rank in range(count)])
    if one_host:
        placed = replica
        addresses = sorted({node.addr for node in replica.nodes})
        if len(replica.nodes) != count or len(addresses) != 1 or not addresses[0]:
            problems.append(
                "nodes: on one host, every node must be listed with the same addr (e.g. 127.0.0.1), "
                f"got {addresses or 'none'}"
            )
    if problems:
        raise SpecError(problems)
    ranks = expand(placed)
    problems = _uniform(ranks)
    if problems:
        raise SpecError(problems)
    # On one host the addresses are the replica's own; otherwise enginekit run takes them
    # from the scheduler's variables at start.
    template = attrs.evolve(ranks[0], shard_id="", api_key="")
    if not one_host:
        template = attrs.evolve(template, leader_addr="", bind_addr="")
    problems = [
        f"{_replica_field(replica, path)}: holds the replica's API key, and an export writes this field "
        f"into a manifest or script that everyone who may read it sees; the key reaches the leader "
        f"only from its Secret, file or variable (the value is not shown)"
        for path in _holding(unstructure(template), replica.api_key, "")
    ]
    if problems:
        raise SpecError(problems)
    return RankTemplate(replica=replica, template=template, ranks=ranks, fixed_addresses=one_host)


def _holding(value: Any, key: str, path: str) -> Iterator[str]:
    """The paths in the JSON-ready ``value`` whose text holds ``key``: pasted there, it would be exported.

    The key is never empty here: it is at least the shard spec's shortest, so a match is the key.
    """
    if not key:
        return
    if isinstance(value, str):
        if key in value:
            yield path
    elif isinstance(value, dict):
        for name, item in value.items():
            inner = f"{path}.{name}" if path else str(name)
            if key in str(name):
                yield f"{path} (a name in it)"  # the name itself is the secret: not shown
            else:
                yield from _holding(item, key, inner)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _holding(item, key, f"{path}[{i}]")


#: The placement fields of a rank's spec, which the replica says in ``placement`` or a node.
_PLACEMENT_FIELDS = frozenset(attrs.fields_dict(Placement))


def _replica_field(replica: ReplicaSpec, path: str) -> str:
    """The replica's field a path in the template came from (every node's placement is the same)."""
    base = path.split(".", 1)[0].split("[", 1)[0].split(" ", 1)[0]
    if base not in _PLACEMENT_FIELDS:
        return path
    if replica.nodes and getattr(replica.nodes[0], base) is not None:
        return f"nodes[0].{path}"
    return f"placement.{path}"


def _devices(replica: ReplicaSpec, *, one_host: bool) -> list[str]:
    """A scheduler hands each node's GPUs to the rank, numbered from 0: placement names them so."""
    problems = []
    sources = [("placement", replica.placement)] + [(f"nodes[{i}]", n) for i, n in enumerate(replica.nodes)]
    for where, placement in sources:
        if placement.gpu_uuids:
            problems.append(
                f"{where}.gpu_uuids: a scheduler picks the devices; name them by index "
                f"as the rank sees them (0 to GPUs per node - 1)"
            )
        indices = placement.gpu_indices or ()
        if indices and one_host:
            problems.append(
                f"{where}.gpu_indices: every rank on one host would get the same GPUs; "
                f"a replica on one host runs on the CPU (the simulated engine) only"
            )
        elif any(not 0 <= i < len(indices) for i in indices):
            problems.append(
                f"{where}.gpu_indices: a rank sees only the {len(indices)} GPU(s) it asks the "
                f"scheduler for, numbered 0-{len(indices) - 1}; got {list(indices)[:16]}"
            )
    return problems


def _uniform(ranks: Sequence[ShardSpec]) -> list[str]:
    """Every rank must be the leader's spec but for what the scheduler fills in at start."""
    first = _shared(ranks[0])
    problems = []
    for spec in ranks[1:]:
        mine = _shared(spec)
        for field in attrs.fields_dict(ShardSpec):
            if field not in PER_RANK and mine[field] != first[field]:
                problems.append(
                    f"nodes[{spec.rank}].{field}: {mine[field]!r}, but nodes[0]'s is {first[field]!r}: "
                    f"an export starts every rank from one spec, so every node's placement must be "
                    f"the same (only the rank and the addresses come from the scheduler)"
                )
    return problems


def _shared(spec: ShardSpec) -> dict[str, object]:
    return {field.name: getattr(spec, field.name) for field in attrs.fields(ShardSpec)}


def readable_json(value: Any, indent: str = "") -> str:
    """JSON for people: one member a line, lists of plain values on one line; sorted, so stable."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        members = [f"{inner}{json.dumps(k)}: {readable_json(v, inner)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(members) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        return "[\n" + ",\n".join(inner + readable_json(v, inner) for v in value) + f"\n{indent}]"
    return json.dumps(value, separators=(", ", ": "))
