"""What llama-server owns, declared once per config: its variables and how its flags are read."""

from __future__ import annotations

from collections.abc import Collection

from enginekit.plugin import EnginePolicy, EnvAlias, EnvDeny

from enginekit_llamacpp.flags import API_KEY_ENV, EXECUTABLE, MANAGED, RISKY, SECRET
from enginekit_llamacpp.syntax import ARITY, SYNTAX

#: ggml's tuning namespace (``GGML_CUDA_FORCE_MMQ``, ``GGML_CUDA_NO_PINNED``…). llama.cpp's
#: own ``LLAMA_`` names stay closed: ``LLAMA_ARG_*`` sets flags, ``LLAMA_CACHE`` picks
#: where downloads land.
OPEN_ENV = ("GGML_",)
#: ggml-vulkan's device list: Vulkan ignores CUDA_VISIBLE_DEVICES, so this is the shard's
#: GPUs for a Vulkan build, and any other value reaches a card another shard holds.
RESERVED_ENV = frozenset({"GGML_VK_VISIBLE_DEVICES"})
DENIED_ENV = (
    # GGML_ is open, and a site's ``allow`` could open a _PATH name the suffix rule refuses.
    EnvDeny("ggml would load the out-of-tree backend library named by it", "GGML_BACKEND_PATH"),
    # common/arg.cpp gives nearly every flag a LLAMA_ARG_ twin, read whenever the flag is
    # not on the command line: --rpc, --model, --api-key-file… without the argument checks.
    EnvDeny(
        "llama-server reads every flag from its LLAMA_ARG_ twin, bypassing the argument checks",
        prefixes="LLAMA_ARG_",
    ),
    # Options and settings common/arg.cpp and the server read from names of their own.
    EnvDeny(
        "llama-server reads an option or a place to fetch, store or start from it, bypassing "
        "the argument checks",
        "LLAMA_APP_CMD LLAMA_CACHE LLAMA_OFFLINE LLAMA_CHAT_TEMPLATE_KWARGS MTMD_BACKEND_DEVICE",
    ),
)

#: Names llama.cpp reads as others (common/arg.cpp, common/download.cpp, tools/server),
#: declared for every build: an alias only adds refusals. ``LLAMA_ARG_NO_X`` needs none, as
#: the ``LLAMA_ARG_`` group holds it; ``HOME`` and ``XDG_CONFIG_HOME`` (which pick a
#: config.ini that can set any option) are the core's reserved names.
ENV_ALIASES: tuple[EnvAlias, ...] = (
    EnvAlias(
        "AIP_HTTP_PORT",
        "LLAMA_ARG_PORT",
        why="llama-server listens on AIP_HTTP_PORT when AIP_MODE is PREDICTION (Vertex AI)",
    ),
    EnvAlias(
        "AIP_MODE", "LLAMA_ARG_PORT", why="AIP_MODE=PREDICTION makes llama-server listen on AIP_HTTP_PORT"
    ),
    EnvAlias(
        "MODEL_ENDPOINT",
        "HF_ENDPOINT",
        why="llama.cpp downloads models from MODEL_ENDPOINT, else HF_ENDPOINT",
    ),
)


def engine_policy(allowed: Collection[str]) -> EnginePolicy:
    """llama-server's policy, with the flags the site allows (``[engines.llamacpp] allow_args``)."""
    return EnginePolicy(
        open_env=OPEN_ENV,
        reserved_env=RESERVED_ENV,
        secret_env={API_KEY_ENV},
        denied_env=DENIED_ENV,
        syntax=SYNTAX,
        arity=ARITY,
        managed_args=MANAGED,
        risky_args=RISKY,
        secret_args=SECRET,
        allowed_args=allowed,
        display_name=EXECUTABLE,
        env_aliases=ENV_ALIASES,
    )
