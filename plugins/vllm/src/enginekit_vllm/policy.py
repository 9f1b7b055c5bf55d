"""What the vLLM engine declares to the core: the variables it owns and the flags it refuses outright."""

from __future__ import annotations

from enginekit.plugin import EnginePolicy, EnvDeny

from enginekit_vllm.argpolicy import ARITY, SYNTAX
from enginekit_vllm.config import VllmConfig
from enginekit_vllm.flags import MANAGED, RISKY, SECRETS
from enginekit_vllm.launch import API_KEY_VAR

#: vLLM's own tuning namespace, open to profiles (the names below excepted).
OPEN_ENV = ("VLLM_",)

#: Variables this plugin generates for the shard, or that vLLM reads for what placement
#: decides: no profile sets them and nothing a site writes opens them. OMP_NUM_THREADS is
#: generated too, on a CPU shard only; a GPU profile may tune it, and on a CPU shard the
#: generated value wins (the profile's is reported as dropped).
RESERVED_ENV = frozenset(
    """
    VLLM_HOST_IP RAY_ADDRESS VLLM_TARGET_DEVICE VLLM_CPU_OMP_THREADS_BIND VLLM_CPU_KVCACHE_SPACE
    VLLM_GPU_NIC_PCIE_MAPPING VLLM_PORT VLLM_LOOPBACK_IP
    VLLM_DP_MASTER_IP VLLM_DP_MASTER_PORT VLLM_DP_RANK VLLM_DP_RANK_LOCAL VLLM_DP_SIZE
    VLLM_NIXL_SIDE_CHANNEL_HOST VLLM_NIXL_SIDE_CHANNEL_PORT VLLM_P2P_SIDE_CHANNEL_HOST
    VLLM_P2P_SIDE_CHANNEL_PORT VLLM_EC_SIDE_CHANNEL_HOST VLLM_EC_SIDE_CHANNEL_PORT
    VLLM_MOONCAKE_BOOTSTRAP_PORT VLLM_ALL2ALL_BACKEND
    """.split()
)

#: The core's floor refuses RAY_ (Ray imports hooks and attaches to clusters named there)
#: to profiles and to plugins alike; this plugin sets the one it must, from the spec.
UNSAFE_ENV = {
    "RAY_ADDRESS": "the vLLM server of a Ray replica attaches to the Ray head this shard starts, "
    "at the shard's leader_addr and leader_port; left unset, Ray takes the cluster started last "
    "on the node, which may be another replica's",
}

#: The API key's variable: it comes from the shard spec only.
SECRET_ENV = frozenset({API_KEY_VAR})

#: The names vLLM (and Ray, its multi-node launcher) would misuse, each group with its reason.
DENIED_ENV: tuple[EnvDeny, ...] = (
    EnvDeny(
        "vLLM would load a library, run a program, import code or write files named by it",
        "VLLM_NCCL_SO_PATH VLLM_CUDART_SO_PATH VLLM_CUDA_COMPATIBILITY_PATH "
        "VLLM_ENABLE_CUDA_COMPATIBILITY VLLM_RUST_FRONTEND_PATH VLLM_USE_RUST_FRONTEND "
        "VLLM_USE_RUST_BENCH VLLM_LOGGING_CONFIG_PATH VLLM_LOGGING_STREAM VLLM_NIC_SELECTION_VARS "
        "VLLM_RAY_EXTRA_ENV_VAR_PREFIXES_TO_COPY VLLM_RAY_EXTRA_ENV_VARS_TO_COPY "
        "VLLM_ALLOW_INSECURE_SERIALIZATION VLLM_ALLOW_RUNTIME_LORA_UPDATING "
        "VLLM_LORA_RESOLVER_CACHE_DIR VLLM_LORA_RESOLVER_HF_REPO_LIST VLLM_SERVER_DEV_MODE "
        "VLLM_MODEL_REDIRECT_PATH VLLM_CACHE_ROOT VLLM_CONFIG_ROOT "
        "VLLM_ASSETS_CACHE VLLM_ASSETS_CACHE_MODEL_CLEAN VLLM_XLA_CACHE_PATH VLLM_RPC_BASE_PATH "
        "VLLM_MEDIA_CACHE VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR VLLM_TUNED_CONFIG_FOLDER "
        "VLLM_NCCL_INCLUDE_PATH VLLM_HUMMING_ONLINE_QUANT_CONFIG VLLM_HUMMING_INPUT_QUANT_CONFIG "
        "VLLM_DEBUG_DUMP_PATH VLLM_TORCH_PROFILER_DIR VLLM_TRACE_FUNCTION VLLM_USAGE_STATS_SERVER "
        "VLLM_DEBUG_LOG_API_SERVER_RESPONSE",
    ),
    EnvDeny(
        "the model would be fetched from another hub (ModelScope) than the one the operator vetted",
        "VLLM_USE_MODELSCOPE",
    ),
)


def engine_policy(config: VllmConfig) -> EnginePolicy:
    """The policy of a vLLM engine configured by ``config``: only ``allowed_args`` depends on it."""
    return EnginePolicy(
        open_env=OPEN_ENV,
        reserved_env=RESERVED_ENV,
        secret_env=SECRET_ENV,
        denied_env=DENIED_ENV,
        syntax=SYNTAX,
        arity=ARITY,
        managed_args=MANAGED,
        risky_args=RISKY,
        secret_args=SECRETS,
        allowed_args=config.allow_args,
        display_name="vLLM",
        unsafe_env=UNSAFE_ENV,
    )
