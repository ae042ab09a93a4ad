"""A no_consume GRES (Gres=NAME:no_consume:N) is never used up: while jobs
hold it, the node shows it unused, and any number of jobs asking for it
run at once; an ordinary GRES of the same node is used up as usual."""

import re

from gantry_cluster import wait_for

NODE = {"name": "nc1", "cpus": 4, "memory": 4000, "gres": "lic:no_consume:1,tok:1"}
TYPES = "GresTypes=gpu,shard,mps,lic,tok"


def gres_used(cluster):
    shown = cluster.cli("scontrol", "show", "node", "-d", "nc1").stdout
    return re.search(r"GresUsed=(\S+)", shown).group(1)


def test_jobs_asking_for_a_no_consume_gres_of_one_all_run_and_leave_it_unused(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=TYPES)
    jobs = [cluster.sbatch("--gres=lic", "-n1", "--mem=100", "--wrap", "sleep 30") for _ in range(3)]
    wait_for(lambda: all(cluster.job_state(job) == "RUNNING" for job in jobs), timeout=30,
             what="every job asking for the no_consume GRES to run")
    assert "lic:0" in gres_used(cluster).split(",")
    for job in jobs:
        cluster.cli("scancel", str(job))


def test_an_ordinary_gres_of_one_beside_it_is_used_up(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=TYPES)
    first = cluster.sbatch("--gres=tok", "-n1", "--mem=100", "--wrap", "sleep 30")
    second = cluster.sbatch("--gres=tok", "-n1", "--mem=100", "--wrap", "sleep 30")
    wait_for(lambda: cluster.job_state(first) == "RUNNING", timeout=30, what="the first job to run")
    used = gres_used(cluster)
    assert re.search(r"(^|,)tok:1", used), used
    assert re.search(r"(^|,)lic:0", used), used
    assert cluster.job_state(second) == "PENDING"
    cluster.cli("scancel", str(first), str(second))
