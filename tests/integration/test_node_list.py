"""-w/--nodelist and -x/--exclude end to end: sbatch (options and
#SBATCH lines), srun and salloc, on a four-node loopback cluster whose
default partition holds three of them. Named nodes are taken, excluded
ones never, a busy named node makes the job wait, bad names are refused
with Slurm's texts, users without privileges get the same, and the lists
survive a controller restart."""

import os
import re
import signal
import subprocess

import pytest

from gantry_cluster import binary, wait_for

NODES = [{"name": f"w{i}", "cpus": 2, "memory": 2048} for i in range(1, 5)]
PARTITIONS = ["PartitionName=main Nodes=w[1-3] Default=YES MaxTime=INFINITE State=UP",
              "PartitionName=side Nodes=w4 MaxTime=INFINITE State=UP"]


@pytest.fixture
def four(cluster_factory):
    return cluster_factory(nodes=[dict(n) for n in NODES], partitions=PARTITIONS)


def show_job(cluster, job_id, user=None):
    return cluster.cli("scontrol", "show", "job", str(job_id), user=user).stdout


def field(text, key):
    found = re.search(rf"\b{key}=(\S+)", text)
    return found.group(1) if found else None


def wait_running(cluster, job_id):
    return cluster.wait_job(job_id, states=("RUNNING",), timeout=30)


def test_nodelist_takes_the_named_node_and_shows_it(four):
    job = four.sbatch("-w", "w3", "--wrap", "sleep 30")
    wait_running(four, job)
    text = show_job(four, job)
    assert field(text, "NodeList") == "w3", text
    assert "ReqNodeList=w3 ExcNodeList=(null)" in text, text
    four.cli("scancel", str(job))


def test_sbatch_directive_and_file_name_the_nodes(four):
    script = four.root / "pinned.sh"
    script.write_text("#!/bin/sh\n#SBATCH -w w[1,3]\nsleep 30\n")
    job = four.sbatch(str(script))
    wait_running(four, job)
    assert field(show_job(four, job), "NodeList") == "w[1,3]"
    four.cli("scancel", str(job))
    names = four.root / "hosts.txt"
    names.write_text("# the second node\nw2\n")
    from_file = four.sbatch("-w", str(names), "--wrap", "sleep 30")
    wait_running(four, from_file)
    text = show_job(four, from_file)
    assert field(text, "NodeList") == "w2" and field(text, "ReqNodeList") == "w2", text
    four.cli("scancel", str(from_file))
    missing = four.cli("sbatch", "-w", str(four.root / "no-such-file"), "--wrap", "true", check=False)
    assert missing.returncode == 1
    assert "--nodelist: cannot open node file" in missing.stderr and "no-such-file" in missing.stderr


def test_exclude_keeps_jobs_off_the_named_nodes(four):
    job = four.sbatch("-x", "w[1-2]", "--wrap", "sleep 30")
    wait_running(four, job)
    text = show_job(four, job)
    assert field(text, "NodeList") == "w3" and field(text, "ExcNodeList") == "w[1-2]", text
    two = four.sbatch("-N2", "-x", "w3", "--wrap", "sleep 30")
    wait_running(four, two)
    assert field(show_job(four, two), "NodeList") == "w[1-2]"
    # w1, w2 and w3 have one cpu free each: two tasks would fit on w1 and
    # w2, but a job that excludes them waits for w3.
    third = four.sbatch("-x", "w[1-2]", "-n2", "--wrap", "true")
    wait_for(lambda: four.job(third)["reason"] == "Resources", timeout=15, what="job to wait for w3")
    assert four.job_state(third) == "PENDING"
    four.cli("scancel", str(job))
    assert four.wait_job(third, timeout=30) == "COMPLETED"
    assert field(show_job(four, third), "NodeList") == "w3"
    four.cli("scancel", str(two))


def test_a_busy_named_node_makes_the_job_wait(four):
    holder = four.sbatch("-w", "w2", "-n2", "--wrap", "sleep 300")
    wait_running(four, holder)
    waiting = four.sbatch("-w", "w2", "--wrap", "true")
    wait_for(lambda: four.job(waiting)["reason"] == "Resources", timeout=15, what="job to wait for w2")
    text = show_job(four, waiting)
    assert field(text, "JobState") == "PENDING" and field(text, "Reason") == "Resources", text
    # w1 and w3 are idle all along; the job still waits for the node it named.
    four.cli("scancel", str(holder))
    assert four.wait_job(waiting, timeout=30) == "COMPLETED"
    assert field(show_job(four, waiting), "NodeList") == "w2"


@pytest.mark.parametrize("args, text", [
    (["-w", "w9"], "Invalid node name specified"),
    (["-x", "nosuch[1-2]"], "Invalid node name specified"),
    (["-w", "w[1-2]", "-x", "w2"], "Invalid node name specified"),
    (["-w", "w4"], "Requested node configuration is not available"),
    (["-p", "side", "-w", "w3"], "Requested node configuration is not available"),
])
def test_submissions_naming_bad_nodes_are_refused(four, args, text):
    before = len(four.jobs_json())
    result = four.cli("sbatch", *args, "--wrap", "true", check=False)
    assert result.returncode == 1, result
    assert result.stderr.startswith(f"sbatch: error: Batch job submission failed: {text}"), result.stderr
    assert len(four.jobs_json()) == before


def test_a_user_without_privileges_gets_the_same(four, two_users):
    user = two_users[0]
    shared = four.root / "shared"
    shared.mkdir(exist_ok=True)
    os.chmod(shared, 0o1777)
    out = four.cli("sbatch", "--parsable", "-w", "w3", "--wrap", "sleep 30", user=user, cwd=shared).stdout
    job = int(out.strip())
    wait_running(four, job)
    text = show_job(four, job, user=user)
    assert field(text, "NodeList") == "w3" and field(text, "ReqNodeList") == "w3", text
    refused = four.cli("sbatch", "-w", "w9", "--wrap", "true", user=user, cwd=shared, check=False)
    assert refused.returncode == 1
    assert "sbatch: error: Batch job submission failed: Invalid node name specified" in refused.stderr
    four.cli("scancel", str(job))


def test_srun_runs_on_the_named_nodes(four):
    own = four.cli("srun", "-w", "w2", "printenv", "SLURMD_NODENAME")
    assert own.stdout.split() == ["w2"], own
    gantry = binary("gantry")
    inside = four.cli("salloc", "-N3", "sh", "-c",
                      f"{gantry} srun -w w3 printenv SLURMD_NODENAME; "
                      f"{gantry} srun -N2 -x w1 printenv SLURMD_NODENAME | sort; "
                      f"{gantry} srun -w w4 true; echo outside=$?")
    lines = inside.stdout.split()
    assert lines[:3] == ["w3", "w2", "w3"], inside
    assert "outside=1" in lines, inside
    assert "srun: error: Requested node configuration is not available" in inside.stderr, inside.stderr


def test_squeue_shows_the_lists(four):
    job = four.sbatch("--hold", "-w", "w[2-3]", "-x", "w1", "--wrap", "true")
    out = four.cli("squeue", "-h", "-j", str(job), "-O", "ReqNodes:12,ExcNodes:8").stdout
    assert out.split() == ["w[2-3]", "w1"], out
    four.cli("scancel", str(job))


def test_a_restarted_controller_keeps_the_lists(four):
    job = four.sbatch("--hold", "-w", "w[2-3]", "-x", "w1", "--wrap", "sleep 30")
    four.kill_controller(signal.SIGKILL)
    four.start_controller()
    text = show_job(four, job)
    assert "ReqNodeList=w[2-3] ExcNodeList=w1" in text, text
    four.cli("scontrol", "release", str(job))
    wait_running(four, job)
    assert field(show_job(four, job), "NodeList") == "w[2-3]"
    four.cli("scancel", str(job))
