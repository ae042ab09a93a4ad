"""State=FAIL end to end, with real daemons and accounting on SQLite: the
node shows FAILING in scontrol and sinfo while a job still runs there and
FAIL once it is idle, takes no new job, keeps its state across a controller
restart, and `sacctmgr show event` has a FAIL event that RESUME closes.
Node names, sizes and reasons are our own."""

from gantry_cluster import wait_for

SQLITE = "AccountingStorageType=accounting_storage/sqlite"
NODES = [{"name": "fx1", "cpus": 3, "memory": 3072}, {"name": "fx2", "cpus": 3, "memory": 3072}]


def node_state(cluster, name):
    for line in cluster.cli("scontrol", "show", "node", name).stdout.split():
        if line.startswith("State="):
            return line[len("State="):]
    raise AssertionError(f"no State= for {name}")


def sinfo_states(cluster):
    lines = cluster.cli("sinfo", "-N", "-h", "-o", "%N %t %T").stdout.splitlines()
    return {words[0]: (words[1], words[2]) for words in (line.split() for line in lines)}


def fail_events(cluster):
    return cluster.cli("sacctmgr", "-P", "-n", "show", "event", "Nodes=fx1", "States=FAIL", "All_Time",
                       "Format=NodeName,End,State,Reason,User,TRES").stdout.splitlines()


def test_fail_shows_failing_then_fail_and_resume_closes_its_event(cluster_factory):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES], extra_conf=SQLITE)
    busy = cluster.sbatch("-N", "2", "--wrap", "sleep 120")
    wait_for(lambda: cluster.job_state(busy) == "RUNNING", what="the two-node job to start")

    refused = cluster.cli("scontrol", "update", "NodeName=fx1", "State=FAIL", check=False)
    assert refused.returncode != 0 and "Reason" in refused.stderr
    cluster.cli("scontrol", "update", "NodeName=fx1", "State=FAIL", "Reason=bmc reports psu fault")
    assert node_state(cluster, "fx1").endswith("+FAIL")
    assert sinfo_states(cluster)["fx1"] == ("failg", "failing")
    assert cluster.job_state(busy) == "RUNNING"  # FAIL ends no job

    # A job that would need fx1 waits.
    waiting = cluster.sbatch("-N", "2", "--wrap", "true")
    cluster.cli("scancel", str(busy))
    cluster.wait_job(busy)
    wait_for(lambda: node_state(cluster, "fx1") == "IDLE+FAIL", what="fx1 to be idle and FAIL")
    assert sinfo_states(cluster)["fx1"] == ("fail", "fail")
    assert cluster.job_state(waiting) == "PENDING"

    wait_for(lambda: fail_events(cluster), what="the FAIL event")
    assert fail_events(cluster) == ["fx1|Unknown|FAIL|bmc reports psu fault|root|cpu=3,mem=3G"]

    # A restarted controller still has fx1 failing, with its reason.
    cluster.kill_controller()
    cluster.start_controller()
    cluster.wait_nodes_up(["fx2"])
    wait_for(lambda: node_state(cluster, "fx1") == "IDLE+FAIL", what="fx1 still FAIL after the restart")
    assert "Reason=bmc reports psu fault" in cluster.cli("scontrol", "show", "node", "fx1").stdout
    assert cluster.job_state(waiting) == "PENDING"

    cluster.cli("scontrol", "update", "NodeName=fx1", "State=RESUME")
    wait_for(lambda: node_state(cluster, "fx1") in ("IDLE", "MIXED", "ALLOCATED"), what="fx1 back in service")
    cluster.wait_job(waiting)

    def closed():
        lines = fail_events(cluster)
        return len(lines) == 1 and lines[0].split("|")[1] != "Unknown"

    wait_for(closed, what=f"the FAIL event to close (have {fail_events(cluster)})")
