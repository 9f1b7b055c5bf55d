"""``CommandBuilder``: one shard's commands, built up from its placement environment."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from enginekit.base.text import host_port
from enginekit.placement.env import placement_env
from enginekit.spec.model import Command, ShardSpec

#: Why the API key is in the environment, when an engine does not say more.
KEY_WHY = "the API key: the engine reads it from here, never from argv, where any local user can read it"


class CommandBuilder:
    """Variables and their reasons for one shard, and the commands that carry them.

    It starts from the shard's placement environment (:func:`enginekit.placement.env.placement_env`),
    so a plugin cannot forget which GPUs, NICs and interfaces the shard was given; the
    registry checks every command still carries those variables unchanged. Each
    :meth:`command` takes a copy of the variables as they are then, so a sidecar started
    before the key is put never sees it::

        build = CommandBuilder(shard)
        build.put("MYENGINE_THREADS", "8", "the cores placement reserved")
        build.put_secret("MYENGINE_API_KEY", shard.api_key)
        return [build.command("myengine", ["serve", shard.profile.model_path])]
    """

    def __init__(self, shard: ShardSpec) -> None:
        self.shard = shard
        placed = placement_env(shard)
        self.env: dict[str, str] = dict(placed.env)
        self.why: dict[str, str] = dict(placed.why)
        self.secret: set[str] = set()

    def put(self, key: str, value: str, why: str) -> CommandBuilder:
        """Set ``key`` to ``value``, saying why (shown by ``render --explain``)."""
        self.env[key] = value
        self.why[key] = why
        return self

    def put_secret(self, key: str, value: str, why: str = KEY_WHY) -> CommandBuilder:
        """Set ``key`` to a secret: masked in every plan, and declared in the engine's ``secret_env``.

        Does nothing when ``value`` is empty (a shard without an API key).
        """
        if value:
            self.put(key, value, why)
            self.secret.add(key)
        return self

    def remove(self, key: str) -> CommandBuilder:
        """Drop a variable put earlier (never a placement one: the registry would refuse the command)."""
        self.env.pop(key, None)
        self.why.pop(key, None)
        self.secret.discard(key)
        return self

    def command(
        self, path: str, args: Iterable[str], *, name: str = "", wait_for_leader_port: bool = False
    ) -> Command:
        """A process with the variables as they are now: ``path`` then ``args``."""
        # Command copies the tables it is given: later puts never reach this command.
        return Command(
            path=path,
            args=tuple(args),
            env=self.env,
            why=self.why,
            name=name,
            wait_for_leader_port=wait_for_leader_port,
            secret_env=frozenset(self.secret),
        )


def is_ip(text: str) -> bool:
    """Whether ``text`` is an IPv4 or IPv6 address (not a host name)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def leader_endpoint(shard: ShardSpec) -> str:
    """The leader's rendezvous endpoint, ``leader_addr:leader_port``, IPv6-safe."""
    return host_port(shard.leader_addr, shard.leader_port)


def node_ip(shard: ShardSpec) -> str | None:
    """This node's own IP address, when the spec gives one.

    The leader's is ``leader_addr`` (else ``bind_addr``); a worker's is its ``bind_addr``.
    """
    candidates = [shard.leader_addr, shard.bind_addr] if shard.is_leader() else [shard.bind_addr]
    return next((c for c in candidates if is_ip(c)), None)
