"""-d/--dependency and -b/--begin on a real cluster: jobs wait for the
jobs they name, show what is left with the reason, keep it across a
controller kill -9, and only their owner may change it; a dependency that
names nothing known, or is malformed, is refused and queues nothing."""

import re
import signal
import time

from gantry_cluster import wait_for

NODE = {"name": "dp1", "cpus": 4, "memory": 4000}


def shown(cluster, job, key):
    text = cluster.cli("scontrol", "show", "job", str(job)).stdout
    found = re.search(rf"\b{key}=(\S*)", text)
    return found.group(1) if found else None


def reason(cluster, job):
    return cluster.cli("squeue", "-h", "-j", str(job), "-o", "%r").stdout.strip()


def queued(cluster):
    return cluster.cli("squeue", "-h", "-o", "%i").stdout.split()


def test_afterok_and_afternotok_follow_how_the_job_ended(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    first = cluster.sbatch("--hold", "-n1", "--mem=50", "--wrap", "exit 3")
    ok_after = cluster.sbatch(f"--dependency=afterok:{first}", "-n1", "--mem=50", "--wrap", "true")
    notok_after = cluster.sbatch("-d", f"afternotok:{first}", "-n1", "--mem=50", "--wrap", "true")
    either = cluster.sbatch("-d", f"afterok:{first}?afterany:{first}", "-n1", "--mem=50", "--wrap", "true")

    wait_for(lambda: reason(cluster, ok_after) == "Dependency", what="reason Dependency")
    assert shown(cluster, ok_after, "Dependency") == f"afterok:{first}(unfulfilled)"
    assert cluster.cli("squeue", "-h", "-j", str(notok_after), "-O", "dependency:40").stdout.strip() == \
        f"afternotok:{first}(unfulfilled)"

    cluster.cli("scontrol", "release", str(first))
    assert cluster.wait_job(first) == "FAILED"
    assert cluster.wait_job(notok_after) == "COMPLETED"
    assert cluster.wait_job(either) == "COMPLETED"
    wait_for(lambda: reason(cluster, ok_after) == "DependencyNeverSatisfied", what="DependencyNeverSatisfied")
    assert cluster.job_state(ok_after) == "PENDING"
    assert shown(cluster, ok_after, "Dependency") == f"afterok:{first}(failed)"

    # The owner lifts the dependency; the job runs.
    cluster.cli("scontrol", "update", f"JobId={ok_after}", "Dependency=")
    assert cluster.wait_job(ok_after) == "COMPLETED"


def test_refused_dependencies_queue_nothing_and_another_user_cannot_change_one(cluster_factory, two_users):
    stranger = two_users[0]
    cluster = cluster_factory(nodes=[dict(NODE)])
    held = cluster.sbatch("--hold", "-n1", "--mem=50", "--wrap", "true")
    waiting = cluster.sbatch("-d", f"afterany:{held}", "-n1", "--mem=50", "--wrap", "true")
    before = queued(cluster)

    for value, words in [(f"afterok:{held + 500}", "Job dependency problem"),
                         ("afterlunch:3", "Job dependency problem"),
                         (f"afterok:{held},afterany:{held}?singleton", "cannot be mixed"),
                         (f"afterok:{held}_1", f"job {held}_1 is not known")]:
        refused = cluster.cli("sbatch", "-d", value, "--wrap", "true", check=False)
        assert refused.returncode == 1, value
        assert "Batch job submission failed" in refused.stderr and words in refused.stderr, refused.stderr
    assert queued(cluster) == before

    denied = cluster.cli("scontrol", "update", f"JobId={waiting}", "Dependency=", user=stranger, check=False)
    assert denied.returncode == 1 and "Access/permission denied" in denied.stderr, denied.stderr
    circle = cluster.cli("scontrol", "update", f"JobId={held}", f"Dependency=afterok:{waiting}", check=False)
    assert circle.returncode == 1 and "Circular job dependency" in circle.stderr, circle.stderr
    assert shown(cluster, waiting, "Dependency") == f"afterany:{held}(unfulfilled)"
    assert shown(cluster, held, "Dependency") == "(null)"

    # The stranger may wait for someone else's job, as in Slurm.
    theirs = cluster.sbatch("-d", f"afterany:{held}", "--hold", "--wrap", "true", user=stranger)
    assert shown(cluster, theirs, "Dependency") == f"afterany:{held}(unfulfilled)"
    for job in (held, waiting, theirs):
        cluster.cli("scancel", str(job))


def test_what_is_left_of_a_dependency_survives_a_controller_kill(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    done = cluster.sbatch("-n1", "--mem=50", "--wrap", "true")
    held = cluster.sbatch("--hold", "-n1", "--mem=50", "--wrap", "true")
    waiting = cluster.sbatch("-d", f"afterany:{done},afterok:{held}", "-n1", "--mem=50", "--wrap", "true")
    cluster.wait_job(done)
    wait_for(lambda: shown(cluster, waiting, "Dependency") == f"afterok:{held}(unfulfilled)",
             what="the finished job's entry to be dropped")

    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    assert shown(cluster, waiting, "Dependency") == f"afterok:{held}(unfulfilled)"
    assert cluster.job_state(waiting) == "PENDING"
    cluster.cli("scontrol", "release", str(held))
    assert cluster.wait_job(held) == "COMPLETED"
    assert cluster.wait_job(waiting) == "COMPLETED"


def test_singleton_jobs_of_one_name_run_one_at_a_time(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(NODE)])
    log = tmp_path / "order"
    log.touch(mode=0o666)
    jobs = [cluster.sbatch("-J", "nightly", "-d", "singleton", "-n1", "--mem=50", "--wrap",
                           f"echo start $SLURM_JOB_ID >> {log}; sleep 1; echo end $SLURM_JOB_ID >> {log}")
            for _ in range(3)]
    for job in jobs:
        assert cluster.wait_job(job, timeout=90) == "COMPLETED"
    lines = log.read_text().split("\n")
    # Each job ended before the next started.
    assert [line.split()[0] for line in lines if line] == ["start", "end"] * 3, lines


def test_begin_defers_the_start_and_starttime_moves_it(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    soon = cluster.sbatch("--begin=now+5", "-n1", "--mem=50", "--wrap", "true")
    far = cluster.sbatch("-b", "now+2hours", "-n1", "--mem=50", "--wrap", "true")
    assert cluster.job_state(soon) == "PENDING"
    wait_for(lambda: reason(cluster, far) == "BeginTime", what="reason BeginTime")
    eligible = shown(cluster, far, "EligibleTime")
    assert eligible and eligible != "Unknown", eligible

    assert cluster.wait_job(soon, timeout=30) == "COMPLETED"
    time.sleep(1)
    assert cluster.job_state(far) == "PENDING"
    cluster.cli("scontrol", "update", f"JobId={far}", "StartTime=now")
    assert cluster.wait_job(far, timeout=30) == "COMPLETED"

    refused = cluster.cli("sbatch", "--begin=the-day-after", "--wrap", "true", check=False)
    assert refused.returncode != 0 and "the-day-after" in refused.stderr, refused.stderr
