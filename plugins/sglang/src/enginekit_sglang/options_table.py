"""python -m sglang.launch_server's options per release, written by tools/optiontables/sglang.py from each release's own parser: do not edit."""

TABLE = r'''{
 "format": 1,
 "engine": "sglang",
 "program": "python -m sglang.launch_server",
 "generator": "tools/optiontables/sglang.py",
 "releases": [
  {
   "release": "0.5.1",
   "source": "sglang-0.5.1-py3-none-any.whl (PyPI, sha256 572c02d83674245899f516af397a38d113935a97660f3e882d20c1c971820909): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.1.post1",
   "source": "sglang-0.5.1.post1-py3-none-any.whl (PyPI, sha256 79d22923502db99d2c41faad3ef423c7961bbabe8a9af8149aa0d27a7d4c093e): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.1.post2",
   "source": "sglang-0.5.1.post2-py3-none-any.whl (PyPI, sha256 10c6097a9a165252070a66b3c8bf38718e49e72019607f18f2cb70c50dbb4925): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.1.post3",
   "source": "sglang-0.5.1.post3-py3-none-any.whl (PyPI, sha256 f92f56f6fa6320012872da1fe37317e665df556af0272eff67af8afb3993ec0c): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.2",
   "source": "sglang-0.5.2-py3-none-any.whl (PyPI, sha256 83aae146f3913ed0802bb1ea356facff47efe0e7d18041a3f143de9ef6e44b2c): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.3",
   "source": "sglang-0.5.3-py3-none-any.whl (PyPI, sha256 14b20822b7c36d7069556e559181bcaa1d3d44b2b0fcbf8818313af4ca22ae7f): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.3.post1",
   "source": "sglang-0.5.3.post1-py3-none-any.whl (PyPI, sha256 0f224b43bda2a771c6a56b03f01bb3ee4aefdf213a322ca33451a845d6f938d8): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.3.post2",
   "source": "sglang-0.5.3.post2-py3-none-any.whl (PyPI, sha256 a2d12288e5c2fd8dd1d1036114ba6ab9ab9ff18822c53618e70566803b5ea160): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.3.post3",
   "source": "sglang-0.5.3.post3-py3-none-any.whl (PyPI, sha256 809fd0c8c0847cd95cf28364ff50475a4d5015c8857b22736c69f3eb12810f0e): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.4",
   "source": "sglang-0.5.4-py3-none-any.whl (PyPI, sha256 342b370145e33f232bef21b73da119d4a96202a0386ebcd54cdbf46a11fbeda3): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.4.post1",
   "source": "sglang-0.5.4.post1-py3-none-any.whl (PyPI, sha256 ed919059d777f4c3a1e029239c16969188623e847ec0b9c23e2d4856e07f70f4): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.4.post2",
   "source": "sglang-0.5.4.post2-py3-none-any.whl (PyPI, sha256 3853ad6538a86b663836825adbda54d154cb4f244523bc72daff7de28bc83e36): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.4.post3",
   "source": "sglang-0.5.4.post3-py3-none-any.whl (PyPI, sha256 054f96cd9f80acc98de740cd6f79330d2e9b61c2efd0692da96f995a9f796821): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.5",
   "source": "sglang-0.5.5-py3-none-any.whl (PyPI, sha256 3c57f135ec0a7a5cf6ae4ed5e0b231d7bf7e0fae588bbc1a881560f1c18db995): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.5.post1",
   "source": "sglang-0.5.5.post1-py3-none-any.whl (PyPI, sha256 a470f7c3ce837a8e414bbeb96da2563e9974f042e03425e8889b373aaeb58180): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.5.post2",
   "source": "sglang-0.5.5.post2-py3-none-any.whl (PyPI, sha256 938d0445dc8116e1b80c223efc875c6738eb6d69ebf78ace6817e06ac15a79d0): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.5.post3",
   "source": "sglang-0.5.5.post3-py3-none-any.whl (PyPI, sha256 0283d290a480e56201cab6e42bc5cf5f505f600a9508d004c06283b052f60203): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.6",
   "source": "sglang-0.5.6-py3-none-any.whl (PyPI, sha256 c32b6a5bafcda41c2f299ed4a1fbe8401946076b4e010fe8feb5b8a9712bf66b): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.6.post1",
   "source": "sglang-0.5.6.post1-py3-none-any.whl (PyPI, sha256 717dd3e1a64a4ac4a14dc791d123c1f90d34fca809237d52e7af39238c560d24): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.6.post2",
   "source": "sglang-0.5.6.post2-py3-none-any.whl (PyPI, sha256 cb542f7adeec56bbb5598443c52d0f347fab74dbb5df09d37cad69eaec780c54): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.7",
   "source": "sglang-0.5.7-py3-none-any.whl (PyPI, sha256 b77f9e5ca5a2ab19b3efba725958fc4de20ba97880e383738c695e8611b51100): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.8",
   "source": "sglang-0.5.8-py3-none-any.whl (PyPI, sha256 b7fbd890f6edd87f46c6e3ce72d592316af316f183c9bd999c3cc44b20fa2451): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.8.post1",
   "source": "sglang-0.5.8.post1-py3-none-any.whl (PyPI, sha256 3fe5ddf6d8b47b234bb192737eb52c94e76282bf910b1185e020f88ec7367e6e): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.9",
   "source": "sglang-0.5.9-py3-none-any.whl (PyPI, sha256 8a936c4d25fea605f44254e533cff2144c73ceffbc1f8738aba393461bbb64d1): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.10",
   "source": "sglang-0.5.10-py3-none-any.whl (PyPI, sha256 ac8855a5d57dac8831fee526bca5212f1ae451f378e2ab08b3baecbc4deb4076): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.10.post1",
   "source": "sglang-0.5.10.post1-py3-none-any.whl (PyPI, sha256 a854a68b11caf6b4b55c241a44378a7cdede7ede325db85c955f131506703bc6): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.11",
   "source": "sglang-0.5.11-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 fe0748beaff218d3e16c9018a5e19f018db06fc3c7ac4f90d2f93da1cf074b6f): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.12",
   "source": "sglang-0.5.12-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 4ed786a38655851fd055ef57380c34d29b87753b53f63457309f51e5bf48c2e6): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.12.post1",
   "source": "sglang-0.5.12.post1-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 94b3f3cc6b97f1364f247b8d9c1d106ec63cf22c55d6b65bc40ff29b0206ef5f): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.13",
   "source": "sglang-0.5.13-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 9d26266ab7e99165098f9e173f4a5a0ef6a0b64a6f30ef0b5ee859eead37e75a): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.13.post1",
   "source": "sglang-0.5.13.post1-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 1c1653ecf2893c7d7b1cf0c3e1cc9b7550ebad95c809de2f44bcc91b7a1e1fe3): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.14",
   "source": "sglang-0.5.14-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 4fe16056b45c8aca00f5f90ceb174dc3a62a3f5dccf159c791370795cd00fc99): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.15",
   "source": "sglang-0.5.15-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 21492759b4b99e117bd81610f633422f3fdae2896c2cde6931eab886deccc44f): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.15.post1",
   "source": "sglang-0.5.15.post1-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 8e182e1c449197cb6f98716a7cf432a3ea7af78c172f9b840ab28ad9e6cda9b4): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.16",
   "source": "sglang-0.5.16-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 d5f345a18953dd35df568ac56bdcb7f5ee910ab39efea4469b714556d1070713): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.17",
   "source": "sglang-0.5.17-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 575e38f5683624ded3b4bb267f637a098e5ed37d13a1d1ff5ea09bd781a04d16): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.18",
   "source": "sglang-0.5.18-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 e97b585dd2d5db2802599feba47c84cce972f5e1231a6816fef996200207b5cf): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.19",
   "source": "sglang-0.5.19-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 425e87377e725d03db8262382008f3fd9561a6cf5d82f485f8b9929f02ffe12b): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.20",
   "source": "sglang-0.5.20-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 1573527042f4f6b4ead838302818595fc77fdc611dbcc2e40cd150fbc8f8513c): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.21",
   "source": "sglang-0.5.21-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 96c029f75dec99baa33a5db3d41b1bebefdd6bcfba3a2f7c807fe1cf49a87c20): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.22",
   "source": "sglang-0.5.22-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 cc9a0f15bd8f877a0584fdb7a1702240177a1f1cc8d17c978715161717b9037b): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  },
  {
   "release": "0.5.23",
   "source": "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl (PyPI, sha256 00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937): sglang.srt.server_args.ServerArgs.add_cli_args on argparse.ArgumentParser(), as prepare_server_args builds it"
  }
 ],
 "options": {
  "--abort-on-priority-when-disabled": {
   "takes": 0,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--admin-api-key": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--allow-auto-truncate": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--allowed-media-domains": {
   "takes": "+",
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--api-key": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--asr-max-buffer-seconds": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--asr-max-concurrent-sessions": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--attention-context-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--attention-data-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--attn-cp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--attn-dp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--base-gpu-id": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--batch-notify-size": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--bf16-gemm-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--boundary-reduction": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--bucket-e2e-request-latency": {
   "takes": "+",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--bucket-inter-token-latency": {
   "takes": "+",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--bucket-time-to-first-token": {
   "takes": "+",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--c128-page-size": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--chat-template": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--checkpoint-engine-wait-weights-before-ready": {
   "takes": 0,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--chunked-prefill-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--collect-tokens-histogram": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.19"
    ]
   ]
  },
  "--completion-template": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--config": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--constrained-json-disable-any-whitespace": {
   "takes": 0,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--constrained-json-max-whitespace-cnt": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--constrained-json-whitespace-pattern": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--context-bucket": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--context-length": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--cp-strategy": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cpu-offload-gb": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--crash-dump-folder": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--crash-on-nan": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.3.post3"
    ]
   ]
  },
  "--cuda-graph-backend-decode": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-backend-prefill": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-bs": {
   "takes": "+",
   "in": [
    [
     "0.5.1",
     "0.5.19"
    ]
   ]
  },
  "--cuda-graph-bs-decode": {
   "takes": "+",
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-bs-prefill": {
   "takes": "+",
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-config": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-max-bs": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.19"
    ]
   ]
  },
  "--cuda-graph-max-bs-decode": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-max-bs-prefill": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-max-seq-len-prefill": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-prefill-max-context": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--cuda-graph-tc-compiler": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.21"
    ]
   ]
  },
  "--custom-sigquit-handler": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.13.post1"
    ]
   ]
  },
  "--custom-weight-loader": {
   "takes": "*",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--data-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dcp-comm-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--dcp-replicate-q-proj": {
   "takes": 0,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--dcp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--debug-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--debug-tensor-dump-inject": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.13.post1"
    ]
   ]
  },
  "--debug-tensor-dump-input-file": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--debug-tensor-dump-layers": {
   "takes": "+",
   "in": [
    [
     "0.5.4.post2",
     "0.5.23"
    ]
   ]
  },
  "--debug-tensor-dump-output-folder": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--debug-tensor-dump-prefill-only": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.3.post1"
    ]
   ]
  },
  "--decode-attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--decode-context-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--decode-log-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--decoupled-spec-bind-endpoint": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--decoupled-spec-connect-endpoints": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--decoupled-spec-rank": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--decoupled-spec-role": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--decrypted-config-file": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post3",
     "0.5.23"
    ]
   ]
  },
  "--decrypted-draft-config-file": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post3",
     "0.5.23"
    ]
   ]
  },
  "--deepep-config": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--deepep-dispatcher-output-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--deepep-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--deepep-v2-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--default-chat-template-kwargs": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--default-priority-value": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--delete-ckpt-after-loading": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--detokenizer-worker-num": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--device": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-aiter-allreduce-fusion-in-decode": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--disable-aiter-allreduce-fusion-in-prefill": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--disable-attn-tp-gather": {
   "takes": 0,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--disable-chunked-prefix-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-cuda-graph-padding": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-custom-all-reduce": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-decode-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--disable-fast-image-processor": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-flashinfer-autotune": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--disable-flashinfer-cutlass-moe-fp4-allgather": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-hicache-numa-detect": {
   "takes": 0,
   "in": [
    [
     "0.5.8",
     "0.5.9"
    ]
   ]
  },
  "--disable-hybrid-swa-memory": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-outlines-disk-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-overlap-schedule": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-piecewise-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.19"
    ]
   ]
  },
  "--disable-prefill-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--disable-priority-preemption": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--disable-radix-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-shared-experts-fusion": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disable-tokenizer-batch-decode": {
   "takes": 0,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-bootstrap-port": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-allocation-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-dp": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.9"
    ]
   ]
  },
  "--disaggregation-decode-enable-fake-auto": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.8.post1"
    ]
   ]
  },
  "--disaggregation-decode-enable-offload-kvcache": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-enable-radix-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-extra-slots": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-host-receive-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-polling-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-retraction-backup": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-decode-tp": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.9"
    ]
   ]
  },
  "--disaggregation-enable-kv-checksum": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-ib-device": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--disaggregation-prefill-pp": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.9"
    ]
   ]
  },
  "--disaggregation-transfer-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dist-init-addr": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dist-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dllm-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--dllm-algorithm-config": {
   "takes": 1,
   "in": [
    [
     "0.5.6.post1",
     "0.5.23"
    ]
   ]
  },
  "--dllm-block-size": {
   "takes": 1,
   "in": [
    [
     "0.5.6",
     "0.5.6"
    ]
   ]
  },
  "--dllm-fdfo": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--download-dir": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--ds-channel-config-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--ds-heavy-channel-num": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--ds-heavy-channel-type": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--ds-heavy-token-num": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--ds-sparse-decode-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--dsa-decode-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--dsa-paged-mqa-logits-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--dsa-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--dsa-prefill-cp-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.19"
    ]
   ]
  },
  "--dsa-topk-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--dsa-triton-union": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--dsv4-attn-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--dsv4-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--dwdp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--dynamic-batch-tokenizer-batch-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--dynamic-batch-tokenizer-batch-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--elastic-ep-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--elastic-ep-initial-size": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--elastic-ep-join-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--elastic-ep-join-rank-offset": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--elastic-ep-rejoin": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.20"
    ]
   ]
  },
  "--elastic-ep-scale-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--enable-adaptive-dispatch-to-encoder": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-aiter-allreduce-fusion": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-amd-monokernel": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-attn-tp-input-scattered": {
   "takes": 0,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--enable-beta-spec": {
   "takes": 0,
   "in": [
    [
     "0.5.3.post2",
     "0.5.4"
    ]
   ]
  },
  "--enable-breakable-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.19"
    ]
   ]
  },
  "--enable-broadcast-mm-inputs-process": {
   "takes": 0,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--enable-cache-report": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-cp-decode-attn-tp": {
   "takes": 0,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--enable-cudagraph-gc": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-custom-logit-processor": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-decoder-swa-bounded-replay": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--enable-deepep-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-deepep-waterfill": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.15.post1"
    ]
   ]
  },
  "--enable-deepseek-v4-fp4-indexer": {
   "takes": 0,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--enable-dense-mlp-attn-tp": {
   "takes": 0,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--enable-deterministic-inference": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-double-sparsity": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.10.post1"
    ]
   ]
  },
  "--enable-dp-attention": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-dp-attention-local-control-broadcast": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--enable-dp-lm-head": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-draft-weights-cpu-backup": {
   "takes": 0,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--enable-dsa-cache-layer-split": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--enable-dsa-fused-indexer": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--enable-dsa-prefill-context-parallel": {
   "takes": 0,
   "in": [
    [
     "0.5.13",
     "0.5.19"
    ]
   ]
  },
  "--enable-dynamic-batch-tokenizer": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-dynamic-chunking": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enable-elastic-expert-backup": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-encoder-swa-bounded-replay": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--enable-ep-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-eplb": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-expert-distribution-metrics": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.17"
    ]
   ]
  },
  "--enable-flashinfer-allreduce-fusion": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-flashinfer-autotune": {
   "takes": 0,
   "in": [
    [
     "0.5.6",
     "0.5.6.post2"
    ]
   ]
  },
  "--enable-flashinfer-cutlass-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-flashinfer-mxfp4-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-flashinfer-trtllm-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-flexkv": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--enable-forward-pass-metrics": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--enable-fp32-lm-head": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-fused-moe-sum-all-reduce": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-fused-qk-norm-rope": {
   "takes": 0,
   "in": [
    [
     "0.5.6.post1",
     "0.5.23"
    ]
   ]
  },
  "--enable-gdn-replayssm-spec": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.19"
    ]
   ]
  },
  "--enable-hicache": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-hierarchical-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-hisparse": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-http-worker-reuseport": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-http2": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--enable-int8-mamba-checkpoint": {
   "takes": 0,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--enable-kv-cache-sharding": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--enable-layernorm-sp": {
   "takes": 0,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--enable-layerwise-nvtx-marker": {
   "takes": 0,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--enable-lean-attention": {
   "takes": 0,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--enable-linear-replayssm": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-linear-replayssm-spec": {
   "takes": 0,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--enable-linker-mla-dedup": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--enable-lmcache": {
   "takes": 0,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--enable-lora": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-lora-overlap-loading": {
   "takes": 0,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--enable-mamba-cache-stochastic-rounding": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-megamoe-for-layernorm-sp": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-memory-saver": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-metrics": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-metrics-for-all-schedulers": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-mfu-metrics": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-mis": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--enable-mixed-chunk": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-mm-global-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-mscclpp": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-multi-layer-eagle": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enable-multimodal": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-nan-detection": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.12.post1"
    ]
   ]
  },
  "--enable-nccl-nvls": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-nsa-prefill-context-parallel": {
   "takes": 0,
   "in": [
    [
     "0.5.6",
     "0.5.19"
    ]
   ]
  },
  "--enable-nvidia-megakernel": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-p2p-check": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-page-major-kv-layout": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-paged-experts": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-pd-role-switch": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--enable-pdmux": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-piecewise-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.3.post2",
     "0.5.13.post1"
    ]
   ]
  },
  "--enable-precise-embedding-interpolation": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enable-prefill-context-parallel": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.19"
    ]
   ]
  },
  "--enable-prefill-cp": {
   "takes": 0,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--enable-prefill-delayer": {
   "takes": 0,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--enable-prefix-mm-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enable-priority-scheduling": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-profile-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-quant-communications": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--enable-request-time-stats-logging": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-response-store": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--enable-return-aux-hidden-states": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--enable-return-hidden-states": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-return-indexer-topk": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--enable-return-routed-experts": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enable-scattered-sconv": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--enable-session-radix-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-shared-experts-attn-tp": {
   "takes": 0,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--enable-single-batch-overlap": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-ssl-refresh": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-streaming-session": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enable-strict-thinking": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--enable-symm-mem": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-tf32-matmul": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-tokenizer-batch-encode": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-torch-compile": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-torch-compile-debug-mode": {
   "takes": 0,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--enable-torch-symm-mem": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-tp-lm-head-all-to-all": {
   "takes": 0,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--enable-trace": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--enable-triton-kernel-moe": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.2"
    ]
   ]
  },
  "--enable-two-batch-overlap": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--enable-unified-cache-external-linker": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--enable-unified-memory": {
   "takes": 0,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--enable-w4a4-mxfp4-megamoe": {
   "takes": 0,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--enable-waterfill": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--enable-watermark": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--enable-weights-cpu-backup": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--encoder-bootstrap-port": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--encoder-only": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--encoder-register-urls": {
   "takes": "+",
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--encoder-transfer-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--encoder-urls": {
   "takes": "+",
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--enforce-disable-flashinfer-allreduce-fusion": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--enforce-piecewise-cuda-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.19"
    ]
   ]
  },
  "--enforce-shared-experts-fusion": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--engine-info-bootstrap-port": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--ep": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--ep-dispatch-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--ep-num-redundant-experts": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--ep-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--eplb-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--eplb-min-rebalancing-utilization-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--eplb-rebalance-layers-per-chunk": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--eplb-rebalance-num-iterations": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--expert-balancedness-report-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--expert-distribution-recorder-buffer-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--expert-distribution-recorder-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--expert-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--experts-shared-outer-loras": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--export-metrics-to-file": {
   "takes": 0,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--export-metrics-to-file-dir": {
   "takes": 1,
   "in": [
    [
     "0.5.5.post3",
     "0.5.23"
    ]
   ]
  },
  "--extra-metric-labels": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--fastapi-root-path": {
   "takes": 1,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--file-storage-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--flashinfer-a2a-dispatch-type": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--flashinfer-allreduce-fusion-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--flashinfer-autotune-skip-ops": {
   "takes": "+",
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--flashinfer-mla-disable-ragged": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--flashinfer-mxfp4-moe-precision": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--flexkv-config-file": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--forward-hooks": {
   "takes": 1,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--forward-pass-metrics-ipc-name": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--forward-pass-metrics-worker-id": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--fp4-gemm-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--fp8-gemm-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.6.post2",
     "0.5.23"
    ]
   ]
  },
  "--fuseep-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--gated-launch-port": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--gc-threshold": {
   "takes": "+",
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--gc-warning-threshold-secs": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--generation-tokens-buckets": {
   "takes": "+",
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--gpu-id-step": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--grammar-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--grpc-http-sidecar-port": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--grpc-mode": {
   "takes": 0,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--grpc-port": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--grpc-response-timeout-secs": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--help": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hf-chat-template-name": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--hicache-host-memory-fraction": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--hicache-host-memory-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--hicache-io-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-mem-layout": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-ratio": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-storage-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-storage-backend-extra-config": {
   "takes": 1,
   "in": [
    [
     "0.5.1.post3",
     "0.5.23"
    ]
   ]
  },
  "--hicache-storage-prefetch-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hicache-storage-prefetch-retry-max-attempts": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--hicache-storage-prefetch-retry-poll-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--hicache-write-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--hierarchical-sparse-attention-extra-config": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.9"
    ],
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--hisparse-config": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--host": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--http2-initial-connection-window-size": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--http2-max-concurrent-streams": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--hybrid-kvcache-ratio": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.13.post1"
    ]
   ]
  },
  "--image-processor-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--incremental-streaming-output": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--init-expert-location": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--int8-mamba-ckpt-size": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--is-embedding": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--json-model-override-args": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--keep-mm-feature-on-device": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.20"
    ]
   ]
  },
  "--kt-amx-method": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.5"
    ]
   ]
  },
  "--kt-amx-weight-path": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.5"
    ]
   ]
  },
  "--kt-cpuinfer": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--kt-max-deferred-experts-per-token": {
   "takes": 1,
   "in": [
    [
     "0.5.5",
     "0.5.23"
    ]
   ]
  },
  "--kt-method": {
   "takes": 1,
   "in": [
    [
     "0.5.5.post1",
     "0.5.23"
    ]
   ]
  },
  "--kt-num-gpu-experts": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--kt-threadpool-count": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--kt-weight-path": {
   "takes": 1,
   "in": [
    [
     "0.5.5.post1",
     "0.5.23"
    ]
   ]
  },
  "--kv-cache-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--kv-canary": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--kv-canary-real-data": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--kv-canary-sweep-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--kv-events-config": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--language-model-only": {
   "takes": 0,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--language-only": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--limit-mm-data-per-request": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--linear-attn-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--linear-attn-decode-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--linear-attn-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--linear-attn-verify-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--linear-replayssm-cache-len": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--lmcache-config-file": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--load-balance-method": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--load-format": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--load-publish-endpoint": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--load-snapshot-publish-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--load-watch-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.6.post2"
    ]
   ]
  },
  "--log-level": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--log-level-http": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--log-requests": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--log-requests-format": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--log-requests-level": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--log-requests-target": {
   "takes": "+",
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--lora-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--lora-drain-wait-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--lora-eviction-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--lora-paths": {
   "takes": "*",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--lora-strict-loading": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--lora-target-modules": {
   "takes": "*",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--lora-use-virtual-experts": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--mamba-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--mamba-cache-philox-rounds": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--mamba-full-memory-ratio": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--mamba-max-states-per-path": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--mamba-radix-cache-strategy": {
   "takes": 1,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--mamba-scheduler-strategy": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.19"
    ]
   ]
  },
  "--mamba-ssm-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--mamba-track-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--max-ep-size": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--max-loaded-loras": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-lora-chunk-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--max-lora-rank": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-loras-per-batch": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-mamba-cache-size": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--max-micro-batch-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.3"
    ]
   ]
  },
  "--max-prefill-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-queued-requests": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-running-requests": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--max-total-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--media-url-max-file-size-mb": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--mem-fraction-static": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--min-free-slots-delay": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--mlx-enable-sampling": {
   "takes": 0,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--mm-attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--mm-enable-dp-encoder": {
   "takes": 0,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--mm-feature-transport": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--mm-global-cache-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--mm-io-worker-num": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--mm-max-concurrent-calls": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post2",
     "0.5.9"
    ]
   ]
  },
  "--mm-per-request-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post2",
     "0.5.9"
    ]
   ]
  },
  "--mm-preprocess-cache-size-mb": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--mm-process-config": {
   "takes": 1,
   "in": [
    [
     "0.5.6",
     "0.5.23"
    ]
   ]
  },
  "--mm-processor-worker-num": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--model": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--model-checksum": {
   "takes": "?",
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--model-config-parser": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--model-impl": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--model-loader-extra-config": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--model-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--modelexpress-config": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--modelopt-checkpoint-restore-path": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--modelopt-checkpoint-save-path": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--modelopt-export-path": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--modelopt-quant": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post1",
     "0.5.23"
    ]
   ]
  },
  "--moe-a2a-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--moe-data-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--moe-dense-tp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--moe-dp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.9",
     "0.5.23"
    ]
   ]
  },
  "--moe-runner-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--monokernel-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--mooncake-ib-device": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--msprobe-dump-config": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--multi-item-scoring-delimiter": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post1",
     "0.5.10.post1"
    ]
   ]
  },
  "--nccl-init-addr": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--nccl-port": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--nnodes": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--no-dcp-replicate-q-proj": {
   "takes": 0,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--no-dllm-fdfo": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--no-enable-decoder-swa-bounded-replay": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--no-enable-dsa-fused-indexer": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--no-enable-fused-qk-norm-rope": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--no-enable-tf32-matmul": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--no-enable-tp-lm-head-all-to-all": {
   "takes": 0,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--no-experts-shared-outer-loras": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--no-lora-strict-loading": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--no-mm-enable-dp-encoder": {
   "takes": 0,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--no-ple-offload-embedding": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--no-record-nolora-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.12.post1"
    ]
   ]
  },
  "--no-speculative-enable-w4a4-mxfp4-megamoe": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--node-rank": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--nsa-decode": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.3.post3"
    ]
   ]
  },
  "--nsa-decode-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.19"
    ]
   ]
  },
  "--nsa-prefill": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.3.post3"
    ]
   ]
  },
  "--nsa-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.19"
    ]
   ]
  },
  "--nsa-prefill-cp-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.19"
    ]
   ]
  },
  "--num-continuous-decode-steps": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--num-reserved-decode-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--numa-node": {
   "takes": "+",
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--offload-group-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--offload-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--offload-num-in-group": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--offload-prefetch-step": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--oltp-traces-endpoint": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.4.post1"
    ]
   ]
  },
  "--optimistic-prefill-attempts": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--optimistic-prefill-retries": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.15.post1"
    ]
   ]
  },
  "--otlp-service-name": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--otlp-traces-endpoint": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post2",
     "0.5.23"
    ]
   ]
  },
  "--page-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--paged-experts-num-resident": {
   "takes": 1,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--pdlb-url": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.1.post3"
    ]
   ]
  },
  "--pdmux-config-path": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--piecewise-cuda-graph-compiler": {
   "takes": 1,
   "in": [
    [
     "0.5.4",
     "0.5.19"
    ]
   ]
  },
  "--piecewise-cuda-graph-max-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.19"
    ]
   ]
  },
  "--piecewise-cuda-graph-tokens": {
   "takes": "+",
   "in": [
    [
     "0.5.3.post2",
     "0.5.19"
    ]
   ]
  },
  "--pipeline-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--ple-offload-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--ple-offload-dir": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--ple-offload-embedding": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--port": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--pp-async-batch-depth": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--pp-max-micro-batch-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post1",
     "0.5.23"
    ]
   ]
  },
  "--pp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--pre-warm-nccl": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--preferred-sampling-params": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--prefill-attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--prefill-cp-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.19"
    ]
   ]
  },
  "--prefill-decode-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--prefill-decode-interval-min-bs": {
   "takes": 1,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-forward-passes-buckets": {
   "takes": "+",
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-max-delay-ms": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-max-delay-passes": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-queue-min-ratio": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-token-usage-low-watermark": {
   "takes": 1,
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--prefill-delayer-wait-seconds-buckets": {
   "takes": "+",
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--prefill-kv-cache-dequant-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--prefill-max-requests": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--prefill-only-disable-kv-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--prefill-round-robin-balance": {
   "takes": 0,
   "in": [
    [
     "0.5.2",
     "0.5.19"
    ]
   ]
  },
  "--priority-scheduling-preemption-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--prompt-tokens-buckets": {
   "takes": "+",
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--qsa-indexer-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--quantization": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--quantization-param-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--quantize-and-serve": {
   "takes": 0,
   "in": [
    [
     "0.5.4",
     "0.5.23"
    ]
   ]
  },
  "--radix-cache-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--radix-eviction-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--radix-eviction-policy-config": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--random-seed": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--reasoning-parser": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--record-nolora-graph": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.12.post1"
    ]
   ]
  },
  "--remote-instance-weight-loader-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--remote-instance-weight-loader-seed-instance-ip": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--remote-instance-weight-loader-seed-instance-service-port": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--remote-instance-weight-loader-send-weights-group-ports": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--remote-instance-weight-loader-start-seed-via-transfer-engine": {
   "takes": 0,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--retraction-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--return-aux-hidden-state-layer-ids": {
   "takes": "+",
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--return-hidden-states-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--return-input-ids": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--return-output-ids": {
   "takes": 0,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--revision": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--rl-on-policy-target": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post1",
     "0.5.23"
    ]
   ]
  },
  "--rl-quant-profile": {
   "takes": 1,
   "in": [
    [
     "0.5.6.post2",
     "0.5.23"
    ]
   ]
  },
  "--sampling-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--sampling-defaults": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post1",
     "0.5.23"
    ]
   ]
  },
  "--sampling-mask-max-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--schedule-conservativeness": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--schedule-low-priority-values-first": {
   "takes": 0,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--schedule-policy": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--scheduler-recv-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--served-model-name": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--shared-experts-tp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--show-time-cost": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--sidecar": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--sidecar-args": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--skip-server-warmup": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--skip-tokenizer-init": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--sleep-on-idle": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--sm-group-num": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--smg-grpc-mode": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--smg-http-sidecar-port": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--soft-watchdog-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--spec-trace-dir": {
   "takes": 1,
   "in": [
    [
     "0.5.15",
     "0.5.23"
    ]
   ]
  },
  "--speculative-accept-threshold-acc": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-accept-threshold-single": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-adaptive": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-adaptive-config": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-attention-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dflash-block-size": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dflash-draft-window-size": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.19"
    ]
   ]
  },
  "--speculative-domino-candidate-pool-size": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-kv-cache-dtype": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-load-format": {
   "takes": 1,
   "in": [
    [
     "0.5.3.post2",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-model": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-model-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-model-quantization": {
   "takes": 1,
   "in": [
    [
     "0.5.7",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-model-revision": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-sink-size": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--speculative-draft-window-size": {
   "takes": 1,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dsa-topk-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.19",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dspark-align-verify-tokens-to-graph-tier": {
   "takes": 0,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dspark-block-size": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dspark-confidence-sts-path": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--speculative-dspark-sps-table-path": {
   "takes": 1,
   "in": [
    [
     "0.5.16",
     "0.5.23"
    ]
   ]
  },
  "--speculative-eagle-topk": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-enable-w4a4-mxfp4-megamoe": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--speculative-moe-a2a-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.6.post1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-moe-runner-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.4.post3",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-branch-length": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.9"
    ]
   ]
  },
  "--speculative-ngram-capacity": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-external-corpus-max-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-external-corpus-path": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-external-sam-budget": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-match-type": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-max-bfs-breadth": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-max-match-window-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.9"
    ]
   ]
  },
  "--speculative-ngram-max-trie-depth": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-min-bfs-breadth": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--speculative-ngram-min-match-window-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.9"
    ]
   ]
  },
  "--speculative-num-draft-tokens": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-num-steps": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-skip-dp-mlp-sync": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.22"
    ]
   ]
  },
  "--speculative-token-map": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--speculative-use-block-verification": {
   "takes": 0,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--speculative-use-rejection-sampling": {
   "takes": 0,
   "in": [
    [
     "0.5.14",
     "0.5.23"
    ]
   ]
  },
  "--ssl-ca-certs": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--ssl-certfile": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--ssl-keyfile": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--ssl-keyfile-password": {
   "takes": 1,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--startup-weight-load-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--stream-interval": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--stream-output": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.19"
    ]
   ]
  },
  "--stream-response-default-include-usage": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--strip-thinking-cache": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--swa-full-tokens-ratio": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--swa-prefix-tails": {
   "takes": 1,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--tbo-token-distribution-threshold": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--tensor-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-metrics-allowed-custom-labels": {
   "takes": "+",
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-metrics-custom-labels-header": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-path": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--tokenizer-worker-num": {
   "takes": 1,
   "in": [
    [
     "0.5.2",
     "0.5.23"
    ]
   ]
  },
  "--tool-call-parser": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--tool-server": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--torch-compile-max-bs": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--torchao-config": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.17"
    ]
   ]
  },
  "--tp-size": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--trace-modules": {
   "takes": 1,
   "in": [
    [
     "0.5.13",
     "0.5.23"
    ]
   ]
  },
  "--triton-attention-num-kv-splits": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--triton-attention-reduce-in-fp32": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--triton-attention-split-tile-size": {
   "takes": 1,
   "in": [
    [
     "0.5.3",
     "0.5.23"
    ]
   ]
  },
  "--trust-mm-content-hashes": {
   "takes": 0,
   "in": [
    [
     "0.5.18",
     "0.5.23"
    ]
   ]
  },
  "--trust-remote-code": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--trust-request-chat-template": {
   "takes": 0,
   "in": [
    [
     "0.5.21",
     "0.5.23"
    ]
   ]
  },
  "--unified-cache-external-linker-backend": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--unified-cache-external-linker-config": {
   "takes": 1,
   "in": [
    [
     "0.5.23",
     "0.5.23"
    ]
   ]
  },
  "--uno-lora-path": {
   "takes": 1,
   "in": [
    [
     "0.5.20",
     "0.5.23"
    ]
   ]
  },
  "--use-ray": {
   "takes": 0,
   "in": [
    [
     "0.5.10",
     "0.5.23"
    ]
   ]
  },
  "--uvicorn-access-log-exclude-prefixes": {
   "takes": "*",
   "in": [
    [
     "0.5.8",
     "0.5.23"
    ]
   ]
  },
  "--warmups": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--watchdog-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--watermark-config": {
   "takes": 1,
   "in": [
    [
     "0.5.22",
     "0.5.23"
    ]
   ]
  },
  "--weight-cache-mode": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--weight-cache-socket": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--weight-cache-timeout": {
   "takes": 1,
   "in": [
    [
     "0.5.17",
     "0.5.23"
    ]
   ]
  },
  "--weight-loader-disable-mmap": {
   "takes": 0,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  },
  "--weight-loader-drop-cache-after-load": {
   "takes": 0,
   "in": [
    [
     "0.5.12",
     "0.5.23"
    ]
   ]
  },
  "--weight-loader-prefetch-checkpoints": {
   "takes": 0,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--weight-loader-prefetch-num-threads": {
   "takes": 1,
   "in": [
    [
     "0.5.11",
     "0.5.23"
    ]
   ]
  },
  "--weight-version": {
   "takes": 1,
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  }
 },
 "aliases": {
  "-h": {
   "option": "--help",
   "in": [
    [
     "0.5.1",
     "0.5.23"
    ]
   ]
  }
 },
 "renames": {
  "--cuda-graph-bs": {
   "to": "--cuda-graph-bs-decode",
   "since": "0.5.20"
  },
  "--cuda-graph-max-bs": {
   "to": "--cuda-graph-max-bs-decode",
   "since": "0.5.20"
  },
  "--disable-piecewise-cuda-graph": {
   "to": "--cuda-graph-backend-prefill",
   "since": "0.5.20"
  },
  "--dsa-prefill-cp-mode": {
   "to": "--cp-strategy",
   "since": "0.5.20"
  },
  "--elastic-ep-rejoin": {
   "to": "--elastic-ep-join-mode",
   "since": "0.5.21"
  },
  "--enable-breakable-cuda-graph": {
   "to": "--cuda-graph-backend-prefill",
   "since": "0.5.20"
  },
  "--enable-deepep-moe": {
   "to": "--moe-a2a-backend",
   "since": "0.5.3"
  },
  "--enable-dsa-prefill-context-parallel": {
   "to": "--enable-prefill-cp",
   "since": "0.5.20"
  },
  "--enable-ep-moe": {
   "to": "--ep-size",
   "since": "0.5.3"
  },
  "--enable-expert-distribution-metrics": {
   "to": "--expert-balancedness-report-mode",
   "since": "0.5.18"
  },
  "--enable-flashinfer-cutlass-moe": {
   "to": "--moe-runner-backend",
   "since": "0.5.3"
  },
  "--enable-flashinfer-mxfp4-moe": {
   "to": "--moe-runner-backend",
   "since": "0.5.3"
  },
  "--enable-flashinfer-trtllm-moe": {
   "to": "--moe-runner-backend",
   "since": "0.5.3"
  },
  "--enable-gdn-replayssm-spec": {
   "to": "--enable-linear-replayssm-spec",
   "since": "0.5.20"
  },
  "--enable-nsa-prefill-context-parallel": {
   "to": "--enable-prefill-cp",
   "since": "0.5.20"
  },
  "--enable-piecewise-cuda-graph": {
   "to": "--enforce-piecewise-cuda-graph",
   "since": "0.5.14"
  },
  "--enable-prefill-context-parallel": {
   "to": "--enable-prefill-cp",
   "since": "0.5.20"
  },
  "--enable-triton-kernel-moe": {
   "to": "--moe-runner-backend",
   "since": "0.5.3"
  },
  "--enforce-piecewise-cuda-graph": {
   "to": "--cuda-graph-backend-prefill",
   "since": "0.5.20"
  },
  "--hybrid-kvcache-ratio": {
   "to": "--swa-full-tokens-ratio",
   "since": "0.5.14"
  },
  "--keep-mm-feature-on-device": {
   "to": "--mm-feature-transport",
   "since": "0.5.21"
  },
  "--kt-amx-method": {
   "to": "--kt-method",
   "since": "0.5.5.post1"
  },
  "--kt-amx-weight-path": {
   "to": "--kt-weight-path",
   "since": "0.5.5.post1"
  },
  "--mamba-scheduler-strategy": {
   "to": "--mamba-radix-cache-strategy",
   "since": "0.5.20"
  },
  "--max-micro-batch-size": {
   "to": "--pp-max-micro-batch-size",
   "since": "0.5.3.post1"
  },
  "--nsa-decode-backend": {
   "to": "--dsa-decode-backend",
   "since": "0.5.20"
  },
  "--nsa-prefill-backend": {
   "to": "--dsa-prefill-backend",
   "since": "0.5.20"
  },
  "--nsa-prefill-cp-mode": {
   "to": "--cp-strategy",
   "since": "0.5.20"
  },
  "--oltp-traces-endpoint": {
   "to": "--otlp-traces-endpoint",
   "since": "0.5.4.post2"
  },
  "--piecewise-cuda-graph-compiler": {
   "to": "--cuda-graph-tc-compiler",
   "since": "0.5.20"
  },
  "--piecewise-cuda-graph-max-tokens": {
   "to": "--cuda-graph-max-bs-prefill",
   "since": "0.5.20"
  },
  "--piecewise-cuda-graph-tokens": {
   "to": "--cuda-graph-bs-prefill",
   "since": "0.5.20"
  },
  "--prefill-cp-mode": {
   "to": "--cp-strategy",
   "since": "0.5.20"
  },
  "--speculative-dflash-draft-window-size": {
   "to": "--speculative-draft-window-size",
   "since": "0.5.20"
  },
  "--stream-output": {
   "to": "--incremental-streaming-output",
   "since": "0.5.20"
  }
 }
}'''
