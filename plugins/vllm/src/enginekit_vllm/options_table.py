"""vllm serve's options per release, written by tools/optiontables/vllm.py from each release's own parser: do not edit."""

TABLE = r'''{
 "format": 1,
 "engine": "vllm",
 "program": "vllm serve",
 "generator": "tools/optiontables/vllm.py",
 "releases": [
  {
   "release": "0.11.0",
   "source": "vllm-0.11.0-cp38-abi3-manylinux1_x86_64.whl (PyPI, sha256 3861c75ff2b12e24f6d179ff5c084d791b42ded8675d76c8706697c79f68cd62): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.11.1",
   "source": "vllm-0.11.1-cp38-abi3-manylinux1_x86_64.whl (PyPI, sha256 077da60655466bab811f006ef93b90d45322e49fa0f204ffac6d48c32866b6d1): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.11.2",
   "source": "vllm-0.11.2-cp38-abi3-manylinux1_x86_64.whl (PyPI, sha256 ea473bd4fde06940fe3f681a00476060652f62b3279ef11aaffac5768856cfe8): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.12.0",
   "source": "vllm-0.12.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 596673edcac5ea8ab8cb2d9b0200052978cd91d78a054926d9d0c6895d34237f): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.13.0",
   "source": "vllm-0.13.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 12b3d0a3b91c32a0091349de64b464f1c3d499a5b3a5d0ec387fef94ed5df6ee): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.14.0",
   "source": "vllm-0.14.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 9362cadde2cd1329a0c4a0ea9eace233d79576b3d6f5648b854922b2a2554a01): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.14.1",
   "source": "vllm-0.14.1-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 435565a8299a5fcdbf5af4a798e342ddeec3f90df83c8227cc204bdebca19494): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.15.0",
   "source": "vllm-0.15.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 fd03371687568c511be2f9204932b3d76fd432ccaf4c19632cd53e98b0eb53c8): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.15.1",
   "source": "vllm-0.15.1-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 d3810299d331fc1031c8a2a9886f1f0e0cc2f14ddad284d337174324b1c83e92): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.16.0",
   "source": "vllm-0.16.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 f066b2a2f8597a4a3ada8fbbfd122b59086864b2260ca42dc81bf9fb57af0c42): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.17.0",
   "source": "vllm-0.17.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 0296670a09d392ee43455d9bebf590d05a9bc2ebce5e25e2919222fc815158da): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.17.1",
   "source": "vllm-0.17.1-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 c52e892309532b4e51cb94d022c5e3c0087300cdb56e4645708601443299d871): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.18.0",
   "source": "vllm-0.18.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 0bc51491598f4bcd161b693b27cbe2864082d6c49fa9065965d94b371f6ae8ef): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.18.1",
   "source": "vllm-0.18.1-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 33d6d81299dedd45dde43fef261fbad2d513ed80e7cf7e64fb5880e8cf8ea105): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.19.0",
   "source": "vllm-0.19.0-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 2d0e5fae45367bdbf111fcad68f4c0f8fdddd2f2fb643e52f0f2daebef7b41cf): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.19.1",
   "source": "vllm-0.19.1-cp38-abi3-manylinux_2_31_x86_64.whl (PyPI, sha256 71a87f46cafab4489c69a5c5c83b870d0235e5694d8222303d460576293dc719): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.20.0",
   "source": "vllm-0.20.0-cp38-abi3-manylinux_2_35_x86_64.whl (PyPI, sha256 24d28892e210200f6e1bd13f699c42a74cd2bb7364c11248e2348f677c7f6dfb): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.20.1",
   "source": "vllm-0.20.1-1-cp38-abi3-manylinux_2_35_x86_64.whl (PyPI, sha256 11907857c94c226caf82ada92ab09b1e0dbf538b5b80a93aed74be29e861020c): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.20.2",
   "source": "vllm-0.20.2-cp38-abi3-manylinux_2_35_x86_64.whl (PyPI, sha256 22a7dd06eb03371298e13d6100f3dedbf307352342aaf08e87c929c60aae9b4d): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.21.0",
   "source": "vllm-0.21.0-1-cp38-abi3-manylinux_2_24_x86_64.whl (PyPI, sha256 f4a75b1391f44c67dc1ca268f5ffed9f6b7fdbc657c93db64e6892c5d1bc320b): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.22.0",
   "source": "vllm-0.22.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 c387a977e35795e8f77b009e019e69722963819c26b55e4a679e09d4279ae35d): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.22.1",
   "source": "vllm-0.22.1-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 cc50536c93827a577b2bc45f038b8b866c31ed220631008521a337c9b2558f4d): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.23.0",
   "source": "vllm-0.23.0-2-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 872aeb7c36a1ea942216af067ce870ffdf960804e829367e1b4eb36d4831c03c): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.24.0",
   "source": "vllm-0.24.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 2d2831aeba311292250df0132dbc4d8e9f42c654536eaec48e6fe58acb1822cf): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.25.0",
   "source": "vllm-0.25.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 c82e96b01af2142ef398ca92f1e9c5f4ffc119f2cc09fe68ea28865323532f0c): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.25.1",
   "source": "vllm-0.25.1-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 16fc7a28df1576eb6f7ca0455026551b8f9adb674c19c66059359ef3e964bd1e): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.26.0",
   "source": "vllm-0.26.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 adb1e4c9b46d0dfdb094121ae5aad670a42412dd813ed4e5db069ed6a15006de): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.27.0",
   "source": "vllm-0.27.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 02d8265e71bab1cf50f93026211c9a75562a7f0a72b3a32ec5e0e8bcdd62ec75): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.27.1",
   "source": "vllm-0.27.1-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 98e9fc2a1ed8549a733c9d1b242e2002b82367da9e29e37801761438cb3a2670): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.28.0",
   "source": "vllm-0.28.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 addb0ffdaafd8155d75e9b3f5ddb3da28fdee9e8a7097ede91f7db2e9e1a3889): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.29.0",
   "source": "vllm-0.29.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 09d48617fc2be9c6cdcd5db480651ab0d84817b257204f2cc2e3ecbb70bbb635): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.30.0",
   "source": "vllm-0.30.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 ef52ee58c410ead0b8afb190838fa4cbcb52075596f67862a03859d984966ac4): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.31.0",
   "source": "vllm-0.31.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 39132b433967f0962d03d8a5f633b9bee6b32708f566c7d5637b79f8d0ef3433): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.32.0",
   "source": "vllm-0.32.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 5e2ecdc5b0baf72921c288486417ca82778456a448e4fe60b62ee43c0dfc8611): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.33.0",
   "source": "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  },
  {
   "release": "0.34.0",
   "source": "vllm-0.34.0-cp38-abi3-manylinux_2_28_x86_64.whl (PyPI, sha256 79ca4b3cd74aec08c4bf476bdf0cb15735b605ae5368526a2faae1e30f044ca2): the serve subparser as vllm.entrypoints.cli.main builds it (ServeSubcommand.subparser_init, make_arg_parser)"
  }
 ],
 "options": {
  "--additional-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--aggregate-engine-logging": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--all2all-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--allow-credentials": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--allow-deprecated-quantization": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--allowed-headers": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--allowed-local-media-path": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--allowed-media-domains": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--allowed-methods": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--allowed-origins": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--anthropic-disabled-thinking-effort": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--api-key": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--api-server-count": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--async-scheduling": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--attention-backend": {
   "takes": 1,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--attention-config": {
   "takes": 1,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--aux-output-config": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--block-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--cache-aware-admission-threshold": {
   "takes": 1,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--cache-aware-admission-window": {
   "takes": 1,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--calculate-kv-scales": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.27.1"
    ]
   ]
  },
  "--chat-template": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--chat-template-content-format": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--checkpoint-prepare-on-startup": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--code-revision": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--cohere-format": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--cohere-is-reasoning-model": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--collect-detailed-traces": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--compilation-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--config-format": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--convert": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--cp-kv-cache-interleave-size": {
   "takes": 1,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--cpu-distributed-timeout-seconds": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--cpu-offload-gb": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--cpu-offload-params": {
   "takes": "+",
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--cuda-graph-sizes": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.12.0"
    ]
   ]
  },
  "--cudagraph-capture-sizes": {
   "takes": "+",
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--cudagraph-metrics": {
   "takes": 0,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--custom-histogram-buckets": {
   "takes": 1,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-address": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-external-lb": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-hybrid-lb": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-multi-port-external-lb": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-rank": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-rpc-port": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-size-local": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-start-rank": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--data-parallel-supervisor-port": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--dbo-decode-token-threshold": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--dbo-prefill-token-threshold": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--dcp-comm-backend": {
   "takes": 1,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--dcp-kv-cache-interleave-size": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--dcp-q-replicate": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--decode-context-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--default-chat-template-kwargs": {
   "takes": 1,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--default-mm-loras": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--device-ids": {
   "takes": 1,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--device-memory-utilization": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--diffusion-config": {
   "takes": 1,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-access-log-for-endpoints": {
   "takes": 1,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-auto-tool-choice": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-batch-sharded-sampling": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-cascade-attn": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-chunked-mm-input": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-chunked-prefill": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-cumem-allocator": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-custom-all-reduce": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-dbo": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-elastic-ep": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-ep-weight-filter": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-eplb": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-expert-parallel": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-extensible-kv-cache": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-fastapi-docs": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-fault-tolerance": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-flash-late-interaction": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-flashinfer-autotune": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-force-include-usage": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-frontend-multiprocessing": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.18.1"
    ]
   ]
  },
  "--disable-hc-sp": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-hybrid-kv-cache-manager": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-layerwise-nvtx-tracing": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-log-deltas": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-log-outputs": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-log-requests": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.16.0"
    ],
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-log-stats": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-logging-iteration-details": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-lora": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mamba-cache-stochastic-rounding": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mamba-shared-prefix-checkpoint": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mfu-metrics": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mixed-moe-lora-format": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mm-embeds": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-mm-preprocessor-cache": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.12.0"
    ]
   ]
  },
  "--disable-moe-shared-loras": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-nccl-comm-suspend": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-nccl-for-dp-synchronization": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--disable-offline-docs": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-per-request-metrics": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-prefix-caching": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-prompt-embeds": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-prompt-tokens-details": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-request-id-headers": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-return-routed-experts": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-scale-out": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-server-load-tracking": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-shm-tensor-arena": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-sleep-mode": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-sliding-window": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-ssl-refresh": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-tokenizer-info-endpoint": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-tower-connector-lora": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-trace-replay": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--disable-uvicorn-access-log": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--distributed-executor-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--distributed-timeout-seconds": {
   "takes": 1,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--download-dir": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--dp-supervisor-probe-failure-threshold": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--dp-supervisor-probe-interval-s": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--dp-supervisor-probe-timeout-s": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--dp-sync-interval": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ec-manager-config": {
   "takes": 1,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--ec-transfer-config": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--elastic-ep-max-dp-size": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-auto-tool-choice": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-batch-sharded-sampling": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-bf16x3-router-gemm": {
   "takes": 0,
   "in": [
    [
     "0.26.0",
     "0.29.0"
    ]
   ]
  },
  "--enable-cascade-attn": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-chunked-mm-input": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-chunked-prefill": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-cumem-allocator": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-custom-all-reduce": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-dbo": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-elastic-ep": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-ep-weight-filter": {
   "takes": 0,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-eplb": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-expert-parallel": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-extensible-kv-cache": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-fastapi-docs": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-fault-tolerance": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-flash-late-interaction": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-flashinfer-autotune": {
   "takes": 0,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-force-include-usage": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-hc-sp": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-hybrid-kv-cache-manager": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-layerwise-nvtx-tracing": {
   "takes": 0,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-log-deltas": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-log-outputs": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-log-requests": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-logging-iteration-details": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-lora": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-lora-bias": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.11.0"
    ]
   ]
  },
  "--enable-mamba-cache-stochastic-rounding": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-mamba-fine-grained-prefix-cache": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.30.0"
    ]
   ]
  },
  "--enable-mamba-shared-prefix-checkpoint": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-mfu-metrics": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-mixed-moe-lora-format": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-mm-embeds": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--enable-moe-shared-loras": {
   "takes": 0,
   "in": [
    [
     "0.26.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-multimodal-encoder-data-parallel": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.12.0"
    ]
   ]
  },
  "--enable-nccl-comm-suspend": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-nccl-for-dp-synchronization": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-offline-docs": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-per-request-metrics": {
   "takes": 0,
   "in": [
    [
     "0.25.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-prefix-caching": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-prompt-embeds": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-prompt-tokens-details": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-request-id-headers": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-return-routed-experts": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-scale-out": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-server-load-tracking": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-shm-tensor-arena": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-sleep-mode": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-sliding-window": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-ssl-refresh": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-tokenizer-info-endpoint": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-tower-connector-lora": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-trace-replay": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--enable-uvicorn-access-log": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--enforce-eager": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--engram-config": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--eplb-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--eplb-log-balancedness": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--eplb-step-interval": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--eplb-window-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--exclude-tools-when-tool-choice-none": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--expert-placement-strategy": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--fail-on-environ-validation": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--fault-tolerance-config": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--fingerprint-mode": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--fingerprint-value": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--fully-sharded-loras": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--gdn-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--generation-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--gpu-memory-utilization": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--grpc": {
   "takes": 0,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--grpc-port": {
   "takes": 1,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--guided-decoding-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--guided-decoding-disable-additional-properties": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--guided-decoding-disable-any-whitespace": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--guided-decoding-disable-fallback": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--h11-max-header-count": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--h11-max-incomplete-event-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--headless": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--headless-client-handshake-address": {
   "takes": 1,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--help": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--hf-config-path": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--hf-overrides": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--hf-token": {
   "takes": "?",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--host": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ignore-patterns": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--interleave-mm-strings": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--io-processor-plugin": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ir-op-priority": {
   "takes": 1,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--jit-monitor-mode": {
   "takes": 1,
   "in": [
    [
     "0.25.0",
     "0.34.0"
    ]
   ]
  },
  "--jit-monitor-verbose": {
   "takes": 0,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--kda-decode-backend": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--kda-prefill-backend": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--kernel-config": {
   "takes": 1,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-cache-dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-cache-dtype-skip-layers": {
   "takes": "+",
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-cache-memory-bytes": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-cache-metrics": {
   "takes": 0,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-cache-metrics-sample": {
   "takes": 1,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-events-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-offloading-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--kv-offloading-size": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--kv-sharing-fast-prefill": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--kv-transfer-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--language-model-only": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--limit-mm-per-prompt": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--linear-backend": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--load-format": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--log-config-file": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--log-error-stack": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--log-level": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--logging-config": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--logits-processor-pattern": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.16.0"
    ]
   ]
  },
  "--logits-processors": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--logprobs-mode": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--long-prefill-token-threshold": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--long-prefill-token-threshold-adaptive": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--lora-dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--lora-extra-vocab-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--lora-modules": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--lora-target-modules": {
   "takes": "+",
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-backend": {
   "takes": 1,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-block-size": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--mamba-cache-dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-cache-mode": {
   "takes": 1,
   "in": [
    [
     "0.15.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-cache-philox-rounds": {
   "takes": 1,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-ssm-cache-dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mamba-ssu-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--master-addr": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--master-port": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--max-cpu-loras": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-cudagraph-capture-size": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--max-log-len": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-logprobs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-long-partial-prefills": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.26.0"
    ]
   ]
  },
  "--max-lora-cls-labels": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--max-lora-rank": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-loras": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-model-len": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-active-seqs": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-batched-tokens": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-inflight-kv-loads": {
   "takes": 1,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-partial-prefills": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.26.0"
    ]
   ]
  },
  "--max-num-queued-reqs": {
   "takes": 1,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-queued-tokens": {
   "takes": 1,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-scheduled-tokens": {
   "takes": 1,
   "in": [
    [
     "0.26.0",
     "0.34.0"
    ]
   ]
  },
  "--max-num-seqs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--max-parallel-loading-workers": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--media-io-kwargs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--middleware": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-device-do-normalize": {
   "takes": 0,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-attn-backend": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-attn-dtype": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-fp8-scale-path": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-fp8-scale-save-margin": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-fp8-scale-save-path": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-only": {
   "takes": 0,
   "in": [
    [
     "0.15.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-encoder-tp-mode": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-hasher-algorithm": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-ipc-gpu-memory-gb": {
   "takes": 1,
   "in": [
    [
     "0.25.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-processor-cache-gb": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-processor-cache-type": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-processor-device": {
   "takes": 1,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-processor-kwargs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-shm-cache-max-object-size-mb": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--mm-tensor-ipc": {
   "takes": 1,
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--model": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--model-class-overrides": {
   "takes": 1,
   "in": [
    [
     "0.25.0",
     "0.34.0"
    ]
   ]
  },
  "--model-impl": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--model-loader-extra-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--moe-backend": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--monokernel": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--nnodes": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--no-allow-credentials": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-allow-deprecated-quantization": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-async-scheduling": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-calculate-kv-scales": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.27.1"
    ]
   ]
  },
  "--no-checkpoint-prepare-on-startup": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--no-cohere-is-reasoning-model": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--no-cudagraph-metrics": {
   "takes": 0,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--no-data-parallel-external-lb": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--no-data-parallel-hybrid-lb": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-dcp-q-replicate": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-cascade-attn": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-chunked-mm-input": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-custom-all-reduce": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-fastapi-docs": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-frontend-multiprocessing": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.18.1"
    ]
   ]
  },
  "--no-disable-hybrid-kv-cache-manager": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-log-requests": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.16.0"
    ]
   ]
  },
  "--no-disable-nccl-for-dp-synchronization": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-sliding-window": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-disable-uvicorn-access-log": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-auto-tool-choice": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-batch-sharded-sampling": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-bf16x3-router-gemm": {
   "takes": 0,
   "in": [
    [
     "0.26.0",
     "0.29.0"
    ]
   ]
  },
  "--no-enable-chunked-prefill": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-cumem-allocator": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-dbo": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-elastic-ep": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-ep-weight-filter": {
   "takes": 0,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-eplb": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-expert-parallel": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-extensible-kv-cache": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-fault-tolerance": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-flash-late-interaction": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-flashinfer-autotune": {
   "takes": 0,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-force-include-usage": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-hc-sp": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-layerwise-nvtx-tracing": {
   "takes": 0,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-log-deltas": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-log-outputs": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-log-requests": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-logging-iteration-details": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-lora": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-lora-bias": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.11.0"
    ]
   ]
  },
  "--no-enable-mamba-cache-stochastic-rounding": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-mamba-fine-grained-prefix-cache": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.30.0"
    ]
   ]
  },
  "--no-enable-mamba-shared-prefix-checkpoint": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-mfu-metrics": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-mixed-moe-lora-format": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-mm-embeds": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-moe-shared-loras": {
   "takes": 0,
   "in": [
    [
     "0.26.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-nccl-comm-suspend": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-offline-docs": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-per-request-metrics": {
   "takes": 0,
   "in": [
    [
     "0.25.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-prefix-caching": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-prompt-embeds": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-prompt-tokens-details": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-request-id-headers": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-return-routed-experts": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-scale-out": {
   "takes": 0,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-server-load-tracking": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-shm-tensor-arena": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-sleep-mode": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-ssl-refresh": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-tokenizer-info-endpoint": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-tower-connector-lora": {
   "takes": 0,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enable-trace-replay": {
   "takes": 0,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--no-enforce-eager": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-eplb-log-balancedness": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--no-exclude-tools-when-tool-choice-none": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-fail-on-environ-validation": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--no-fully-sharded-loras": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-interleave-mm-strings": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-jit-monitor-verbose": {
   "takes": 0,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--no-kv-cache-metrics": {
   "takes": 0,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--no-kv-sharing-fast-prefill": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-language-model-only": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--no-log-error-stack": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-long-prefill-token-threshold-adaptive": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--no-mm-device-do-normalize": {
   "takes": 0,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--no-mm-encoder-only": {
   "takes": 0,
   "in": [
    [
     "0.15.0",
     "0.34.0"
    ]
   ]
  },
  "--no-monokernel": {
   "takes": 0,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--no-numa-bind": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--no-ray-workers-use-nsight": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-return-sampling-mask": {
   "takes": 0,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--no-return-tokens-as-token-ids": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-scheduler-reserve-full-isl": {
   "takes": 0,
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--no-shuffle-safetensors-files": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--no-skip-mm-profiling": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-skip-tokenizer-init": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-sleep-mode-offload-cudagraph": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--no-specialize-active-lora": {
   "takes": 0,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--no-swa-bounded-replay": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--no-tokens-only": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--no-trust-remote-code": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-trust-request-chat-template": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--no-trust-request-mm-kwargs": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--no-use-fp64-gumbel": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--no-use-gpu-for-pooling-score": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.17.1"
    ]
   ]
  },
  "--no-use-replayssm": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--no-use-tqdm-on-load": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--node-rank": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--num-gpu-blocks-override": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--num-lookahead-slots": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--num-redundant-experts": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--numa-bind": {
   "takes": 0,
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--numa-bind-cpus": {
   "takes": "+",
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--numa-bind-nodes": {
   "takes": "+",
   "in": [
    [
     "0.20.0",
     "0.34.0"
    ]
   ]
  },
  "--offload-backend": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--offload-group-size": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--offload-num-in-group": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--offload-params": {
   "takes": "+",
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--offload-prefetch-step": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--optimization-level": {
   "takes": 1,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--otlp-traces-endpoint": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--override-attention-dtype": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.27.1"
    ]
   ]
  },
  "--override-generation-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--override-pooler-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.2"
    ]
   ]
  },
  "--per-request-spec-decode-metrics": {
   "takes": 1,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--performance-mode": {
   "takes": 1,
   "in": [
    [
     "0.17.0",
     "0.34.0"
    ]
   ]
  },
  "--pipeline-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--pooler-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--port": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--prefill-context-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "--prefill-schedule-interval": {
   "takes": 1,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--prefix-cache-retention-interval": {
   "takes": 1,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--prefix-caching-hash-algo": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--prefix-match-unit": {
   "takes": 1,
   "in": [
    [
     "0.26.0",
     "0.34.0"
    ]
   ]
  },
  "--profiler-config": {
   "takes": 1,
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "--pt-load-map-location": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--quantization": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--quantization-config": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--ray-workers-use-nsight": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--reasoning-config": {
   "takes": 1,
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--reasoning-effort-map": {
   "takes": 1,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--reasoning-parser": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--reasoning-parser-plugin": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--renderer-num-workers": {
   "takes": 1,
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--replayssm-buffer-len": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--response-role": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--return-sampling-mask": {
   "takes": 0,
   "in": [
    [
     "0.28.0",
     "0.34.0"
    ]
   ]
  },
  "--return-tokens-as-token-ids": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--revision": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--root-path": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--rope-scaling": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.0"
    ]
   ]
  },
  "--rope-theta": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.11.0"
    ]
   ]
  },
  "--runner": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--safetensors-load-strategy": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--safetensors-prefetch-block-size": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--safetensors-prefetch-num-threads": {
   "takes": 1,
   "in": [
    [
     "0.21.0",
     "0.34.0"
    ]
   ]
  },
  "--scheduler-cls": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--scheduler-reserve-full-isl": {
   "takes": 0,
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "--scheduling-policy": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--seed": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--served-model-name": {
   "takes": "+",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--show-hidden-metrics-for-version": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--shuffle-safetensors-files": {
   "takes": 0,
   "in": [
    [
     "0.34.0",
     "0.34.0"
    ]
   ]
  },
  "--shutdown-timeout": {
   "takes": 1,
   "in": [
    [
     "0.18.0",
     "0.34.0"
    ]
   ]
  },
  "--skip-mm-profiling": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--skip-tokenizer-init": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--sleep-mode-backend": {
   "takes": 1,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--sleep-mode-offload-cudagraph": {
   "takes": 0,
   "in": [
    [
     "0.32.0",
     "0.34.0"
    ]
   ]
  },
  "--sleep-preserve-parameter-names": {
   "takes": "+",
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--sparse-indexer-topk-backend": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--spec-method": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--spec-model": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--spec-tokens": {
   "takes": 1,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--specialize-active-lora": {
   "takes": 0,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--speculative-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--sse-keep-alive-interval": {
   "takes": 1,
   "in": [
    [
     "0.29.0",
     "0.34.0"
    ]
   ]
  },
  "--ssl-ca-certs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ssl-cert-reqs": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ssl-certfile": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--ssl-ciphers": {
   "takes": 1,
   "in": [
    [
     "0.15.0",
     "0.34.0"
    ]
   ]
  },
  "--ssl-keyfile": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--stream-interval": {
   "takes": 1,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--structured-outputs-config": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--swa-bounded-replay": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--swap-space": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.17.1"
    ]
   ]
  },
  "--task": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.12.0"
    ]
   ]
  },
  "--tensor-parallel-size": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tokenizer": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tokenizer-mode": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tokenizer-revision": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tokens-only": {
   "takes": 0,
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "--tool-call-parser": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tool-parser-plugin": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tool-server": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--tool-strict-level": {
   "takes": 1,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--trust-remote-code": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--trust-request-chat-template": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--trust-request-mm-kwargs": {
   "takes": 0,
   "in": [
    [
     "0.31.0",
     "0.34.0"
    ]
   ]
  },
  "--ubatch-size": {
   "takes": 1,
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "--uds": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--use-fp64-gumbel": {
   "takes": 0,
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "--use-gpu-for-pooling-score": {
   "takes": 0,
   "in": [
    [
     "0.17.0",
     "0.17.1"
    ]
   ]
  },
  "--use-replayssm": {
   "takes": 0,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--use-tqdm-on-load": {
   "takes": 0,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--uvicorn-log-level": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--video-pruning-method": {
   "takes": 1,
   "in": [
    [
     "0.27.0",
     "0.34.0"
    ]
   ]
  },
  "--video-pruning-rate": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--watchdog-config": {
   "takes": 1,
   "in": [
    [
     "0.33.0",
     "0.34.0"
    ]
   ]
  },
  "--watermark": {
   "takes": 1,
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "--watermark-config": {
   "takes": 1,
   "in": [
    [
     "0.30.0",
     "0.34.0"
    ]
   ]
  },
  "--weight-transfer-config": {
   "takes": 1,
   "in": [
    [
     "0.16.0",
     "0.34.0"
    ]
   ]
  },
  "--worker-cls": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "--worker-extension-cls": {
   "takes": 1,
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  }
 },
 "aliases": {
  "-O": {
   "option": "--optimization-level",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-ac": {
   "option": "--attention-config",
   "in": [
    [
     "0.13.0",
     "0.34.0"
    ]
   ]
  },
  "-asc": {
   "option": "--api-server-count",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-cc": {
   "option": "--compilation-config",
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "-dc": {
   "option": "--diffusion-config",
   "in": [
    [
     "0.24.0",
     "0.34.0"
    ]
   ]
  },
  "-dcp": {
   "option": "--decode-context-parallel-size",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dp": {
   "option": "--data-parallel-size",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpa": {
   "option": "--data-parallel-address",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpb": {
   "option": "--data-parallel-backend",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpe": {
   "option": "--data-parallel-external-lb",
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "-dph": {
   "option": "--data-parallel-hybrid-lb",
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "-dpl": {
   "option": "--data-parallel-size-local",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpm": {
   "option": "--data-parallel-multi-port-external-lb",
   "in": [
    [
     "0.22.0",
     "0.34.0"
    ]
   ]
  },
  "-dpn": {
   "option": "--data-parallel-rank",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpp": {
   "option": "--data-parallel-rpc-port",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-dpr": {
   "option": "--data-parallel-start-rank",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-ep": {
   "option": "--enable-expert-parallel",
   "in": [
    [
     "0.14.0",
     "0.34.0"
    ]
   ]
  },
  "-h": {
   "option": "--help",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-n": {
   "option": "--nnodes",
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "-pcp": {
   "option": "--prefill-context-parallel-size",
   "in": [
    [
     "0.12.0",
     "0.34.0"
    ]
   ]
  },
  "-pp": {
   "option": "--pipeline-parallel-size",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-q": {
   "option": "--quantization",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  },
  "-r": {
   "option": "--node-rank",
   "in": [
    [
     "0.11.1",
     "0.34.0"
    ]
   ]
  },
  "-sc": {
   "option": "--speculative-config",
   "in": [
    [
     "0.19.0",
     "0.34.0"
    ]
   ]
  },
  "-tp": {
   "option": "--tensor-parallel-size",
   "in": [
    [
     "0.11.0",
     "0.34.0"
    ]
   ]
  }
 },
 "renames": {
  "--cuda-graph-sizes": {
   "to": "--cudagraph-capture-sizes",
   "since": "0.13.0"
  },
  "--no-disable-cascade-attn": {
   "to": "--enable-cascade-attn",
   "since": "0.33.0"
  },
  "--no-disable-chunked-mm-input": {
   "to": "--enable-chunked-mm-input",
   "since": "0.33.0"
  },
  "--no-disable-custom-all-reduce": {
   "to": "--enable-custom-all-reduce",
   "since": "0.33.0"
  },
  "--no-disable-fastapi-docs": {
   "to": "--enable-fastapi-docs",
   "since": "0.33.0"
  },
  "--no-disable-hybrid-kv-cache-manager": {
   "to": "--enable-hybrid-kv-cache-manager",
   "since": "0.33.0"
  },
  "--no-disable-nccl-for-dp-synchronization": {
   "to": "--enable-nccl-for-dp-synchronization",
   "since": "0.33.0"
  },
  "--no-disable-sliding-window": {
   "to": "--enable-sliding-window",
   "since": "0.33.0"
  },
  "--no-disable-uvicorn-access-log": {
   "to": "--enable-uvicorn-access-log",
   "since": "0.33.0"
  },
  "--no-enable-auto-tool-choice": {
   "to": "--disable-auto-tool-choice",
   "since": "0.33.0"
  },
  "--no-enable-batch-sharded-sampling": {
   "to": "--disable-batch-sharded-sampling",
   "since": "0.33.0"
  },
  "--no-enable-chunked-prefill": {
   "to": "--disable-chunked-prefill",
   "since": "0.33.0"
  },
  "--no-enable-cumem-allocator": {
   "to": "--disable-cumem-allocator",
   "since": "0.33.0"
  },
  "--no-enable-dbo": {
   "to": "--disable-dbo",
   "since": "0.33.0"
  },
  "--no-enable-elastic-ep": {
   "to": "--disable-elastic-ep",
   "since": "0.33.0"
  },
  "--no-enable-ep-weight-filter": {
   "to": "--disable-ep-weight-filter",
   "since": "0.33.0"
  },
  "--no-enable-eplb": {
   "to": "--disable-eplb",
   "since": "0.33.0"
  },
  "--no-enable-expert-parallel": {
   "to": "--disable-expert-parallel",
   "since": "0.33.0"
  },
  "--no-enable-extensible-kv-cache": {
   "to": "--disable-extensible-kv-cache",
   "since": "0.34.0"
  },
  "--no-enable-fault-tolerance": {
   "to": "--disable-fault-tolerance",
   "since": "0.33.0"
  },
  "--no-enable-flash-late-interaction": {
   "to": "--disable-flash-late-interaction",
   "since": "0.33.0"
  },
  "--no-enable-flashinfer-autotune": {
   "to": "--disable-flashinfer-autotune",
   "since": "0.33.0"
  },
  "--no-enable-force-include-usage": {
   "to": "--disable-force-include-usage",
   "since": "0.33.0"
  },
  "--no-enable-hc-sp": {
   "to": "--disable-hc-sp",
   "since": "0.33.0"
  },
  "--no-enable-layerwise-nvtx-tracing": {
   "to": "--disable-layerwise-nvtx-tracing",
   "since": "0.33.0"
  },
  "--no-enable-log-deltas": {
   "to": "--disable-log-deltas",
   "since": "0.33.0"
  },
  "--no-enable-log-outputs": {
   "to": "--disable-log-outputs",
   "since": "0.33.0"
  },
  "--no-enable-log-requests": {
   "to": "--disable-log-requests",
   "since": "0.33.0"
  },
  "--no-enable-logging-iteration-details": {
   "to": "--disable-logging-iteration-details",
   "since": "0.33.0"
  },
  "--no-enable-lora": {
   "to": "--disable-lora",
   "since": "0.33.0"
  },
  "--no-enable-mamba-cache-stochastic-rounding": {
   "to": "--disable-mamba-cache-stochastic-rounding",
   "since": "0.33.0"
  },
  "--no-enable-mamba-shared-prefix-checkpoint": {
   "to": "--disable-mamba-shared-prefix-checkpoint",
   "since": "0.33.0"
  },
  "--no-enable-mfu-metrics": {
   "to": "--disable-mfu-metrics",
   "since": "0.33.0"
  },
  "--no-enable-mixed-moe-lora-format": {
   "to": "--disable-mixed-moe-lora-format",
   "since": "0.33.0"
  },
  "--no-enable-mm-embeds": {
   "to": "--disable-mm-embeds",
   "since": "0.33.0"
  },
  "--no-enable-moe-shared-loras": {
   "to": "--disable-moe-shared-loras",
   "since": "0.33.0"
  },
  "--no-enable-nccl-comm-suspend": {
   "to": "--disable-nccl-comm-suspend",
   "since": "0.33.0"
  },
  "--no-enable-offline-docs": {
   "to": "--disable-offline-docs",
   "since": "0.33.0"
  },
  "--no-enable-per-request-metrics": {
   "to": "--disable-per-request-metrics",
   "since": "0.33.0"
  },
  "--no-enable-prefix-caching": {
   "to": "--disable-prefix-caching",
   "since": "0.33.0"
  },
  "--no-enable-prompt-embeds": {
   "to": "--disable-prompt-embeds",
   "since": "0.33.0"
  },
  "--no-enable-prompt-tokens-details": {
   "to": "--disable-prompt-tokens-details",
   "since": "0.33.0"
  },
  "--no-enable-request-id-headers": {
   "to": "--disable-request-id-headers",
   "since": "0.33.0"
  },
  "--no-enable-return-routed-experts": {
   "to": "--disable-return-routed-experts",
   "since": "0.33.0"
  },
  "--no-enable-scale-out": {
   "to": "--disable-scale-out",
   "since": "0.33.0"
  },
  "--no-enable-server-load-tracking": {
   "to": "--disable-server-load-tracking",
   "since": "0.33.0"
  },
  "--no-enable-shm-tensor-arena": {
   "to": "--disable-shm-tensor-arena",
   "since": "0.33.0"
  },
  "--no-enable-sleep-mode": {
   "to": "--disable-sleep-mode",
   "since": "0.33.0"
  },
  "--no-enable-ssl-refresh": {
   "to": "--disable-ssl-refresh",
   "since": "0.33.0"
  },
  "--no-enable-tokenizer-info-endpoint": {
   "to": "--disable-tokenizer-info-endpoint",
   "since": "0.33.0"
  },
  "--no-enable-tower-connector-lora": {
   "to": "--disable-tower-connector-lora",
   "since": "0.33.0"
  },
  "--no-enable-trace-replay": {
   "to": "--disable-trace-replay",
   "since": "0.33.0"
  }
 }
}'''
