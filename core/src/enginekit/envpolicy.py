"""The environment safety policy: which profile variables may reach an engine, and why not.

Engines start as root on the node. A profile's ``env`` comes from the control plane, so
every key and value is judged here, when the profile is validated and again when the
commands are built, against the deny list as it is at that moment. Layers, in order:
strict syntax, reserved keys, the deny list, the open namespaces, a suffix heuristic for
names that point at files or code, then value rules. See ``reference/security.md``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping

import attrs

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_KEY_LENGTH = 256
MAX_VALUE_LENGTH = 4096

#: Set only from the shard spec or by the library: overriding them breaks isolation
#: (wrong GPUs, wrong NIC, wrong rendezvous) or leaks a key, rather than tuning.
RESERVED: frozenset[str] = frozenset(
    """
    CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES
    HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES GGML_VK_VISIBLE_DEVICES NCCL_SOCKET_IFNAME NCCL_IB_HCA
    NCCL_OOB_NET_IFNAME GLOO_SOCKET_IFNAME NCCL_IB_GID_INDEX UCX_NET_DEVICES
    VLLM_GPU_NIC_PCIE_MAPPING MASTER_ADDR MASTER_PORT RANK WORLD_SIZE LOCAL_RANK
    LOCAL_WORLD_SIZE VLLM_HOST_IP VLLM_PORT VLLM_LOOPBACK_IP VLLM_DP_MASTER_IP
    VLLM_DP_MASTER_PORT VLLM_DP_RANK VLLM_DP_RANK_LOCAL VLLM_DP_SIZE
    VLLM_NIXL_SIDE_CHANNEL_HOST VLLM_NIXL_SIDE_CHANNEL_PORT VLLM_P2P_SIDE_CHANNEL_HOST
    VLLM_P2P_SIDE_CHANNEL_PORT VLLM_EC_SIDE_CHANNEL_HOST VLLM_EC_SIDE_CHANNEL_PORT
    VLLM_MOONCAKE_BOOTSTRAP_PORT SGLANG_PORT SGLANG_TCP_STORE_PORT SGLANG_GRPC_PORT
    SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE VLLM_API_KEY LLAMA_API_KEY OPENAI_API_KEY PATH
    HOME USER LOGNAME SHELL TMPDIR XDG_CACHE_HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR
    """.split()
)
#: Everything under these belongs to enginekit itself (its launchers' secret channels).
RESERVED_PREFIXES: tuple[str, ...] = ("ENGINEKIT_",)


@attrs.frozen
class _Group:
    why: str
    exact: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()


def _group(why: str, exact: str = "", prefixes: str = "") -> _Group:
    return _Group(why, frozenset(exact.split()), tuple(prefixes.split()))


#: The deny list, by what a profile author would gain. Compared case-insensitively.
DENY_GROUPS: tuple[_Group, ...] = (
    _group(
        "the dynamic loader or libc would load code or data from it",
        "LIBPATH SHLIB_PATH GLIBC_TUNABLES GCONV_PATH GETCONF_DIR LOCPATH NLSPATH PATH_LOCALE "
        "TZDIR HOSTALIASES LOCALDOMAIN RES_OPTIONS RESOLV_HOST_CONF NIS_PATH TZ",
        "LD_ _RLD DYLD_ LDR_ MALLOC_",
    ),
    _group(
        "a shell or another interpreter would run code from it",
        "BASH_ENV ENV SHELLOPTS BASHOPTS PS4 IFS CDPATH GLOBIGNORE PROMPT_COMMAND FPATH ZDOTDIR "
        "NULLCMD READNULLCMD TMPPREFIX NODE_OPTIONS NODE_PATH JAVA_TOOL_OPTIONS _JAVA_OPTIONS "
        "JDK_JAVA_OPTIONS CLASSPATH BROWSER EDITOR VISUAL PAGER TERMPATH TERMCAP",
        "BASH_FUNC_ __BASH_FUNC PERL RUBY GIT_ TERMINFO KRB5",
    ),
    _group("the Python interpreter would import or run code from it", prefixes="PYTHON"),
    _group(
        "CUDA or its compilers would load a library or run a program named by it",
        "CUDA_INJECTION64_PATH CUDA_INJECTION32_PATH NVTX_INJECTION64_PATH NVTX_INJECTION32_PATH "
        "CUDA_HOME CUDA_PATH CUDA_ROOT CUDACXX NVCC_CCBIN NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS "
        "CUDA_CACHE_PATH CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY",
    ),
    _group(
        "NCCL would load a plugin, read a config file, write a file or rendezvous elsewhere",
        "NCCL_NET_PLUGIN NCCL_TUNER_PLUGIN NCCL_PROFILER_PLUGIN NCCL_ENV_PLUGIN NCCL_GIN_PLUGIN "
        "NCCL_RMA_PLUGIN NCCL_IBVERBS_LIB NCCL_CONF_FILE NCCL_DEBUG_FILE NCCL_TOPO_FILE "
        "NCCL_TOPO_DUMP_FILE NCCL_GRAPH_FILE NCCL_GRAPH_DUMP_FILE NCCL_COMM_ID NCCL_RAS_ADDR "
        "UCX_MODULE_DIR NVSHMEM_BOOTSTRAP_PLUGIN NIXL_PLUGIN_DIR",
    ),
    _group(
        "MPI would take any MCA parameter from it, including the command that starts daemons",
        prefixes="OMPI_MCA_ PRTE_MCA_ PMIX_MCA_ OMPI_",
    ),
    _group(
        "PyTorch, Triton or a JIT compiler would load code or kernels chosen by it",
        "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD TORCHINDUCTOR_CACHE_DIR TORCH_EXTENSIONS_DIR TORCH_HOME "
        "PYTORCH_KERNEL_CACHE_PATH TORCH_COMPILE_DEBUG_DIR PTXAS_OPTIONS CC CXX CFLAGS CXXFLAGS "
        "CPPFLAGS LDFLAGS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH COMPILER_PATH "
        "GCC_EXEC_PREFIX DG_JIT_NVCC_COMPILER DG_JIT_CACHE_DIR",
        "TRITON_",
    ),
    _group(
        "the model hub client would fetch or import from a place chosen by it",
        "HF_ENDPOINT HF_HOME HF_HUB_CACHE HUGGINGFACE_HUB_CACHE TRANSFORMERS_CACHE HF_MODULES_CACHE "
        "TRUST_REMOTE_CODE HF_TRUST_REMOTE_CODE HF_DATASETS_TRUST_REMOTE_CODE MLX_LM_TRUST_REMOTE_CODE",
    ),
    _group(
        "it is a credential: credentials reach engines through the secret channel only",
        "HF_TOKEN HUGGING_FACE_HUB_TOKEN HF_TOKEN_PATH S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY "
        "S3_ENDPOINT_URL EXA_API_KEY AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN",
    ),
    _group(
        "traffic would go through a proxy or trust store chosen by it",
        "HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE "
        "CURL_CA_BUNDLE OPENSSL_CONF OPENSSL_CONF_INCLUDE OPENSSL_ENGINES OPENSSL_MODULES NETRC",
    ),
    _group("Ray would import a hook or attach to another cluster named by it", prefixes="RAY_"),
    _group(
        "vLLM would load a library, run a program, import code or write files named by it",
        "VLLM_NCCL_SO_PATH VLLM_CUDART_SO_PATH VLLM_CUDA_COMPATIBILITY_PATH "
        "VLLM_ENABLE_CUDA_COMPATIBILITY VLLM_RUST_FRONTEND_PATH VLLM_USE_RUST_FRONTEND "
        "VLLM_USE_RUST_BENCH VLLM_LOGGING_CONFIG_PATH VLLM_LOGGING_STREAM VLLM_NIC_SELECTION_VARS "
        "VLLM_RAY_EXTRA_ENV_VAR_PREFIXES_TO_COPY VLLM_RAY_EXTRA_ENV_VARS_TO_COPY "
        "VLLM_ALLOW_INSECURE_SERIALIZATION VLLM_ALLOW_RUNTIME_LORA_UPDATING "
        "VLLM_LORA_RESOLVER_CACHE_DIR VLLM_LORA_RESOLVER_HF_REPO_LIST VLLM_SERVER_DEV_MODE "
        "VLLM_MODEL_REDIRECT_PATH VLLM_USE_MODELSCOPE VLLM_CACHE_ROOT VLLM_CONFIG_ROOT "
        "VLLM_ASSETS_CACHE VLLM_ASSETS_CACHE_MODEL_CLEAN VLLM_XLA_CACHE_PATH VLLM_RPC_BASE_PATH "
        "VLLM_MEDIA_CACHE VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR VLLM_TUNED_CONFIG_FOLDER "
        "VLLM_NCCL_INCLUDE_PATH VLLM_HUMMING_ONLINE_QUANT_CONFIG VLLM_HUMMING_INPUT_QUANT_CONFIG "
        "VLLM_DEBUG_DUMP_PATH VLLM_TORCH_PROFILER_DIR VLLM_TRACE_FUNCTION VLLM_USAGE_STATS_SERVER "
        "VLLM_DEBUG_LOG_API_SERVER_RESPONSE",
    ),
    _group(
        "SGLang would import a package, load cached objects or write files named by it",
        "SGLANG_EXTERNAL_MODEL_PACKAGE SGLANG_EXTERNAL_MM_MODEL_ARCH "
        "SGLANG_EXTERNAL_MM_PROCESSOR_PACKAGE SGLANG_PLUGINS SGLANG_PLATFORM "
        "SGLANG_CUTE_AOT_CACHE_DIR SGLANG_CACHE_DIR SGLANG_DG_CACHE_DIR SGLANG_JIT_CACHE_DIR "
        "SGLANG_EXPOSE_OWN_ENV_VARS SGLANG_ENABLE_REQUEST_HEADER_OVERRIDES "
        "SGLANG_LOG_REQUEST_HEADERS SGLANG_TORCH_PROFILER_DIR "
        "SGLANG_EXPERT_DISTRIBUTION_RECORDER_DIR SGLANG_CUDA_COREDUMP_DIR "
        "SGLANG_ROLE_NAMESPACES_OUT SGLANG_TEST_METRICS_FILE SGLANG_WEIGHT_CACHE_SOCKET_TEMPLATE "
        "SGLANG_WEIGHT_CACHE_READY_TEMPLATE SGLANG_RUST_BUILD_MODE",
        "SGLANG_TEST_ SGLANG_DSPARK_ SGLANG_HICACHE_ MOONCAKE_",
    ),
    _group(
        "TensorRT-LLM would run the model through the proxy or disaggregated instance it names "
        "instead of its own workers",
        prefixes="TLLM_SPAWN_PROXY_PROCESS TLLM_DISAGG_",
    ),
    _group(
        "llama-server reads every flag from its LLAMA_ARG_ twin, bypassing the argument checks",
        prefixes="LLAMA_ARG_",
    ),
)

#: The Python variables that change nothing about what code runs.
PYTHON_ALLOWED: frozenset[str] = frozenset(
    """
    PYTHONUNBUFFERED PYTHONHASHSEED PYTHONFAULTHANDLER PYTHONIOENCODING PYTHONUTF8
    PYTHONDONTWRITEBYTECODE PYTHONNOUSERSITE PYTHONSAFEPATH
    """.split()
)

#: The namespaces open to profiles by default; anything else is refused as unknown.
OPEN_NAMESPACES: tuple[str, ...] = (
    "VLLM_",
    "SGLANG_",
    "SGL_",
    "NCCL_",
    "TORCH_NCCL_",
    "TORCH_DISTRIBUTED_DEBUG",
    "PYTORCH_CUDA_ALLOC_CONF",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_MODULE_LOADING",
    "OMP_",
    "MKL_",
    "KMP_",
    "TOKENIZERS_PARALLELISM",
    "HF_HUB_OFFLINE",
    "HF_HUB_ENABLE_HF_TRANSFER",
    "HF_HUB_DISABLE_",
    "GGML_",
    "TLLM_",
    "TRTLLM_",
)

#: Unknown names ending like this point at a file, a directory, a module or a program.
RISKY_SUFFIXES: tuple[str, ...] = (
    "_PATH",
    "_DIR",
    "_FILE",
    "_HOME",
    "_ROOT",
    "_LIB",
    "_SO_PATH",
    "_PLUGIN",
    "_PLUGINS",
    "_MODULE",
    "_PACKAGE",
    "_CLASS",
    "_HOOK",
    "_COMMAND",
    "_CMD",
    "_EXECUTABLE",
    "_COMPILER",
    "_CONF",
    "_CONFIG_PATH",
    "_TEMPLATE",
)


def _name_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(name.upper() for name in names)


def _name_tuple(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(name.upper() for name in names)


_DENY_EXACT = {name: group.why for group in DENY_GROUPS for name in group.exact}
_DENY_PREFIXES = tuple((prefix, group.why) for group in DENY_GROUPS for prefix in group.prefixes)


@attrs.frozen
class EnvPolicy:
    """A site's env policy: the built-in rules plus the node config's additions.

    ``deny``/``deny_prefixes`` add entries; ``allow`` names variables the site accepts
    despite the deny list, the namespaces and the suffix heuristic (never a reserved
    key); ``allow_prefixes`` opens more namespaces; ``path_keys`` may hold ``/`` and ``%``.
    """

    deny: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    deny_prefixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    allow: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    allow_prefixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    path_keys: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)

    def unsafe_env(self, key: str) -> tuple[bool, str]:
        """Judge a variable name: ``(True, why)`` when a profile may not set it."""
        return _verdict(self, key)

    def _judge(self, key: str) -> tuple[bool, str]:
        if not key:
            return True, "empty name"
        if len(key) > MAX_KEY_LENGTH:
            return True, f"name longer than {MAX_KEY_LENGTH} characters"
        if not key.isascii() or not _KEY.match(key):
            return True, "not a portable name (letters, digits and _ only, not starting with a digit)"
        upper = key.upper()
        if upper in RESERVED or upper.startswith(RESERVED_PREFIXES):
            return True, "reserved: derived from the shard spec"
        if upper in self.deny or upper.startswith(self.deny_prefixes):
            return True, "denied by this site's policy"
        if upper in self.allow or upper in PYTHON_ALLOWED:
            return False, ""
        if upper in _DENY_EXACT:
            return True, f"denied: {_DENY_EXACT[upper]}"
        for prefix, why in _DENY_PREFIXES:
            if upper.startswith(prefix):
                return True, f"denied: {why}"
        if not upper.startswith(OPEN_NAMESPACES + self.allow_prefixes):
            return True, "unknown: not in a namespace this site opens to profiles"
        if upper.endswith(RISKY_SUFFIXES):
            return True, "denied: its name says it points at a file, directory, module or program"
        return False, ""

    def unsafe_value(self, key: str, value: object) -> tuple[bool, str]:
        """Judge a value: ``(True, why)`` when it may not be given to a process."""
        if not isinstance(value, str):
            return True, f"value must be a string, got {type(value).__name__}"
        if "\x00" in value:
            return True, "value contains a NUL byte"
        if _CONTROL.search(value):
            return True, "value contains control characters"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True, "value is not valid UTF-8"
        if value.startswith("() "):
            return True, "value looks like an exported shell function"
        if len(value.encode("utf-8")) > MAX_VALUE_LENGTH:
            return True, f"value longer than {MAX_VALUE_LENGTH} bytes"
        if ("/" in value or "%" in value) and key.upper() not in self.path_keys:
            return True, "value contains '/' or '%' and the site has not marked this key as a path"
        return False, ""

    def problems(self, env: Mapping[str, object]) -> list[tuple[str, str]]:
        """Every ``(key, why)`` in ``env`` that this policy refuses, in key order."""
        found = []
        for key in sorted(env, key=str):
            bad, why = self.unsafe_env(key) if isinstance(key, str) else (True, "name not a string")
            if not bad:
                bad, why = self.unsafe_value(key, env[key])
            if bad:
                found.append((key, why))
        return found


DEFAULT_POLICY = EnvPolicy()


def unsafe_env(key: str, policy: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    """Judge a variable name under ``policy`` (the built-in one by default)."""
    return policy.unsafe_env(key)


@functools.lru_cache(maxsize=4096)
def _verdict(policy: EnvPolicy, key: str) -> tuple[bool, str]:
    # Pure and asked for the same few names over and over: judged once per policy.
    return policy._judge(key)
