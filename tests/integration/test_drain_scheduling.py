"""What the scheduler does with drained resources, on one cluster whose
nodes each serve one test through a partition of their own: a drained GPU,
drained CPU cores and drained memory are not given to new jobs, a job that
needs them waits with the drained list as its reason and starts when they
are resumed, a running job keeps what is drained under it, MaxDrainedTres
keeps a node DEGRADED within it and drains it past it, and shards of a
drained GPU take no new work."""

import pytest

from drain_harness import (drain_gpu, drained_listing, node_json, reasons, resume_tres, scontrol_update,
                           set_node_state, show_node, start_cluster, wait_pending_for_drains)
from gantry_cluster import wait_for

GRES_CONF = ("NodeName=s5 Name=gpu Type=l40s File=/dev/nvidia[0-4]\n"
             "NodeName=lim Name=gpu Type=a40 File=/dev/nvidia[0-3]\n"
             "NodeName=sh2 Name=gpu Type=t4 File=/dev/nvidia[0-1]\n"
             "NodeName=sh2 Name=shard Count=8 File=/dev/nvidia[0-1]\n")
LIMIT = "gres/gpu:1,mem:1000"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster = start_cluster(
        nodes=[{"name": "s5", "cpus": 6, "memory": 6000, "gres": "gpu:l40s:5"},
               # Four cores of two threads: core k is CPUs 2k and 2k+1.
               {"name": "c8", "cpus": 8, "sockets": 1, "cores_per_socket": 4, "threads_per_core": 2,
                "memory": 6000},
               {"name": "lim", "cpus": 4, "memory": 4000, "gres": "gpu:a40:4", "extra": f"MaxDrainedTres={LIMIT}"},
               {"name": "sh2", "cpus": 4, "memory": 4000, "gres": "gpu:t4:2,shard:8"}],
        partitions=["PartitionName=gp Nodes=s5 Default=YES MaxTime=INFINITE State=UP",
                    "PartitionName=cp Nodes=c8 MaxTime=INFINITE State=UP",
                    "PartitionName=lp Nodes=lim MaxTime=INFINITE State=UP",
                    "PartitionName=sp Nodes=sh2 MaxTime=INFINITE State=UP"],
        gres_conf=GRES_CONF, root=tmp_path_factory.mktemp("drain-sched"))
    yield cluster
    cluster.cleanup()


def submit(cluster, partition, *args):
    return cluster.sbatch("-p", partition, "--mem=100", *args, "--wrap", "sleep 60")


def wait_running(cluster, job_id):
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", timeout=20, what=f"job {job_id} to run")
    return cluster.job(job_id)["allocation"][0]


def cancel(cluster, *job_ids):
    for job_id in job_ids:
        cluster.cli("scancel", str(job_id))
    for job_id in job_ids:
        cluster.wait_job(job_id)


def assert_reason_everywhere(cluster, job_id, reason):
    """The waiting reason as squeue, its JSON and scontrol show job give it."""
    assert cluster.job(job_id)["reason"] == reason
    assert cluster.cli("squeue", "-h", "-j", str(job_id), "-O", "Reason:200").stdout.strip() == reason
    assert cluster.cli("squeue", "-h", "-j", str(job_id), "-o", "%R").stdout.strip() == f"({reason})"
    assert f"Reason={reason}" in cluster.cli("scontrol", "show", "job", str(job_id)).stdout


def test_a_drained_gpu_is_not_given_and_a_job_needing_it_starts_when_it_is_resumed(cluster):
    drain_gpu(cluster, "s5", "xid_63", index=2)
    fits = submit(cluster, "gp", "--gres=gpu:4")
    assert wait_running(cluster, fits)["devices"] == [0, 1, 3, 4]
    every = submit(cluster, "gp", "--gres=gpu:5")
    reason = wait_pending_for_drains(cluster, every, "s5 gpu(IDX:2)(xid_63)")
    assert reason == "Resources (drained: s5 gpu(IDX:2)(xid_63))"
    assert_reason_everywhere(cluster, every, reason)

    # Free GPUs alone do not start it; resuming the drained one does.
    cancel(cluster, fits)
    wait_pending_for_drains(cluster, every, "s5 gpu(IDX:2)(xid_63)")
    resume_tres(cluster, "s5", "Index=2")
    assert wait_running(cluster, every)["devices"] == [0, 1, 2, 3, 4]
    assert show_node(cluster, "s5")["State"] == "MIXED"

    # Draining a GPU a running job holds leaves the job its GPU.
    drain_gpu(cluster, "s5", "ecc_dbe", index=0)
    assert cluster.job_state(every) == "RUNNING"
    assert cluster.job(every)["allocation"][0]["devices"] == [0, 1, 2, 3, 4]
    assert show_node(cluster, "s5")["State"] in ("ALLOCATED+DEGRADED", "MIXED+DEGRADED")
    cancel(cluster, every)
    # Once the job is gone the drained GPU takes no new job.
    again = submit(cluster, "gp", "--gres=gpu:5")
    wait_pending_for_drains(cluster, again, "s5 gpu(IDX:0)(ecc_dbe)")
    four = submit(cluster, "gp", "--gres=gpu:4")
    assert wait_running(cluster, four)["devices"] == [1, 2, 3, 4]
    cancel(cluster, again, four)
    resume_tres(cluster, "s5", "Index=0")
    assert "DrainedTRES" not in show_node(cluster, "s5")


def test_one_thread_drains_its_core_and_drained_cores_are_not_given(cluster):
    drain = scontrol_update(cluster, "TresName=cpu", "NodeName=c8", "Index=5", "Action=Drain", "Reason=mce_bank")
    assert drain.stdout == ""
    assert show_node(cluster, "c8")["DrainedTRES"] == "cpu(IDX:4-5)(mce_bank)"
    assert drained_listing(cluster, "c8") == ["NodeName=c8 TresName=cpu Index=4-5 Reason=mce_bank"]

    three_cores = submit(cluster, "cp", "-c6")
    allocation = wait_running(cluster, three_cores)
    assert sorted(allocation["cpus"]) == [0, 1, 2, 3, 6, 7]
    whole = submit(cluster, "cp", "-c8")
    wait_pending_for_drains(cluster, whole, "c8 cpu(IDX:4-5)(mce_bank)")
    cancel(cluster, three_cores, whole)
    scontrol_update(cluster, "TresName=cpu", "NodeName=c8", "Index=4-5", "Action=Resume")
    assert "DrainedTRES" not in show_node(cluster, "c8")


def test_drained_memory_is_not_given(cluster):
    scontrol_update(cluster, "TresName=mem", "NodeName=c8", "Count=4500", "Action=Drain", "Reason=bad_dimm")
    assert show_node(cluster, "c8")["DrainedTRES"] == "mem:4500(bad_dimm)"
    assert drained_listing(cluster, "c8") == ["NodeName=c8 TresName=mem Count=4500 Reason=bad_dimm"]

    small = cluster.sbatch("-p", "cp", "--mem=1200", "--wrap", "sleep 60")
    wait_running(cluster, small)
    # 1500 MB are in service and 1200 of them are taken.
    big = cluster.sbatch("-p", "cp", "--mem=2000", "--wrap", "sleep 60")
    wait_pending_for_drains(cluster, big, "c8 mem:4500(bad_dimm)")
    cancel(cluster, small)
    wait_pending_for_drains(cluster, big, "c8 mem:4500(bad_dimm)")
    scontrol_update(cluster, "TresName=mem", "NodeName=c8", "Count=ALL", "Action=Resume")
    wait_running(cluster, big)
    cancel(cluster, big)
    assert "DrainedTRES" not in show_node(cluster, "c8")


def test_max_drained_tres_keeps_the_node_degraded_within_it_and_drains_it_past_it(cluster):
    shown = show_node(cluster, "lim")
    assert shown["MaxDrainedTres"] == LIMIT
    assert node_json(cluster, "lim")["max_drained_tres"] == LIMIT
    assert "MaxDrainedTres" not in show_node(cluster, "s5")

    drain_gpu(cluster, "lim", "xid_48", index=3)
    assert show_node(cluster, "lim")["State"] == "IDLE+DEGRADED"
    drain_gpu(cluster, "lim", "xid_48", index=0)
    past = "MaxDrainedTres exceeded: gres/gpu 2 drained, limit 1"
    shown = show_node(cluster, "lim")
    assert "DRAIN" in shown["State"].split("+"), shown["State"]
    assert shown["Reason"].startswith(past)
    assert shown["DrainedTRES"] == "gpu(IDX:0,3)(xid_48)"
    assert reasons(cluster)["lim"][0] == past
    job_id = submit(cluster, "lp", "--gres=gpu:1")
    wait_for(lambda: cluster.job(job_id)["reason"] != "", what="the job on the drained node to wait")
    assert cluster.job_state(job_id) == "PENDING"

    # Back within the limit the node stays drained until an operator says.
    resume_tres(cluster, "lim", "Index=0")
    assert show_node(cluster, "lim")["Reason"].startswith(past)
    set_node_state(cluster, "lim", "UNDRAIN")
    assert show_node(cluster, "lim")["State"].split("+")[1:] == ["DEGRADED"]
    assert wait_running(cluster, job_id)["devices"] == [0]
    cancel(cluster, job_id)

    # Memory: at the limit is within it, one megabyte more is past it.
    scontrol_update(cluster, "TresName=mem", "NodeName=lim", "Count=1000", "Action=Drain", "Reason=dimm_ce")
    assert show_node(cluster, "lim")["State"] == "IDLE+DEGRADED"
    scontrol_update(cluster, "TresName=mem", "NodeName=lim", "Count=1", "Action=Drain", "Reason=dimm_ue")
    shown = show_node(cluster, "lim")
    assert shown["Reason"].startswith("MaxDrainedTres exceeded: mem 1001 drained, limit 1000")
    assert shown["DrainedTRES"] == "gpu(IDX:3)(xid_48),mem:1001(dimm_ue)"

    set_node_state(cluster, "lim", "RESUME")
    shown = show_node(cluster, "lim")
    assert shown["State"] == "IDLE"
    assert "DrainedTRES" not in shown


def gres_used(cluster, node):
    out = cluster.cli("sinfo", "-h", "-N", "-O", "NodeList:10,GresUsed:80").stdout
    return next(line.split()[1] for line in out.splitlines() if line.split()[0] == node)


def test_shards_of_a_drained_gpu_take_no_new_work(cluster):
    drain_gpu(cluster, "sh2", "xid_31", index=1)
    assert gres_used(cluster, "sh2") == "gpu:t4:0(IDX:N/A),shard:0(0/4,d/4)"
    first = submit(cluster, "sp", "--gres=shard:3")
    shares = wait_running(cluster, first)["shares"]
    assert [(s["name"], s["device"]) for s in shares] == [("shard", 0)]
    # GPU 0 has one shard left; GPU 1's four are free but out of service.
    # The job would fit the node with its drains were it idle, so it waits
    # for Resources, not for a drain.
    second = submit(cluster, "sp", "--gres=shard:3")
    wait_for(lambda: cluster.job(second)["reason"] == "Resources", what="the second shard job to wait")
    assert cluster.job_state(second) == "PENDING"
    assert gres_used(cluster, "sh2") == "gpu:t4:0(IDX:N/A),shard:3(3/4,d/4)"

    resume_tres(cluster, "sh2", "Index=1")
    shares = wait_running(cluster, second)["shares"]
    assert [(s["name"], s["device"]) for s in shares] == [("shard", 1)]
    # Drained under a running job: its shards stay allocated, shown after the d.
    drain_gpu(cluster, "sh2", "xid_31", index=1)
    assert cluster.job_state(second) == "RUNNING"
    assert gres_used(cluster, "sh2") == "gpu:t4:0(IDX:N/A),shard:6(3/4,d3/4)"
    cancel(cluster, first, second)
    resume_tres(cluster, "sh2", "Index=1")
    assert gres_used(cluster, "sh2") == "gpu:t4:0(IDX:N/A),shard:0(0/4,0/4)"
