#!/usr/bin/env python3
"""Import cycles between the packages of phobos, counting imports inside functions too.

    .venv/bin/python scripts/import_cycles.py              # packages: phobos.runtime, phobos.lowering, ...
    .venv/bin/python scripts/import_cycles.py --depth 3    # subpackages apart: phobos.runtime.autotune, ...

Every module of phobos (python/phobos, and dialect/, passes/, tools/ under their package names from
[tool.setuptools.package-dir]) is read with `ast`; each `import phobos...` and `from ... import` (relative
ones resolved) is an edge from the importing module's package to the imported one's. A module at the
top of phobos (phobos.target, phobos.diagnostics) is a node of its own. Prints each strongly
connected set of packages with the imports that tie it together (file:line, and whether the import is
inside a function). Exit status: 0 without cycles, 1 with.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def modules() -> dict[str, tuple[Path, bool]]:
    """{module name: (file, is a package)} for every module of phobos."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    dirs = {package: (ROOT / folder).resolve() for package, folder in mapping.items()}
    out = {}
    for package, folder in dirs.items():
        for f in sorted(folder.rglob("*.py")):
            if any(f.is_relative_to(d) for p, d in dirs.items() if p != package and d.is_relative_to(folder)):
                continue  # a folder of its own in the mapping
            parts = list(f.relative_to(folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            out[".".join([package, *parts])] = (f, is_package)
    return out


def imports(name: str, path: Path, is_package: bool, known: dict) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) for each phobos import of one module."""
    here = name if is_package else name.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = here.split(".")
                    base = ".".join(parts[: len(parts) - child.level + 1] + ([base] if base else []))
                for a in child.names:  # `from pkg import module` imports the module
                    full = f"{base}.{a.name}"
                    found.append((full if full in known else base, child.lineno, in_function))
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, inner)

    visit(ast.parse(path.read_text(), str(path)), False)
    return [f for f in found if f[0] == "phobos" or f[0].startswith("phobos.")]


def package_of(module: str, known: dict, depth: int) -> str:
    """The package a module belongs to, `depth` names deep; a module at the top is its own node."""
    parts = module.split(".")
    for n in range(min(depth, len(parts)), 1, -1):
        prefix = ".".join(parts[:n])
        if known.get(prefix, (None, False))[1]:
            return prefix
    return ".".join(parts[:2])


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one node (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=2, help="how many names make a package (default 2)")
    args = parser.parse_args(argv)
    known = modules()
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, (path, is_package) in known.items():
        source = package_of(name, known, args.depth)
        for target, line, in_function in imports(name, path, is_package, known):
            dest = package_of(target, known, args.depth)
            if dest != source:
                where = f"{path.relative_to(ROOT)}:{line}"
                edges[(source, dest)].append(f"{where} imports {target}{' (in a function)' if in_function else ''}")
    graph: dict[str, set[str]] = defaultdict(set)
    for source, dest in edges:
        graph[source].add(dest)
        graph.setdefault(dest, set())
    found = cycles(graph)
    for component in found:
        print(f"cycle: {', '.join(component)}")
        for (source, dest), lines in sorted(edges.items()):
            if source in component and dest in component:
                print(f"  {source} -> {dest}")
                for line in dict.fromkeys(lines):
                    print(f"    {line}")
    print(f"import_cycles: {len(found)} cycles between {len(graph)} packages (depth {args.depth})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
