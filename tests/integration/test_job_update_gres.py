"""scontrol update JobId=N Gres=... (or TresPerNode=gres/...) replaces a
pending job's per-node GRES request, checked as a submission is; a running
job, another user's job, an unknown GRES and a request no node can meet
are refused and change nothing."""

import re

from gantry_cluster import wait_for

NODE = {"name": "ug1", "cpus": 4, "memory": 4000, "gres": "tok:3"}
TYPES = "GresTypes=gpu,shard,mps,tok,nic"


def tres_per_node(cluster, job):
    shown = cluster.cli("scontrol", "show", "job", str(job)).stdout
    found = re.search(r"TresPerNode=(\S+)", shown)
    return found.group(1) if found else None


def update(cluster, job, *words, user=None):
    return cluster.cli("scontrol", "update", f"JobId={job}", *words, user=user, check=False)


def test_a_pending_jobs_gres_is_replaced_and_bad_changes_are_refused(cluster_factory, two_users):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf=TYPES)
    job = cluster.sbatch("--hold", "-n1", "--mem=100", "--gres=tok:1", "--wrap", "sleep 30")
    assert tres_per_node(cluster, job) == "gres/tok:1"

    assert update(cluster, job, "Gres=tok:2").returncode == 0
    assert tres_per_node(cluster, job) == "gres/tok:2"
    assert update(cluster, job, "TresPerNode=gres/tok:3").returncode == 0
    assert tres_per_node(cluster, job) == "gres/tok:3"

    more = update(cluster, job, "Gres=tok:4")
    assert more.returncode == 1 and "Requested node configuration is not available" in more.stderr, more.stderr
    unknown = update(cluster, job, "Gres=widget:1")
    assert unknown.returncode == 1 and "Invalid generic resource (gres) specification" in unknown.stderr
    malformed = update(cluster, job, "Gres=tok:x:y:z")
    assert malformed.returncode == 1 and "Invalid generic resource (gres) specification" in malformed.stderr
    stranger = update(cluster, job, "Gres=tok:1", user=two_users[0])
    assert stranger.returncode == 1 and "Access/permission denied" in stranger.stderr
    assert tres_per_node(cluster, job) == "gres/tok:3"  # none of them changed it

    assert update(cluster, job, "Gres=").returncode == 0
    assert tres_per_node(cluster, job) is None
    assert update(cluster, job, "Gres=tok:2").returncode == 0
    cluster.cli("scontrol", "release", str(job))
    wait_for(lambda: cluster.job_state(job) == "RUNNING", timeout=30, what="the released job to run")
    late = update(cluster, job, "Gres=tok:1")
    assert late.returncode == 1 and "Job is no longer pending execution" in late.stderr, late.stderr
    assert tres_per_node(cluster, job) == "gres/tok:2"
    cluster.cli("scancel", str(job))
