"""Gang scheduling with the real daemons and a short SchedulerTimeSlice:
jobs that share CPUs of an OverSubscribe=FORCE partition take turns
(squeue states and TIME), a suspended job's tasks really stop (a ticking
counter file does not advance while its job shows S), a job beside the
active set starts at once, GPUs are never shared, and the rotation goes on
after a controller restart."""

import time

from gantry_cluster import wait_for

SLICE = 5  # seconds (the least SchedulerTimeSlice accepts)


def gang_cluster(cluster_factory, nodes=None, force="FORCE:2", extra="", gres_conf=""):
    nodes = nodes or [{"name": "n1", "cpus": 2, "memory": 2048}, {"name": "n2", "cpus": 2, "memory": 2048}]
    names = ",".join(n["name"] for n in nodes)
    return cluster_factory(
        nodes=nodes,
        partitions=[f"PartitionName=ts Nodes={names} Default=YES MaxTime=INFINITE State=UP OverSubscribe={force}"],
        extra_conf=f"SchedulerType=sched/gang\nSchedulerTimeSlice={SLICE}\n{extra}", gres_conf=gres_conf)


def ticking(cluster, name, *args):
    """A job that appends a line to its own counter file ten times a second."""
    ticks = cluster.root / f"ticks-{name}"
    job_id = cluster.sbatch(*args, "-o", str(cluster.root / f"{name}-%j.out"), "--wrap",
                            f"while true; do echo x >> {ticks}; sleep 0.1; done")
    return job_id, ticks


def count(path):
    return len(path.read_text().splitlines()) if path.exists() else 0


def squeue_rows(cluster):
    out = cluster.cli("squeue", "-h", "-o", "%i %t %M").stdout
    return {int(line.split()[0]): line.split()[1:] for line in out.splitlines() if line.strip()}


def states(cluster, *ids):
    rows = squeue_rows(cluster)
    return "".join(rows[i][0] if i in rows else "?" for i in ids)


def test_two_jobs_on_the_same_cpus_take_turns_and_the_suspended_one_stops(cluster_factory):
    cluster = gang_cluster(cluster_factory)
    first, first_ticks = ticking(cluster, "a", "-N2", "-n4", "--mem=100")
    wait_for(lambda: count(first_ticks) > 2, what="the first job to tick")
    second, second_ticks = ticking(cluster, "b", "-N2", "-n4", "--mem=100")
    wait_for(lambda: states(cluster, first, second) == "RS", what="the second job to start suspended")
    rows = squeue_rows(cluster)
    assert rows[second][1] == "0:00", rows
    assert cluster.job(second)["reason"] == "GangTimeslice"
    # Allocated suspended, it has not started at all yet.
    assert count(second_ticks) == 0

    wait_for(lambda: states(cluster, first, second) == "SR", timeout=SLICE + 10, what="the first swap")
    wait_for(lambda: count(second_ticks) > 2, what="the second job to tick")
    frozen_at = count(first_ticks)
    time.sleep(1.0)
    if states(cluster, first, second) == "SR":
        assert count(first_ticks) == frozen_at, "the suspended job kept running"

    wait_for(lambda: states(cluster, first, second) == "RS", timeout=SLICE + 10, what="the second swap")
    before = count(second_ticks)
    time.sleep(1.0)
    if states(cluster, first, second) == "RS":
        assert count(second_ticks) == before, "the suspended job kept running"
        assert count(first_ticks) > frozen_at
    shown = cluster.cli("scontrol", "show", "job", str(second)).stdout
    assert "JobState=SUSPENDED" in shown or "JobState=RUNNING" in shown
    assert "SecsPreSuspend=" in shown and "SuspendTime=" in shown
    for job_id in (first, second):
        cluster.cli("scancel", str(job_id))
        assert cluster.wait_job(job_id) == "CANCELLED"


def test_a_job_beside_the_active_set_runs_at_once(cluster_factory):
    cluster = gang_cluster(cluster_factory)
    left = cluster.sbatch("-N1", "-n2", "--mem=100", "--wrap", "sleep 120")
    wait_for(lambda: states(cluster, left) == "R", what="the first job to run")
    wide = cluster.sbatch("-N2", "-n4", "--mem=100", "--wrap", "sleep 120")
    wait_for(lambda: states(cluster, wide) == "S", what="the wide job to start suspended")
    right = cluster.sbatch("-N1", "-n2", "--mem=100", "--wrap", "sleep 120")
    wait_for(lambda: states(cluster, right) == "R", what="the small job to backfill")
    assert cluster.job(right)["node_list"] != cluster.job(left)["node_list"]
    wait_for(lambda: states(cluster, left, wide, right) == "SRS", timeout=SLICE + 10, what="the wide job's turn")
    for job_id in (left, wide, right):
        cluster.cli("scancel", str(job_id))


def test_gpu_jobs_sharing_cpus_never_share_a_gpu_and_a_third_waits_pending(cluster_factory):
    cluster = gang_cluster(
        cluster_factory,
        nodes=[{"name": "g1", "cpus": 4, "memory": 8000, "gres": "gpu:2"}],
        force="FORCE:3", gres_conf="NodeName=g1 Name=gpu File=/dev/nvidia[0-1]\n")
    jobs = [cluster.sbatch("-n4", "--mem=100", "--gres=gpu:1", "--wrap", "sleep 120") for _ in range(3)]
    wait_for(lambda: states(cluster, *jobs)[:2] in ("RS", "SR"), what="two GPU jobs allocated")
    time.sleep(1.0)
    assert states(cluster, *jobs)[2] == "P", squeue_rows(cluster)
    gres = [cluster.job(j)["allocation"][0]["gres"] for j in jobs[:2]]
    assert gres[0] != gres[1], gres
    cluster.cli("scancel", str(jobs[0]))
    wait_for(lambda: states(cluster, jobs[2]) in ("R", "S"), what="the third job to get the freed GPU")


def test_rotation_goes_on_after_a_controller_restart(cluster_factory):
    cluster = gang_cluster(cluster_factory)
    first, first_ticks = ticking(cluster, "a", "-N2", "-n4", "--mem=100")
    second, second_ticks = ticking(cluster, "b", "-N2", "-n4", "--mem=100")
    wait_for(lambda: states(cluster, first, second) == "SR", timeout=SLICE + 15, what="the first swap")
    cluster.kill_controller()
    cluster.start_controller()
    cluster.wait_nodes_up()
    assert states(cluster, first, second) in ("SR", "RS")
    wait_for(lambda: states(cluster, first, second) == "RS", timeout=2 * SLICE + 15, what="a swap after the restart")
    wait_for(lambda: states(cluster, first, second) == "SR", timeout=SLICE + 10, what="the next swap")
    assert count(second_ticks) > 0 and count(first_ticks) > 0
    for job_id in (first, second):
        cluster.cli("scancel", str(job_id))


def test_a_job_beside_the_rotating_pair_runs_through_every_slice(cluster_factory):
    nodes = [{"name": f"n{i}", "cpus": 2, "memory": 2048} for i in (1, 2, 3)]
    cluster = gang_cluster(cluster_factory, nodes=nodes)
    wide = cluster.sbatch("-N2", "-n4", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: states(cluster, wide) == "R", what="the wide job to run")
    side = cluster.sbatch("-N1", "-n2", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: states(cluster, side) == "R", what="the side job to run beside it")
    other = cluster.sbatch("-N2", "-n4", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: states(cluster, other) == "S", what="the third job to start suspended")
    for expected in ("SRR", "RRS"):
        wait_for(lambda: states(cluster, wide, side, other) == expected, timeout=SLICE + 10,
                 what=f"states {expected}")
    assert cluster.job(side)["state"] == "RUNNING"
    for job_id in (wide, side, other):
        cluster.cli("scancel", str(job_id))


def one_node_five_jobs(cluster_factory, select_parameters):
    cluster = gang_cluster(cluster_factory, nodes=[{"name": "n1", "cpus": 3, "memory": 2048}],
                           extra=f"SelectTypeParameters={select_parameters}")
    jobs = []
    for _ in range(5):
        jobs.append(cluster.sbatch("-n1", "--mem=100", "--wrap", "sleep 300"))
        wait_for(lambda: states(cluster, jobs[-1]) in ("R", "S"), what="the job to be allocated")
    assert states(cluster, *jobs) == "RRRSS"
    return cluster, jobs


def test_under_cr_core_only_the_jobs_sharing_cores_take_turns(cluster_factory):
    cluster, jobs = one_node_five_jobs(cluster_factory, "CR_Core_Memory")
    # The fourth and fifth share the first two jobs' cores; the third's core
    # is its own, so it never stops.
    wait_for(lambda: states(cluster, *jobs) == "SSRRR", timeout=SLICE + 10, what="the first swap")
    wait_for(lambda: states(cluster, *jobs) == "RRRSS", timeout=SLICE + 10, what="the second swap")
    for job_id in jobs:
        cluster.cli("scancel", str(job_id))


def test_under_cr_cpu_every_sharer_takes_turns(cluster_factory):
    cluster, jobs = one_node_five_jobs(cluster_factory, "CR_CPU_Memory")
    # CPUs are counts: the three that ran wait, the two that waited run with
    # the first of the queue.
    wait_for(lambda: states(cluster, *jobs) == "RSSRR", timeout=SLICE + 10, what="the first swap")
    wait_for(lambda: states(cluster, *jobs) == "SRRRS" or states(cluster, *jobs) == "SRRSR",
             timeout=SLICE + 10, what="the second swap")
    for job_id in jobs:
        cluster.cli("scancel", str(job_id))


def test_reconfigure_applies_a_new_oversubscribe_and_says_the_slice_needs_a_restart(cluster_factory):
    cluster = gang_cluster(cluster_factory, force="NO")
    first = cluster.sbatch("-N2", "-n4", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: states(cluster, first) == "R", what="the first job to run")
    second = cluster.sbatch("-N2", "-n4", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job(second)["reason"] == "Resources", what="the second job to wait")
    conf = cluster.conf_dir / "gantry.conf"
    text = conf.read_text().replace("OverSubscribe=NO", "OverSubscribe=FORCE:2")
    conf.write_text(text.replace(f"SchedulerTimeSlice={SLICE}", "SchedulerTimeSlice=45"))
    cluster.cli("scontrol", "reconfigure")
    # The partition shares at once; the slice stays what the controller started with.
    wait_for(lambda: states(cluster, first, second) == "RS", what="the second job to be allocated suspended")
    wait_for(lambda: states(cluster, first, second) == "SR", timeout=SLICE + 10, what="a swap")
    log = (cluster.root / "gantryctld.log").read_text()
    assert "SchedulerTimeSlice changed from 5 to 45 s; it needs restart" in log
    for job_id in (first, second):
        cluster.cli("scancel", str(job_id))


def test_users_cannot_move_gang_jobs_through_the_rotation(two_users, cluster_factory):
    owner, other = two_users
    cluster = gang_cluster(cluster_factory)
    shared = cluster.root / "shared"
    shared.mkdir()
    shared.chmod(0o777)

    def submit(user):
        out = cluster.cli("sbatch", "--parsable", "-N2", "-n4", "--mem=100", "-o", str(shared / "job-%j.out"),
                          "--wrap", "sleep 300", user=user, cwd=shared).stdout
        return int(out.strip().split(";")[0])

    first = submit(owner)
    wait_for(lambda: states(cluster, first) == "R", what="the first job to run")
    second = submit(owner)
    wait_for(lambda: states(cluster, first, second) == "RS", what="the second job to start suspended")
    # Neither the owner nor another user may resume a job out of its turn,
    # or suspend the running one to give the CPUs away; nobody but the
    # owner may cancel it.
    for user in (owner, other):
        for action, job_id in (("resume", second), ("suspend", first)):
            refused = cluster.cli("scontrol", action, str(job_id), user=user, check=False)
            assert refused.returncode != 0 and "permission denied" in refused.stderr.lower(), refused.stderr
    refused = cluster.cli("scancel", str(second), user=other, check=False)
    assert refused.returncode != 0 and "permission" in refused.stderr.lower()
    assert states(cluster, first, second) == "RS"
    assert cluster.job(second)["reason"] == "GangTimeslice"
    # The owner may end their own suspended job; the other then runs on.
    cluster.cli("scancel", str(second), user=owner)
    assert cluster.wait_job(second) == "CANCELLED"
    time.sleep(SLICE + 1)
    assert states(cluster, first) == "R"
    cluster.cli("scancel", str(first))
