"""Kernel-level checks: attributes, parameters and dimension symbols.

A mixin of the Checker (it uses its `error`, `check_block` and scopes).
Fills the kernel's KernelInfo: the @autotune space and bindings (the first
value, or the -D define), @launch, @aligned promises, flags, parameters and
the dimension symbols shared across tensor parameters.
"""

from __future__ import annotations

from . import ast as A
from . import types as T
from .fp8_rules import scalar_param_error
from .symbols import KernelInfo, Symbol

MAX_THREADS = 1024
# What an sm_90 multiprocessor holds, and PTX's range of .maxnreg: @launch
# values past these are refused by the hardware or ptxas, so they are errors here.
SM_MAX_CTAS = 32
SM_MAX_THREADS = 2048
SM_REGISTERS = 65536
MIN_REGS, MAX_REGS = 16, 255
FLAG_ATTRIBUTES = ("pipeline", "tensorcore", "persistent", "assert_coalesced", "fastmath", "checked")
KNOWN_ATTRIBUTES = ("autotune", "launch", "aligned") + FLAG_ATTRIBUTES
LAUNCH_FIELDS = ("threads", "minBlocks", "maxRegs")
MIN_PIPELINE_DEPTH, MAX_PIPELINE_DEPTH = 2, 8  # phobos.dialect.kernel's bounds (the front end imports no MLIR)


class KernelChecks:
    def check_kernel(self, kernel: A.Kernel) -> None:
        """Checks the attributes and parameters, then the body."""
        info = KernelInfo()
        self.info = info
        kernel.info = info
        self.kernel_name = kernel.name
        self.autotune_value_pos = {}
        self.autotune_value_pos_of[kernel.name] = self.autotune_value_pos  # kept after the next kernel
        self.kernel_scope = {}
        self.scopes = []
        self.broken_consts: dict[str, A.Pos] = {}
        by_name = self._attributes_by_name(kernel)
        if "autotune" in by_name:
            self._autotune(by_name["autotune"], info)
        for name, value in info.bindings.items():
            self.kernel_scope[name] = Symbol("const", name, T.INDEX, by_name["autotune"].pos, const=value)
        for name, pos in self.broken_consts.items():
            # Already reported: uses of the name stay quiet.
            self.kernel_scope.setdefault(name, Symbol("const", name, T.ERROR, pos))
        self._params(kernel, info)
        if "launch" in by_name:
            info.launch = self._launch(by_name["launch"])
        if "aligned" in by_name:
            self._aligned(by_name["aligned"], info)
        for flag in FLAG_ATTRIBUTES:
            if flag in by_name:
                attr = by_name[flag]
                if flag == "pipeline" and attr.args:
                    info.pipeline_depth = self._pipeline_depth(attr)
                elif attr.args:
                    self.error(attr.args[0].pos, f"@{flag} takes no arguments")
                info.flags.add(flag)
        self.check_block(kernel.body)

    def _pipeline_depth(self, attr: A.Attribute) -> int | None:
        """`@pipeline(S)`: S stages per ring, a literal or an @autotune constant."""
        if len(attr.args) > 1 or attr.args[0].kind != "positional":
            self.error(attr.args[0].pos, "@pipeline takes one argument, the number of stages: @pipeline(4)")
            return None
        arg = attr.args[0]
        depth = self._attr_int(arg.value, "@pipeline")
        if depth is None:
            return None
        # every candidate of an @autotune space, not only the one bound now
        space = self.info.space.get(arg.value.name, [depth]) if isinstance(arg.value, A.Name) else [depth]
        bad = [v for v in space if not MIN_PIPELINE_DEPTH <= v <= MAX_PIPELINE_DEPTH]
        if bad:
            got = f"the @autotune space of '{arg.value.name}' has {bad[0]}" if len(space) > 1 else f"got {bad[0]}"
            self.error(
                arg.pos,
                f"@pipeline takes {MIN_PIPELINE_DEPTH} to {MAX_PIPELINE_DEPTH} stages, {got}; "
                "at least two: one stage is read while the next is copied",
            )
            return None
        return depth

    def _attributes_by_name(self, kernel: A.Kernel) -> dict[str, A.Attribute]:
        by_name: dict[str, A.Attribute] = {}
        for attr in kernel.attributes:
            if attr.name not in KNOWN_ATTRIBUTES:
                self.error(
                    attr.pos,
                    f"unknown attribute '@{attr.name}' (expected one of "
                    f"{', '.join('@' + a for a in KNOWN_ATTRIBUTES)})",
                )
            elif attr.name in by_name:
                self.error(
                    attr.pos, f"duplicate attribute '@{attr.name}'", ((by_name[attr.name].pos, "first given here"),)
                )
            else:
                by_name[attr.name] = attr
        return by_name

    def _autotune(self, attr: A.Attribute, info: KernelInfo) -> None:
        if not attr.args:
            self.error(attr.pos, "@autotune needs at least one 'NAME in [values]'")
        for arg in attr.args:
            if arg.kind != "space":
                self.error(arg.pos, "expected 'NAME in [values]' in @autotune")
                continue
            if arg.name in info.space:
                self.error(arg.pos, f"'{arg.name}' is already autotuned")
                continue
            values = self._space_values(arg)
            if values is None:
                self.broken_consts[arg.name] = arg.pos
                continue
            info.space[arg.name] = values
            if arg.name in self.defines:
                self.used_defines.add(arg.name)
                chosen = self.defines[arg.name]
                if chosen not in values:
                    self.error(
                        arg.pos, f"-D {arg.name}={chosen} is not in the @autotune space of '{arg.name}': {values}"
                    )
                    chosen = values[0]  # keeps checking the rest with a valid binding
                info.bindings[arg.name] = chosen
            else:
                info.bindings[arg.name] = values[0]
            # the literal of the bound value, for notes about tiles it shapes (or the space)
            written = [v.pos for v in arg.values if v.value == info.bindings[arg.name]]
            self.autotune_value_pos[arg.name] = written[0] if written else arg.pos

    def _space_values(self, arg: A.AttrArg) -> list[int] | None:
        raw = [v.value for v in arg.values]
        for lit in arg.values:
            if lit.value <= 0:
                self.error(lit.pos, f"@autotune values must be positive, got {lit.value}")
                return None
        if len(raw) == 2 and raw[0] < raw[1]:
            lo, hi = raw
            for lit in arg.values:
                if lit.value & (lit.value - 1):
                    self.error(
                        lit.pos,
                        f"'{arg.name} in [{lo}, {hi}]' means the powers of two from {lo} to {hi}, "
                        f"so both ends must be powers of two; {lit.value} is not",
                    )
                    return None
            values, p = [], lo
            while p <= hi:
                values.append(p)
                p *= 2
            return values
        if len(set(raw)) != len(raw):
            self.error(arg.pos, f"@autotune space of '{arg.name}' lists a value twice: {raw}")
            return None
        return raw

    def _params(self, kernel: A.Kernel, info: KernelInfo) -> None:
        for index, param in enumerate(kernel.params):
            ty = self._param_type(param)
            sym = Symbol("param", param.name, ty, param.pos, index=index)
            info.params.append(sym)
            previous = self.kernel_scope.get(param.name)
            if previous is not None:
                self.error(
                    param.pos,
                    f"'{param.name}' is already declared as a {previous.describe()}",
                    ((previous.pos, "declared here"),),
                )
                continue
            self.kernel_scope[param.name] = sym
        # Dimension symbols: one per name, shared by every parameter using it.
        for param, sym in zip(kernel.params, info.params):
            if not isinstance(sym.ty, T.Tensor):
                continue
            for dim in param.type.dims:
                if dim.name is None:
                    continue
                existing = self.kernel_scope.get(dim.name)
                if existing is None:
                    self.kernel_scope[dim.name] = info.dims[dim.name] = Symbol("dim", dim.name, T.INDEX, dim.pos)
                elif existing.kind == "const":
                    info.dims.setdefault(dim.name, existing)
                elif existing.kind == "param":
                    self.error(
                        dim.pos,
                        f"'{dim.name}' names both a parameter and a dimension",
                        ((existing.pos, "the parameter is declared here"),),
                    )

    def _param_type(self, param: A.Param) -> T.Type:
        ref = param.type
        if ref.kind == "scalar":
            if T.is_fp8(ref.element):
                return self.error(ref.pos, scalar_param_error(param.name, ref.element))
            return T.Scalar(ref.element)
        if ref.kind == "tile":
            return self.error(
                ref.pos, f"kernel parameters cannot be tiles; pass a tensor<{ref.element}>[...] and slice it"
            )
        static: list[int | None] = []
        for dim in ref.dims:
            if dim.value is not None:
                if dim.value <= 0:
                    self.error(dim.pos, f"tensor dimensions must be positive, got {dim.value}")
                    return T.ERROR
                static.append(dim.value)
            else:
                static.append(self.info.bindings.get(dim.name))
        return T.Tensor(ref.element, tuple(d.text() for d in ref.dims), tuple(static))

    def _attr_int(self, value: A.Expr, what: str) -> int | None:
        """An attribute value that must be an integer: a literal or an @autotune constant."""
        if isinstance(value, A.IntLit):
            return value.value
        if isinstance(value, A.Name):
            if value.name in self.info.bindings:
                return self.info.bindings[value.name]
            if value.name in self.broken_consts:
                return None
            self.error(
                value.pos, f"unknown constant '{value.name}' in {what} (expected a literal or an @autotune constant)"
            )
            return None
        self.error(value.pos, f"{what} expects an integer, got {value.value}")
        return None

    def _launch(self, attr: A.Attribute) -> dict[str, int] | None:
        values: dict[str, tuple[int, A.Pos]] = {}
        if not attr.args:
            self.error(attr.pos, "@launch needs the number of threads per CTA, as in @launch(256)")
            return None
        for i, arg in enumerate(attr.args):
            if arg.kind == "space":
                self.error(arg.pos, "@launch takes (threads[, minBlocks[, maxRegs]]), not a search space")
                return None
            if arg.kind == "keyword":
                if arg.name not in LAUNCH_FIELDS:
                    self.error(arg.pos, f"@launch has no argument '{arg.name}' (expected {', '.join(LAUNCH_FIELDS)})")
                    return None
                name = arg.name
            elif i >= len(LAUNCH_FIELDS):
                self.error(
                    arg.pos, f"@launch takes at most 3 arguments (threads, minBlocks, maxRegs), got {len(attr.args)}"
                )
                return None
            else:
                name = LAUNCH_FIELDS[i]
            if name in values:
                self.error(arg.pos, f"@launch {name} is given twice")
                return None
            v = self._attr_int(arg.value, f"@launch {name}")
            if v is None:
                return None
            values[name] = (v, arg.value.pos)
        if "threads" not in values:
            self.error(attr.pos, "@launch needs the number of threads per CTA")
            return None
        threads, pos = values["threads"]
        ok = True
        if threads <= 0 or threads % 32:
            self.error(pos, f"@launch threads must be a multiple of 32, got {threads}")
            ok = False
        elif threads > MAX_THREADS:
            self.error(pos, f"@launch threads must be at most {MAX_THREADS}, got {threads}")
            ok = False
        ok = self._launch_limits(threads, values) and ok
        if not ok:
            return None
        out = {"threads": threads}
        if "minBlocks" in values:
            out["min_blocks"] = values["minBlocks"][0]
        if "maxRegs" in values:
            out["max_regs"] = values["maxRegs"][0]
        return out

    def _launch_limits(self, threads: int, values: dict[str, tuple[int, A.Pos]]) -> bool:
        """minBlocks and maxRegs within what the multiprocessor and ptxas allow."""
        ok = True
        blocks, blocks_pos = values.get("minBlocks", (None, None))
        regs, regs_pos = values.get("maxRegs", (None, None))
        if blocks is not None and blocks <= 0:
            self.error(blocks_pos, f"@launch minBlocks must be positive, got {blocks}")
            blocks, ok = None, False
        elif blocks is not None and blocks > SM_MAX_CTAS:
            self.error(
                blocks_pos,
                f"@launch minBlocks must be at most {SM_MAX_CTAS} (the CTAs an sm_90 multiprocessor holds), "
                f"got {blocks}",
            )
            blocks, ok = None, False
        if regs is not None and not MIN_REGS <= regs <= MAX_REGS:
            self.error(
                regs_pos,
                f"@launch maxRegs must be between {MIN_REGS} and {MAX_REGS} registers per thread "
                f"(PTX .maxnreg), got {regs}",
            )
            regs, ok = None, False
        if not ok or not 0 < threads <= MAX_THREADS or threads % 32:
            return ok
        if regs is not None and threads * regs > SM_REGISTERS:
            self.error(
                regs_pos,
                f"@launch maxRegs {regs} with {threads} threads needs {threads * regs} registers per CTA, more than "
                f"the {SM_REGISTERS} of a multiprocessor (at most {SM_REGISTERS // threads} per thread)",
            )
            return False
        if blocks is not None and blocks * threads > SM_MAX_THREADS:
            self.error(
                blocks_pos,
                f"@launch minBlocks {blocks} with {threads} threads asks for {blocks * threads} resident threads, "
                f"more than the {SM_MAX_THREADS} of an sm_90 multiprocessor (at most {SM_MAX_THREADS // threads} "
                f"CTAs of {threads} threads)",
            )
            return False
        if blocks is not None and regs is not None and blocks * threads * regs > SM_REGISTERS:
            self.error(
                regs_pos,
                f"@launch asks for {blocks} resident CTAs of {threads} threads with {regs} registers each, "
                f"{blocks * threads * regs} registers, more than the {SM_REGISTERS} of a multiprocessor "
                f"(at most {SM_REGISTERS // (blocks * threads)} per thread with minBlocks {blocks})",
            )
            return False
        return True

    def _aligned(self, attr: A.Attribute, info: KernelInfo) -> None:
        if not attr.args:
            self.error(attr.pos, "@aligned needs at least one 'DIM = tile'")
        for arg in attr.args:
            if arg.kind != "keyword":
                self.error(arg.pos, "expected 'DIM = tile' in @aligned")
                continue
            if arg.name in info.aligned:
                self.error(arg.pos, f"'{arg.name}' is already aligned")
                continue
            divisor = self._attr_int(arg.value, "@aligned")
            if divisor is None:
                continue
            if divisor <= 0:
                self.error(arg.value.pos, f"@aligned tile must be positive, got {divisor}")
                continue
            dim = info.dims.get(arg.name)
            if dim is None:
                self.error(arg.pos, f"@aligned names '{arg.name}', which is not a dimension of any tensor parameter")
                continue
            if dim.const is not None and dim.const % divisor:
                self.error(
                    arg.value.pos,
                    f"@aligned promises that '{arg.name}' is a multiple of {divisor}, "
                    f"but it is the constant {dim.const}",
                )
                continue
            info.aligned[arg.name] = divisor
            info.aligned_at[arg.name] = arg.pos  # where a broken promise is reported
