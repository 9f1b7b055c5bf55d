"""What the vLLM engine declares to the core: the variables it owns and the flags it refuses outright."""

from __future__ import annotations

from enginekit.plugin import EnginePolicy, EnvAlias, EnvDeny

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


#: Names vLLM reads as others (``vllm/envs.py`` and its helpers, read in the releases 0.6.0
#: to 0.34.0). Declared for every release: an alias only adds refusals, and each name here
#: is refused on its own in a release that does not read it. vLLM has no prefix copy.
ENV_ALIASES: tuple[EnvAlias, ...] = (
    # 0.34.0: utils/deep_gemm.py runs the nvcc named by DG_JIT_NVCC_COMPILER, else by this.
    EnvAlias(
        "DJ_JIT_NVCC_COMPILER",
        "DG_JIT_NVCC_COMPILER",
        why="vLLM's DeepGEMM helper runs the compiler it names when DG_JIT_NVCC_COMPILER is unset",
    ),
    # Every release: envs.py reads it where VLLM_DO_NOT_TRACK is unset.
    EnvAlias("DO_NOT_TRACK", "VLLM_DO_NOT_TRACK", why="vLLM reads it where VLLM_DO_NOT_TRACK is unset"),
    # 0.10.1 on: VLLM_TPU_USING_PATHWAYS is decided from it, and never read by its own name.
    EnvAlias("JAX_PLATFORMS", "VLLM_TPU_USING_PATHWAYS", why="vLLM decides VLLM_TPU_USING_PATHWAYS from it"),
    # 0.8.0 to 0.9.2: the HPU settings were read under these names, not their documented ones.
    EnvAlias(
        "VLLM_CONTIGUOUS_PA",
        "VLLM_USE_HPU_CONTIGUOUS_CACHE_FETCH",
        why="vLLM 0.8 and 0.9 read it in place of VLLM_USE_HPU_CONTIGUOUS_CACHE_FETCH",
    ),
    EnvAlias(
        "VLLM_DELAYED_SAMPLING",
        "VLLM_HPU_USE_DELAYED_SAMPLING",
        why="vLLM 0.8.5 to 0.9.2 read it in place of VLLM_HPU_USE_DELAYED_SAMPLING",
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
        env_aliases=ENV_ALIASES,
    )
