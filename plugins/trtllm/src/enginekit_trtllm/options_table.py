"""trtllm-serve serve's options per release, written by tools/optiontables/trtllm.py from each release's own parser: do not edit."""

TABLE = r'''{
 "format": 1,
 "engine": "trtllm",
 "program": "trtllm-serve serve",
 "generator": "tools/optiontables/trtllm.py",
 "releases": [
  {
   "release": "1.0.0",
   "source": "TensorRT-LLM 1.0.0 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.0.0/commands/trtllm-serve/trtllm-serve.html, docs branch commit 090dc64986babe6445f97234e18db6e35d50af55, generated from source commit ae8270b by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 70629df86667a090ec26cfc9db1e02fc2c15a5a0892815687ec7808306976930"
  },
  {
   "release": "1.1.0",
   "source": "TensorRT-LLM 1.1.0 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.1.0/commands/trtllm-serve/trtllm-serve.html, docs branch commit 8660c119a1f9be58cb574b8895f60bdb2e2c40ec, generated from source commit 48b7b5d by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 70629df86667a090ec26cfc9db1e02fc2c15a5a0892815687ec7808306976930"
  },
  {
   "release": "1.2.0",
   "source": "TensorRT-LLM 1.2.0 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.2.0/commands/trtllm-serve/trtllm-serve.html, docs branch commit 7e873e54c296912df55b4c961e67079963ae4d34, generated from source commit dbdb13b by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 44c463590f0138d63c78ff84b231dcf25fdac8da5ae0ef0bbd59703938531bfc"
  },
  {
   "release": "1.2.1",
   "source": "TensorRT-LLM 1.2.1 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.2.1/commands/trtllm-serve/trtllm-serve.html, docs branch commit 58fb435eacc402f3bd177e60f592c955d2b0719d, generated from source commit 376f7e1 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 44c463590f0138d63c78ff84b231dcf25fdac8da5ae0ef0bbd59703938531bfc"
  },
  {
   "release": "1.3.0rc6",
   "source": "TensorRT-LLM 1.3.0rc6 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc6/commands/trtllm-serve/trtllm-serve.html, docs branch commit 8a61efde10f96d3aedba8ff02ed8dffefd3aa809, generated from source commit 617440d by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 4f158b795001453dc0cfce6e5a5af9340e7a7ce1e7a6ac2957a1e797595c9e8a"
  },
  {
   "release": "1.3.0rc7",
   "source": "TensorRT-LLM 1.3.0rc7 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc7/commands/trtllm-serve/trtllm-serve.html, docs branch commit c95d0792f1c7e31e092f8155cec29b24c96e969c, generated from source commit 69de4a6 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 99872e8ac9b1df3cf322db977b18b6d93a0f36b0ea42cf188df9c4ae638937ed"
  },
  {
   "release": "1.3.0rc15",
   "source": "TensorRT-LLM 1.3.0rc15 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc15/commands/trtllm-serve/trtllm-serve.html, docs branch commit 55d831ffcbd84b41730d67dfa2591c63a984caa8, generated from source commit c72d43d by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 bc37a40e55cba7607bb3cd26ba9d267ceeb9b66d208a2103b68b3bfe8e40dad1"
  },
  {
   "release": "1.3.0rc17",
   "source": "TensorRT-LLM 1.3.0rc17 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc17/commands/trtllm-serve/trtllm-serve.html, docs branch commit 88b1a30c42ca6084af4feaf2fbddf48f00012084, generated from source commit a422420 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 e6ef6c5623196836bab417f9676cdcc043f3fac9e131ac884a71210d30c1b0cb"
  },
  {
   "release": "1.3.0rc22",
   "source": "TensorRT-LLM 1.3.0rc22 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc22/commands/trtllm-serve/trtllm-serve.html, docs branch commit 0694d640e984759d125df55bac27a19e0079fe8e, generated from source commit 8ba9340 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 f3bd3371620759242ecf4f3faf30c291d4f6f523ae04185f297e62e4ee7e97a1"
  },
  {
   "release": "1.3.0rc25",
   "source": "TensorRT-LLM 1.3.0rc25 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc25/commands/trtllm-serve/trtllm-serve.html, docs branch commit 7dd67b7fd0c658c0d15e23552a6e0927141078dd, generated from source commit 785c948 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 26551aad56e2bfcdc904eaaaf23c1786a7b7e3549248b1383dbca1276f371ef0"
  },
  {
   "release": "1.3.0rc29",
   "source": "TensorRT-LLM 1.3.0rc29 CLI reference (https://nvidia.github.io/TensorRT-LLM/1.3.0rc29/commands/trtllm-serve/trtllm-serve.html, docs branch commit bf0ee2fb9e631721224a86a367f65930b0fea1e2, generated from source commit c76f4a8 by sphinx-click from tensorrt_llm.commands.serve): serve option signatures, sha256 e994f13ef2e06e6158b6ed6ae893f5f6d78263134eaea9a1ace85b36cf57902f"
  }
 ],
 "options": {
  "--agent_percentage": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--agent_types": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--allow_request_chat_template": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc22",
     "1.3.0rc29"
    ]
   ]
  },
  "--backend": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--chat_template": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--cluster_size": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--config": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--context_parallel_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--cp_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--custom_module_dirs": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--custom_tokenizer": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--disagg_cluster_uri": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--enable_attention_dp": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--enable_chunked_prefill": {
   "takes": 0,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--enable_visual_gen": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc22",
     "1.3.0rc29"
    ]
   ]
  },
  "--ep_size": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--extra_llm_api_options": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--extra_visual_gen_options": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc6",
     "1.3.0rc17"
    ]
   ]
  },
  "--fail_fast_on_attention_window_too_large": {
   "takes": 0,
   "in": [
    [
     "1.0.0",
     "1.3.0rc25"
    ]
   ]
  },
  "--free_gpu_memory_fraction": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--generation-config": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc25",
     "1.3.0rc29"
    ]
   ]
  },
  "--gpus_per_node": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--grpc": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc6",
     "1.3.0rc29"
    ]
   ]
  },
  "--grpc-protocol": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc29",
     "1.3.0rc29"
    ]
   ]
  },
  "--hf_revision": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--host": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--kv_cache_dtype": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc7",
     "1.3.0rc29"
    ]
   ]
  },
  "--kv_cache_free_gpu_memory_fraction": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--log_level": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--max_batch_size": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--max_beam_width": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--max_num_tokens": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--max_seq_len": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--media_io_kwargs": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--metadata_server_config_file": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--middleware": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--moe_cluster_parallel_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--moe_expert_parallel_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--no-telemetry": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--num_input_processor_workers": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc22",
     "1.3.0rc29"
    ]
   ]
  },
  "--num_media_load_workers": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc22",
     "1.3.0rc29"
    ]
   ]
  },
  "--num_postprocess_workers": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--num_serve_frontends": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc25",
     "1.3.0rc29"
    ]
   ]
  },
  "--otlp_traces_endpoint": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--pipeline_parallel_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--port": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--post_processor_hook": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc22",
     "1.3.0rc29"
    ]
   ]
  },
  "--pp_size": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--reasoning_parser": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--report_addr": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc25",
     "1.3.0rc29"
    ]
   ]
  },
  "--revision": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--served_model_name": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc7",
     "1.3.0rc29"
    ]
   ]
  },
  "--server_role": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--telemetry": {
   "takes": 0,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--tensor_parallel_size": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--tokenizer": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--tool_parser": {
   "takes": 1,
   "in": [
    [
     "1.2.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--tp_size": {
   "takes": 1,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--trust_remote_code": {
   "takes": 0,
   "in": [
    [
     "1.0.0",
     "1.3.0rc29"
    ]
   ]
  },
  "--video_pruning_rate": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc15",
     "1.3.0rc29"
    ]
   ]
  },
  "--visual_gen_args": {
   "takes": 1,
   "in": [
    [
     "1.3.0rc17",
     "1.3.0rc29"
    ]
   ]
  }
 },
 "aliases": {},
 "renames": {
  "--extra_visual_gen_options": {
   "to": "--visual_gen_args",
   "since": "1.3.0rc22"
  }
 }
}'''
