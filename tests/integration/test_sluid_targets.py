"""A job's SLUID on a loopback cluster: scontrol -d shows the SLURM_JOB_SLUID
the job sees, scancel takes it (any case, with a step suffix too) in place of
the job id and says it back as typed under -v, another user's SLUID is
refused, an unknown one is an invalid job id; SIGSTOP shows the running job
as STOPPED (ST) until SIGCONT. Node names and sizes are our own."""

import re

from gantry_cluster import binary, wait_for

NODES = [{"name": "sl1", "cpus": 3, "memory": 1536}]


def started_job(cluster, tmp_path):
    """A batch job that records its SLURM_JOB_SLUID and then runs a step; the
    script goes on after the step so that cancelling the step leaves the job
    running for the job-level scancel that follows."""
    script = tmp_path / "job.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"echo \"$SLURM_JOB_SLUID\" > {tmp_path}/sluid.tmp && mv {tmp_path}/sluid.tmp {tmp_path}/sluid\n"
        f"{binary('gantry')} srun -n1 sleep 300\n"
        "sleep 300\n")
    job = cluster.sbatch("-n1", "-o", str(tmp_path / "job.out"), str(script))
    wait_for(lambda: (tmp_path / "sluid").exists(), timeout=30, what="the job to record its SLUID")
    return job, (tmp_path / "sluid").read_text().strip()


def shown_sluid(cluster, job):
    shown = cluster.cli("scontrol", "-d", "show", "job", str(job)).stdout
    found = re.search(r"\bSLUID=(\S+)", shown)
    return found.group(1) if found else None


def test_scancel_takes_the_sluid_the_job_sees(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job, sluid = started_job(cluster, tmp_path)
    assert re.fullmatch(r"s[0-9A-HJKMNP-TV-Z]{13}", sluid)
    assert shown_sluid(cluster, job) == sluid
    assert "SLUID=" not in cluster.cli("scontrol", "show", "job", str(job)).stdout  # only with -d
    typed = sluid.lower()
    stopped = cluster.cli("scancel", "-v", "-s", "STOP", typed)
    assert stopped.stderr == f"scancel: Signal 19 to job {typed}\n"
    wait_for(lambda: cluster.cli("squeue", "-h", "-j", str(job), "-o", "%T %t").stdout.strip() == "STOPPED ST",
             timeout=15, what="the job to show STOPPED")
    assert "JobState=STOPPED" in cluster.cli("scontrol", "show", "job", str(job)).stdout
    cluster.cli("scancel", "-s", "CONT", sluid)
    wait_for(lambda: cluster.job_state(job) == "RUNNING", timeout=15, what="the job to run again")
    assert cluster.cli("squeue", "-h", "-j", str(job), "-o", "%t").stdout.strip() == "R"
    wait_for(lambda: cluster.cli("squeue", "-h", "-s", "-j", str(job), "-o", "%i").stdout.split().count(f"{job}.0"),
             timeout=30, what="step 0")
    step = cluster.cli("scancel", "-v", f"{sluid}.0")
    assert step.stderr == f"scancel: Terminating step {sluid}.0\n"
    cluster.cli("scancel", "--verbose", sluid)
    assert cluster.wait_job(job, timeout=30) == "CANCELLED"


def test_another_users_or_an_unknown_sluid_is_refused(cluster_factory, two_users, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job, sluid = started_job(cluster, tmp_path)
    refused = cluster.cli("scancel", sluid, user=two_users[0], check=False)
    assert refused.returncode == 1
    assert "Access/permission denied" in refused.stderr
    refused = cluster.cli("scancel", "-s", "STOP", sluid, user=two_users[0], check=False)
    assert refused.returncode == 1
    assert cluster.cli("squeue", "-h", "-j", str(job), "-o", "%T").stdout.strip() == "RUNNING"
    # A well-formed SLUID no job has (another cluster's job 1 hashes differently).
    unknown = "s" + ("0" if sluid[1] != "0" else "1") + sluid[2:]
    missing = cluster.cli("scancel", unknown, check=False)
    assert missing.returncode == 1
    assert f"Invalid job id {unknown}" in missing.stderr
    malformed = cluster.cli("scancel", "sNOTASLUID", check=False)
    assert malformed.returncode == 1
    assert "Invalid job id sNOTASLUID" in malformed.stderr
    assert cluster.job_state(job) == "RUNNING"
    cluster.cli("scancel", str(job))


def test_scontrol_shows_a_job_by_its_sluid(cluster_factory, two_users, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES], extra_conf="PrivateData=jobs")
    job, sluid = started_job(cluster, tmp_path)
    for typed in (sluid, sluid.lower()):
        shown = cluster.cli("scontrol", "show", "job", typed).stdout
        assert shown.startswith(f"JobId={job} "), shown
    as_json = cluster.cli("scontrol", "--json", "show", "job", sluid).stdout
    assert f'"job_id": {job}' in as_json
    # Another user cannot see the job under PrivateData=jobs, so its SLUID
    # names nothing for them; a well-formed SLUID no job has is the same.
    hidden = cluster.cli("scontrol", "show", "job", sluid, user=two_users[0], check=False)
    assert hidden.returncode == 1
    assert f"Invalid job id specified: {sluid}" in hidden.stderr
    assert "JobId=" not in hidden.stdout
    unknown = "s" + ("0" if sluid[1] != "0" else "1") + sluid[2:]
    missing = cluster.cli("scontrol", "show", "job", unknown, check=False)
    assert missing.returncode == 1
    assert f"Invalid job id specified: {unknown}" in missing.stderr
    cluster.cli("scancel", str(job))
