"""scontrol ping and shutdown against real daemons, job actions on several
ids at once, and the data_parser envelope of --json answers."""

import json
import os
import signal
import time

from gantry_cluster import wait_for


def test_ping_answers_up_then_down_when_the_controller_is_gone(cluster):
    up = cluster.cli("scontrol", "ping")
    assert up.stdout == "Slurmctld(primary) at localhost is UP\n"
    pinged = json.loads(cluster.cli("scontrol", "--json", "ping").stdout)
    assert pinged["pings"][0]["pinged"] == "UP"
    assert pinged["meta"]["command"] == ["scontrol", "--json", "ping"]

    cluster.kill_controller(signal.SIGKILL)
    down = cluster.cli("scontrol", "ping", check=False)
    assert down.returncode == 1
    assert down.stdout.startswith("Slurmctld(primary) at localhost is DOWN\n")
    as_json = cluster.cli("scontrol", "--json", "ping", check=False)
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout)["pings"][0]["responding"] is False


def test_shutdown_is_for_administrators_and_stops_only_the_controller(two_users, cluster):
    kept = cluster.sbatch("-H", "--wrap", "true")  # held, so it is still there after the restart
    refused = cluster.cli("scontrol", "shutdown", user=two_users[0], check=False)
    assert refused.returncode == 1
    assert refused.stderr == "slurm_shutdown error:Access/permission denied\n"
    assert cluster.ctld.poll() is None
    assert cluster.cli("scontrol", "ping").returncode == 0

    cluster.cli("scontrol", "shutdown", "controller")
    assert cluster.ctld.wait(timeout=30) == 0
    # The agents are left running (docs/compatibility.md).
    assert all(agent.poll() is None for agent in cluster.agents.values())
    assert cluster.cli("scontrol", "ping", check=False).returncode == 1

    cluster.start_controller()
    assert cluster.job(kept)["state"] == "PENDING"


def test_job_actions_take_several_ids_and_report_each_failure(cluster):
    first = cluster.sbatch("--wrap", "sleep 60", "-N", "2", "--exclusive")  # both nodes, whole
    wait_for(lambda: cluster.job_state(first) == "RUNNING", what="first job to run")
    waiting = [cluster.sbatch("--wrap", "true") for _ in range(3)]
    listed = f"{waiting[0]},{waiting[1]}"
    held = cluster.cli("scontrol", "hold", listed, "987654", str(waiting[2]), check=False)
    assert held.returncode == 1
    assert held.stderr == "Invalid job id specified for job 987654\n"
    for job_id in waiting:
        assert "JobHeldUser" in cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    cluster.cli("scontrol", "release", f"JobId={listed}", str(waiting[2]))
    for job_id in waiting:
        assert "JobHeldUser" not in cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    cluster.cli("scancel", str(first))


def test_json_answers_name_the_command_that_asked(cluster):
    squeue = json.loads(cluster.cli("squeue", "--json").stdout)
    assert squeue["meta"]["command"] == ["squeue", "--json"]
    assert squeue["meta"]["slurm"]["release"] == "26.11.0"
    assert squeue["errors"] == [] and squeue["warnings"] == []
    sinfo = json.loads(cluster.cli("sinfo", "--json").stdout)
    assert sinfo["meta"]["command"] == ["sinfo", "--json"]
    for words in (["show", "job"], ["show", "nodes"], ["show", "partition"], ["show", "steps"],
                  ["show", "licenses"], ["show", "reservations"]):
        answer = json.loads(cluster.cli("scontrol", "--json", *words).stdout)
        assert answer["meta"]["command"] == ["scontrol", "--json", *words]


def test_oneliner_records(cluster):
    nodes = cluster.cli("scontrol", "-o", "show", "node").stdout.splitlines()
    assert [line.split()[0] for line in nodes] == ["NodeName=n1", "NodeName=n2"]
    partition = cluster.cli("scontrol", "--all", "--oneliner", "show", "partition").stdout
    assert partition.count("\n") == 1 and partition.startswith("PartitionName=debug ")


def test_job_updates_are_checked_by_the_controller(two_users, cluster):
    owner, other = two_users
    shared = cluster.root / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    blocker = cluster.sbatch("--wrap", "sleep 60", "-N", "2", "--exclusive")
    wait_for(lambda: cluster.job_state(blocker) == "RUNNING", what="the blocking job to run")
    job = int(cluster.cli("sbatch", "--parsable", "-t", "30", "--wrap", "true", user=owner, cwd=shared).stdout)

    def update(*words, user=None):
        return cluster.cli("scontrol", "update", f"JobId={job}", *words, user=user, check=False)

    for words, user in ((["TimeLimit=10"], other), (["TimeLimit=45"], owner), (["Priority=9"], owner)):
        refused = update(*words, user=user)
        assert refused.returncode == 1
        assert refused.stderr == f"Access/permission denied for job {job}\n"
    assert cluster.job(job)["time_limit_minutes"] == 30

    assert update("TimeLimit=20", "Name=renamed", "Comment=see notes", user=owner).returncode == 0
    record = cluster.job(job)
    assert record["time_limit_minutes"] == 20
    assert record["spec"]["name"] == "renamed" and record["spec"]["comment"] == "see notes"

    assert update("TimeLimit=2:00:00", "Priority=9", "NumNodes=2").returncode == 0
    record = cluster.job(job)
    assert record["time_limit_minutes"] == 120 and record["spec"]["priority"] == 9
    assert record["spec"]["min_nodes"] == 2
    assert update("Partition=nowhere").stderr == f"Invalid partition name specified for job {job}\n"
    assert update("NumNodes=3").returncode == 1  # more nodes than the partition has
    assert cluster.job(job)["spec"]["min_nodes"] == 2

    running = cluster.cli("scontrol", "update", f"JobId={blocker}", "NumNodes=1", check=False)
    assert running.stderr == f"Job is no longer pending execution for job {blocker}\n"
    cluster.cli("scancel", str(blocker), str(job))


def test_requeue_puts_running_and_ended_batch_jobs_back(cluster):
    running = cluster.sbatch("--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(running) == "RUNNING", what="job to run")
    ended = cluster.sbatch("--wrap", "true")
    assert cluster.wait_job(ended) == "COMPLETED"
    # Run times are whole seconds: let the first run's step start a second
    # before the next run can (node_registry.cpp tells the runs apart so).
    time.sleep(1.1)
    cluster.cli("scontrol", "requeue", f"{running},{ended}")
    wait_for(lambda: cluster.job(running)["restart_count"] == 1 and cluster.job_state(running) == "RUNNING",
             what="the requeued job to run again")
    time.sleep(2)  # the first run's end has been reported by now, and must not end the second
    assert cluster.job_state(running) == "RUNNING"
    wait_for(lambda: cluster.job(ended)["restart_count"] == 1 and cluster.job_state(ended) == "COMPLETED",
             what="the ended job to run again")

    kept = cluster.sbatch("--no-requeue", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(kept) == "RUNNING", what="the --no-requeue job to run")
    refused = cluster.cli("scontrol", "requeue", str(kept), check=False)
    assert refused.returncode == 1
    assert refused.stderr == f"Requested operation is presently disabled for job {kept}\n"
    assert cluster.job_state(kept) == "RUNNING"
    cluster.cli("scancel", str(running), str(kept))
