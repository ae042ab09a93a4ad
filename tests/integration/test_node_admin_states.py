"""An administrator's DOWN and DRAIN add up as in Slurm, and a job requeued by
a node set DOWN waits out SchedulerParameters=requeue_delay (Reason=BeginTime)
before it starts again, so a node brought back at once is not refilled before
the administrator's next command. Real daemons on loopback; node names,
sizes and delays are our own."""

from gantry_cluster import wait_for

NODES = [{"name": f"as{i}", "cpus": 2, "memory": 2048} for i in range(1, 4)]


def node_state(cluster, name):
    for word in cluster.cli("scontrol", "show", "node", name).stdout.split():
        if word.startswith("State="):
            return word[len("State="):]
    raise AssertionError(f"no State= for {name}")


def sinfo_nodes(cluster, states):
    out = cluster.cli("sinfo", "-N", "-h", "-n", "as[1-3]", "-t", states, "-o", "%N").stdout
    return sorted(set(out.split()))


def update(cluster, node, state, *extra):
    cluster.cli("scontrol", "update", f"NodeName={node}", f"State={state}", *extra)


def test_down_and_drain_add_up_and_resume_clears_both(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    update(cluster, "as1", "DOWN", "Reason=psu swap")
    update(cluster, "as1", "DRAIN", "Reason=keep it out")
    assert node_state(cluster, "as1") == "DOWN+DRAIN"
    assert sinfo_nodes(cluster, "down&drain") == ["as1"]
    assert sinfo_nodes(cluster, "idle&drain") == []

    # The other order: a drained node set DOWN keeps its drain.
    update(cluster, "as2", "DRAIN", "Reason=burn-in")
    update(cluster, "as2", "DOWN", "Reason=dead fan")
    assert node_state(cluster, "as2") == "DOWN+DRAIN"

    # UNDRAIN lifts the drain only; RESUME both.
    update(cluster, "as2", "UNDRAIN")
    assert node_state(cluster, "as2") == "DOWN"
    update(cluster, "as1", "RESUME")
    wait_for(lambda: node_state(cluster, "as1") == "IDLE", what="as1 back in service")

    # The combined state survives a controller restart.
    update(cluster, "as3", "DOWN", "Reason=x")
    update(cluster, "as3", "DRAIN", "Reason=y")
    cluster.kill_controller()
    cluster.start_controller()
    cluster.wait_nodes_up(["as1"])
    assert node_state(cluster, "as3") == "DOWN+DRAIN"


def test_a_requeued_job_waits_out_requeue_delay(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES[:2]],
                              extra_conf="SchedulerParameters=requeue_delay=6")
    job = cluster.sbatch("-N", "1", "--exclusive", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(job) == "RUNNING", what="the job to start")
    host = cluster.job(job)["node_list"]
    update(cluster, host, "DOWN", "Reason=maintenance")
    wait_for(lambda: cluster.job_state(job) == "PENDING", what="the job to be requeued")
    wait_for(lambda: cluster.job(job)["reason"] == "BeginTime", what="Reason=BeginTime")
    # Brought back at once: the job does not refill it before its delay.
    update(cluster, host, "RESUME")
    wait_for(lambda: node_state(cluster, host) == "IDLE", what=f"{host} back")
    assert cluster.job_state(job) == "PENDING"
    # EligibleTime is the requeue time plus the delay and a second.
    assert "EligibleTime=" in cluster.cli("scontrol", "show", "job", str(job)).stdout
    assert int(cluster.job(job)["eligible_time"]) > 0
    wait_for(lambda: cluster.job_state(job) == "RUNNING", timeout=20, what="the job to start after its delay")
    assert int(cluster.job(job)["restart_count"]) == 1


def test_an_unprivileged_user_can_neither_down_nor_drain_a_node(two_users, cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES[:1]])
    update(cluster, "as1", "DOWN", "Reason=admin")
    for state in ("DRAIN", "RESUME", "UNDRAIN"):
        refused = cluster.cli("scontrol", "update", "NodeName=as1", f"State={state}", "Reason=mine",
                              user=two_users[0], check=False)
        assert refused.returncode != 0 and "permission" in refused.stderr.lower()
    assert node_state(cluster, "as1") == "DOWN"
