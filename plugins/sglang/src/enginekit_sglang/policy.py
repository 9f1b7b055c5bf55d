"""What SGLang owns: the variables profiles may set, generated or denied, and how its flags are read."""

from __future__ import annotations

from collections.abc import Collection

from enginekit.plugin import EnginePolicy, EnvAlias, EnvDeny, Version, parse_version

from enginekit_sglang.build import KEY_ENV, THREADS_ENV
from enginekit_sglang.flags import ARITY, MANAGED, RISKY, SECRETS, SYNTAX

#: SGLang's tuning namespaces: ``SGL_`` is the older spelling some of its switches
#: still read (``SGL_ENABLE_JIT_DEEPGEMM``).
OPEN_ENV = "SGLANG_ SGL_"

#: Variables that wire SGLang's processes together. SGLang reads each of them in place
#: of what enginekit derives from the shard, so a profile value would move the rendezvous
#: or open a port placement never reserved:
#: - ``SGLANG_HOST_IP``: the address SGLang's nodes know each other by;
#: - ``SGLANG_PORT``, ``SGLANG_GRPC_PORT``: ports it listens on beside the shard's own;
#: - ``SGLANG_TCP_STORE_PORT``: its rendezvous store's port;
#: - ``SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE``: its distributed init address.
WIRING = (
    "SGLANG_HOST_IP SGLANG_PORT SGLANG_TCP_STORE_PORT SGLANG_GRPC_PORT "
    "SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE"
)

#: Names SGLang (or what it starts) would misuse, each group with its reason. All are a
#: floor: a site opens one only through ``allow_unsafe``, with a reason the plan repeats.
DENIED: tuple[EnvDeny, ...] = (
    EnvDeny(
        "SGLang would import a package, load cached objects or write files named by it",
        names="SGLANG_EXTERNAL_MODEL_PACKAGE SGLANG_EXTERNAL_MM_MODEL_ARCH "
        "SGLANG_EXTERNAL_MM_PROCESSOR_PACKAGE SGLANG_PLUGINS SGLANG_PLATFORM "
        "SGLANG_CUTE_AOT_CACHE_DIR SGLANG_CACHE_DIR SGLANG_DG_CACHE_DIR SGLANG_JIT_CACHE_DIR "
        "SGLANG_EXPOSE_OWN_ENV_VARS SGLANG_ENABLE_REQUEST_HEADER_OVERRIDES "
        "SGLANG_LOG_REQUEST_HEADERS SGLANG_TORCH_PROFILER_DIR "
        "SGLANG_EXPERT_DISTRIBUTION_RECORDER_DIR SGLANG_CUDA_COREDUMP_DIR "
        "SGLANG_ROLE_NAMESPACES_OUT SGLANG_TEST_METRICS_FILE SGLANG_WEIGHT_CACHE_SOCKET_TEMPLATE "
        "SGLANG_WEIGHT_CACHE_READY_TEMPLATE SGLANG_RUST_BUILD_MODE",
        # Test-only switches, an integration's endpoints, hierarchical-cache storage
        # backends, and Mooncake's transfer engine (which SGLang's disaggregation loads).
        prefixes="SGLANG_TEST_ SGLANG_DSPARK_ SGLANG_HICACHE_ MOONCAKE_",
    ),
    EnvDeny(
        "the model would be fetched from another hub (ModelScope) than the one the operator vetted",
        names="SGLANG_USE_MODELSCOPE",
    ),
)


#: From this release SGLang copies every ``SGL_X`` variable over ``SGLANG_X`` when
#: ``sglang.srt.environ`` is imported, at every start (``_convert_SGL_to_SGLANG``, later
#: ``_handle_deprecated_envs``), so ``SGL_HOST_IP`` moves the rendezvous as
#: ``SGLANG_HOST_IP`` would. Earlier releases have no such copy (docs/research/env-aliases.md).
SGL_COPIED_SINCE: Version = parse_version("0.5.3")
SGL_ALIAS = EnvAlias(
    "SGL_",
    "SGLANG_",
    prefix=True,
    why="SGLang copies every SGL_* variable over SGLANG_* at start",
)


#: Every release read (0.5.2 to 0.5.23): the node's address is SGLANG_HOST_IP, else HOST_IP
#: (``srt/utils``: ``os.getenv("SGLANG_HOST_IP", "") or os.getenv("HOST_IP", "")``).
HOST_IP_ALIAS = EnvAlias(
    "HOST_IP",
    "SGLANG_HOST_IP",
    why="SGLang takes the node's address from HOST_IP where SGLANG_HOST_IP is unset",
)


def aliases(release: Version) -> tuple[EnvAlias, ...]:
    """The names ``release`` reads as others.

    Its deprecated ``SGLANG_X`` names read as newer ``SGLANG_Y`` ones (``SGLANG_NSA_FUSE_TOPK``
    as ``SGLANG_DSA_FUSE_TOPK``…) are not declared: none of their targets is refused, so
    each would be judged exactly as it is.
    """
    return (SGL_ALIAS, HOST_IP_ALIAS) if release >= SGL_COPIED_SINCE else (HOST_IP_ALIAS,)


def engine_policy(allowed: Collection[str], release: Version | None = None) -> EnginePolicy:
    """SGLang's policy for a site that allows the risky options ``allowed`` (its ``allow_args``).

    :param release: the release the node runs; None: every alias any release reads applies.
    """
    return EnginePolicy(
        env_aliases=aliases(release) if release is not None else (SGL_ALIAS, HOST_IP_ALIAS),
        open_env=OPEN_ENV,
        # The CPU binding is generated from the cores placement reserved.
        reserved_env=f"{WIRING} {THREADS_ENV}",
        secret_env=(KEY_ENV,),
        denied_env=DENIED,
        syntax=SYNTAX,
        arity=ARITY,
        managed_args=MANAGED,
        risky_args=RISKY,
        secret_args=SECRETS,
        allowed_args=allowed,
        display_name="SGLang",
    )
