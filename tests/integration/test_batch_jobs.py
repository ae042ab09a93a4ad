"""Batch jobs end to end: submit through the CLI, run on two agents,
output files, exit codes, time limits, cancellation and its permissions."""

import subprocess
from pathlib import Path

from gantry_cluster import wait_for


def test_fifty_jobs_complete_with_their_output_and_exit_codes(cluster):
    workdir = cluster.root / "work"
    workdir.mkdir()
    ids = {}
    for i in range(50):
        code = 3 if i % 10 == 9 else 0
        job_id = cluster.sbatch("-J", f"j{i}", "-o", str(workdir / "out-%j.txt"),
                                "--wrap", f"echo hello {i} on $SLURM_JOB_NODELIST; exit {code}")
        ids[job_id] = (i, code)
    for job_id, (i, code) in ids.items():
        state = cluster.wait_job(job_id, timeout=120)
        assert state == ("COMPLETED" if code == 0 else "FAILED"), (job_id, state)
        job = cluster.job(job_id)
        assert job["exit_code"] == code
        text = (workdir / f"out-{job_id}.txt").read_text()
        assert text.startswith(f"hello {i} on n"), text
    # Both agents took work.
    hosts = {cluster.job(j)["batch_host"] for j in ids}
    assert hosts == {"n1", "n2"}


def test_default_output_file_and_job_environment(cluster):
    workdir = cluster.root / "env"
    workdir.mkdir()
    script = workdir / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH -J envjob\necho id=$SLURM_JOB_ID name=$SLURM_JOB_NAME "
                      "node=$SLURMD_NODENAME ntasks=$SLURM_NTASKS mine=$MY_VAR\n")
    env_cluster_cli = cluster.env()
    env_cluster_cli["MY_VAR"] = "exported"
    out = subprocess.run([*cluster_cli(cluster), "sbatch", "--parsable", str(script)], env=env_cluster_cli,
                         capture_output=True, text=True, cwd=workdir, check=True).stdout
    job_id = int(out.strip())
    assert cluster.wait_job(job_id) == "COMPLETED"
    text = (workdir / f"slurm-{job_id}.out").read_text()
    assert f"id={job_id} name=envjob" in text
    assert "ntasks=1" in text and "mine=exported" in text


def cluster_cli(cluster):
    from gantry_cluster import binary
    return [binary("gantry")]


def test_time_limit_ends_job_as_timeout(cluster):
    job_id = cluster.sbatch("-t", "0:02", "--wrap", "sleep 60")
    assert cluster.wait_job(job_id, timeout=30) == "TIMEOUT"


def test_scancel_by_owner_and_refused_for_another_user(cluster):
    job_id = cluster.sbatch("--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    refused = cluster.cli("scancel", str(job_id), user="nobody", check=False)
    assert refused.returncode != 0
    assert "permission" in refused.stderr.lower()
    assert cluster.job_state(job_id) == "RUNNING"
    cluster.cli("scancel", str(job_id))
    assert cluster.wait_job(job_id) == "CANCELLED"


def test_pending_job_cancelled_and_held_job_released(cluster):
    held = cluster.sbatch("--hold", "--wrap", "true")
    assert cluster.job_state(held) == "PENDING"
    assert cluster.job(held)["reason"] == "JobHeldUser"
    cluster.cli("scontrol", "release", str(held))
    assert cluster.wait_job(held) == "COMPLETED"
    other = cluster.sbatch("--hold", "--wrap", "true")
    cluster.cli("scancel", str(other))
    assert cluster.job_state(other) == "CANCELLED"


def test_bad_requests_are_refused_with_a_reason(cluster):
    r = cluster.cli("sbatch", "-p", "nosuch", "--wrap", "true", check=False)
    assert r.returncode != 0 and "invalid partition" in r.stderr.lower()
    r = cluster.cli("sbatch", "-c", "64", "--wrap", "true", check=False)
    assert r.returncode != 0 and "Requested node configuration is not available" in r.stderr
