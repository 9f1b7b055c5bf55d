"""The ``enginekit run`` line an exported rank starts with: its spec, and the variables that complete it."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class RunLine:
    """Which variable gives each value ``enginekit run`` fills into the spec at start; empty: none."""

    spec: str
    rank_env: str = ""
    leader_addr_env: str = ""
    bind_addr_env: str = ""
    api_key_env: str = ""
    node_config: str = ""
    startup_timeout: float = 0.0

    def argv(self, enginekit: str = "enginekit") -> list[str]:
        """The argument vector: exec'd as it is, never through a shell."""
        argv = [enginekit, "run", self.spec]
        if self.node_config:
            argv += ["--config", self.node_config]
        for flag, variable in (
            ("--rank-from-env", self.rank_env),
            ("--leader-addr-from-env", self.leader_addr_env),
            ("--bind-addr-from-env", self.bind_addr_env),
            ("--api-key-from-env", self.api_key_env),
        ):
            if variable:
                argv += [flag, variable]
        if self.startup_timeout:
            argv += ["--startup-timeout", f"{self.startup_timeout:.15g}"]  # exact, as the flag reads it
        return argv
