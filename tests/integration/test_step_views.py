"""The step views on a loopback cluster: `squeue -s` and `scontrol show step`
list the sruns of a batch job, still do after the controller was killed and
restarted, and the next srun of that job is numbered after the earlier ones."""

import json
import signal

from gantry_cluster import binary, wait_for


def step_lines(cluster, *args):
    """`squeue -s` rows as (step id, name) pairs."""
    out = cluster.cli("squeue", "-s", "-h", "-o", "%i %j", *args).stdout
    return [tuple(line.split(" ", 1)) for line in out.splitlines() if line.strip()]


def show_step(cluster, step_id):
    """`scontrol show step <id>` as one dict of its Key=Value pairs, or None."""
    result = cluster.cli("scontrol", "show", "step", step_id, check=False)
    if result.returncode != 0:
        return None
    pairs = {}
    for word in result.stdout.split():
        key, _, value = word.partition("=")
        pairs[key] = value
    return pairs


def test_steps_are_listed_and_survive_a_controller_restart(cluster):
    gantry = binary("gantry")
    go = cluster.root / "second-srun.go"
    out = cluster.root / "steps.out"
    # The second srun waits for the test, not for a fixed time, so it
    # starts only after the controller came back.
    script = cluster.root / "two_sruns.sh"
    script.write_text("#!/bin/sh\n"
                      f"{gantry} srun sleep 120 &\n"
                      f"while [ ! -e {go} ]; do sleep 0.2; done\n"
                      f"{gantry} srun hostname\n"
                      "wait\n")
    job_id = cluster.sbatch("-n1", "-o", str(out), str(script))
    first = f"{job_id}.0"

    wait_for(lambda: (first, "sleep") in step_lines(cluster), timeout=30, what=f"{first} in squeue -s")
    default = cluster.cli("squeue", "-s").stdout.splitlines()
    assert default[0].split() == ["STEPID", "NAME", "PARTITION", "USER", "TIME", "NODELIST"]
    row = next(line.split() for line in default[1:] if line.split()[0] == first)
    assert row[1:4] == ["sleep", "debug", "root"], default
    assert row[5] == cluster.job(job_id)["node_list"]
    step = show_step(cluster, first)
    assert step and step["State"] == "RUNNING" and step["Name"] == "sleep", step
    assert step["StepId"] == first and step["Partition"] == "debug"
    # Plain squeue still lists the job, not its steps.
    assert [j["job_id"] for j in cluster.jobs_json()] == [job_id]

    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    assert (first, "sleep") in step_lines(cluster, "-j", str(job_id))
    step = show_step(cluster, first)
    assert step and step["State"] == "RUNNING", step

    go.touch()
    second = f"{job_id}.1"
    wait_for(lambda: (show_step(cluster, second) or {}).get("State") == "COMPLETED", timeout=30,
             what=f"{second} to run and end")
    assert show_step(cluster, second)["Name"] == "hostname"
    # Only the running step is listed by squeue -s; scontrol shows both.
    assert step_lines(cluster, "-j", str(job_id)) == [(first, "sleep")]
    listed = json.loads(cluster.cli("scontrol", "show", "step", str(job_id), "--json").stdout)
    assert [(s["id"], s["name"], s["state"]) for s in listed["steps"]] == [
        (first, "sleep", "RUNNING"), (second, "hostname", "COMPLETED")]

    cluster.cli("scancel", str(job_id))
    assert cluster.wait_job(job_id, timeout=30) == "CANCELLED"
    missing = cluster.cli("scontrol", "show", "step", f"{job_id}.7", check=False)
    assert missing.returncode == 1
    assert f"Job step {job_id}.7 not found" in missing.stderr
