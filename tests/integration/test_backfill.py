"""Backfill on a real cluster (SchedulerType=sched/backfill, the default):
a job that cannot start now gets a planned start from the running jobs'
time limits; a later job that would still run then waits as Priority, one
that ends in time starts at once, and the planned job starts first."""

from gantry_cluster import wait_for

NODE = {"name": "bf1", "cpus": 4, "memory": 4000}


def reason(cluster, job):
    return cluster.cli("squeue", "-h", "-j", str(job), "-o", "%r").stdout.strip()


def test_a_planned_start_is_not_delayed_by_later_jobs(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    running = cluster.sbatch("-c2", "-t", "10", "--mem=50", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(running) == "RUNNING", what="the first job to run")
    whole = cluster.sbatch("-c4", "-t", "10", "--mem=50", "--wrap", "true")
    wait_for(lambda: reason(cluster, whole) == "Resources", what="the whole-node job to wait")

    # Fits beside the running job, but would still run when the whole-node
    # job may start (10 minutes from now): it waits.
    long_one = cluster.sbatch("-c1", "-t", "60", "--mem=50", "--wrap", "true")
    wait_for(lambda: reason(cluster, long_one) == "Priority", what="reason Priority")
    # Done before then: it starts at once.
    short_one = cluster.sbatch("-c1", "-t", "2", "--mem=50", "--wrap", "true")
    assert cluster.wait_job(short_one) == "COMPLETED"
    assert cluster.job_state(long_one) == "PENDING"

    cluster.cli("scancel", str(running))
    assert cluster.wait_job(whole) == "COMPLETED"
    assert cluster.wait_job(long_one) == "COMPLETED"
    started = {job: cluster.job(job)["start_time"] for job in (whole, long_one)}
    assert started[whole] <= started[long_one], started


def test_sched_builtin_plans_nothing(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf="SchedulerType=sched/builtin")
    running = cluster.sbatch("-c2", "-t", "10", "--mem=50", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(running) == "RUNNING", what="the first job to run")
    whole = cluster.sbatch("-c4", "-t", "10", "--mem=50", "--wrap", "true")
    long_one = cluster.sbatch("-c1", "-t", "60", "--mem=50", "--wrap", "true")
    assert cluster.wait_job(long_one) == "COMPLETED"
    assert cluster.job_state(whole) == "PENDING"
    cluster.cli("scancel", str(running), str(whole))
