// Hand-written kernels that exercise the runtime independently of the Phobos
// compiler: lean parameters (pointers, i64 extents/strides, scalars) exactly as
// a launch contract describes them. Built by bench/handwritten/build.py.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Y[i] = alpha * X[i] + Y[i]; 1024 elements per CTA of 256 threads, masked.
    gpu.func @saxpy(%x: !llvm.ptr, %n: i64, %y: !llvm.ptr, %alpha: f32) kernel {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %b = arith.index_cast %bid : index to i64
      %t = arith.index_cast %tid : index to i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c4 = arith.constant 4 : i64
      %c256 = arith.constant 256 : i64
      %c1024 = arith.constant 1024 : i64
      %start = arith.muli %b, %c1024 : i64
      %base = arith.addi %start, %t : i64
      scf.for %j = %c0 to %c4 step %c1 : i64 {
        %o = arith.muli %j, %c256 : i64
        %i = arith.addi %base, %o : i64
        %in = arith.cmpi slt, %i, %n : i64
        scf.if %in {
          %px = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %py = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %vx = llvm.load %px : !llvm.ptr -> f32
          %vy = llvm.load %py : !llvm.ptr -> f32
          %m = arith.mulf %alpha, %vx : f32
          %r = arith.addf %m, %vy : f32
          llvm.store %r, %py : f32, !llvm.ptr
        }
      }
      gpu.return
    }

    // The same with the promise N % 1024 == 0 (checked at entry: a broken promise
    // traps), unmasked 16-byte vector accesses.
    gpu.func @saxpy_aligned(%x: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %n: i64,
                            %y: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %alpha: f32) kernel {
      %c0 = arith.constant 0 : i64
      %c4 = arith.constant 4 : i64
      %c1024 = arith.constant 1024 : i64
      %rem = arith.remsi %n, %c1024 : i64
      %broken = arith.cmpi ne, %rem, %c0 : i64
      scf.if %broken {
        "llvm.intr.trap"() : () -> ()
      }
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %b = arith.index_cast %bid : index to i64
      %t = arith.index_cast %tid : index to i64
      %start = arith.muli %b, %c1024 : i64
      %t4 = arith.muli %t, %c4 : i64
      %i = arith.addi %start, %t4 : i64
      %px = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %py = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %vx = llvm.load %px {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
      %vy = llvm.load %py {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
      %va = vector.broadcast %alpha : f32 to vector<4xf32>
      %m = arith.mulf %va, %vx : vector<4xf32>
      %r = arith.addf %m, %vy : vector<4xf32>
      llvm.store %r, %py {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
      gpu.return
    }

    // Y[m, n] = alpha * X[m, n] on 32x128 tiles (CTA (pm, pn)), masked; leading
    // strides in elements.
    gpu.func @scale(%x: !llvm.ptr, %rows: i64, %cols: i64, %sx: i64, %y: !llvm.ptr, %sy: i64, %alpha: f32) kernel {
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tid = gpu.thread_id x
      %pm = arith.index_cast %bx : index to i64
      %pn = arith.index_cast %by : index to i64
      %t = arith.index_cast %tid : index to i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c2 = arith.constant 2 : i64
      %c16 = arith.constant 16 : i64
      %c32 = arith.constant 32 : i64
      %c128 = arith.constant 128 : i64
      %row0 = arith.divui %t, %c128 : i64
      %lane = arith.remui %t, %c128 : i64
      %r0 = arith.muli %pm, %c32 : i64
      %cbase = arith.muli %pn, %c128 : i64
      %col = arith.addi %cbase, %lane : i64
      %colok = arith.cmpi slt, %col, %cols : i64
      scf.for %j = %c0 to %c16 step %c1 : i64 {
        %dr = arith.muli %j, %c2 : i64
        %rr = arith.addi %r0, %row0 : i64
        %row = arith.addi %rr, %dr : i64
        %rowok = arith.cmpi slt, %row, %rows : i64
        %ok = arith.andi %rowok, %colok : i1
        scf.if %ok {
          %ox = arith.muli %row, %sx : i64
          %ix = arith.addi %ox, %col : i64
          %oy = arith.muli %row, %sy : i64
          %iy = arith.addi %oy, %col : i64
          %px = llvm.getelementptr %x[%ix] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %py = llvm.getelementptr %y[%iy] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %vx = llvm.load %px : !llvm.ptr -> f32
          %r = arith.mulf %alpha, %vx : f32
          llvm.store %r, %py : f32, !llvm.ptr
        }
      }
      gpu.return
    }
  }
}
