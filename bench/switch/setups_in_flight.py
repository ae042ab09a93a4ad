#!/usr/bin/env python3
"""switch/lua on a real controller: RPC latency with many setups in flight,
and how closely switch_timeout is held.

Part 1, setups in flight. A loopback cluster (munged, gantryctld with
SwitchType=switch/lua, agents whose CPUs take every job at once) and a
switch.lua of the bench's own whose slurm_switch_job_start() waits in
open(2) on a FIFO until the bench opens its other end, then declines the
job. A waiting call is one process asleep in the kernel, so 1,000 of them
cost memory but no CPU, and what is measured is whether the controller's
core keeps answering while it has them outstanding. The probe is one
ListJobs for one job (what `squeue -j ID` asks) over gRPC, timed by
bench_rpc_probe, 5 ms apart:

- idle: nothing queued but the probe's own held job;
- queued: the bench's --network jobs submitted held (the same queue, no
  setup running);
- ramp: while the released jobs are placed and their calls forked;
- in flight: every job CONFIGURING, one job_start call process each.

It prints the percentiles, the ratio in flight / idle (the issue's
requirement is at most 2x; the exit status judges the median), the time from the release until every job was
CONFIGURING, and the call processes counted under gantryctld. Then it
cancels the jobs, opens the FIFO so the calls return, and checks that no
call process is left.

Part 2, timeout precision. A second cluster with switch_timeout=S and a
setup that never returns: for each job, the time from the controller's
"switchlua: job_start(): JobId=" line to its "did not report within" line,
and the job must end CANCELLED with the reason "switch setup timed out".
The error against S must stay within 10%.

Part 3, Slurm: Debian's slurm-wlm is searched for switch_lua.so; without
it (Slurm 22.05 in Debian 12 has none) there is nothing to compare with,
and the output says so.

Usage (as root, after scripts/build.sh):
  setups_in_flight.py [--jobs 1000] [--nodes 4] [--cpus 256] [--calls 1000]
                      [--ramp-calls 250] [--timeout 4] [--timeout-jobs 8]
                      [--skip inflight|timeout]
"""

import argparse
import datetime
import glob
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))

from gantry_cluster import BUILD, Cluster, wait_for  # noqa: E402

PROBE = BUILD / "bin" / "bench_rpc_probe"
HELPER_COMM = "gantryswitchcall"[:15]  # /proc/PID/comm keeps 15 characters

# Each setup waits until the bench opens the gate's write end, then declines
# the job (nil: nothing to tear down). io.open blocks in open(2) on a FIFO
# while no writer exists, without using the CPU.
GATED_SCRIPT = """\
function slurm_switch_job_start(job)
  local gate = io.open("{gate}", "r")
  if gate then gate:close() end
  return slurm.SUCCESS, nil
end
"""


# ---------------------------------------------------------------- helpers
def probe(cluster, *args):
    out = subprocess.run([str(PROBE), args[0], "--conf-dir", str(cluster.conf_dir), *args[1:]],
                         capture_output=True, text=True, env=cluster.env())
    if out.returncode != 0:
        raise RuntimeError(f"bench_rpc_probe {' '.join(args)} failed: {out.stderr.strip() or out.stdout.strip()}")
    return out.stdout


def fields(line):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}


def latency(cluster, job_id, calls):
    return fields(probe(cluster, "latency", "--job-id", str(job_id), "--calls", str(calls)))


def states(cluster):
    return {k: int(v) for k, v in (line.split("=") for line in probe(cluster, "states").split())}


def helper_pids(parent_pid):
    """The switch call processes whose parent is the controller."""
    pids = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        rest = text[text.rindex(")") + 2:].split()
        if comm == HELPER_COMM and int(rest[1]) == parent_pid and rest[0] != "Z":
            pids.append(int(stat.split("/")[2]))
    return pids


def cpu_seconds(pid):
    """User and system CPU time of one process so far."""
    text = Path(f"/proc/{pid}/stat").read_text()
    rest = text[text.rindex(")") + 2:].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds():
    """CPU time the whole machine has spent busy (not idle or waiting)."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def log_times(log, pattern):
    """{job id: first timestamp} of the controller log lines matching `pattern`
    (a regex with one group, the job id)."""
    found = {}
    for line in log.read_text().splitlines():
        m = re.search(pattern, line)
        stamp = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\]", line)
        if m and stamp:
            found.setdefault(int(m.group(1)),
                             datetime.datetime.strptime(stamp.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp())
    return found


def show(name, r):
    print(f"  {name:<10} p50 {r['p50_us'] / 1000:6.2f} ms   p95 {r['p95_us'] / 1000:6.2f} ms   "
          f"p99 {r['p99_us'] / 1000:6.2f} ms   max {r['max_us'] / 1000:6.2f} ms   ({int(r['calls'])} calls)")


def switch_cluster(nodes, cpus, memory, timeout):
    return Cluster(nodes=[{"name": f"sw{i + 1}", "cpus": cpus, "memory": memory} for i in range(nodes)],
                   extra_conf=f"SwitchType=switch/lua\nSlurmctldParameters=switch_timeout={timeout}")


# ---------------------------------------------------------------- part 1
def setups_in_flight(args):
    print(f"== part 1: {args.jobs} setups in flight ({args.nodes} nodes x {args.cpus} CPUs, "
          f"{os.cpu_count()} CPUs on this machine)")
    cluster = switch_cluster(args.nodes, args.cpus, args.cpus * 16, 900)
    gate = cluster.root / "gate"
    os.mkfifo(gate, 0o666)
    os.chmod(gate, 0o666)  # the calls run as SlurmUser
    (cluster.conf_dir / "switch.lua").write_text(GATED_SCRIPT.format(gate=gate))
    gate_fd = None
    try:
        cluster.start()
        ctld = cluster.ctld.pid
        target = cluster.sbatch("--hold", "--wrap", "true")  # the job the probe asks about

        idle_descriptors = len(os.listdir(f"/proc/{ctld}/fd"))
        idle = latency(cluster, target, args.calls)
        sub = fields(probe(cluster, "submit", "--jobs", str(args.jobs), "--network", "bench", "--mem", "16",
                           "--hold"))
        first, last = int(sub["first"]), int(sub["last"])
        print(f"  submitted {int(sub['submitted'])} held --network jobs in {sub['seconds']:.2f} s")
        queued = latency(cluster, target, args.calls)

        # The ramp: the probe runs while the jobs are released and their
        # calls forked.
        ramp = {}
        ramp_thread = threading.Thread(target=lambda: ramp.update(latency(cluster, target, args.ramp_calls)))
        ctld_cpu, busy = cpu_seconds(ctld), machine_busy_seconds()
        t0 = time.monotonic()
        ramp_thread.start()
        probe(cluster, "release", "--first", str(first), "--last", str(last))
        released = time.monotonic() - t0
        most = [0]

        def all_configuring():
            now = states(cluster).get("CONFIGURING", 0)
            most[0] = max(most[0], now)
            return now >= args.jobs
        try:
            wait_for(all_configuring, timeout=300, interval=0.25, what="every job to be CONFIGURING")
        except TimeoutError:
            print(f"  only {most[0]} of {args.jobs} jobs were CONFIGURING at once; states now: {states(cluster)}")
            raise
        to_configuring = time.monotonic() - t0
        ramp_thread.join()
        ramp_ctld_cpu, ramp_busy = cpu_seconds(ctld) - ctld_cpu, machine_busy_seconds() - busy
        calls_seen = len(helper_pids(ctld))
        descriptors = len(os.listdir(f"/proc/{ctld}/fd"))
        in_flight = latency(cluster, target, args.calls)
        in_flight_again = latency(cluster, target, args.calls)
        calls_after = len(helper_pids(ctld))

        print(f"  released in {released:.2f} s; all {args.jobs} CONFIGURING {to_configuring:.2f} s after the "
              f"first release")
        print(f"  gantryswitchcall processes under gantryctld: {calls_seen} before the in-flight probes, "
              f"{calls_after} after them")
        print(f"  CPU time during the ramp ({to_configuring:.2f} s on {os.cpu_count()} CPUs): the machine "
              f"{ramp_busy:.2f} s, of which gantryctld {ramp_ctld_cpu:.2f} s")
        print(f"  descriptors open in gantryctld: {idle_descriptors} idle, {descriptors} in flight")
        print("  ListJobs of one job, over gRPC, one call every 5 ms:")
        show("idle", idle)
        show("queued", queued)
        show("ramp", ramp)
        show("in flight", in_flight)
        show("again", in_flight_again)
        worst = max(in_flight, in_flight_again, key=lambda r: r["p50_us"])
        p50, p95, p99 = (worst[f"{p}_us"] / idle[f"{p}_us"] for p in ("p50", "p95", "p99"))
        print(f"  in flight / idle: p50 {p50:.2f}x, p95 {p95:.2f}x, p99 {p99:.2f}x (the in-flight run with the "
              f"higher median; required: within 2x, judged on the median) -> {'ok' if p50 <= 2.0 else 'OVER 2x'}")
        print(f"  in flight / queued: p50 {worst['p50_us'] / queued['p50_us']:.2f}x, "
              f"p99 {worst['p99_us'] / queued['p99_us']:.2f}x (the same queue without setups)")
        print(f"  ramp / idle: p50 {ramp['p50_us'] / idle['p50_us']:.2f}x, "
              f"p99 {ramp['p99_us'] / idle['p99_us']:.2f}x (forks and Lua loads share the CPUs)")

        # Clean up: cancel while the setups still wait (the nodes stay held
        # until they report), then open the gate so every call returns.
        cluster.cli("scancel", *[str(i) for i in range(first, last + 1)], str(target), check=False)
        gate_fd = os.open(gate, os.O_RDWR | os.O_NONBLOCK)  # a writer: every open for reading returns
        wait_for(lambda: not helper_pids(ctld), timeout=120, what="the call processes to end")
        wait_for(lambda: not states(cluster), timeout=120, what="the cancelled jobs to end")
        print("  after cancel and release: no call process left, no job left")
        return p50
    finally:
        if gate_fd is None:  # stopped early: let any waiting call return
            gate_fd = os.open(gate, os.O_RDWR | os.O_NONBLOCK)
        cluster.stop()
        os.close(gate_fd)
        cluster.cleanup()


# ---------------------------------------------------------------- part 2
def timeout_precision(args):
    seconds = args.timeout
    print(f"== part 2: switch_timeout={seconds} and a setup that never returns ({args.timeout_jobs} jobs)")
    cluster = switch_cluster(1, 16, 4096, seconds)
    gate = cluster.root / "never"  # nobody ever opens its write end
    os.mkfifo(gate, 0o666)
    os.chmod(gate, 0o666)
    (cluster.conf_dir / "switch.lua").write_text(GATED_SCRIPT.format(gate=gate))
    try:
        cluster.start()
        ids = [cluster.sbatch("--network=bench", "--no-requeue", "-n1", "--mem=16", "-o", "/dev/null",
                              "--wrap", "true") for _ in range(args.timeout_jobs)]
        for job_id in ids:
            cluster.wait_job(job_id, timeout=seconds * 3 + 30)
        log = cluster.root / "gantryctld.log"
        started = log_times(log, r"switchlua: job_start\(\): JobId=(\d+)")
        abandoned = log_times(log, r"switch setup of JobId=(\d+) did not report within")
        errors = []
        for job_id in ids:
            job = cluster.job(job_id)
            if job["state"] != "CANCELLED" or "switch setup timed out" not in job.get("reason", ""):
                print(f"  JobId={job_id}: ended {job['state']} ({job.get('reason', '')}), not timed out")
                continue
            if job_id not in started or job_id not in abandoned:
                print(f"  JobId={job_id}: the controller log lacks its start or timeout line")
                continue
            took = abandoned[job_id] - started[job_id]
            errors.append((took - seconds) / seconds * 100)
            print(f"  JobId={job_id}: call started -> failed with 'switch setup timed out' in {took:.3f} s "
                  f"({errors[-1]:+.2f}%)")
        left = helper_pids(cluster.ctld.pid)
        print(f"  call processes left: {len(left)}")
        if errors:
            worst = max(errors, key=abs)
            print(f"  error vs switch_timeout: median {statistics.median(errors):+.2f}%, worst {worst:+.2f}% "
                  f"(required: within 10%) -> {'ok' if abs(worst) <= 10 else 'OUTSIDE 10%'}")
            return worst
        return None
    finally:
        # Calls the controller did not kill (it stopped early) would wait
        # forever: open the FIFO so they return.
        gate_fd = os.open(gate, os.O_RDWR | os.O_NONBLOCK)
        cluster.stop()
        os.close(gate_fd)
        cluster.cleanup()


# ---------------------------------------------------------------- part 3
def slurm_switch_lua():
    print("== part 3: Slurm")
    plugins = glob.glob("/usr/lib/*/slurm-wlm/switch_*.so") + glob.glob("/usr/lib/slurm*/switch_*.so")
    packaged = subprocess.run("dpkg -L slurm-wlm-basic-plugins slurm-wlm-plugins 2>/dev/null | grep switch_",
                              shell=True, capture_output=True, text=True).stdout.split()
    found = sorted({Path(p).name for p in plugins + packaged if p.endswith(".so")})
    version = subprocess.run("dpkg-query -W -f='${Version}' slurm-wlm 2>/dev/null", shell=True,
                             capture_output=True, text=True).stdout.strip()
    if "switch_lua.so" in found:
        print("  slurm-wlm has switch_lua.so; this bench does not drive it yet")
    elif found or version:
        print(f"  slurm-wlm {version or '(version unknown)'} ships {', '.join(found) or 'no switch plugin'}: "
              f"no switch_lua.so, so there is no Slurm switch/lua to compare with")
    else:
        print("  slurm-wlm is not installed here: no Slurm to compare with")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=256, help="CPUs of each node")
    parser.add_argument("--calls", type=int, default=1000, help="probe calls per measurement")
    parser.add_argument("--ramp-calls", type=int, default=250,
                        help="probe calls during the ramp (about as long as the ramp on 2 CPUs)")
    parser.add_argument("--timeout", type=int, default=4, help="switch_timeout of part 2, seconds")
    parser.add_argument("--timeout-jobs", type=int, default=8)
    parser.add_argument("--skip", choices=["inflight", "timeout"], action="append", default=[])
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the cluster starts its own munged and agents")
    if not PROBE.exists():
        sys.exit(f"{PROBE} not found; run scripts/build.sh first")
    if args.jobs > args.nodes * args.cpus:
        sys.exit(f"{args.jobs} one-CPU jobs do not fit on {args.nodes} x {args.cpus} CPUs")
    ratio = None if "inflight" in args.skip else setups_in_flight(args)
    worst = None if "timeout" in args.skip else timeout_precision(args)
    slurm_switch_lua()
    failed = (ratio is not None and ratio > 2.0) or (worst is not None and abs(worst) > 10)
    if "timeout" not in args.skip and worst is None:
        failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
