"""What the bench drivers share: running tools, launching MPI jobs on this
host, describing it, and writing their section of docs/results.md (through
results_section.py)."""
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    """Runs a command; its stderr is in the error when it fails."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    return r


def mpirun(n):
    """An mpirun prefix for n processes on this host, as root if need be."""
    cmd = ["mpirun", "--oversubscribe", "-np", str(n)]
    return cmd + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


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


def write_section(name, lines):
    """Replaces the section `name` of docs/results.md; returns the status."""
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "results_section.py"),
         os.path.join(ROOT, "docs", "results.md"), name],
        input="\n".join(lines) + "\n", text=True).returncode
