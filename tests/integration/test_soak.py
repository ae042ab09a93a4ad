"""Soak: a thousand steps through one agent leave no zombie behind (every
gantrystepd the agent started is reaped as it ends)."""

import time
from pathlib import Path

from gantry_cluster import binary, wait_for

JOBS = 4
STEPS_PER_JOB = 250  # with the batch steps: 1,004 gantrystepd on one agent


def zombie_children(pid):
    zombies = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z" and int(fields[1]) == pid:
            zombies.append(int(entry.name))
    return zombies


def test_a_thousand_steps_leave_no_zombie_of_the_agent(cluster_factory):
    cluster = cluster_factory(nodes=[{"name": "n1", "cpus": JOBS, "memory": 4096}])
    agent = cluster.agents["n1"].pid
    gantry = binary("gantry")
    began = time.monotonic()
    ids = [cluster.sbatch("-n1", "-o", str(cluster.root / f"soak-{i}.out"), "--wrap",
                          f"for i in $(seq {STEPS_PER_JOB}); do {gantry} srun -n1 true || exit 1; done")
           for i in range(JOBS)]
    for job_id in ids:
        assert cluster.wait_job(job_id, timeout=300) == "COMPLETED", (cluster.root / "soak-0.out").read_text()
    elapsed = time.monotonic() - began
    print(f"{JOBS * (STEPS_PER_JOB + 1)} gantrystepd in {elapsed:.1f} s")
    # The last gantrystepd may end a moment after its job did.
    wait_for(lambda: not zombie_children(agent), timeout=5, what="the agent's zombie children to be reaped")
    assert zombie_children(agent) == []
    assert cluster.agents["n1"].poll() is None
