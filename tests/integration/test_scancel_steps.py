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
    """A batch job running two steps side by side: one sleeps, the other
    traps SIGUSR1 and says when its trap is set (a signal before that would
    end the shell) and when it got the signal. The two sruns race, so either
    may be step 0: returns the job, the trapping step and the sleeping one."""
    gantry = binary("gantry")
    script = tmp_path / "two.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"{gantry} srun -n1 --overlap sleep 300 &\n"
        f"{gantry} srun -n1 --overlap sh -c 'trap \"echo got-usr1 > {tmp_path}/usr1\" USR1; "
        f"echo $SLURM_STEP_ID > {tmp_path}/trap-set.tmp; mv {tmp_path}/trap-set.tmp {tmp_path}/trap-set; "
        "while :; do sleep 0.2; done' &\n"
        "wait\n")
    job = cluster.sbatch("-N1", "-n2", "-o", str(tmp_path / "two.out"), str(script))
    wait_for(lambda: running_steps(cluster, job) == [f"{job}.0", f"{job}.1"], timeout=30, what="both steps")
    wait_for(lambda: (tmp_path / "trap-set").exists(), timeout=30, what="the trapping step's trap")
    trapping = (tmp_path / "trap-set").read_text().strip()
    assert trapping in ("0", "1")
    return job, f"{job}.{trapping}", f"{job}.{1 - int(trapping)}"


def test_scancel_of_one_step_leaves_the_other_and_the_job(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job, trapping, sleeping = two_step_job(cluster, tmp_path)
    signalled = cluster.cli("scancel", "-v", "--signal=USR1", trapping)
    assert signalled.stderr == f"scancel: Signal 10 to step {trapping}\n"
    wait_for(lambda: (tmp_path / "usr1").exists(), timeout=15, what="the trapping step to get SIGUSR1")
    killed = cluster.cli("scancel", "--verbose", sleeping)
    assert killed.stderr == f"scancel: Terminating step {sleeping}\n"
    wait_for(lambda: running_steps(cluster, job) == [trapping], timeout=15, what="the sleeping step to end")
    assert cluster.job_state(job) == "RUNNING"
    # A comma list of a step and the job itself.
    cluster.cli("scancel", f"{trapping},{job}")
    assert cluster.wait_job(job, timeout=30) == "CANCELLED"


def test_another_users_step_is_refused_and_untouched(cluster_factory, two_users, tmp_path):
    cluster = cluster_factory(nodes=[dict(n) for n in NODES])
    job, _, _ = two_step_job(cluster, tmp_path)
    refused = cluster.cli("scancel", f"{job}.0", user=two_users[0], check=False)
    assert refused.returncode == 1
    assert f"Kill job error on job step id {job}.0: Access/permission denied" in refused.stderr
    missing = cluster.cli("scancel", f"{job}.7", check=False)
    assert f"Kill job error on job step id {job}.7: Invalid job id specified" in missing.stderr
    assert running_steps(cluster, job) == [f"{job}.0", f"{job}.1"]
    cluster.cli("scancel", str(job))
