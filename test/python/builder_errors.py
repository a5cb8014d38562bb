# The builder reports misuse as Python exceptions naming the problem, and
# tile-verify catches IR it lets through.
# RUN: %python %s | FileCheck %s

from phobos import builder as tb
from phobos.dialect.verify import verify_tile_ir

with tb.context(), tb.Location.unknown():
    module = tb.Module.create()
    with tb.InsertionPoint(module.body):
        try:

            @tb.kernel
            def untyped(X):
                pass
        except TypeError as e:
            # CHECK: kernel parameter 'X' needs a Tensor(...) or scalar type annotation
            print(e)

        @tb.kernel
        def shapes(X: tb.Tensor(tb.f32, "N")):
            a = tb.arange(0, 64, tb.i32)
            b = tb.arange(0, 32, tb.i32)
            try:
                a + b
            except TypeError as e:
                # CHECK: shapes [64] and [32] do not broadcast
                print(e)
            try:
                a + (a < 3)
            except TypeError as e:
                # CHECK: element types differ: i32 and bool do not meet (bool and numbers do not mix
                print(e)
            try:
                a * True
            except TypeError as e:
                # CHECK: cannot combine the bool True with a i32 value (bool and numbers do not mix)
                print(e)
            try:
                tb.arange(0, 64, tb.i8) + 300
            except TypeError as e:
                # CHECK: the constant 300 does not fit i8
                print(e)
            try:
                tb.exp(a)
            except TypeError as e:
                # CHECK: exp needs a float operand, got i32 (convert with tb.cast)
                print(e)
            try:
                tb.cast(a, tb.i1)
            except TypeError as e:
                # CHECK: cannot convert i32 to bool: compare instead (x != 0)
                print(e)
            tb.load_slice(X, [0, 0], [32])

    # CHECK: verified: False
    print("verified:", verify_tile_ir(module.operation))
