"""How a kernel object is called: `k(...)` and `k[grid](...)`, and what runs first.

A checked call first tries the launcher of the torch/cupy argument layout the
kernel launched last (generated per layout, runtime.fastpath): it compares the
arguments with that layout and launches, or hands the call on. To make that one
Python call, `__call__` is a property that gives Python the launcher itself
(Python looks `__call__` up on the class; a property's value is then called
with the arguments), so a kernel holds two callables, installed together:

    k._call    k(*args, grid=, stream=, sync=, check=, **kwargs): the launcher's
               `call`, else `_call_any`
    k._front   front(args, grid, stream, sync) -> None (launched) | True: the
               launcher's `front` (k[grid] calls it), else the fast path's
               dispatcher, else a function that answers True

What neither takes goes to the kernel's generic path (`_launch`: every check,
then the plan), which raises the errors.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable

from . import driver, fastpath
from .launch import UNPACKABLE

_MAX_GRIDS = 64  # k[grid] launchers kept per kernel


class _InstalledCall(property):
    """The `__call__` of kernel objects: a property, whose C getter hands Python the installed
    `_call` (which Python then calls with the arguments); itself callable (`Kernel.__call__(k,
    ...)`) and given the signature of `Calls._call_any` (inspect, help)."""

    def __call__(self, kernel, *args, **kwargs):
        return kernel._call(*args, **kwargs)


class Calls:
    """The calling convention of kernel objects (a base of runtime.kernel._Launchable, which
    provides `_launch`, `_bind_keywords` and the fast path)."""

    _call: Callable
    _front: Callable
    _fast: fastpath.FastPath | None
    _grids: dict

    # `k(...)` calls `self._call`: the launcher of the layout launched last, or `_call_any`.
    __call__ = _InstalledCall(operator.attrgetter("_call"))

    def _call_any(self, *args, grid=None, stream=None, sync: bool = False, check: bool = True, **kwargs):
        """Launch on `args` (parameters may be given by name: `k(x, y, alpha=2.0)`).
        grid: the contract's rule unless given (a tuple, an int, or a
        callable of the bound extents and bindings); stream: a handle, torch or cupy stream,
        else the current stream of the arguments' framework, else the default stream;
        sync: wait and raise a KernelFault naming the kernel if it failed; check=False skips
        the @aligned checks (the kernel's own entry check then traps on a broken promise)."""
        try:
            return self._call_slow(args, kwargs, grid, stream, sync, check, self._front)
        except driver.NoDeviceError as e:  # raised here, so the user's traceback is two frames
            raise e.with_traceback(None) from None

    def _call_slow(self, args, kwargs, grid, stream, sync: bool, check: bool, front=None) -> None:
        """A call that no layout's launcher took: `front` (None: the fast path's dispatcher), then
        the generic path."""
        if kwargs:
            args = self._bind_keywords(args, kwargs)
        if check:
            try:
                if (front or self._fast.front)(args, grid, stream, sync) is None:
                    return
            except UNPACKABLE:
                pass  # a scalar the fast path could not pack: the generic path says which and why
        try:
            self._launch(args, grid, stream, sync, check)
        except driver.NoDeviceError as e:  # raised here, so the user's traceback is two frames
            raise e.with_traceback(None) from None

    def __getitem__(self, grid) -> GridLaunch:
        if type(grid) is not tuple and type(grid) is not int:
            return GridLaunch(self, grid)  # a callable grid: often a new lambda per call
        try:
            return self._grids[grid]
        except KeyError:
            if len(self._grids) >= _MAX_GRIDS:
                self._grids.clear()
            launcher = self._grids[grid] = GridLaunch(self, grid)
            return launcher
        except TypeError:  # unhashable entries: the launch names the problem
            return GridLaunch(self, grid)

    def _install(self, launcher: fastpath.Launcher | None) -> None:
        """Make a layout's launcher what checked calls try first (None: the fast path's dispatcher)."""
        if launcher is None:
            self._call, self._front = self._call_any, self._fast.front
        else:
            self._call, self._front = launcher

    # provided by the kernel class
    def _launch(self, args, grid, stream, sync: bool, check: bool) -> None:
        raise NotImplementedError

    def _bind_keywords(self, args: tuple, kwargs: dict) -> tuple:
        raise NotImplementedError


Calls.__call__.__signature__ = inspect.signature(Calls._call_any)
Calls.__call__.__doc__ = Calls._call_any.__doc__


class GridLaunch:
    """`k[grid]`: a launcher with the grid fixed."""

    __slots__ = ("kernel", "grid")

    def __init__(self, kernel: Calls, grid):
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args, stream=None, sync: bool = False, check: bool = True, **kwargs):
        kernel, grid = self.kernel, self.grid
        if kwargs:
            args = kernel._bind_keywords(args, kwargs)
        if check:  # as Calls._call_slow, without a second call
            try:
                if kernel._front(args, grid, stream, sync) is None:
                    return
            except UNPACKABLE:
                pass
        try:
            kernel._launch(args, grid, stream, sync, check)
        except driver.NoDeviceError as e:
            raise e.with_traceback(None) from None
