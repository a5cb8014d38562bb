// The `tile` dialect: the tile-specific ops of Phobos, in IRDL.
//
// This file is the single source of truth for the dialect. Phobos loads it into
// every context (phobos.dialect.load_tile_dialect) and upstream tools load it with
// `mlir-opt --irdl-file=dialect/tile.irdl.mlir`. IRDL ops parse and print in the
// generic form only, e.g. `"tile.load_slice"(%A, %i, %j) : (...) -> tensor<..>`.
//
// Everything that IRDL cannot express (ranks, shapes, hint arrays, segment
// consistency, kernel attributes) is checked by the `tile-verify` pass; the
// per-op rules are documented in dialect/tile.py next to each op class.
irdl.dialect @tile {
  // A blocked distribution of a tile over the threads of a CTA (Triton's
  // #blocked): per dimension, the elements one thread holds contiguously, the
  // lanes of a warp, and the warps of the CTA; `order` lists the dimensions from
  // the fastest-varying to the slowest.
  irdl.attribute @blocked {
    // IRDL unifies a constraint value across its uses: each parameter needs its own.
    %spt = irdl.base "#builtin.dense_array"
    %tpw = irdl.base "#builtin.dense_array"
    %wpc = irdl.base "#builtin.dense_array"
    %ord = irdl.base "#builtin.dense_array"
    irdl.parameters(size_per_thread: %spt, threads_per_warp: %tpw, warps_per_cta: %wpc, order: %ord)
  }

  // The index of this CTA in the grid along `dim` (0, 1, 2 = x, y, z).
  irdl.operation @block_id {
    %int = irdl.base "#builtin.integer"
    %index = irdl.is index
    irdl.attributes {"dim" = %int}
    irdl.results(id: %index)
  }

  // The number of CTAs in the grid along `dim`.
  irdl.operation @grid_dim {
    %int = irdl.base "#builtin.integer"
    %index = irdl.is index
    irdl.attributes {"dim" = %int}
    irdl.results(size: %index)
  }

  // The 1-D tile [start, start + 1, ..., end - 1].
  irdl.operation @range {
    %start = irdl.base "#builtin.integer"
    %end = irdl.base "#builtin.integer"
    %tensor = irdl.base "!builtin.tensor"
    irdl.attributes {"start" = %start, "end" = %end}
    irdl.results(result: %tensor)
  }

  // Broadcasts a tile along its dimensions of extent 1 to the result shape.
  irdl.operation @broadcast {
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }

  // Permutes the dimensions of a tile.
  irdl.operation @transpose {
    %perm = irdl.base "#builtin.dense_array"
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes {"permutation" = %perm}
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }

  // The same tile, held the way its uses need (tile-convert-layouts inserts it where
  // one value would otherwise need two placements in the kernel's layout); the
  // lowering moves the elements between threads through shared memory.
  irdl.operation @convert_layout {
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }

  // Slice form (block-pointer style): reads the tile of the result's shape whose
  // corner is `starts` (one index per dimension of `base`). Elements outside
  // the tensor read as zero unless the dimension is marked in bounds.
  // Optional attribute (IRDL 22 has no optional attributes; tile-verify checks
  // it): `padding`, a scalar of the element type (`padding = 0xFF800000 : f32`
  // is -inf), the value elements outside the tensor read as instead of zero.
  irdl.operation @load_slice {
    %memref = irdl.base "!builtin.memref"
    %index = irdl.is index
    %tensor = irdl.base "!builtin.tensor"
    irdl.operands(base: %memref, starts: variadic %index)
    irdl.results(result: %tensor)
  }

  // Slice form store: writes `value` to the tile of `base` at `starts`;
  // elements outside the tensor are not written.
  irdl.operation @store_slice {
    %value = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %index = irdl.is index
    irdl.operands(value: %value, base: %memref, starts: variadic %index)
    irdl.results()
  }

  // Offset form (arange style): reads base[offsets] element-wise, where an
  // offset counts elements from the first element of `base`. Where `mask` is
  // false the element is not read and the result holds zero, or the optional
  // attribute `padding` (a scalar of the element type, as on load_slice).
  irdl.operation @load {
    %memref = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(base: %memref, offsets: %offsets, mask: optional %mask)
    irdl.results(result: %result)
  }

  // Offset form store: base[offsets] = value where `mask` is true.
  irdl.operation @store {
    %value = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    irdl.operands(value: %value, base: %memref, offsets: %offsets, mask: optional %mask)
    irdl.results()
  }

  // Atomic read-modify-write of base.flat[offsets] with `value`, element by
  // element, where `mask` holds: `kind` is "add", "max", "min" or "xchg"; `sem`
  // "relaxed", "acquire", "release" or "acq_rel"; `scope` "cta", "gpu" or "sys".
  // The result holds the old values (zero where masked off); the GPU lowering
  // emits `red` when the result is unused.
  irdl.operation @atomic_rmw {
    %kind = irdl.base "#builtin.string"
    %sem = irdl.base "#builtin.string"
    %scope = irdl.base "#builtin.string"
    %value = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes {"kind" = %kind, "sem" = %sem, "scope" = %scope}
    irdl.operands(value: %value, base: %memref, offsets: %offsets, mask: optional %mask)
    irdl.results(result: %result)
  }

  // Atomic compare-and-swap of base.flat[offsets]: where `mask` holds and the
  // element equals `compare` (bitwise), it becomes `value`; the result holds
  // the old values (zero where masked off). `sem` and `scope` as atomic_rmw.
  irdl.operation @atomic_cas {
    %sem = irdl.base "#builtin.string"
    %scope = irdl.base "#builtin.string"
    %compare = irdl.base "!builtin.tensor"
    %value = irdl.base "!builtin.tensor"
    %memref = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes {"sem" = %sem, "scope" = %scope}
    irdl.operands(compare: %compare, value: %value, base: %memref, offsets: %offsets, mask: optional %mask)
    irdl.results(result: %result)
  }

  // A CTA-local tile updated atomically at tile.flat[offsets]: `tile` with `kind`
  // ("add", "max" or "min") applied with `value` where `mask` holds, element by
  // element in row-major order (duplicate offsets accumulate). The result is the
  // updated tile; an unmasked offset outside the tile is an error. The GPU lowering
  // keeps the tile in a planned shared-memory buffer for the op (atom/red.shared).
  irdl.operation @local_rmw {
    %kind = irdl.base "#builtin.string"
    %tile = irdl.base "!builtin.tensor"
    %value = irdl.base "!builtin.tensor"
    %offsets = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes {"kind" = %kind}
    irdl.operands(tile: %tile, value: %value, offsets: %offsets, mask: optional %mask)
    irdl.results(result: %result)
  }

  // Matrix product with accumulation: result = acc + lhs x rhs,
  // [M, K] x [K, N] + [M, N] -> [M, N].
  irdl.operation @dot {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    %acc = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs, acc: %acc)
    irdl.results(result: %result)
  }

  // Reduces `source` along `axis` with `kind` ("sum", "max" or "min"); the axis is
  // removed from the shape, and reducing a 1-D tile gives a scalar.
  irdl.operation @reduce {
    %int = irdl.base "#builtin.integer"
    %str = irdl.base "#builtin.string"
    %tensor = irdl.base "!builtin.tensor"
    %any = irdl.any
    irdl.attributes {"kind" = %str, "axis" = %int}
    irdl.operands(source: %tensor)
    irdl.results(result: %any)
  }

  // Inclusive prefix scan of `source` along `axis` with `kind` ("sum").
  irdl.operation @scan {
    %int = irdl.base "#builtin.integer"
    %str = irdl.base "#builtin.string"
    %source = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.attributes {"kind" = %str, "axis" = %int}
    irdl.operands(source: %source)
    irdl.results(result: %result)
  }

  // Facts the user promises about an integer scalar or tile, per dimension:
  // optional attributes `divisibility`, `contiguity`, `constancy`, each an
  // array<i64> of powers of two with one entry per dimension (one for a
  // scalar). The result is the operand; the analysis takes the hint instead
  // of what it computed. No code is generated.
  irdl.operation @hint {
    %value = irdl.any
    %result = irdl.any
    irdl.operands(value: %value)
    irdl.results(result: %result)
  }

  // The kernel-entry check of an `@aligned(symbol = divisor)` promise: traps
  // when `value` is not a multiple of `divisor`; the result is `value`, known
  // to be a multiple of `divisor` from here on.
  irdl.operation @check_multiple {
    %int = irdl.base "#builtin.integer"
    %str = irdl.base "#builtin.string"
    %value = irdl.is index
    %result = irdl.is index
    irdl.attributes {"divisor" = %int, "symbol" = %str}
    irdl.operands(value: %value)
    irdl.results(result: %result)
  }

  // A promise verified on the device (check mode, PHOBOS_CHECK=1): `condition`
  // (an i1, or a tile of i1) holds for every element. Where it does not, the
  // thread records `check`, `message`, the op's location, its CTA and thread
  // and the element of `value` (an integer scalar or tile of the condition's
  // shape) in the kernel's check record, and exits. Inserted by
  // tile-insert-checks and tile-elide-masks, never written by hand.
  irdl.operation @check {
    %kind = irdl.base "#builtin.string"
    %message = irdl.base "#builtin.string"
    %condition = irdl.any
    %value = irdl.any
    irdl.attributes {"check" = %kind, "message" = %message}
    irdl.operands(condition: %condition, value: %value)
    irdl.results()
  }

  // Synchronises the threads of the CTA.
  irdl.operation @barrier {
    irdl.operands()
    irdl.results()
  }

  // Synchronises all CTAs of a persistent grid.
  irdl.operation @grid_barrier {
    irdl.operands()
    irdl.results()
  }
}
