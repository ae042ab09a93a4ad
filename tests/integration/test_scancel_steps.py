"""scancel <job>.<step> on a loopback cluster: one step of a running job is
killed or signalled while another step and the job go on, a comma list
mixes jobs and steps, -v says what was sent, and another user's step is
refused. Node names and sizes are our own."""

from gantry_cluster import binary, wait_for

NODES = [{"name": f"cx{i}", "cpus": 2, "memory": 2048} for i in (1, 2)]


def running_steps(cluster, job):
    out = cluster.cli("squeue", "-h", "-s", "-j", str(job), "-o", "%i").stdout.split()
    return sorted(s for s in out if not s.endswith((".batch", ".extern")))


def two_step_job(cluster, tmp_path):
    """A batch job running steps 0 and 1 side by side; step 1 says when its
    trap is set (a signal before that would end the shell) and when it got SIGUSR1."""
    gantry = binary("gantry")
    script = tmp_path / "two.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"{gantry} srun -n1 --overlap sleep 300 &\n"
        f"{gantry} srun -n1 --overlap sh -c 'trap \"echo got-usr1 > {tmp_path}/usr1\" USR1; "
        f"touch {tmp_path}/trap-set; while :; do sleep 0.2; done' &\n"
        "wait\n")
    job = cluster.sbatch("-N1", "-n2", "-o", str(tmp_path / "two.out"), str(script))
    wait_for(lambda: running_steps(cluster, job) == [f"{job}.0", f"{job}.1"], timeout=30, what="both steps")
    wait_for(lambda: (tmp_path / "trap-set").exists(), timeout=30, what="step 1's trap")
    return job


def test_scancel_of_one_step_leaves_the_other_and_the_job(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job = two_step_job(cluster, tmp_path)
    signalled = cluster.cli("scancel", "-v", "--signal=USR1", f"{job}.1")
    assert signalled.stderr == f"scancel: Signal 10 to step {job}.1\n"
    wait_for(lambda: (tmp_path / "usr1").exists(), timeout=15, what="step 1 to get SIGUSR1")
    killed = cluster.cli("scancel", "--verbose", f"{job}.0")
    assert killed.stderr == f"scancel: Terminating step {job}.0\n"
    wait_for(lambda: running_steps(cluster, job) == [f"{job}.1"], timeout=15, what="step 0 to end")
    assert cluster.job_state(job) == "RUNNING"
    # A comma list of a step and the job itself.
    cluster.cli("scancel", f"{job}.1,{job}")
    assert cluster.wait_job(job, timeout=30) == "CANCELLED"


def test_another_users_step_is_refused_and_untouched(cluster_factory, two_users, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job = two_step_job(cluster, tmp_path)
    refused = cluster.cli("scancel", f"{job}.0", user=two_users[0], check=False)
    assert refused.returncode == 1
    assert f"Kill job error on job step id {job}.0: Access/permission denied" in refused.stderr
    missing = cluster.cli("scancel", f"{job}.7", check=False)
    assert f"Kill job error on job step id {job}.7: Invalid job id specified" in missing.stderr
    assert running_steps(cluster, job) == [f"{job}.0", f"{job}.1"]
    cluster.cli("scancel", str(job))
