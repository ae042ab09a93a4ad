#!/usr/bin/env python3
"""Controller benchmarks on a real local cluster (two agents on loopback):

1. SubmitJob throughput and latency through the gRPC API (bench_submit),
   held jobs so only the controller and its store are measured;
2. the same through the CLI (`gantry sbatch`, one process per job);
3. submit-to-complete throughput of N no-op batch jobs.

Prints one line per measurement. Usage: cluster_bench.py [--jobs N]"""

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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--cli-jobs", type=int, default=200)
    args = parser.parse_args()
    cluster = Cluster(nodes=[{"name": "n1", "cpus": 64, "memory": 64000},
                             {"name": "n2", "cpus": 64, "memory": 64000}])
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
