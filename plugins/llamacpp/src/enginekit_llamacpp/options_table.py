"""llama-server's options per release, written by tools/optiontables/llamacpp.py from each release's own parser: do not edit."""

TABLE = r'''{
 "format": 1,
 "engine": "llamacpp",
 "program": "llama-server",
 "generator": "tools/optiontables/llamacpp.py",
 "releases": [
  {
   "release": "8942",
   "source": "llama_cpp_python-0.3.21.tar.gz (llama-cpp-python 0.3.21 sdist, PyPI, sha256 533636e23953d1efcf16ddf5862d963405e4bc0bccfc04ba90e9ee7afefefa75): vendor/llama.cpp at commit f53577432541bb9edc1588c4ef45c66bf07e4468 (tag b8942), built; llama-server --help of that build"
  },
  {
   "release": "9445",
   "source": "llama_cpp_python-0.3.24.tar.gz (llama-cpp-python 0.3.24 sdist, PyPI, sha256 f610476c5c737366859dad2315ed7948b1580202f5d139bd0b3437718d6d7092): vendor/llama.cpp at commit af6528e6df5d798f7f1363ec1141699be0f638e2 (tag b9445), built; llama-server --help of that build"
  },
  {
   "release": "9976",
   "source": "llama_cpp_python-0.3.34.tar.gz (llama-cpp-python 0.3.34 sdist, PyPI, sha256 d849d286d808284f1d3ec1bd6875572430d29d1f9574a010232caa4e9cef0e35): vendor/llama.cpp at commit e3546c7948e3af463d0b401e6421d5a4c2faf565 (tag b9976), built; llama-server --help of that build"
  },
  {
   "release": "10454",
   "source": "llama_cpp_python-0.3.35.tar.gz (llama-cpp-python 0.3.35 sdist, PyPI, sha256 1139dbb54509074b70893fab8554e3b079aa9f4d312058ce4018ef0019e3de12): vendor/llama.cpp at commit 4df29be4f4c3673f428170fda944a5b19f743bb8 (tag b10454), built; llama-server --help of that build"
  },
  {
   "release": "11312",
   "source": "llama_cpp_python-0.3.36.tar.gz (llama-cpp-python 0.3.36 sdist, PyPI, sha256 832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e): vendor/llama.cpp at commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f (tag b11312), built; llama-server --help of that build"
  }
 ],
 "options": {
  "--adaptive-decay": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--adaptive-target": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--agent": {
   "takes": 0,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--alias": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--api-key": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--api-key-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--api-prefix": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--backend-sampling": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--batch-size": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-idle-slots": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-list": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-prompt": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-ram": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-reuse": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-type-k": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-type-v": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--chat-template": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--chat-template-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--chat-template-kwargs": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--check-tensors": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--checkpoint-every-n-tokens": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--checkpoint-min-step": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--completion-bash": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cont-batching": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--context-shift": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--control-vector": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--control-vector-layer-range": {
   "takes": 2,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--control-vector-scaled": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cors-credentials": {
   "takes": 0,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--cors-headers": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--cors-methods": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--cors-origins": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--cpu-mask": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-mask-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-mask-batch-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--cpu-mask-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--cpu-moe": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-range": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-range-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-range-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--cpu-strict": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-strict-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-strict-batch-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--cpu-strict-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--ctx-checkpoints": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ctx-size": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ctx-size-draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--defrag-thold": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--device": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--direct-io": {
   "takes": 0,
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "--docker-repo": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--draft-min": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--dry-allowed-length": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dry-base": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dry-multiplier": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dry-penalty-last-n": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dry-sequence-breaker": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dynatemp-exp": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--dynatemp-range": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--embd-gemma-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--embd-normalize": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--embedding": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--escape": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-1.5b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-14b-spec": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-30b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-3b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-7b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fim-qwen-7b-spec": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fit": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fit-ctx": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--fit-target": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--flash-attn": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--frequency-penalty": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--gpt-oss-120b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--gpt-oss-20b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--grammar": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--grammar-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--help": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--hf-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--hf-file-v": {
   "takes": 1,
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "--hf-repo": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--hf-repo-draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--hf-repo-v": {
   "takes": 1,
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "--hf-token": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--host": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ignore-eos": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--image-max-tokens": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--image-min-tokens": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--jinja": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--json-schema": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--json-schema-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--keep": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--kv-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--kv-unified": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--kv-unified-per-slot": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--lazy-mode": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--license": {
   "takes": 0,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--list-devices": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--load-mode": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--log-colors": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-disable": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-jsonl": {
   "takes": 0,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--log-prefix": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-prompts-dir": {
   "takes": 1,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--log-timestamps": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--logit-bias": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--lookup-cache-dynamic": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--lookup-cache-static": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--lora": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--lora-init-without-apply": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--lora-scaled": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--main-gpu": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mcp-servers-config": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--mcp-servers-json": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--media-path": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--metrics": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--min-p": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mirostat": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mirostat-ent": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mirostat-lr": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mlock": {
   "takes": 0,
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "--mmap": {
   "takes": 0,
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "--mmproj": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mmproj-auto": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mmproj-device": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--mmproj-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mmproj-url": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--model": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--model-draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--model-url": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--model-vocoder": {
   "takes": 1,
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "--models-autoload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--models-dir": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--models-max": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--models-preset": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--mtmd-batch-max-tokens": {
   "takes": 1,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--n-cpu-ffn": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--n-cpu-moe": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--n-gpu-layers": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-agent": {
   "takes": 0,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--no-cache-idle-slots": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-cache-prompt": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-cont-batching": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-context-shift": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-cors-credentials": {
   "takes": 0,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--no-direct-io": {
   "takes": 0,
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "--no-escape": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-host": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-jinja": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-kv-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-kv-unified": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-log-jsonl": {
   "takes": 0,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--no-log-prefix": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--no-log-timestamps": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--no-mmap": {
   "takes": 0,
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "--no-mmproj": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-mmproj-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-models-autoload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-op-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-perf": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-prefill-assistant": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-reasoning-preserve": {
   "takes": 0,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--no-repack": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-skip-chat-parsing": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-slots": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-spec-draft-backend-sampling": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--no-ui": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--no-ui-mcp-proxy": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--no-warmup": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--numa": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--offline": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--op-offload": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--override-kv": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--override-tensor": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--parallel": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--path": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--perf": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--poll": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--poll-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--pooling": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--port": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--predict": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--prefill-assistant": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--presence-penalty": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--prio": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--prio-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--prio-batch-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--prio-draft": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--props": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reasoning": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reasoning-budget": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reasoning-budget-message": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reasoning-effort": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--reasoning-format": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reasoning-preserve": {
   "takes": 0,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--repack": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--repeat-last-n": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--repeat-penalty": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rerank": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reuse-port": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--reverse-prompt": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rope-freq-base": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rope-freq-scale": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rope-scale": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rope-scaling": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--rpc": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--sampler-seq": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--samplers": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--seed": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--skip-chat-parsing": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--sleep-idle-seconds": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--slot-prompt-similarity": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--slot-save-path": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--slots": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--spec-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--spec-draft-backend-sampling": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-moe": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-device": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-n-cpu-moe": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-n-max": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-n-min": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-ngl": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-override-tensor": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-p-min": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-p-split": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-poll": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-poll-batch": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-type-k": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-type-v": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k-min-hits": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k-size-m": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k-size-n": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k4v-min-hits": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k4v-size-m": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-map-k4v-size-n": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-min-hits": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--spec-ngram-mod-n-match": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-mod-n-max": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-mod-n-min": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-simple-min-hits": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-simple-size-m": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-simple-size-n": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-ngram-size-m": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--spec-ngram-size-n": {
   "takes": 1,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--spec-replace": {
   "takes": 2,
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--spec-synth-len": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--spec-synth-rates": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--spec-type": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--special": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--split-mode": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--spm-infill": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--sse-ping-interval": {
   "takes": 1,
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "--ssl-cert-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ssl-key-file": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--swa-full": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--tags": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--temp": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--tensor-split": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--threads": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--threads-batch": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--threads-batch-draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--threads-draft": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--threads-http": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--timeout": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--tools": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--tools-runtime": {
   "takes": 1,
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "--top-k": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--top-nsigma": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--top-p": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--tts-use-guide-tokens": {
   "takes": 0,
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "--typical": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ubatch-size": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--ui": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--ui-config": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--ui-config-file": {
   "takes": 1,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--ui-mcp-proxy": {
   "takes": 0,
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--verbose": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--verbosity": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--version": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--video-ffmpeg-dir": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--video-fps": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--video-timestamp-interval": {
   "takes": 1,
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "--vision-gemma-12b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--vision-gemma-4b-default": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--warmup": {
   "takes": 0,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--xtc-probability": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--xtc-threshold": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--yarn-attn-factor": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--yarn-beta-fast": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--yarn-beta-slow": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--yarn-ext-factor": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--yarn-orig-ctx": {
   "takes": 1,
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  }
 },
 "aliases": {
  "--cache-type-k-draft": {
   "option": "--spec-draft-type-k",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cache-type-v-draft": {
   "option": "--spec-draft-type-v",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--cpu-moe-draft": {
   "option": "--spec-draft-cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--device-draft": {
   "option": "--spec-draft-device",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--draft-max": {
   "option": "--draft",
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--draft-n": {
   "option": "--draft",
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--draft-n-min": {
   "option": "--draft-min",
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "--draft-p-min": {
   "option": "--spec-draft-p-min",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--draft-p-split": {
   "option": "--spec-draft-p-split",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--embeddings": {
   "option": "--embedding",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--gpu-layers": {
   "option": "--n-gpu-layers",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--gpu-layers-draft": {
   "option": "--spec-draft-ngl",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-verbose": {
   "option": "--verbose",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--log-verbosity": {
   "option": "--verbosity",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--n-cpu-moe-draft": {
   "option": "--spec-draft-n-cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--n-gpu-layers-draft": {
   "option": "--spec-draft-ngl",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--n-predict": {
   "option": "--predict",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-mmproj-auto": {
   "option": "--no-mmproj",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-webui": {
   "option": "--no-ui",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--no-webui-mcp-proxy": {
   "option": "--no-ui-mcp-proxy",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--override-tensor-draft": {
   "option": "--spec-draft-override-tensor",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--poll-batch-draft": {
   "option": "--spec-draft-poll-batch",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--poll-draft": {
   "option": "--spec-draft-poll",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--reranking": {
   "option": "--rerank",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--sampling-seq": {
   "option": "--sampler-seq",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-mask": {
   "option": "--cpu-mask-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-mask-batch": {
   "option": "--cpu-mask-batch-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-range": {
   "option": "--cpu-range-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-strict": {
   "option": "--cpu-strict-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-cpu-strict-batch": {
   "option": "--cpu-strict-batch-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-hf": {
   "option": "--hf-repo-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-model": {
   "option": "--model-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-ncmoe": {
   "option": "--spec-draft-n-cpu-moe",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-prio": {
   "option": "--prio-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-prio-batch": {
   "option": "--prio-batch-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-threads": {
   "option": "--threads-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--spec-draft-threads-batch": {
   "option": "--threads-batch-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "--swa-checkpoints": {
   "option": "--ctx-checkpoints",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--temperature": {
   "option": "--temp",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--top-n-sigma": {
   "option": "--top-nsigma",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--typical-p": {
   "option": "--typical",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--usage": {
   "option": "--help",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--webui": {
   "option": "--ui",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--webui-config": {
   "option": "--ui-config",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--webui-config-file": {
   "option": "--ui-config-file",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "--webui-mcp-proxy": {
   "option": "--ui-mcp-proxy",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-C": {
   "option": "--cpu-mask",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-Cb": {
   "option": "--cpu-mask-batch",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-Cbd": {
   "option": "--cpu-mask-batch-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "-Cd": {
   "option": "--cpu-mask-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "-Cr": {
   "option": "--cpu-range",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-Crb": {
   "option": "--cpu-range-batch",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-Crd": {
   "option": "--cpu-range-draft",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "-a": {
   "option": "--alias",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ag": {
   "option": "--agent",
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "-b": {
   "option": "--batch-size",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-bs": {
   "option": "--backend-sampling",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-c": {
   "option": "--ctx-size",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-cb": {
   "option": "--cont-batching",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-cd": {
   "option": "--ctx-size-draft",
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "-cl": {
   "option": "--cache-list",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-cmoe": {
   "option": "--cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-cmoed": {
   "option": "--spec-draft-cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-cms": {
   "option": "--checkpoint-min-step",
   "in": [
    [
     "9445",
     "11312"
    ]
   ]
  },
  "-cpent": {
   "option": "--checkpoint-every-n-tokens",
   "in": [
    [
     "8942",
     "8942"
    ]
   ]
  },
  "-cram": {
   "option": "--cache-ram",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ctk": {
   "option": "--cache-type-k",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ctkd": {
   "option": "--spec-draft-type-k",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ctv": {
   "option": "--cache-type-v",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ctvd": {
   "option": "--spec-draft-type-v",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ctxcp": {
   "option": "--ctx-checkpoints",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-dev": {
   "option": "--device",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-devd": {
   "option": "--spec-draft-device",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-dio": {
   "option": "--direct-io",
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "-dr": {
   "option": "--docker-repo",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-dt": {
   "option": "--defrag-thold",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-e": {
   "option": "--escape",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-fa": {
   "option": "--flash-attn",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-fit": {
   "option": "--fit",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-fitc": {
   "option": "--fit-ctx",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-fitt": {
   "option": "--fit-target",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-h": {
   "option": "--help",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hf": {
   "option": "--hf-repo",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hfd": {
   "option": "--hf-repo-draft",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hff": {
   "option": "--hf-file",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hffv": {
   "option": "--hf-file-v",
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "-hfr": {
   "option": "--hf-repo",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hfrd": {
   "option": "--hf-repo-draft",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hfrv": {
   "option": "--hf-repo-v",
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "-hft": {
   "option": "--hf-token",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-hfv": {
   "option": "--hf-repo-v",
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "-j": {
   "option": "--json-schema",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-jf": {
   "option": "--json-schema-file",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-kvo": {
   "option": "--kv-offload",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-kvu": {
   "option": "--kv-unified",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-l": {
   "option": "--logit-bias",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-lcd": {
   "option": "--lookup-cache-dynamic",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-lcs": {
   "option": "--lookup-cache-static",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-lm": {
   "option": "--load-mode",
   "in": [
    [
     "10454",
     "11312"
    ]
   ]
  },
  "-lv": {
   "option": "--verbosity",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-lzm": {
   "option": "--lazy-mode",
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "-m": {
   "option": "--model",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-md": {
   "option": "--model-draft",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-mg": {
   "option": "--main-gpu",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-mm": {
   "option": "--mmproj",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-mmdev": {
   "option": "--mmproj-device",
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "-mmu": {
   "option": "--mmproj-url",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-mu": {
   "option": "--model-url",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-mv": {
   "option": "--model-vocoder",
   "in": [
    [
     "8942",
     "9976"
    ]
   ]
  },
  "-n": {
   "option": "--predict",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ncffn": {
   "option": "--n-cpu-ffn",
   "in": [
    [
     "11312",
     "11312"
    ]
   ]
  },
  "-ncmoe": {
   "option": "--n-cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ncmoed": {
   "option": "--spec-draft-n-cpu-moe",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ndio": {
   "option": "--no-direct-io",
   "in": [
    [
     "8942",
     "10454"
    ]
   ]
  },
  "-ngl": {
   "option": "--n-gpu-layers",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ngld": {
   "option": "--spec-draft-ngl",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-nkvo": {
   "option": "--no-kv-offload",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-no-ag": {
   "option": "--no-agent",
   "in": [
    [
     "9976",
     "11312"
    ]
   ]
  },
  "-no-kvu": {
   "option": "--no-kv-unified",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-nocb": {
   "option": "--no-cont-batching",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-np": {
   "option": "--parallel",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-nr": {
   "option": "--no-repack",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ot": {
   "option": "--override-tensor",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-otd": {
   "option": "--spec-draft-override-tensor",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-r": {
   "option": "--reverse-prompt",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-rea": {
   "option": "--reasoning",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-s": {
   "option": "--seed",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-sm": {
   "option": "--split-mode",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-sp": {
   "option": "--special",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-sps": {
   "option": "--slot-prompt-similarity",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-t": {
   "option": "--threads",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-tb": {
   "option": "--threads-batch",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-tbd": {
   "option": "--threads-batch-draft",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-td": {
   "option": "--threads-draft",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-to": {
   "option": "--timeout",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ts": {
   "option": "--tensor-split",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-ub": {
   "option": "--ubatch-size",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  },
  "-v": {
   "option": "--verbose",
   "in": [
    [
     "8942",
     "11312"
    ]
   ]
  }
 },
 "renames": {
  "--direct-io": {
   "to": "--load-mode",
   "since": "11312"
  },
  "--draft": {
   "to": "--spec-draft-n-max",
   "since": "9445"
  },
  "--draft-min": {
   "to": "--spec-draft-n-min",
   "since": "9445"
  },
  "--mlock": {
   "to": "--load-mode",
   "since": "11312"
  },
  "--mmap": {
   "to": "--load-mode",
   "since": "11312"
  },
  "--no-direct-io": {
   "to": "--load-mode",
   "since": "11312"
  },
  "--no-mmap": {
   "to": "--load-mode",
   "since": "11312"
  }
 }
}'''
