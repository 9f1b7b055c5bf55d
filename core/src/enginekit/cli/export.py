"""``enginekit export lws|slurm``: a whole replica as a Kubernetes LeaderWorkerSet or a Slurm batch script."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from enginekit.base.exits import EXIT_OK
from enginekit.cli.context import Invalid, Run
from enginekit.cli.values import count, seconds, whole

if TYPE_CHECKING:
    from enginekit.export.template import RankTemplate
    from enginekit.plan.launch import LaunchPlan
    from enginekit.replica.spec import ReplicaSpec

REPLICA_HELP = "replica spec: a [profile] with its [placement] and [[nodes]], TOML or JSON; '-' reads stdin"
TARGETS = ("lws", "slurm")


def arguments(parser: argparse.ArgumentParser) -> None:
    """``export``'s own subcommands and their options."""
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    lws = targets.add_parser(
        "lws",
        help="a Kubernetes LeaderWorkerSet, its leaders' Service and the spec ConfigMap, as JSON",
        description="A Kubernetes LeaderWorkerSet (leaderworkerset.x-k8s.io/v1) for the replica, "
        "the Service of its leaders' HTTP port, and the ConfigMap with the spec every pod starts "
        "from. Written as one JSON document (a v1 List), which kubectl apply -f reads.",
    )
    _replica(lws)
    lws.add_argument("--image", type=_text, help="the image with enginekit and the engine in it (required)")
    lws.add_argument("--namespace", type=_text, help="the namespace of every object")
    lws.add_argument("--name", type=_text, help="the LeaderWorkerSet's name (default: the replica id)")
    lws.add_argument(
        "--secret",
        type=_text,
        metavar="NAME[:KEY]",
        help="the Secret holding the API key (default: NAME-api-key:api-key)",
    )
    lws.add_argument(
        "--rdma-resource",
        dest="rdma_resources",
        metavar="NAME=COUNT",
        type=_resource,
        action="append",
        help="an extended resource each pod asks for, e.g. rdma/ib=1 (repeatable)",
    )
    lws.add_argument(
        "--node-selector",
        metavar="KEY=VALUE",
        type=_pair,
        action="append",
        help="a node label every pod requires (repeatable)",
    )
    lws.add_argument("--replicas", type=count, help="how many replicas (LeaderWorkerSet groups; default 1)")
    lws.add_argument("--shm-size", metavar="QUANTITY", help="the size limit of /dev/shm, e.g. 64Gi")
    _common(lws, startup="how long the leader may take to become healthy (default 1800)")
    slurm = targets.add_parser(
        "slurm",
        help="an sbatch script: one task per node, each running enginekit run for its rank",
        description="An sbatch script for the replica: one task per node, the rank from SLURM_PROCID, "
        "the leader on the allocation's first node; scancel stops every rank.",
    )
    _replica(slurm)
    slurm.add_argument("--partition", type=_text, help="#SBATCH --partition")
    slurm.add_argument("--time", type=_text, help="#SBATCH --time, e.g. 7-00:00:00")
    slurm.add_argument("--account", type=_text, help="#SBATCH --account")
    slurm.add_argument(
        "--one-node",
        action="store_true",
        default=None,
        help="every rank a task on one node, at the replica's own addresses (tests; CPU only)",
    )
    slurm.add_argument(
        "--api-key-file",
        type=_text,
        metavar="PATH",
        help="a file on the first node holding the API key, read at start",
    )
    slurm.add_argument(
        "--api-key-env",
        type=_text,
        metavar="VAR",
        help="the variable the API key arrives in from the submitter (default ENGINEKIT_API_KEY)",
    )
    slurm.add_argument(
        "--bind-addr-env",
        type=_text,
        metavar="VAR",
        help="a variable a TaskProlog sets to the node's address to listen on (default: every address)",
    )
    slurm.add_argument(
        "--enginekit", type=_text, metavar="PATH", help="enginekit on the nodes (default: on their PATH)"
    )
    _common(slurm, startup="passed to enginekit run --startup-timeout")


def _replica(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("replica", metavar="REPLICA", help=REPLICA_HELP)


def _common(parser: argparse.ArgumentParser, *, startup: str) -> None:
    # As every subcommand takes it, after the target too; SUPPRESS keeps one given earlier.
    parser.add_argument(
        "--config", type=Path, default=argparse.SUPPRESS, help="node config, for [export] and the engines"
    )
    parser.add_argument(
        "--node-config",
        metavar="PATH",
        help="the node config where the ranks run, for enginekit run --config",
    )
    parser.add_argument("--startup-timeout", metavar="SECONDS", type=seconds, help=startup)
    parser.add_argument("--output", "-o", metavar="FILE", type=Path, help="write here instead of stdout")


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def _resource(text: str) -> tuple[str, int]:
    name, number = _pair(text)
    value = whole(number)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected NAME=COUNT with a whole count, got {text!r}")
    return name, value


def _text(text: str) -> str:
    """A value an option cannot go without: empty would silently read as not given."""
    if not text:
        raise argparse.ArgumentTypeError("expected a value, got an empty one")
    return text


def export(run: Run) -> int:
    """Print (or write) the replica exported for the scheduler asked for."""
    import json

    from enginekit.export.options import check_lws, check_slurm, overridden, site_options

    args = run.args
    replica = _load(run, args.replica)
    site = site_options(run.config.export)
    if args.target == "lws":
        from enginekit.export.lws import manifest

        lws = overridden(site.lws, _flags(args, "lws"))
        check_lws(lws)
        exported = _template(replica, one_host=False)
        leader = _plans(run, exported)[0]
        key = bool(replica.api_key or lws.secret)
        text = json.dumps(manifest(exported, lws, health_path=leader.health_path, key=key), indent=2) + "\n"
    else:
        from enginekit.export.slurm import script

        slurm = overridden(site.slurm, _flags(args, "slurm"))
        check_slurm(slurm)
        exported = _template(replica, one_host=slurm.one_node)
        _plans(run, exported)
        key = bool(replica.api_key or slurm.api_key_file or args.api_key_env is not None)
        text = script(exported, slurm, key=key)
    if replica.api_key and replica.api_key in text:
        # Every field the export writes was checked for the key; an option holding it (a
        # name, a path) is the last way in. Refused here too, since --output bypasses the
        # masking of what is printed.
        raise Invalid(["the replica's API key is in an option's value; refusing to write it (not shown)"])
    if args.output is None:
        run.out.write(text)
    else:
        _write(args.output, text)
    return EXIT_OK


def _flags(args: argparse.Namespace, target: str) -> dict[str, Any]:
    """The options given on the command line, by field; ``None`` for those not given."""
    names = {
        "lws": (
            "image",
            "namespace",
            "name",
            "secret",
            "rdma_resources",
            "node_selector",
            "replicas",
            "shm_size",
        ),
        "slurm": ("partition", "time", "account", "one_node", "api_key_file", "api_key_env", "bind_addr_env"),
    }[target]
    flags = {name: getattr(args, name) for name in (*names, "node_config", "startup_timeout")}
    if target == "slurm":
        flags["enginekit"] = args.enginekit
    for table in ("rdma_resources", "node_selector"):
        if flags.get(table) is not None:
            flags[table] = dict(flags[table])
    return flags


def _load(run: Run, source: str) -> ReplicaSpec:
    from enginekit.replica.spec import load_replica

    raw, _ = run.document(source)
    from enginekit.replica.disaggregated import is_disaggregated

    if is_disaggregated(raw):
        raise Invalid(
            [
                f"{source}: a disaggregated replica (prefill and decode): its export is not built yet; "
                f"run its instances from `enginekit layout --shards` and its router with `enginekit router`"
            ]
        )
    return load_replica(raw, lenient=run.config.lenient)


def _template(replica: ReplicaSpec, *, one_host: bool) -> RankTemplate:
    from enginekit.base.errors import SpecError
    from enginekit.export.template import rank_template

    try:
        return rank_template(replica, one_host=one_host)
    except SpecError as exc:
        raise Invalid(exc.problems) from None


def _plans(run: Run, exported: RankTemplate) -> list[LaunchPlan]:
    """Every rank planned as it will start: an export the engine would refuse is refused now."""
    from enginekit.base.errors import SpecError

    engine = run.registry.engine(exported.replica.profile.engine)
    try:
        plans = [engine.plan(spec) for spec in exported.ranks]
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    if not plans[0].serves_http:
        raise Invalid(
            [f"engine {engine.name!r}: its leader serves no HTTP, so nothing can probe or reach it"]
        )
    return plans


def _write(path: Path, text: str) -> None:
    from enginekit.base.errors import SpecError

    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SpecError([f"{path}: cannot write: {exc.strerror or exc}"]) from None
