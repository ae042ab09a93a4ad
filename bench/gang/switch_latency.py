#!/usr/bin/env python3
"""Gang scheduling's switch on one node over loopback, Gantry beside Slurm.

Two jobs share both CPUs of one node (OverSubscribe=FORCE:2, a 5-second
SchedulerTimeSlice). Each appends the wall-clock time to its own file every
half millisecond, so the streams show exactly when each job ran. For every
switch the script reports:

- gap: from the leaving job's last tick to the joining job's first tick
  (neither runs; the cost of the switch to the user);
- overlap: how long the leaving job still ran after the joining one started
  (both ran at once: resources over-committed);
- Gantry only: from the slice timer firing (the controller's log line) to
  the joining job's first tick.

The first switch of a job allocated suspended is its launch, not a thaw; it
is reported apart. Slurm runs through ../shared/slurm-peer (setup.sh gang)
when its scripts and slurmctld are present and we are root; otherwise only
Gantry's numbers are printed. Usage: switch_latency.py [--seconds 32]"""

import argparse
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from gantry_cluster import Cluster, wait_for  # noqa: E402

SLICE = 5
TICKER = ("import sys, time\n"
          "f = open(sys.argv[1], 'a')\n"
          "while True:\n"
          "    f.write('%.6f\\n' % time.time()); f.flush(); time.sleep(0.0005)\n")


def ticks(path):
    if not path.exists():
        return []
    return [float(line) for line in path.read_text().split() if line]


def runs(stream):
    """The intervals a job ran: ticks closer than 50 ms belong to one run."""
    out = []
    for t in stream:
        if out and t - out[-1][1] < 0.05:
            out[-1][1] = t
        else:
            out.append([t, t])
    return out


def switches(a, b):
    """One (leaving job's last tick, joining job's first tick, overlap, is
    launch) per run of a job after another job's run, in time order."""
    out = []
    for mine, other, is_b in ((runs(a), runs(b), False), (runs(b), runs(a), True)):
        for i, (begin, _) in enumerate(mine):
            if not is_b and i == 0:
                continue  # the first job's start is no switch
            before = [end for start, end in other if end <= begin]
            overlap = max([end - begin for start, end in other if start < begin < end], default=0.0)
            leaving = before[-1] if before else begin
            out.append((leaving if overlap == 0 else begin, begin, overlap, is_b and i == 0))
    return sorted(out, key=lambda s: s[1])


def summarize(name, found):
    for t0, t1, overlap, launch in found:
        if launch:
            print(f"{name}: first start of the job allocated suspended: gap {(t1 - t0) * 1000:.1f} ms, "
                  f"overlap {overlap * 1000:.1f} ms")
    found = [s for s in found if not s[3]]
    if not found:
        print(f"{name}: no switch seen")
        return None
    gaps = [(t1 - t0) * 1000 for t0, t1, _, _ in found]
    overlaps = [o * 1000 for _, _, o, _ in found]
    print(f"{name}: {len(found)} switches: gap median {statistics.median(gaps):.1f} ms "
          f"(min {min(gaps):.1f}, max {max(gaps):.1f}); overlap max {max(overlaps):.1f} ms")
    return statistics.median(gaps)


def slice_log_times(log):
    stamps = []
    for line in log.read_text().splitlines():
        if "gang: slice ended" not in line:
            continue
        m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\]", line)
        if m:
            stamps.append(datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp())
    return stamps


def run_gantry(seconds):
    cluster = Cluster(nodes=[{"name": "n1", "cpus": 2, "memory": 2048}],
                      partitions=["PartitionName=ts Nodes=n1 Default=YES MaxTime=INFINITE State=UP "
                                  "OverSubscribe=FORCE:2"],
                      extra_conf=f"SchedulerType=sched/gang\nSchedulerTimeSlice={SLICE}")
    try:
        cluster.start()
        ticker = cluster.root / "ticker.py"
        ticker.write_text(TICKER)
        files = [cluster.root / "a.ts", cluster.root / "b.ts"]
        ids = [cluster.sbatch("-n2", "--mem=100", "-o", "/dev/null", "--wrap",
                              f"exec python3 {ticker} {path}") for path in files]
        wait_for(lambda: files[0].exists(), what="the first job to tick")
        time.sleep(seconds)
        for job_id in ids:
            cluster.cli("scancel", str(job_id), check=False)
        a, b = ticks(files[0]), ticks(files[1])
        found = switches(a, b)
        median = summarize("gantry", found)
        fired = slice_log_times(cluster.root / "gantryctld.log")
        delays = []
        for _, joined, _, launch in found:
            if launch:
                continue
            before = [t for t in fired if t <= joined]
            # Switches long after a slice end were a job ending (the cancels).
            if before and joined - before[-1] < 1.0:
                delays.append((joined - before[-1]) * 1000)
        if delays:
            print(f"gantry: slice timer fired -> joining job's first tick: median {statistics.median(delays):.1f} ms "
                  f"(max {max(delays):.1f}; log stamps have 1 ms resolution)")
        return median
    finally:
        cluster.stop()
        cluster.cleanup()


def run_slurm(seconds):
    peer = REPO.parent / "shared" / "slurm-peer"
    if os.geteuid() != 0 or not (peer / "setup.sh").exists() or shutil.which("slurmctld") is None:
        print("slurm: skipped (needs root, slurm-wlm and the slurm-peer scripts)")
        return None
    work = Path("/tmp/slurmpeer/work-gang-switch")
    work.mkdir(parents=True, exist_ok=True)
    setup = subprocess.run(["bash", str(peer / "setup.sh"), "gang"], env={**os.environ, "FRESH": "1"},
                           capture_output=True, text=True)
    if setup.returncode != 0:
        print("slurm: setup.sh gang failed:", setup.stdout[-300:], setup.stderr[-300:])
        return None
    try:
        ticker = work / "ticker.py"
        ticker.write_text(TICKER)
        files = [work / "a.ts", work / "b.ts"]
        for path in files:
            path.unlink(missing_ok=True)
        ids = []
        for path in files:
            out = subprocess.run(["sbatch", "--parsable", "-n2", "-o", "/dev/null", "--wrap",
                                  f"exec python3 {ticker} {path}"], capture_output=True, text=True, check=True)
            ids.append(out.stdout.strip().split(";")[0])
        deadline = time.monotonic() + 60
        while not files[0].exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(seconds)
        subprocess.run(["scancel", *ids], check=False)
        return summarize("slurm", switches(ticks(files[0]), ticks(files[1])))
    finally:
        subprocess.run(["bash", str(peer / "setup.sh"), "default"], env={**os.environ, "FRESH": "1"},
                       capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=32)
    parser.add_argument("--no-slurm", action="store_true")
    args = parser.parse_args()
    gantry = run_gantry(args.seconds)
    slurm = None if args.no_slurm else run_slurm(args.seconds)
    if gantry and slurm:
        print(f"switch gap, slurm / gantry: {slurm / gantry:.1f}x")


if __name__ == "__main__":
    main()
