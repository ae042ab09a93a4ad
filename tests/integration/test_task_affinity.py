"""TaskPlugin=task/affinity on a loopback cluster: each task of an exact
step is bound to its own CPUs (Cpus_allowed_list in /proc), a step given
more CPUs than its tasks ask (srun --exclusive=allocation) leaves its tasks
on all of them, --exact undoes that, and without task/affinity nothing is
bound. The node's CPU ids are the host's 0 and 1."""

import os
import re

import pytest

from gantry_cluster import binary

NODES = [{"name": "af1", "cpus": 2, "memory": 1024}]
SHOW = ["grep", "Cpus_allowed_list", "/proc/self/status"]


def cpu_list(text):
    cpus = set()
    for block in text.split(","):
        first, _, last = block.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def task_cpus(output):
    """{task: set of CPUs} from `srun -l grep Cpus_allowed_list ...`."""
    found = re.findall(r"^(\d+): Cpus_allowed_list:\s*(\S+)$", output, re.M)
    return {int(task): cpu_list(cpus) for task, cpus in found}


@pytest.fixture(autouse=True)
def two_host_cpus():
    if not {0, 1} <= os.sched_getaffinity(0):
        pytest.skip("skipped: this test needs host CPUs 0 and 1 (the node's CPU ids) to be usable here")


def test_tasks_of_an_exact_step_are_bound_one_by_one(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES], extra_conf="TaskPlugin=task/affinity")
    two = task_cpus(cluster.cli("srun", "-n2", "-l", *SHOW).stdout)
    assert sorted(two) == [0, 1]
    assert len(two[0]) == 1 and len(two[1]) == 1
    assert two[0] | two[1] == {0, 1}
    wide = task_cpus(cluster.cli("srun", "-n1", "-c2", "-l", *SHOW).stdout)
    assert wide == {0: {0, 1}}
    # Inside a job of both CPUs, --whole gives a one-task step both, unbound.
    srun = f"{binary('gantry')} srun -n1 -l"
    out = cluster.root / "whole.out"
    job = cluster.sbatch("-n2", "-o", str(out), "--wrap",
                         f"{srun} {' '.join(SHOW)}; {srun} --whole {' '.join(SHOW)}")
    assert cluster.wait_job(job, timeout=30) == "COMPLETED"
    lines = re.findall(r"Cpus_allowed_list:\s*(\S+)", out.read_text())
    assert len(lines) == 2
    assert len(cpu_list(lines[0])) == 1 and cpu_list(lines[1]) >= {0, 1}


def test_exclusive_allocation_gives_the_step_every_cpu_unless_exact(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES], extra_conf="TaskPlugin=cgroup,affinity")
    whole = cluster.cli("srun", "--exclusive=allocation", "-n1", "-l", "sh", "-c",
                        "grep Cpus_allowed_list /proc/self/status; echo cpus=$SLURM_CPUS_ON_NODE").stdout
    assert "0: cpus=2" in whole
    assert {0, 1} <= task_cpus(whole)[0]  # not bound to one CPU
    exact = cluster.cli("srun", "--exclusive=allocation", "--exact", "-n1", "-l", *SHOW).stdout
    assert len(task_cpus(exact)[0]) == 1
    refused = cluster.cli("srun", "--exclusive=everything", "-n1", "true", check=False)
    assert refused.returncode != 0
    assert "invalid value 'everything'" in refused.stderr


def test_without_task_affinity_no_task_is_bound(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    two = task_cpus(cluster.cli("srun", "-n2", "-l", *SHOW).stdout)
    assert sorted(two) == [0, 1]
    assert {0, 1} <= two[0] and {0, 1} <= two[1]
