"""Durability and recovery: a controller killed with SIGKILL loses no
acknowledged job; an agent restart does not kill running steps; a silent
node goes DOWN after SlurmdTimeout and its jobs are requeued."""

import signal
import threading
import time

from gantry_cluster import wait_for


def test_controller_kill9_during_submission_loses_no_acknowledged_job(cluster):
    acked = []
    stop = threading.Event()

    def submit_loop():
        for i in range(200):
            if stop.is_set():
                return
            r = cluster.cli("sbatch", "--parsable", "--hold", "--wrap", "true", check=False, timeout=20)
            if r.returncode == 0:
                acked.append(int(r.stdout.strip()))

    submitter = threading.Thread(target=submit_loop)
    submitter.start()
    wait_for(lambda: len(acked) >= 40, timeout=120, what="40 acknowledged submissions")
    cluster.kill_controller(signal.SIGKILL)
    time.sleep(1)
    cluster.start_controller()
    submitter.join(timeout=300)
    stop.set()
    assert len(acked) >= 40
    known = {j["job_id"] for j in cluster.jobs_json()}
    missing = [j for j in acked if j not in known]
    assert not missing, f"acknowledged but lost: {missing}"
    assert len(set(acked)) == len(acked), "a job id was handed out twice"


def test_running_job_survives_controller_restart(cluster):
    job_id = cluster.sbatch("--wrap", "sleep 4; echo finished")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    assert cluster.job_state(job_id) in ("RUNNING", "COMPLETED")
    assert cluster.wait_job(job_id, timeout=60) == "COMPLETED"


def test_agent_restart_does_not_kill_running_job(cluster):
    out = cluster.root / "survivor.out"
    job_id = cluster.sbatch("-o", str(out), "--wrap", "sleep 5; echo survived")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    host = cluster.job(job_id)["batch_host"]
    cluster.kill_agent(host, signal.SIGKILL)
    time.sleep(1)
    cluster.start_agent(host)
    assert cluster.wait_job(job_id, timeout=60) == "COMPLETED"
    assert "survived" in out.read_text()


def test_silent_node_goes_down_and_its_job_is_requeued(cluster_factory):
    cluster = cluster_factory(slurmd_timeout=3)
    job_id = cluster.sbatch("-J", "victim", "--wrap", "sleep 30")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    host = cluster.job(job_id)["batch_host"]
    cluster.kill_agent(host, signal.SIGKILL)

    def node_down():
        nodes = {n["name"]: n for n in cluster.nodes_json()}
        return nodes[host]["state"].startswith("DOWN") and nodes[host]
    node = wait_for(node_down, timeout=30, what=f"{host} to go DOWN")
    assert "not responding" in node["reason"].lower()
    job = cluster.job(job_id)
    # Requeued: pending again or already restarted on the other node.
    assert job["restart_count"] >= 1
    assert job["state"] in ("PENDING", "RUNNING")
