#!/usr/bin/env python3
"""Checks that hd's folders depend on one another only as the architecture
says (docs/Architecture.md): by the headers each folder includes and by the
libraries each CMake target links; that every folder under lib/ is one the
rules know; and that the top-level folders depend on one another without a
cycle.

  usage: scripts/check-layering.py [source-root]

Prints one line per violation and exits 1 when there is any.
"""

import os
import re
import sys

# Which hd headers a folder's sources may include, by their path after
# include/hd (or the folder itself): the layers of the architecture, bottom
# to top. `hdrt` is the runtime's include root. A dialect's own analyses sit
# beside its IR and passes (Dialect/HD/Analysis), as MLIR's do.
# Support (header-only helpers of the plain libraries) is the bottom one.
PLAIN = {"Support": {"Support"},
         "Tiling": {"Tiling", "Support"},
         "Search": {"Search", "Support"},
         "CostModel": {"CostModel", "Tiling", "Support"},
         "Strategy": {"Strategy", "CostModel", "Search", "Tiling", "Support"}}
# The dialect's ops declare their cost kind and its verifier applies the
# precision rules: two header-only parts of the cost model it may include.
DIALECT = {"Dialect/HD/IR", "Tiling", "CostModel/CostKind.h",
           "CostModel/Precision.h"}
ANALYSIS = "Dialect/HD/Analysis"
ALLOWED = dict(PLAIN)
ALLOWED.update({
    "Dialect/HD/IR": DIALECT,
    ANALYSIS: DIALECT | {ANALYSIS, "CostModel"},
    "Dialect/HD/Transforms": DIALECT | {"Dialect/HD/Transforms", ANALYSIS,
                                        "Strategy"},
    "Conversion": DIALECT | {ANALYSIS, "CostModel", "Conversion", "hdrt"},
    "Pipelines": {"Pipelines", "Conversion", "Dialect/HD/Transforms"},
    "Import": DIALECT | {"Import"},
    "Target": DIALECT | {"Target"},
})
# Folders that are plain C++: no MLIR (and the search not even LLVM).
NO_MLIR = set(PLAIN)
NO_LLVM = {"Support", "Tiling", "Search"}
# hd libraries each library may link, directly or not (MLIR's are checked
# through NO_MLIR).
LINKS = {"HDTiling": set(),
         "HDSearch": set(),
         "HDCostModel": {"HDTiling"},
         "HDStrategy": {"HDCostModel", "HDSearch", "HDTiling"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root, folder):
    for base in (os.path.join(root, "include", "hd", folder),
                 os.path.join(root, "lib", folder)):
        for dirpath, _, files in os.walk(base):
            for f in files:
                if f.endswith((".h", ".cpp", ".td", ".inc")):
                    yield os.path.join(dirpath, f)


def allowed(include, rules):
    # The runtime's headers: its public ones and its kinds' kernels (whose
    # enums the lowering checks against the dialect's).
    if include.startswith(("hdrt/", "kernels/")):
        return "hdrt" in rules
    if not include.startswith("hd/"):
        return True
    path = include[len("hd/"):]
    return any(path == r or path.startswith(r + "/") for r in rules)


def check_folders(root, problems):
    """Every folder under lib/ is a layer of ALLOWED, inside one, or on the
    way to one (lib/Dialect, lib/Dialect/HD)."""
    def check(rel):
        for name in sorted(os.listdir(os.path.join(root, "lib", rel))):
            path = f"{rel}/{name}" if rel else name
            if not os.path.isdir(os.path.join(root, "lib", path)):
                continue
            if path in ALLOWED:
                continue
            if any(f.startswith(path + "/") for f in ALLOWED):
                check(path)
            else:
                problems.append(f"lib/{path}: a folder the layering rules do "
                                f"not know; add it to scripts/check-layering.py")
    check("")


def check_folder_cycles(root, problems):
    """The top-level folders depend on one another without a cycle, as the
    architecture's diagram draws them: a folder's layers may only use
    layers of folders below it."""
    top = lambda path: path.split("/")[0]
    graph = {}
    for folder, rules in ALLOWED.items():
        for rule in rules:
            if top(rule) != top(folder) and rule != "hdrt":
                graph.setdefault(top(folder), set()).add(top(rule))
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                cycle = path[path.index(dep):] + [dep]
                problems.append("folders depend on one another in a cycle: " +
                                " -> ".join(cycle))
            elif dep not in state:
                visit(dep, path + [dep])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def check_includes(root, problems):
    for folder, rules in ALLOWED.items():
        for path in sources(root, folder):
            text = open(path, encoding="utf-8", errors="replace").read()
            rel = os.path.relpath(path, root)
            for inc in INCLUDE.findall(text):
                if inc.startswith(("hd/", "hdrt/", "kernels/")) and \
                        not allowed(inc, rules):
                    problems.append(f"{rel}: includes {inc}")
                if folder in NO_MLIR and inc.startswith("mlir/"):
                    problems.append(f"{rel}: plain C++ includes {inc}")
                if folder in NO_LLVM and inc.startswith("llvm/"):
                    problems.append(f"{rel}: plain C++ includes {inc}")


def check_runtime(root, problems):
    """The runtime is a library of its own: no compiler header at all."""
    for dirpath, _, files in os.walk(os.path.join(root, "runtime")):
        for f in files:
            if not f.endswith((".h", ".cpp", ".cu", ".def")):
                continue
            path = os.path.join(dirpath, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for inc in INCLUDE.findall(text):
                if inc.startswith(("hd/", "mlir/", "llvm/")):
                    problems.append(f"{os.path.relpath(path, root)}: the "
                                    f"runtime includes {inc}")


# What a layer executor (runtime/exec/layers/) may not include: it sees its
# rank through LayerContext alone, not the program or its other parts.
PROGRAM_PARTS = {"Program.h", "RankState.h", "Transfers.h", "Inputs.h",
                 "ModelIO.h", "Reporter.h"}
# A kind's homes in the runtime: its row of the table, its executor and its
# kernels' folder (docs/AddingALayerKind.md).
MAX_KIND_FILES = 5


def layer_kinds(root):
    table = os.path.join(root, "runtime", "include", "hdrt", "LayerKinds.def")
    if not os.path.exists(table):
        return []
    text = open(table, encoding="utf-8").read()
    return re.findall(r"^HDRT_LAYER\((\w+), *\d+, *(\w+)", text, re.M)


def names_kind(name, mnemonic):
    """What names a kind in code: its kernels, descriptor, executor or call
    shape, its op, its table row or its kernels' folder; and, where no
    English word shares it (LayerNorm, conv2d...), the name itself."""
    alternatives = [rf"\b{name}(Kernels|Desc|Impl|Implementation|Shape)\b",
                    rf"\bhd\.{mnemonic}\b", rf"HDRT_LAYER\({name},",
                    rf"kernels/{name}/"]
    if re.search(r"[A-Z0-9]", name[1:]):
        alternatives += [rf"\b{name}", rf"\b{name[0].lower()}{name[1:]}"]
    return re.compile("|".join(alternatives))


def check_runtime_homes(root, problems):
    """Only a kind's homes name it: no device, no part of the program, no
    other runtime library; an executor includes no part of the program."""
    kinds = layer_kinds(root)
    runtime = os.path.join(root, "runtime")
    own = {name: [] for name, _ in kinds}
    for dirpath, _, files in os.walk(runtime):
        for f in files:
            if not f.endswith((".h", ".cpp", ".cu", ".cuh", ".def")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8", errors="replace").read()
            in_layers = rel.startswith("runtime/exec/layers/")
            if in_layers:
                for inc in INCLUDE.findall(text):
                    if os.path.basename(inc) in PROGRAM_PARTS:
                        problems.append(f"{rel}: a layer executor includes "
                                        f"{inc}; it sees its LayerContext")
            for name, mnemonic in kinds:
                home = (rel == f"runtime/exec/layers/{name}.cpp" or
                        rel.startswith(f"runtime/kernels/{name}/"))
                if home:
                    own[name].append(rel)
                elif (not in_layers and not rel.startswith("runtime/kernels/")
                      and not rel.endswith("LayerKinds.def")
                      and names_kind(name, mnemonic).search(text)):
                    problems.append(f"{rel}: names the layer kind {name}, "
                                    f"whose code belongs in "
                                    f"exec/layers/{name}.cpp or kernels/{name}/")
    for name, files in own.items():
        if len(files) + 1 > MAX_KIND_FILES:
            problems.append(f"the layer kind {name} is in {len(files) + 1} "
                            f"runtime files, more than {MAX_KIND_FILES}: "
                            f"LayerKinds.def, {', '.join(sorted(files))}")


def link_graph(root):
    """hd targets and what they link, from every CMakeLists.txt under lib/."""
    call = re.compile(r"\b(?:mlir_)?target_link_libraries\s*\(([^)]*)\)", re.S)
    graph = {}
    for dirpath, _, files in os.walk(os.path.join(root, "lib")):
        if "CMakeLists.txt" not in files:
            continue
        text = open(os.path.join(dirpath, "CMakeLists.txt")).read()
        text = re.sub(r"#.*", "", text)
        for args in call.findall(text):
            words = args.split()
            target = words[0]
            deps = {w for w in words[1:]
                    if w not in ("PUBLIC", "PRIVATE", "INTERFACE")}
            graph.setdefault(target, set()).update(deps)
    return graph


def closure(graph, target):
    seen, todo = set(), [target]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def check_links(root, problems):
    graph = link_graph(root)
    for target, may in LINKS.items():
        if target not in graph and not os.path.isdir(
                os.path.join(root, "lib", target[len("HD"):])):
            continue
        deps = closure(graph, target)
        for dep in sorted(deps):
            if dep.startswith("HD") and dep not in may:
                problems.append(f"{target} links {dep}")
            if dep.startswith("MLIR"):
                problems.append(f"{target} links {dep}: it is plain C++")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    problems = []
    check_folders(root, problems)
    check_folder_cycles(root, problems)
    check_includes(root, problems)
    check_runtime(root, problems)
    check_runtime_homes(root, problems)
    check_links(root, problems)
    for p in problems:
        print(f"layering: {p}")
    if problems:
        return 1
    print("layering: every folder depends only on the layers below it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
