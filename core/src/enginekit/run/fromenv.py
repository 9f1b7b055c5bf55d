"""Shard fields a scheduler knows only at start (rank, addresses, API key), read from named variables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.text import printable
from enginekit.policy import carriers
from enginekit.spec.model import ShardSpec

if TYPE_CHECKING:
    from enginekit.layout.model import ProcessLayout
from enginekit.spec.rules import check_spec

#: More digits than any rank has (the most nodes is 65536): a longer number is garbage.
_MAX_RANK_DIGITS = 9
#: The longest a problem with a value from a variable is shown.
_MAX_PROBLEM = 300


@attrs.frozen(kw_only=True)
class FromEnv:
    """The variable each field is taken from; an empty name leaves the spec's value."""

    rank: str = ""
    leader_addr: str = ""
    bind_addr: str = ""
    api_key: str = ""

    def fields(self) -> dict[str, str]:
        """``{field: variable}`` for the fields taken from a variable."""
        return {name: variable for name, variable in attrs.asdict(self).items() if variable}


class Resolved(NamedTuple):
    """The spec with the fields set, and what the children must not inherit (the key's variable)."""

    spec: ShardSpec
    consumed: frozenset[str]


def resolve(spec: ShardSpec, environ: Mapping[str, str], names: FromEnv) -> Resolved:
    """``spec`` with each field ``names`` maps taken from ``environ``, checked by the spec's own rules.

    The key's variable is consumed: the children get the key the way the plan passes it
    to the engine, never the variable it came in.

    :raises SpecError: listing every problem, each naming the field and the variable: not
        a name no such value may travel in, not set, empty, not a plain decimal rank, or
        refused by the spec's rules. No message shows the key.
    """
    sourced = names.fields()
    # The command line refuses these names already; a scheduler embedding the core is
    # held to the same rule (enginekit.policy.carriers).
    problems: list[str] = carriers.problems(sourced)
    if problems:
        raise SpecError(problems)
    values: dict[str, object] = {}
    for field, variable in sourced.items():
        label = f"{field} from ${printable(variable, 100)}"
        value = environ.get(variable)
        if value is None:
            problems.append(f"{label}: not set")
        elif value == "":
            problems.append(f"{label}: empty")
        elif field == "rank":
            # As a spec file would hold it: TOML and JSON both refuse a leading zero ("01").
            plain = value.isascii() and value.isdigit() and (value == "0" or not value.startswith("0"))
            if plain and len(value) <= _MAX_RANK_DIGITS:
                values[field] = int(value)
            else:
                problems.append(
                    f"{label}: expected a plain decimal such as 0 or 3, got {printable(value, 100)!r}"
                )
        else:
            values[field] = value
    if "rank" in values and spec.profile.data_parallel > 1:
        first = _first_dp_rank(spec, values["rank"])  # type: ignore[arg-type]
        if first is not None:
            values["dp_rank"] = first
    if "rank" in values and not spec.shard_id and spec.replica_id:
        # One spec serves every rank (an export's template): each names its shard as the
        # replica's expansion would, so logs and status files tell the ranks apart.
        values["shard_id"] = f"{spec.replica_id}-{values['rank']}"
    # The values that were there are judged too: every problem is listed at once.
    resolved = attrs.evolve(spec, **values)  # type: ignore[arg-type]
    for problem in check_spec(resolved):
        for field in sourced.keys() & values.keys():
            marker = f": {field}: "
            if marker in problem:
                # Cut: the spec's rules quote the value, and a variable can hold megabytes.
                why = printable(problem.split(marker, 1)[1], _MAX_PROBLEM)
                problems.append(f"{field} from ${printable(sourced[field], 100)}: {why}")
    if problems:
        raise SpecError(problems)
    consumed = frozenset({sourced["api_key"]} if "api_key" in sourced else ())
    if consumed and not _serves_api(resolved):
        # One command line serves every rank (an export's), but only an API server needs the
        # key: a headless rank's engine never gets it, as a replica's own expansion gives it none.
        resolved = attrs.evolve(resolved, api_key="")
    return Resolved(resolved, consumed)


def _node_processes(spec: ShardSpec, rank: int) -> tuple[ProcessLayout, ...]:
    """Node ``rank``'s processes in the replica's layout (any engine's); none when it has no such node.

    An empty answer leaves the spec as it is: its own rules then name what is wrong.
    """
    from enginekit.layout.compute import layout, shape_problems
    from enginekit.layout.model import ANY_ENGINE, NodeInput

    nodes = [NodeInput()] * spec.nnodes
    if not 0 <= rank < spec.nnodes or shape_problems(spec.profile, nodes, ANY_ENGINE):
        return ()
    laid = layout(spec.profile, nodes, leader_port=spec.leader_port, rules=ANY_ENGINE, checked=False)
    return laid.nodes[rank].processes


def _serves_api(spec: ShardSpec) -> bool:
    """Whether the spec's process serves the API: the leader, or under data parallel its layout's say."""
    if spec.profile.data_parallel == 1:
        return spec.is_leader()
    from enginekit.layout.model import API_SERVER

    mine = [p for p in _node_processes(spec, spec.rank) if spec.dp_rank in p.dp_ranks]
    return mine[0].role == API_SERVER if mine else spec.is_leader()


def _first_dp_rank(spec: ShardSpec, rank: int) -> int | None:
    """The first data-parallel rank of node ``rank``'s process, as the replica's layout numbers it.

    None when the layout has no such node or the node several processes (an export runs
    one per node).
    """
    processes = _node_processes(spec, rank)
    return processes[0].dp_start if len(processes) == 1 else None
