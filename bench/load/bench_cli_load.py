#!/usr/bin/env python3
"""Many users at once: N concurrent command-line clients against one
controller for D seconds.

Starts a loopback cluster (its own munged with a fresh key and gantryctld;
no agents, the jobs are held), then runs N client loops, each alternating
`gantry squeue -h` and `gantry sbatch --hold --wrap true` as separate
processes, as N users at their shells would. Prints one line per system
and command with the calls, the failed calls, calls per second and the
p50/p95/p99 latency, and the commonest error messages.

When a Slurm peer is running on this host (slurmctld answering
`scontrol ping`, e.g. started by the slurm-peer setup script), the same
load runs against it with Slurm's own squeue and sbatch in the same run
and the ratios are printed; otherwise the output says why Slurm was not
measured.

Usage: bench_cli_load.py [--clients 50] [--seconds 60] [--slurm auto|off]
"""

import argparse
import collections
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from gantry_cluster import Cluster, binary  # noqa: E402

COMMANDS = {
    "squeue": ["squeue", "-h"],
    "sbatch": ["sbatch", "--hold", "--wrap", "true"],
}


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


class Load:
    """Runs `clients` loops for `seconds`; each loop alternates the commands."""

    def __init__(self, make_command, env, clients, seconds, call_timeout):
        self.make_command = make_command
        self.env = env
        self.clients = clients
        self.seconds = seconds
        self.call_timeout = call_timeout
        self.lock = threading.Lock()
        self.latencies = collections.defaultdict(list)  # command -> seconds of good calls
        self.failures = collections.defaultdict(int)    # command -> failed calls
        self.messages = collections.Counter()           # first line of each failure

    def client(self, index, deadline):
        names = list(COMMANDS)
        turn = index % len(names)  # half the clients start with each command
        while time.monotonic() < deadline:
            name = names[turn]
            turn = (turn + 1) % len(names)
            started = time.monotonic()
            try:
                result = subprocess.run(self.make_command(name), env=self.env, capture_output=True,
                                        text=True, timeout=self.call_timeout)
                failed = result.returncode != 0
                message = (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[0]
            except subprocess.TimeoutExpired:
                failed, message = True, f"no answer within {self.call_timeout} s"
            elapsed = time.monotonic() - started
            with self.lock:
                if failed:
                    self.failures[name] += 1
                    self.messages[message[:160]] += 1
                else:
                    self.latencies[name].append(elapsed)

    def run(self):
        deadline = time.monotonic() + self.seconds
        threads = [threading.Thread(target=self.client, args=(i, deadline)) for i in range(self.clients)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.wall = time.monotonic() - started
        return self

    def summary(self, names):
        good = [v for name in names for v in self.latencies[name]]
        failed = sum(self.failures[name] for name in names)
        calls = len(good) + failed
        return {
            "calls": calls,
            "errors": failed,
            "calls_per_sec": calls / self.wall,
            "p50_ms": percentile(good, 0.50) * 1000,
            "p95_ms": percentile(good, 0.95) * 1000,
            "p99_ms": percentile(good, 0.99) * 1000,
        }

    def report(self, system):
        rows = {"all": self.summary(list(COMMANDS))}
        for name in COMMANDS:
            rows[name] = self.summary([name])
        for command, row in rows.items():
            print(f"cli_load system={system} command={command} clients={self.clients} "
                  f"seconds={self.wall:.1f} calls={row['calls']} errors={row['errors']} "
                  f"calls_per_sec={row['calls_per_sec']:.1f} p50_ms={row['p50_ms']:.0f} "
                  f"p95_ms={row['p95_ms']:.0f} p99_ms={row['p99_ms']:.0f}", flush=True)
        for message, count in self.messages.most_common(5):
            print(f"cli_load system={system} error_count={count} message={message!r}", flush=True)
        return rows["all"]


def slurm_unusable_reason():
    """None when a Slurm controller answers on this host, else why not."""
    for program in ("slurmctld", "scontrol", "squeue", "sbatch", "scancel"):
        if shutil.which(program) is None:
            return f"{program} is not installed (slurm-wlm)"
    try:
        ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "scontrol ping did not answer within 20 s"
    if "UP" not in ping.stdout:
        return f"slurmctld does not answer scontrol ping: {(ping.stdout + ping.stderr).strip()[:200]}"
    return None


def run_gantry(args):
    cluster = Cluster(nodes=[{"name": "n1", "cpus": 64, "memory": 64000}])
    try:
        cluster.start_munge()
        cluster.start_controller()
        gantry = binary("gantry")
        load = Load(lambda name: [gantry, *COMMANDS[name]], cluster.env(), args.clients, args.seconds,
                    args.call_timeout).run()
        cluster.cli("scancel", "-u", "root", check=False)
        return load.report("gantry")
    finally:
        cluster.cleanup()


def run_slurm(args):
    reason = slurm_unusable_reason()
    if reason:
        print(f"cli_load system=slurm skipped=1 reason={reason!r}", flush=True)
        return None
    load = Load(lambda name: list(COMMANDS[name]), None, args.clients, args.seconds, args.call_timeout).run()
    subprocess.run(["scancel", "--state=PENDING", "--name=wrap"], capture_output=True, timeout=60)
    return load.report("slurm")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent client loops (50)")
    parser.add_argument("--seconds", type=float, default=60, help="how long each system is loaded (60)")
    parser.add_argument("--call-timeout", type=float, default=60,
                        help="a call that takes longer counts as failed (60 s)")
    parser.add_argument("--slurm", choices=("auto", "off"), default="auto",
                        help="also load a Slurm controller running on this host (auto)")
    args = parser.parse_args()
    gantry = run_gantry(args)
    slurm = run_slurm(args) if args.slurm == "auto" else None
    if args.slurm == "off":
        print("cli_load system=slurm skipped=1 reason='--slurm off'", flush=True)
    if gantry and slurm:
        print(f"cli_load ratio gantry_over_slurm calls_per_sec={gantry['calls_per_sec'] / slurm['calls_per_sec']:.2f} "
              f"p50={gantry['p50_ms'] / slurm['p50_ms']:.2f} p99={gantry['p99_ms'] / slurm['p99_ms']:.2f}",
              flush=True)
    return 0 if gantry["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
