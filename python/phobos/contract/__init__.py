"""What the compiler and the runtime agree on, importable without MLIR.

  artifact        a compiled kernel: cubin bytes, the launch contract (JSON) and its checks
  check_record    the layout of a check-mode kernel's record of a broken promise
  fingerprint     the compiler fingerprint that names compatible artifacts and cache entries
  specialization  specialisation keys: what a launch learns from its arguments

Below compiler/, passes/ (tile-specialize reads keys) and runtime/, and imports none of them;
none of these modules imports MLIR (the runtime runs on machines without it).
"""
