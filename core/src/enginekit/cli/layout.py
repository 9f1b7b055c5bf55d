"""``enginekit layout``: the table read before launching a replica: nodes, processes, ranks, ports, dials."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from enginekit.base.exits import EXIT_OK
from enginekit.cli.context import Invalid, Run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from enginekit.layout.model import Layout, ProcessLayout
    from enginekit.replica.spec import ReplicaSpec
    from enginekit.spec.model import ShardSpec

#: How a shard file is opened: never through a link, never inherited by a child.
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: A shard id that is a file name as it stands: no separator, no leading dot.
_FILE_NAME = r"[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\Z"

HEADER = ("NODE", "ADDR", "PROC", "ROLE", "DP RANKS", "GPUS", "LISTENS", "DIALS")


def show(run: Run) -> int:
    """Print the replica's layout under its engine's rules, every shard checked as ``render`` checks it."""
    from enginekit.base.errors import SpecError
    from enginekit.replica.spec import expand, load_replica, replica_layout

    raw, _ = run.document(run.args.replica)
    from enginekit.replica.disaggregated import is_disaggregated

    if is_disaggregated(raw):
        return _show_disaggregated(run, raw)
    replica = load_replica(raw, lenient=run.config.lenient)
    engine = run.registry.engine(replica.profile.engine)
    try:
        laid = replica_layout(replica, engine.layout_rules)
        shards = expand(replica)
        problems = [problem for shard in shards for problem in engine.problems(shard)]
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    _written(run, shards, problems)
    if run.args.json:
        import json

        print(json.dumps(as_json(replica, laid), indent=2), file=run.out)
    else:
        run.out.write(as_text(replica, laid))
    return EXIT_OK


def _show_disaggregated(run: Run, raw: Any) -> int:
    """Each instance's layout under its engine's rules, and the router's ports; shards checked."""
    from enginekit.base.errors import SpecError
    from enginekit.replica.disaggregated import (
        disaggregated_layouts,
        expand_disaggregated,
        load_disaggregated,
        router_host,
    )

    spec = load_disaggregated(raw, lenient=run.config.lenient)
    engines = {
        role: run.registry.engine(getattr(spec, role).profile.engine) for role in ("prefill", "decode")
    }
    try:
        laid = disaggregated_layouts(spec, {role: e.layout_rules for role, e in engines.items()})
        expanded = expand_disaggregated(spec)
        shards = [shard for _, ranks in expanded for shard in ranks]
        problems = [
            p for instance, ranks in expanded for s in ranks for p in engines[instance.role].problems(s)
        ]
    except SpecError as exc:
        raise Invalid(exc.problems) from None
    _written(run, shards, problems)
    addr, host = router_host(spec)
    if run.args.json:
        import json

        import attrs

        data = {
            "replica_id": spec.replica_id,
            "router": {
                "addr": addr,
                "host": host,
                "port": spec.router.port,
                "metrics_port": spec.router.metrics_port,
            },
            "instances": [
                {"role": i.role, "index": i.index, "engine": i.replica.profile.engine, **attrs.asdict(one)}
                for i, one in laid
            ],
        }
        print(json.dumps(data, indent=2), file=run.out)
        return EXIT_OK
    metrics = f", metrics {spec.router.metrics_port}" if spec.router.metrics_port else ""
    on = addr or "the first prefill node"
    from enginekit.base.text import host_port

    where = host_port(host, spec.router.port)
    out = [f"router of {spec.replica_id or '(unnamed)'}: {where}{metrics} (on {on})"]
    for instance, one in laid:
        heading = as_text(_titled(instance.replica, f"{instance.where}"), one)
        out.append(heading.rstrip("\n"))
    run.out.write("\n\n".join(out) + "\n")
    return EXIT_OK


def _titled(replica: ReplicaSpec, where: str) -> ReplicaSpec:
    """The instance as its table names it: its id and its place among the roles."""
    import attrs

    return attrs.evolve(replica, replica_id=f"{replica.replica_id or '(unnamed)'} ({where}, {replica.role})")


def _written(run: Run, shards: Sequence[ShardSpec], problems: Sequence[str]) -> None:
    """Refuse the shards with every problem their engines found, once each; else write them (`--shards`)."""
    if problems:
        raise Invalid(list(dict.fromkeys(problems)))
    if run.args.shards:
        write_shards(Path(run.args.shards), shards, run)


def write_shards(folder: Path, shards: Sequence[ShardSpec], run: Run) -> None:
    """Each shard's spec as ``folder/<shard_id>.json``, readable by its owner only (it may hold the key).

    Each is written to a new file of its own (0600 before anything is written) and renamed
    over the name, so neither a planted link, FIFO or file, nor a descriptor opened on one
    beforehand, can widen who reads the key; a name that is a link or not a file is refused.
    """
    import json

    from enginekit.spec.model import dump_spec

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        held = folder.lstat()
    except OSError as exc:
        raise Invalid([f"--shards: cannot make {str(folder)!r}: {exc.strerror}"]) from None
    # Someone else's folder, or one others may write in, lets them swap a spec between this
    # write and `enginekit run` reading it (the model, its args and env are in it).
    if not stat.S_ISDIR(held.st_mode) or held.st_uid != os.getuid() or held.st_mode & 0o022:
        raise Invalid(
            [
                f"--shards: {str(folder)!r} must be a folder of your own that no one else may write "
                f"in (it is {'not a folder' if not stat.S_ISDIR(held.st_mode) else oct(held.st_mode & 0o777)}"
                f"{', owned by another user' if held.st_uid != os.getuid() else ''}); name a new one"
            ]
        )
    written = []
    for i, shard in enumerate(shards):
        name = shard.shard_id if re.match(_FILE_NAME, shard.shard_id) else f"shard-{i}"
        path = folder / f"{name}.json"
        text = json.dumps(dump_spec(shard, show_secrets=True), indent=2) + "\n"
        # A fresh file renamed over the name: a descriptor someone opened on a file planted
        # there (or a FIFO) never sees the key, as writing into that file in place would let it.
        temp = folder / f".{name}.{secrets.token_hex(8)}.tmp"
        try:
            if path.is_symlink() or (path.exists() and not path.is_file()):
                raise OSError(0, "not a regular file")
            fd = os.open(temp, _WRITE | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                os.fchmod(fd, 0o600)
                handle.write(text)
            os.replace(temp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise Invalid([f"--shards: cannot write {str(path)!r}: {exc.strerror}"]) from None
        written.append(path.name)
    run.error(f"wrote {len(written)} shard spec(s) to {folder}: {', '.join(written)}", kind="note")


def as_json(replica: ReplicaSpec, laid: Layout) -> dict[str, Any]:
    """The layout as JSON-ready data: the replica's parallelism, then each node's processes."""
    import attrs

    return {"replica_id": replica.replica_id, "engine": replica.profile.engine, **attrs.asdict(laid)}


def as_text(replica: ReplicaSpec, laid: Layout) -> str:
    """A heading naming the parallelism, then one row per process."""
    parallel = f"TP {laid.tp} x PP {laid.pp} x DP {laid.dp}"
    if laid.dp > 1:
        parallel += f" ({laid.dp_local} per node, {laid.balancing} balancing)"
    if laid.expert_parallel:
        parallel += ", expert parallel"
        if replica.profile.all2all:
            parallel += f" over {replica.profile.all2all}"
    heading = f"replica {replica.replica_id or '(unnamed)'}: {replica.profile.engine}, {parallel}"
    rows = [HEADER] + [_row(laid, process) for process in laid.processes()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1]
        for row in rows
    ]
    return heading + "\n" + "\n".join(line.rstrip() for line in lines) + "\n"


def _row(laid: Layout, process: ProcessLayout) -> tuple[str, ...]:
    addr = laid.nodes[process.node].addr or "(at start)"
    dials = ", ".join(f"{d.name} {d.addr or 'node ' + str(d.node)}:{d.port}" for d in process.dials)
    return (
        str(process.node),
        addr,
        str(process.index),
        process.role,
        _span(process.dp_ranks),
        _span(process.gpus),
        ", ".join([*map(str, process.listens), *(f"{kept} (kept free)" for kept in process.reserves)]) or "-",
        dials or "-",
    )


def _span(numbers: tuple[int, ...]) -> str:
    """``0-7`` for a run of consecutive numbers, else the numbers with commas."""
    if len(numbers) > 2 and list(numbers) == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"{numbers[0]}-{numbers[-1]}"
    return ",".join(map(str, numbers)) or "-"
