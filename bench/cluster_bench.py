#!/usr/bin/env python3
"""Controller benchmarks on a real local cluster (two agents on loopback):

1. SubmitJob throughput and latency through the gRPC API (bench_submit),
   held jobs so only the controller and its store are measured;
2. the same through the CLI (`gantry sbatch`, one process per job);
3. submit-to-complete throughput of N no-op batch jobs.

With --accounting it measures instead 1 (8 threads) and 3 on a cluster
without accounting and on one with the SQLite accounting store,
alternating, each on a fresh cluster, and prints the best of each and
their ratio: what accounting costs users who submit and run jobs.

Prints one line per measurement. Usage: cluster_bench.py [--jobs N] [--accounting [ROUNDS]]"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from gantry_cluster import Cluster, binary, wait_for  # noqa: E402


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


NODES = [{"name": "n1", "cpus": 64, "memory": 64000}, {"name": "n2", "cpus": 64, "memory": 64000}]


def accounting_rates(jobs, accounting):
    """On a fresh cluster: jobs per second of bench_submit (8 threads, held
    jobs), then of N no-op batch jobs from submission to completion."""
    extra = "AccountingStorageType=accounting_storage/sqlite\n" if accounting else ""
    cluster = Cluster(nodes=NODES, extra_conf=extra)
    try:
        cluster.start()
        out = subprocess.run([binary("bench_submit"), "--conf-dir", str(cluster.conf_dir), "--jobs", str(jobs),
                              "--threads", "8", "--hold"], capture_output=True, text=True, check=True).stdout
        label = "on" if accounting else "off"
        print(f"# accounting={label}: {out.strip()}", flush=True)
        submit = float([f for f in out.split() if f.startswith("jobs_per_sec=")][0].split("=", 1)[1])
        cluster.cli("scancel", "-u", "root", check=False)
        workdir = cluster.root / "noop"
        workdir.mkdir()
        start = time.monotonic()
        subprocess.run([binary("bench_submit"), "--conf-dir", str(cluster.conf_dir), "--jobs", str(jobs),
                        "--threads", "4"], capture_output=True, text=True, check=True)

        def all_done():
            return not any(j["state"] in ("PENDING", "RUNNING", "COMPLETING") for j in cluster.jobs_json())
        wait_for(all_done, timeout=1800, interval=0.2, what="every no-op job to finish")
        complete = jobs / (time.monotonic() - start)
        print(f"# accounting={label}: submit_to_complete jobs={jobs} jobs_per_sec={complete:.0f}", flush=True)
        return submit, complete
    finally:
        cluster.cleanup()


def compare_accounting(jobs, rounds):
    off, on = [], []
    for _ in range(rounds):
        off.append(accounting_rates(jobs, False))
        on.append(accounting_rates(jobs, True))
    for i, name in enumerate(("grpc_submit", "submit_to_complete")):
        best_off, best_on = max(r[i] for r in off), max(r[i] for r in on)
        print(f"{name}_accounting jobs={jobs} rounds={rounds} best_off_jobs_per_sec={best_off:.0f} "
              f"best_on_jobs_per_sec={best_on:.0f} ratio_on_over_off={best_on / best_off:.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--cli-jobs", type=int, default=200)
    parser.add_argument("--accounting", type=int, nargs="?", const=3, default=0, metavar="ROUNDS")
    args = parser.parse_args()
    if args.accounting:
        return compare_accounting(args.jobs, args.accounting)
    cluster = Cluster(nodes=NODES)
    try:
        cluster.start()
        for threads in (1, 8):
            out = subprocess.run([binary("bench_submit"), "--conf-dir", str(cluster.conf_dir), "--jobs",
                                  str(args.jobs), "--threads", str(threads), "--hold"],
                                 capture_output=True, text=True, check=True).stdout
            print(out.strip(), flush=True)
        cluster.cli("scancel", "-u", "root", check=False)

        latencies = []
        start = time.monotonic()
        for _ in range(args.cli_jobs):
            t0 = time.monotonic()
            cluster.cli("sbatch", "--parsable", "--hold", "--wrap", "true")
            latencies.append((time.monotonic() - t0) * 1e6)
        seconds = time.monotonic() - start
        print(f"cli_submit jobs={args.cli_jobs} seconds={seconds:.3f} jobs_per_sec={args.cli_jobs / seconds:.0f} "
              f"p50_us={percentile(latencies, 0.5):.0f} p99_us={percentile(latencies, 0.99):.0f}", flush=True)
        cluster.cli("scancel", "-u", "root", check=False)

        workdir = cluster.root / "noop"
        workdir.mkdir()
        start = time.monotonic()
        out = subprocess.run([binary("bench_submit"), "--conf-dir", str(cluster.conf_dir), "--jobs",
                              str(args.jobs), "--threads", "4"], capture_output=True, text=True, check=True)
        submitted = time.monotonic() - start

        def all_done():
            jobs = cluster.jobs_json()
            return not any(j["state"] in ("PENDING", "RUNNING", "COMPLETING") for j in jobs)
        wait_for(all_done, timeout=1800, interval=0.5, what="every no-op job to finish")
        seconds = time.monotonic() - start
        print(f"submit_to_complete jobs={args.jobs} submit_seconds={submitted:.3f} seconds={seconds:.3f} "
              f"jobs_per_sec={args.jobs / seconds:.0f}", flush=True)
    finally:
        cluster.cleanup()


if __name__ == "__main__":
    main()
