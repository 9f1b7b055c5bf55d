"""An engine plugin written against enginekit's first release, and left as it was.

Kept unchanged on purpose: it is the plugin API's compatibility test. It imports the core's
modules by their first-release names (there was no ``enginekit.plugin``), checks its
arguments with the first release's helper signatures (the raw list and the syntax), has
no ``policy`` hook, names its key variable only in its command's ``secret_env``, and
implements ``validate`` without the ``args`` parameter added later. Every one of those
must either work, with a ``DeprecationWarning``, or be refused before any hook runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from enginekit import hookimpl
from enginekit.args import ArgSyntax, code_loading_problems, managed_option_problems, positional_problems
from enginekit.errors import EngineError
from enginekit.model import Command, GPUInfo, Profile, ShardSpec
from enginekit.ncclenv import placement_env

API_KEY_ENV = "ECHO_API_KEY"
MANAGED = {
    "--port": "the shard spec's http_port decides where it listens; drop it",
    "--model": "set the profile's model_path instead",
}
RISKY = {"--load-plugin": "imports Python code from a path on the host"}
KNOWN = frozenset({*MANAGED, *RISKY, "--threads", "--verbose"})
SYNTAX = ArgSyntax(known=KNOWN, aliases={"-p": "--port"})
ARITY = {"--port": 1, "--model": 1, "--load-plugin": 1, "--threads": 1, "--verbose": 0}


class EchoEngine:
    """echo-server: one process per shard, the key in its environment."""

    takes_installed_build: ClassVar[bool] = False

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo]) -> list[str]:
        problems = managed_option_problems(profile.name, profile.args, MANAGED, SYNTAX)
        problems += code_loading_problems(
            profile.name, profile.args, RISKY, (), SYNTAX, config_key="engines.firstrel.allow_args"
        )
        problems += positional_problems(profile.name, profile.args, SYNTAX, arity=ARITY, engine="echo-server")
        if profile.tp > 8:
            problems.append(f"profile {profile.name!r}: tp: echo-server runs at most 8 ranks")
        return problems

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        if shard.profile.kv_events:
            raise EngineError("echo-server publishes no KV-cache events")
        build = placement_env(shard)
        env, why = dict(build.env), dict(build.why)
        secret: frozenset[str] = frozenset()
        if shard.api_key:
            env[API_KEY_ENV] = shard.api_key
            why[API_KEY_ENV] = "the API key, never on the command line"
            secret = frozenset({API_KEY_ENV})
        args = ("--model", shard.profile.model_path, "--port", str(shard.http_port), *shard.profile.args)
        return [Command(path="/usr/bin/echo-server", args=args, env=env, secret_env=secret, why=why)]

    @hookimpl
    def serves_http(self, shard: ShardSpec) -> bool:
        return shard.is_leader()

    @hookimpl
    def health_path(self) -> str:
        return "/healthz"
