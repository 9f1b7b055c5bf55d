"""What trtllm-serve owns, declared once per config: its variables and how its options are read."""

from __future__ import annotations

from collections.abc import Collection

from enginekit.plugin import EnginePolicy, EnvDeny

from enginekit_trtllm.flags import ARITY, MANAGED, RISKY, SECRET, SYNTAX
from enginekit_trtllm.options import OPTIONS_ENV

#: TensorRT-LLM's tuning namespaces (``TLLM_LOG_LEVEL``, ``TRTLLM_ENABLE_PDL``…).
OPEN_ENV = ("TLLM_", "TRTLLM_")
RESERVED_ENV = frozenset(
    {
        # The options document the launcher writes to a private file (under the core's
        # ENGINEKIT_ reservation too): a profile's would replace what enginekit checked.
        OPTIONS_ENV,
        # trtllm-serve has no key of its own (no API key option, no variable). This is the
        # one OpenAI-compatible tooling reads: a profile setting it would believe it
        # protects the server, or publish a key with the profile.
        "OPENAI_API_KEY",
    }
)
DENIED_ENV = (
    EnvDeny(
        "TensorRT-LLM would run the model through the proxy or disaggregated instance it names "
        "instead of its own workers",
        prefixes="TLLM_SPAWN_PROXY_PROCESS TLLM_DISAGG_",
    ),
    # TLLM_ is open, and this name has no file-like suffix for the core's heuristic.
    EnvDeny(
        "TensorRT-LLM would write its profiler trace to the file named by it", "TLLM_TORCH_PROFILE_TRACE"
    ),
)


def engine_policy(allowed: Collection[str]) -> EnginePolicy:
    """trtllm-serve's policy, with the options the site allows (``[engines.trtllm] allow_args``)."""
    return EnginePolicy(
        open_env=OPEN_ENV,
        reserved_env=RESERVED_ENV,
        denied_env=DENIED_ENV,
        syntax=SYNTAX,
        arity=ARITY,
        managed_args=MANAGED,
        risky_args=RISKY,
        secret_args=SECRET,
        allowed_args=allowed,
        display_name="trtllm-serve",
    )
