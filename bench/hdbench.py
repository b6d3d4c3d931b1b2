#!/usr/bin/python3
"""The one way the bench drivers take a model through hd and record it.

Every driver imports an ONNX model, compiles it for a strategy, links it,
runs it under mpirun and reads its metrics, or only searches a strategy and
reads the report; each writes its own section of docs/results.md. Doing
these here keeps the drivers' command lines for the tools alike, so a change
to a tool's flags is made once. Machines the drivers vary (more nodes, less
memory) are derived from the built-in machine files the library embeds
(lib/CostModel/machines/), so no script restates a machine's figures.

Standard library only: the shell drivers call it as a command on machines
whose python3 may lack the drivers' other packages.

As a command, for the shell drivers (write_section, import_onnx,
compile_program and run_program):
  hdbench.py section NAME [--results FILE] < section.md
  hdbench.py import BUILD ONNX BATCH OUT [TRANSLATE-FLAG...]
  hdbench.py compile BUILD MLIR EXE --devices N [--machine M] [--strategy S]
                     [--backend B] [--low LOWERED.mlir]
  hdbench.py run EXE PROCESSES METRICS [PROGRAM-FLAG...]

HD_RESULTS, when set, names the results file to write instead of
docs/results.md (short trial runs of a driver).
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MACHINES = os.path.join(ROOT, "lib", "CostModel", "machines")
RESULTS = os.path.join(ROOT, "docs", "results.md")


class ToolError(RuntimeError):
    """A command that failed. Its whole stderr stays readable: some drivers
    record why a model could not be planned (it does not fit) rather than
    stop."""

    def __init__(self, cmd, stderr):
        super().__init__("%s failed:\n%s" % (" ".join(cmd), stderr[-3000:]))
        self.cmd, self.stderr = cmd, stderr


def run(cmd, **kw):
    """Runs a command with its output captured; raises ToolError, carrying
    its stderr, when it fails, so a failure names the command."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        raise ToolError(cmd, r.stderr)
    return r


def tool(build, name):
    """The path of one of a build's tools."""
    return os.path.join(build, "bin", name)


def import_onnx(build, onnx, out, batch, extra=()):
    """hd-translate --import-onnx at a batch size; returns `out`."""
    run([tool(build, "hd-translate"), "--import-onnx", onnx,
         "--batch-size=%d" % batch, *extra, "-o", out])
    return out


def zoo_model(name):
    """The ONNX file of a model of the zoo (models/)."""
    return os.path.join(ROOT, "models", name + ".onnx")


def pass_options(devices, machine, strategy=None, report=None, profile=None,
                 precision=None):
    """The options --hd-compile and --layerwise-parallelize share, in one
    order, leaving out those not given so the passes' defaults apply."""
    options = [("devices", devices), ("machine", machine),
               ("profile", profile), ("strategy", strategy),
               ("precision", precision), ("report", report)]
    return " ".join("%s=%s" % kv for kv in options if kv[1] is not None)


def compile_mlir(build, mlir, out, devices, machine, strategy=None,
                 report=None, profile=None):
    """The imported graph to the program hd-translate links, in one
    `hd-opt --hd-compile` (search, transfers, lowering); returns `out`."""
    run([tool(build, "hd-opt"), mlir, "--hd-compile=" + pass_options(
        devices, machine, strategy, report, profile), "-o", out])
    return out


def link(build, low, exe, backend=None):
    """hd-translate --hd-to-executable; the CPU backend unless `backend`."""
    run([tool(build, "hd-translate"), "--hd-to-executable", low] +
        (["--backend=" + backend] if backend else []) + ["-o", exe])
    return exe


def compile_program(build, mlir, exe, devices, machine, strategy=None,
                    report=None, profile=None, backend=None, low=None):
    """An executable from an imported graph: compile_mlir, then link. The
    lowered IR is left in `low`, by default beside it as EXE.low.mlir (a
    bundle of programs to ship elsewhere keeps it apart)."""
    low = compile_mlir(build, mlir, low or exe + ".low.mlir", devices,
                       machine, strategy, report, profile)
    return link(build, low, exe, backend)


def search_command(build, mlir, devices, machine, strategy=None, report=None,
                   profile=None, precision=None):
    """The command that searches a strategy and writes only its report:
    for drivers that time or limit the search themselves."""
    return [tool(build, "hd-opt"), mlir, "-o", os.devnull,
            "--layerwise-parallelize=" + pass_options(
                devices, machine, strategy, report, profile, precision)]


def search(build, mlir, report, devices, machine, strategy=None,
           profile=None, precision=None):
    """Searches (or evaluates) a strategy without compiling and returns the
    report; raises ToolError with hd-opt's message when nothing fits."""
    run(search_command(build, mlir, devices, machine, strategy, report,
                       profile, precision))
    return read_json(report)


def mpirun(n):
    """An mpirun prefix for n processes on this host, as root if need be;
    more processes than cores are allowed (the drivers share 2 to 4 cores)."""
    cmd = ["mpirun", "--oversubscribe", "-np", str(n)]
    return cmd + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def mpi_env(**extra):
    """The environment for a script that calls mpirun itself: the same
    permissions as mpirun() gives through flags, plus `extra`."""
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", **extra)


def run_program(exe, args, metrics, processes=None, timeout=3600):
    """Runs a compiled program, under mpirun with `processes` (alone, as one
    process with every core, when None), and returns its --metrics JSON."""
    prefix = mpirun(processes) if processes else []
    run(prefix + [exe] + list(args) + ["--metrics", metrics], timeout=timeout)
    return read_json(metrics)


def read_json(path):
    """A JSON file's contents (reports, metrics, machines)."""
    with open(path) as f:
        return json.load(f)


def host():
    """This machine as results record it: cores, CPU model, OS and date."""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "")
    return (f"{os.cpu_count()} cores, {cpu}, {platform.system()}, "
            f"{time.strftime('%Y-%m-%d')}")


def least_memory(error):
    """The least memory any strategy needs, from hd-opt's error when no
    strategy fits ("7.23 GiB"); None for any other error."""
    if "no strategy on" not in error:
        return None
    return error.split("needs is ")[1].split(" per device")[0]


def builtin_machine(name):
    """A built-in machine's description, from the file the library embeds:
    the one place its figures are written."""
    return read_json(os.path.join(MACHINES, name + ".json"))


def machine_file(directory, base, **changes):
    """Writes the built-in machine `base` with `changes` (a new `name`,
    more `nodes`, less `mem_gib`, ...) into `directory`; returns the file's
    path, which hd-opt's `machine=` takes."""
    machine = dict(builtin_machine(base), **changes)
    path = os.path.join(directory, machine["name"] + ".json")
    with open(path, "w") as f:
        json.dump(machine, f, indent=2)
    return path


def machine_variant(spec, directory):
    """A machine file from a variant in bench/machines/: `{"base": BUILT-IN,
    ...}` stating only what differs from the built-in; returns the path of
    the whole description written into `directory`."""
    changes = read_json(spec)
    return machine_file(directory, changes.pop("base"), **changes)


def results_path():
    """The results file the drivers write: $HD_RESULTS, else
    docs/results.md."""
    return os.environ.get("HD_RESULTS") or RESULTS


def replace_section(text, name, body):
    """`text` with the section `name` (between `<!-- begin NAME -->` and
    `<!-- end NAME -->`) replaced by `body`, or appended when it has none:
    each driver owns one section, so drivers can rerun independently."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text)
    return text.rstrip() + "\n\n" + block + "\n"


def write_section(name, lines, results=None):
    """Replaces the section `name` of the results file (results_path() by
    default) with `lines`; returns 0, the drivers' exit status."""
    path = results or results_path()
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = ("# hd results\n\nEach section is written by a driver in "
                "bench/, with the command and machine.\n")
    with open(path, "w") as f:
        f.write(replace_section(text, name, "\n".join(lines)))
    return 0


def main(argv):
    """The command form, for drivers written in shell."""
    p = argparse.ArgumentParser(prog="hdbench.py")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("section", help="write stdin as a results section")
    s.add_argument("name")
    s.add_argument("--results")
    i = sub.add_parser("import", help="import an ONNX model")
    i.add_argument("build")
    i.add_argument("onnx")
    i.add_argument("batch", type=int)
    i.add_argument("out")
    i.add_argument("flags", nargs=argparse.REMAINDER)
    c = sub.add_parser("compile", help="compile and link an imported model")
    c.add_argument("build")
    c.add_argument("mlir")
    c.add_argument("exe")
    c.add_argument("--devices", type=int, required=True)
    c.add_argument("--machine", default="cpu")
    c.add_argument("--strategy")
    c.add_argument("--backend")
    c.add_argument("--low")
    r = sub.add_parser("run", help="run a program under mpirun")
    r.add_argument("exe")
    r.add_argument("processes", type=int)
    r.add_argument("metrics")
    r.add_argument("flags", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    try:
        if args.command == "section":
            return write_section(args.name, [sys.stdin.read()], args.results)
        if args.command == "import":
            import_onnx(args.build, args.onnx, args.out, args.batch, args.flags)
        elif args.command == "compile":
            compile_program(args.build, args.mlir, args.exe, args.devices,
                            args.machine, args.strategy, backend=args.backend,
                            low=args.low)
        else:
            run_program(args.exe, args.flags, args.metrics, args.processes)
    except ToolError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
