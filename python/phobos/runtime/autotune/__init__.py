"""@autotune: compile every candidate, check it against a reference, time it on the device, keep the winner.

    k = phobos.compile("bench/kernels/saxpy.ph")     # @autotune(BLOCK in [1024, 4096])
    result = k.autotune(x, y, 2.0)                    # compile (in parallel), check, time, cache
    print(result.table())                             # candidate, time, GB/s, rejected and why
    k.best_config                                     # {"BLOCK": 4096}
    k(x, y, 2.0)                                      # launches the winner for arguments like these

The parts, each usable alone (the CPU tests drive them with fakes):

  candidates      the Cartesian product of the @autotune spaces (values fixed by
                  `defines` stay fixed), first value first
  default         what a launch that does not tune runs (PHOBOS_AUTOTUNE=0): the
                  candidate a cost model estimates fastest for the extents
  pruning         before compiling, candidates whose @aligned promises the
                  arguments at hand break, and those whose carried dot sum alone
                  needs more registers than a thread has (while another fits);
                  after compiling, those whose registers (EIATTR_REGCOUNT of the
                  cubin) or shared memory exceed the chip
  compile_all     candidates compile in persistent worker processes (largest first)
                  into the kernel cache; cache hits compile nothing, so an
                  interrupted tuning resumes
  evaluate        each candidate runs once on fresh copies of the arguments and
                  its outputs are compared with the reference (a `reference=`
                  callable, else the most conservative candidate) with per-dtype
                  tolerances; then the ones that agree are timed (`timer`)
  TuningStore     the winner on disk, next to the kernel cache:
                  <root>/autotune/<family>/<hash of spec key, tuning key, device>.json
  EventTimer      CUDA events around each launch, warm-up, the L2 flushed before
                  every timed launch, median (what triton.testing.do_bench does)
  DeviceRunner    the GPU side: scratch copies of the arguments (the caller's tensors
                  are never written while tuning), launches, read-back

Nothing here imports MLIR: a machine without it tunes from a folder of candidates
compiled ahead of time (phobos aot --all-candidates; phobos.load(folder)).

The modules, each one section of the tuner:

  space       the candidates, tuning keys, @aligned pruning, the space of a .ph source
  tile_facts  what each candidate does per CTA (tiles, dots, grid axes), from the front end
  cost_model  an estimated time per candidate for a launch's extents, from those facts
  default     the untuned default: the cost model's pick, and why (PHOBOS_AUTOTUNE_DEFAULT)
  resources   registers, shared memory and stack frame from the cubin; the chip's limits
  register_floor  a lower bound on registers per thread from the tile facts, the pruning on it
  results     Candidate, TuneResult, the errors, TuningStore (the winner on disk)
  progress    the progress bar
  checking    compare, evaluate (check then time), EventTimer
  device      DeviceRunner and where outputs are compared (compare_backend)
  parallel    compile_all and the compile job of one candidate
  pool        the persistent worker processes (one thread each, warm, crash- and Ctrl-C-safe)
  tuner       Tuner, SourceTuner (from source), FolderTuner (an ahead-of-time folder)
  manifest    compile_candidates and load_manifest (ahead of time, autotune.json)

The tuner reads a kernel through its public surface only (phobos.runtime.kernel: `variant`,
`source_text`, `portable_source`, `tile_contract`, and the attributes every kernel has).
"""

from .checking import TOLERANCES, EventTimer, compare, evaluate
from .checking import _array_module as _array_module  # the unit tests call these two
from .checking import _compare_xp as _compare_xp
from .cost_model import ChipModel, Estimate, chip_model, rank
from .default import ENV_DEFAULT, DefaultChoice, choose_default
from .default import policy as default_policy
from .device import ENV_COMPARE, DeviceRunner, compare_backend
from .manifest import MANIFEST, compile_candidates, load_manifest
from .parallel import ENV_JOBS, compile_all, default_jobs, first_error
from .progress import Progress
from .resources import Limits, Resources, chip_limits, cubin_resources, device_limits, resource_violation
from .results import STORE_FORMAT, Candidate, TuneResult, TuningError, TuningFault, TuningStore, write_json
from .space import (
    ENV,
    SourceSpace,
    bucket,
    candidates,
    config_folder,
    config_name,
    conservative_order,
    enabled,
    promise_violation,
    source_space,
    symbol_extents,
    tuning_key,
)
from .tile_facts import TileFacts, kernel_facts, source_facts
from .tuner import FolderTuner, SourceTuner, Tuner

__all__ = [
    "ENV",
    "ENV_COMPARE",
    "ENV_DEFAULT",
    "ENV_JOBS",
    "MANIFEST",
    "STORE_FORMAT",
    "TOLERANCES",
    "Candidate",
    "ChipModel",
    "DefaultChoice",
    "Estimate",
    "DeviceRunner",
    "EventTimer",
    "FolderTuner",
    "Limits",
    "Progress",
    "Resources",
    "SourceSpace",
    "SourceTuner",
    "TileFacts",
    "TuneResult",
    "Tuner",
    "TuningError",
    "TuningFault",
    "TuningStore",
    "bucket",
    "candidates",
    "chip_limits",
    "chip_model",
    "choose_default",
    "compare",
    "compare_backend",
    "compile_all",
    "compile_candidates",
    "config_folder",
    "config_name",
    "conservative_order",
    "cubin_resources",
    "default_jobs",
    "default_policy",
    "device_limits",
    "enabled",
    "evaluate",
    "first_error",
    "kernel_facts",
    "load_manifest",
    "promise_violation",
    "rank",
    "resource_violation",
    "source_facts",
    "source_space",
    "symbol_extents",
    "tuning_key",
    "write_json",
]
