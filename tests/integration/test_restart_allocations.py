"""A controller killed with SIGKILL and restarted while GPU jobs run: the
running jobs keep exactly their devices, nothing is handed out twice, and
GPU submissions made before the agent registers again are queued."""

import signal
import time

from gantry_cluster import wait_for

# g1: five GPUs, no links.
FIVE_GPUS = "NodeName=g1 Name=gpu File=/dev/nvidia[0-4]\n"


def devices_of(cluster, job_id):
    gres = cluster.job(job_id)["allocation"][0]["gres"]
    return gres[gres.index("(IDX:") + 5:gres.index(")")]


def running_devices(cluster):
    """Device index -> job ids holding it, over the running jobs."""
    holders = {}
    for job in cluster.jobs_json():
        if job["state"] != "RUNNING":
            continue
        for alloc in job.get("allocation", []):
            for device in alloc.get("devices", []):
                holders.setdefault(device, []).append(job["job_id"])
    return holders


def test_restarted_controller_never_hands_a_gpu_out_twice(cluster_factory):
    cluster = cluster_factory(nodes=[{"name": "g1", "cpus": 10, "memory": 8000, "gres": "gpu:5"}],
                              gres_conf=FIVE_GPUS)
    first = [cluster.sbatch("--gres=gpu:1", "--wrap", "sleep 300") for _ in range(5)]
    for job_id in first:
        wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what=f"job {job_id} to run")
    held = {job_id: devices_of(cluster, job_id) for job_id in first}
    assert sorted(held.values()) == ["0", "1", "2", "3", "4"]

    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    # Before (or while) the agent registers again: queued, never refused.
    later = [cluster.sbatch("--gres=gpu:1", "--wrap", "sleep 300") for _ in range(4)]
    cluster.wait_nodes_up(["g1"])
    # Give the scheduler a few passes to make the mistake, if it would.
    time.sleep(2)
    for job_id in later:
        assert cluster.job_state(job_id) == "PENDING"
    for job_id, devices in held.items():
        assert cluster.job_state(job_id) == "RUNNING"
        assert devices_of(cluster, job_id) == devices
    holders = running_devices(cluster)
    assert sorted(holders) == [0, 1, 2, 3, 4]
    assert all(len(jobs) == 1 for jobs in holders.values()), holders

    # The GPU a cancelled job frees goes to exactly one waiting job.
    freed = held[first[2]]
    cluster.cli("scancel", str(first[2]))
    cluster.wait_job(first[2])
    started = wait_for(lambda: [j for j in later if cluster.job_state(j) == "RUNNING"],
                       what="a waiting job to start on the freed GPU")
    assert len(started) == 1
    assert devices_of(cluster, started[0]) == freed
    holders = running_devices(cluster)
    assert all(len(jobs) == 1 for jobs in holders.values()), holders


def test_restarted_controller_keeps_count_gres_held(cluster_factory):
    # A GRES without device files is only a count: after a restart the
    # running job must still hold its units, or a second job gets them too.
    cluster = cluster_factory(nodes=[{"name": "c1", "cpus": 6, "memory": 6000, "gres": "tok:3"}],
                              extra_conf="GresTypes=gpu,shard,mps,tok")
    holder = cluster.sbatch("--gres=tok:2", "-n1", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(holder) == "RUNNING", what="the job holding two units to run")

    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    cluster.wait_nodes_up(["c1"])
    waiting = cluster.sbatch("--gres=tok:2", "-n1", "--mem=100", "--wrap", "sleep 300")
    time.sleep(2)
    assert cluster.job_state(waiting) == "PENDING"
    shown = cluster.cli("scontrol", "show", "node", "-d", "c1").stdout
    assert "GresUsed=tok:2" in shown, shown

    cluster.cli("scancel", str(holder))
    wait_for(lambda: cluster.job_state(waiting) == "RUNNING", what="the waiting job to get the freed units")
    cluster.cli("scancel", str(waiting))
