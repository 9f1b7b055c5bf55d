"""What myengine-server owns: its variables, how its parser reads flags, and which flags enginekit gates."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit import plugin as ek

#: The variable myengine-server reads its API key from (the twin of ``--api-key``).
API_KEY_ENV = "MYENGINE_API_KEY"
#: The address a node advertises to its peers, generated for multi-node shards.
HOST_IP_ENV = "MYENGINE_HOST_IP"

DENIED_ENV = (
    # A floor group (the default): a site's ``allow`` cannot open it, only ``allow_unsafe``
    # with a reason, because it runs code as root.
    ek.EnvDeny("loads Python code into the server", names="MYENGINE_PLUGIN_DIR MYENGINE_PRELOAD"),
    # Not a floor: nothing runs, but prompts land on disk; a site may open it by name.
    ek.EnvDeny(
        "writes every request and its reply to the host's disk", names="MYENGINE_DUMP_REQUESTS", floor=False
    ),
)

#: Flags enginekit sets from the shard spec, mapped to what to do instead. The parser
#: keeps the last of a repeated flag, so a profile's copy would quietly win.
MANAGED_ARGS = {
    "--model": "set the profile's model_path instead",
    "--served-model-name": "set the profile's served_model_name instead",
    "--host": "the shard spec's bind_addr decides where it listens; drop it",
    "--port": "the shard spec's http_port decides where it listens; drop it",
    "--tensor-parallel-size": "set the profile's tp instead",
    "--pipeline-parallel-size": "set the profile's pp instead",
    "--nnodes": "placement decides the replica's nodes (the shard spec's nnodes); drop it",
    "--node-rank": "placement decides each node's rank (the shard spec's rank); drop it",
    "--leader": "placement decides the leader (the shard spec's leader_addr and leader_port); drop it",
    "--headless": "enginekit runs every rank but the leader headless; drop it",
    "--device": "placement decides the shard's devices (its GPUs, or the CPU); drop it",
    "--threads": "a CPU shard gets the cores placement reserved for it (the shard spec's threads); drop it",
}
#: Flags that load code or reach the host, mapped to what they do: refused unless the
#: site names them in ``engines.myengine.allow_args``.
RISKY_ARGS = {
    "--trust-remote-code": "runs Python code shipped with the model's files",
    "--plugin-dir": "imports Python modules from a directory on the host",
}
#: Flags that would put a secret on the command line, which every local user can read.
SECRET_ARGS = {
    "--api-key": f"set the shard spec's api_key instead: it reaches myengine-server as {API_KEY_ENV}",
}
#: Options that take no value; every other known option takes exactly one.
FLAGS = frozenset({"--trust-remote-code", "--headless", "--enable-metrics", "--enforce-eager"})
TUNING = frozenset({"--dtype", "--max-model-len", "--max-num-seqs", "--gpu-memory-utilization"})
KNOWN = frozenset({*MANAGED_ARGS, *RISKY_ARGS, *SECRET_ARGS, *FLAGS, *TUNING})

#: myengine-server's parser is argparse: ``--opt=value``, unambiguous prefixes, two aliases.
SYNTAX = ek.ArgSyntax(
    known=KNOWN, aliases={"-tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size"}
)
ARITY = {option: 0 if option in FLAGS else 1 for option in KNOWN}

#: The values ``--dtype`` takes, and what fp8 needs: a release that has it, and a GPU
#: with fp8 tensor cores (Ada, Hopper and later).
DTYPES = ("auto", "float16", "bfloat16", "fp8")
FP8_SINCE = ek.parse_version("1.2.0")
FP8_MIN_CAPABILITY = 8.9


def engine_policy(allowed: Iterable[str] = ()) -> ek.EnginePolicy:
    """The policy, with the risky flags this site allows (the config's ``allow_args``)."""
    return ek.EnginePolicy(
        open_env="MYENGINE_",
        reserved_env=HOST_IP_ENV,
        secret_env=API_KEY_ENV,
        denied_env=DENIED_ENV,
        syntax=SYNTAX,
        arity=ARITY,
        managed_args=MANAGED_ARGS,
        risky_args=RISKY_ARGS,
        secret_args=SECRET_ARGS,
        allowed_args=allowed,
        display_name="myengine-server",
    )
