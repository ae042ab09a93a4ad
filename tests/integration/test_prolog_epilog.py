"""Prolog and Epilog on the node: they run once per job around its steps with
the job's identity and node-wide GPU indexes, and a failing Prolog drains the
node and requeues the job."""

import os

from gantry_cluster import wait_for

GPU_NODE = {"name": "g1", "cpus": 8, "memory": 8000, "gres": "gpu:4"}
GRES_CONF = "NodeName=g1 Name=gpu File=/dev/nvidia[0-3]\n"


def write_script(path, body):
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def recording_script(path, out):
    return write_script(path, f'echo "$SLURM_JOB_ID $SLURM_JOB_UID $CUDA_VISIBLE_DEVICES" >> {out}')


def lines_of(path):
    return path.read_text().splitlines() if path.exists() else []


def test_prolog_and_epilog_see_the_job_and_its_node_gpu_indexes(cluster_factory, tmp_path):
    prolog_out, epilog_out = tmp_path / "prolog.out", tmp_path / "epilog.out"
    prolog = recording_script(tmp_path / "prolog.sh", prolog_out)
    epilog = recording_script(tmp_path / "epilog.sh", epilog_out)
    cluster = cluster_factory(nodes=[dict(GPU_NODE)], gres_conf=GRES_CONF,
                              extra_conf=f"Prolog={prolog}\nEpilog={epilog}")
    uid = os.getuid()

    # The first job takes GPU 0, so the second one's devices start at 1.
    holder = cluster.sbatch("--gres=gpu:1", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(holder) == "RUNNING", what="the first job to run")
    seen = tmp_path / "seen_by_job"
    job = cluster.sbatch("--gres=gpu:2", "--wrap", f"cat {prolog_out} > {seen}")
    assert cluster.wait_job(job) == "COMPLETED"

    # Global indexes, and the Prolog ran before the job's script.
    assert f"{job} {uid} 1,2" in lines_of(seen)
    assert lines_of(prolog_out) == [f"{holder} {uid} 0", f"{job} {uid} 1,2"]
    # A normal completion reaches the node: the Epilog follows, once.
    wait_for(lambda: f"{job} {uid} 1,2" in lines_of(epilog_out), what="the epilog of the completed job")
    assert lines_of(epilog_out) == [f"{job} {uid} 1,2"]

    # A cancelled job gets its Epilog too.
    cluster.cli("scancel", str(holder))
    assert cluster.wait_job(holder) == "CANCELLED"
    wait_for(lambda: f"{holder} {uid} 0" in lines_of(epilog_out), what="the epilog of the cancelled job")
    spool_jobs = cluster.root / "spool" / "g1" / "jobs"
    wait_for(lambda: not any(spool_jobs.iterdir()), what="the job records to be removed")
    assert len(lines_of(epilog_out)) == 2


def test_a_failing_prolog_drains_the_node_and_requeues_the_job(cluster_factory, tmp_path):
    prolog = write_script(tmp_path / "prolog.sh", "echo cannot prepare the node; exit 1")
    epilog_out = tmp_path / "epilog.out"
    epilog = recording_script(tmp_path / "epilog.sh", epilog_out)
    cluster = cluster_factory(nodes=[{"name": "n1", "cpus": 4, "memory": 4096}],
                              extra_conf=f"Prolog={prolog}\nEpilog={epilog}")
    job = cluster.sbatch("--wrap", "true")

    wait_for(lambda: "prolog failed: exit 1" in cluster.cli("sinfo", "-R", "-h", "-o", "%E").stdout,
             what="the node to drain for the prolog")
    wait_for(lambda: cluster.job(job)["restart_count"] >= 1, what="the job to be requeued")
    assert cluster.job_state(job) == "PENDING"
    # The job never began on the node, so no Epilog runs for it.
    assert lines_of(epilog_out) == []
    log = (cluster.root / "gantryd-n1.log").read_text()
    assert "cannot prepare the node" in log


def test_a_failing_epilog_drains_the_node_and_a_restarted_agent_finishes_pending_ones(cluster_factory, tmp_path):
    epilog = write_script(tmp_path / "epilog.sh", "echo cleanup went wrong; exit 3")
    cluster = cluster_factory(nodes=[dict(GPU_NODE)], gres_conf=GRES_CONF, extra_conf=f"Epilog={epilog}")
    job = cluster.sbatch("--wrap", "true")
    assert cluster.wait_job(job) == "COMPLETED"
    wait_for(lambda: "epilog failed" in cluster.cli("sinfo", "-R", "-h", "-o", "%E").stdout,
             timeout=30, what="the failed epilog to drain the node")
    assert "DRAIN" in cluster.nodes_json()[0]["state"]

    # An Epilog claimed but not run when the agent stopped runs after its restart.
    cluster.cli("scontrol", "update", "NodeName=g1", "State=RESUME")
    write_script(epilog, f"echo $SLURM_JOB_ID >> {tmp_path / 'late.out'}")
    cluster.kill_agent("g1")
    record = cluster.root / "spool" / "g1" / "jobs" / "4242.ending"
    record.mkdir(parents=True)
    (record / "spec.json").write_text('{"job_id": 4242, "step_id": "batch", "uid": 0, "gid": 0, '
                                      '"user": "root", "work_dir": "/", "node_name": "g1"}')
    cluster.start_agent("g1")
    wait_for(lambda: lines_of(tmp_path / "late.out") == ["4242"], timeout=30, what="the left-over epilog")
    wait_for(lambda: not record.exists(), what="the record to be removed")
