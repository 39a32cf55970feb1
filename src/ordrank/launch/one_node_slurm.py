"""A one-node SLURM on this machine (munged, slurmctld and slurmd on localhost): what the cluster tests
and ``benchmarks/bench_engines.py`` submit to, and a way to try ``--launcher slurm`` without a cluster.

    python -m ordrank.launch.one_node_slurm start DIR   # writes DIR/slurm.conf, starts the daemons, waits
    python -m ordrank.launch.one_node_slurm stop DIR    # stops them (every daemon it started, by its pid file)

Everything lives under DIR (configuration, state, logs, pid files, munge's key and socket); nothing
outside it is written and no daemon listens beyond 127.0.0.1. The commands (sbatch, squeue, scancel,
submitit) find this SLURM through ``SLURM_CONF=DIR/slurm.conf``. Needs Debian's ``slurmctld``, ``slurmd``
and ``munge`` (``make cluster-services`` installs them) and root, as slurmd does.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

DAEMONS = ("slurmd", "slurmctld", "munged")  # stopped in this order


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(folder: Path, cpus: int) -> str:
    host = socket.gethostname()
    return f"""\
ClusterName=ordrank-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={folder / "munge.socket"}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder / "state"}
SlurmdSpoolDir={folder / "spool"}
SlurmctldPidFile={folder / "slurmctld.pid"}
SlurmdPidFile={folder / "slurmd.pid"}
SlurmctldLogFile={folder / "slurmctld.log"}
SlurmdLogFile={folder / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
"""


def start(folder: Path, cpus: int | None = None, timeout: float = 60.0) -> dict:
    """Start munged, slurmctld and slurmd under ``folder``; return the environment that reaches them."""
    for tool in ("munged", "slurmctld", "slurmd", "sinfo"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} not found: install Debian's slurmctld, slurmd and munge "
                               "(make cluster-services)")
    folder = Path(folder).resolve()
    for sub in ("state", "spool"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    key = folder / "munge.key"
    if not key.exists():
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
    conf = folder / "slurm.conf"
    conf.write_text(config(folder, cpus or os.cpu_count() or 1))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    subprocess.run(["munged", "--force", f"--key-file={key}", f"--socket={folder / 'munge.socket'}",
                    f"--pid-file={folder / 'munged.pid'}", f"--log-file={folder / 'munged.log'}",
                    f"--seed-file={folder / 'munged.seed'}"], check=True, env=env)
    subprocess.run(["slurmctld", "-f", str(conf)], check=True, env=env)
    subprocess.run(["slurmd", "-f", str(conf)], check=True, env=env)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, env=env).stdout.strip()
        if state in ("idle", "mix", "alloc"):
            return env
        time.sleep(0.5)
    stop(folder)
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in folder.glob("*.log"))
    raise RuntimeError(f"the one-node SLURM under {folder} did not come up in {timeout:.0f} s "
                       f"(sinfo: {state!r}); logs:\n{logs}")


def stop(folder: Path, timeout: float = 15.0) -> None:
    """Stop every daemon :func:`start` started under ``folder`` (by its pid file); idempotent. Each is
    sent SIGTERM (in DAEMONS' order), then all are waited for together (not one exit after another), and
    one still running after ``timeout`` seconds is killed."""
    folder = Path(folder).resolve()
    running = {}
    for name in DAEMONS:
        pid_file = folder / f"{name}.pid"
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, IndexError):  # no pid file, or the daemon is gone
            pid_file.unlink(missing_ok=True)
            continue
        running[pid] = pid_file
    deadline = time.monotonic() + timeout
    while running:
        for pid in list(running):
            try:
                os.kill(pid, signal.SIGKILL if time.monotonic() > deadline else 0)
            except ProcessLookupError:
                running.pop(pid).unlink(missing_ok=True)
        time.sleep(0.1)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)  # the usage
    if sys.argv[1] == "start":
        start(Path(sys.argv[2]))
        print(f"export SLURM_CONF={Path(sys.argv[2]).resolve() / 'slurm.conf'}")
    else:
        stop(Path(sys.argv[2]))
