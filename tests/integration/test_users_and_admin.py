"""Users and administrators: jobs run as the submitting user, node changes
are for root only, drained nodes take no work, and the views scripts read."""

import json
import os
import pwd

from gantry_cluster import wait_for


def test_job_runs_as_the_submitting_user(cluster):
    shared = cluster.root / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    nobody = pwd.getpwnam("nobody")
    job_id = int(cluster.cli("sbatch", "--parsable", "-o", str(shared / "who-%j.out"), "--wrap", "id -u; id -g",
                             user="nobody", cwd=shared).stdout.strip())
    assert cluster.wait_job(job_id) == "COMPLETED"
    out = shared / f"who-{job_id}.out"
    assert out.read_text().split() == [str(nobody.pw_uid), str(nobody.pw_gid)]
    assert out.stat().st_uid == nobody.pw_uid
    assert cluster.job(job_id)["user"] == "nobody"


def test_node_updates_are_for_root_and_drain_keeps_work_away(cluster):
    denied = cluster.cli("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=maintenance",
                         user="nobody", check=False)
    assert denied.returncode != 0 and "permission" in denied.stderr.lower()

    cluster.cli("scontrol", "update", "NodeName=n1", "State=DRAIN", "Reason=maintenance")
    reasons = cluster.cli("sinfo", "-R", "-h").stdout
    assert "maintenance" in reasons and "n1" in reasons
    ids = [cluster.sbatch("--wrap", "true") for _ in range(4)]
    for job_id in ids:
        assert cluster.wait_job(job_id) == "COMPLETED"
        assert cluster.job(job_id)["batch_host"] == "n2"

    cluster.cli("scontrol", "update", "NodeName=n1", "State=RESUME")
    node = next(n for n in cluster.nodes_json() if n["name"] == "n1")
    assert node["state"] == "IDLE"


def test_views_scripts_read(cluster):
    job_id = cluster.sbatch("-J", "viewme", "--wrap", "sleep 20")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    line = cluster.cli("squeue", "-h", "-j", str(job_id), "-o", "%i %j %u %T %D %P").stdout.split()
    assert line == [str(job_id), "viewme", "root", "RUNNING", "1", "debug"]
    fields = cluster.cli("squeue", "-h", "-O", "JobID,Name,State").stdout.split()
    assert fields == [str(job_id), "viewme", "RUNNING"]
    nodes = cluster.cli("sinfo", "-h", "-N", "-o", "%N %T").stdout.splitlines()
    assert sorted(l.split()[0] for l in nodes) == ["n1", "n2"]
    shown = cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    assert f"JobId={job_id} JobName=viewme" in shown and "JobState=RUNNING" in shown
    data = json.loads(cluster.cli("sinfo", "--json").stdout)
    assert data
    cluster.cli("scancel", str(job_id))
