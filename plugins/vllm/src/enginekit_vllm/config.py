"""``VllmConfig``: the node config's ``[engines.vllm]`` section."""

from __future__ import annotations

from typing import Any

import attrs

from enginekit_vllm.flags import ALLOWABLE, MANAGED, SECRETS
from enginekit_vllm.versions import NEWEST, Version, parse_version

MULTINODE_MODES = ("native", "ray")


def _check_version(_: Any, attribute: attrs.Attribute[str], value: str) -> None:
    parse_version(value)  # raises ValueError with the reason


def _check_multinode(_: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in MULTINODE_MODES:
        raise ValueError(
            f'multinode {value!r} is not a way vLLM spans nodes: expected "native" '
            f'(vLLM\'s own multiprocessing, --nnodes) or "ray" (a Ray cluster)'
        )


def _check_allow(_: Any, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
    for flag in value:
        if flag in MANAGED or flag in SECRETS:
            raise ValueError(
                f"allow_args: {flag!r} is set by enginekit itself or carries a secret, and cannot be allowed"
            )
        if flag not in ALLOWABLE:
            raise ValueError(
                f"allow_args: {flag!r} is not a flag this plugin refuses; name flags in their "
                f"canonical spelling, one of: {', '.join(sorted(ALLOWABLE))}"
            )


def _check_path(_: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if not value or "\x00" in value or value.startswith("-"):
        raise ValueError(f"{attribute.name} {value!r}: expected a program name or path")


@attrs.frozen(kw_only=True)
class VllmConfig:
    """How this node runs vLLM::

    [engines.vllm]
    version = "0.34.0"          # the installed release: flags follow it
    multinode = "native"        # or "ray"
    allow_args = ["--trust-remote-code"]
    """

    #: The ``vllm`` program when the agent installed no build (``<build>/bin/vllm`` otherwise).
    executable: str = attrs.field(default="vllm", validator=_check_path)
    #: The ``ray`` program for ``multinode = "ray"`` (``<build>/bin/ray`` from a build).
    ray_executable: str = attrs.field(default="ray", validator=_check_path)
    #: The installed vLLM release; the newest the plugin knows by default.
    version: str = attrs.field(default=NEWEST, validator=_check_version)
    #: How a replica spans nodes. ``native`` (the default) is vLLM's own multiprocessing
    #: executor: no extra daemon, no unauthenticated Ray cluster running as root, and each
    #: node keeps its own NCCL settings (under Ray, vLLM copies the server's ``NCCL_*`` and
    #: ``VLLM_*`` variables to every worker). It needs vLLM 0.11.1 or newer.
    multinode: str = attrs.field(default="native", validator=_check_multinode)
    #: Flags the site allows in profiles although they load code, write where their value
    #: says or reach other hosts (see ``flags.ALLOWABLE``), in canonical spelling.
    allow_args: tuple[str, ...] = attrs.field(default=(), validator=_check_allow)

    @property
    def release(self) -> Version:
        """The configured version as numbers, for comparing."""
        return parse_version(self.version)
