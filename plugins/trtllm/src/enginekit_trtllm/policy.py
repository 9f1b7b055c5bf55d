"""What trtllm-serve owns, declared once per config: its variables and how its options are read."""

from __future__ import annotations

from collections.abc import Collection

from enginekit.plugin import EnginePolicy, EnvAlias, EnvDeny

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
    # The same launchers' wiring under other spellings, which the prefixes above miss:
    # trtllm-llmapi-launch exports tllm_mpi_size (lower case) beside TLLM_SPAWN_PROXY_PROCESS*
    # and llmapi/mpi_session.py (get_mpi_world_size) reads it as the MPI world size;
    # trtllm-serve disaggregated sets its workers' role and deployment id
    # (commands/serve.py, DisaggLauncherEnvs), which the usage reporter (usage/usage_lib.py)
    # and the PyTorch KV-cache transceiver (_torch/pyexecutor/kv_cache_transceiver.py) read
    # as TRTLLM_DISAGG_ROLE and TRTLLM_DISAGG_DEPLOYMENT_ID.
    EnvDeny(
        "TensorRT-LLM's own launchers set it for the workers they start (the proxy's MPI world "
        "size, a disaggregated worker's role and deployment): a profile's would make the server "
        "act as a rank or worker of a deployment enginekit did not start",
        names="TLLM_MPI_SIZE TRTLLM_DISAGG_ROLE TRTLLM_DISAGG_DEPLOYMENT_ID",
    ),
    # TLLM_ is open, and this name has no file-like suffix for the core's heuristic.
    EnvDeny(
        "TensorRT-LLM would write its profiler trace to the file named by it", "TLLM_TORCH_PROFILE_TRACE"
    ),
    # TRTLLM_ is open and _OUTPUT is no file-like suffix: llmapi/startup_profiler.py
    # (StartupProfiler.write_if_requested) creates its directories and writes the JSON there
    # when TRTLLM_PROFILE_STARTUP=1.
    EnvDeny(
        "TensorRT-LLM would write its startup profile to the file named by it, creating its directories",
        "TRTLLM_STARTUP_PROFILE_OUTPUT",
    ),
    # usage/usage_lib.py (_get_stats_server): the release that brought telemetry posts to
    # any URL named here; later ones keep to https://*.nvidia.com.
    EnvDeny(
        "TensorRT-LLM would send its usage reports to the server named by it",
        "TRTLLM_USAGE_STATS_SERVER",
    ),
)

#: Names TensorRT-LLM reads as others, from its sources (usage/usage_lib.py and
#: cpp/tensorrt_llm/common/logger.cpp; none in common/envUtils.cpp, envs.py, logger.py,
#: _utils.py, executor/utils.py or llmapi/). Declared for every release: an alias only adds
#: refusals, and none of these is a name a profile needs. TensorRT-LLM copies no prefix
#: over another, and reads no name of one of its namespaces as the same name in the other.
ENV_ALIASES: tuple[EnvAlias, ...] = (
    # usage/usage_lib.py, is_usage_stats_enabled: each opts out as TRTLLM_NO_USAGE_STATS=1 does.
    EnvAlias(
        "DO_NOT_TRACK",
        "TRTLLM_NO_USAGE_STATS",
        why="TensorRT-LLM's usage reporter (usage/usage_lib.py) stops on DO_NOT_TRACK=1 as on "
        "TRTLLM_NO_USAGE_STATS=1",
    ),
    EnvAlias(
        "TELEMETRY_DISABLED",
        "TRTLLM_NO_USAGE_STATS",
        why="TensorRT-LLM's usage reporter (usage/usage_lib.py) stops on TELEMETRY_DISABLED=true "
        "as on TRTLLM_NO_USAGE_STATS=1",
    ),
    # cpp/tensorrt_llm/common/logger.cpp, Logger::detectRank: TLLM_RANK, else RANK,
    # LOCAL_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK.
    EnvAlias(
        "TLLM_RANK",
        "RANK",
        why="TensorRT-LLM's C++ logger (common/logger.cpp, Logger::detectRank) takes its rank "
        "from TLLM_RANK before RANK",
    ),
)


def engine_policy(allowed: Collection[str]) -> EnginePolicy:
    """trtllm-serve's policy, with the options the site allows (``[engines.trtllm] allow_args``)."""
    return EnginePolicy(
        env_aliases=ENV_ALIASES,
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
