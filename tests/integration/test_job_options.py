"""sbatch/srun options scripts written for Slurm use: script arguments,
--tres-bind (and scontrol update TresBind=), -O/--overcommit, sbatch
-W/--wait, --signal before the time limit, -m/--distribution."""

import time

from gantry_cluster import wait_for

TRES_ERROR = "Invalid Trackable RESource (TRES) specification"


def test_script_arguments_reach_the_batch_script(cluster):
    work = cluster.root / "args"
    work.mkdir()
    script = work / "job.sh"
    script.write_text('#!/bin/sh\necho "count=$# first=$1 second=$2 third=$3"\n')
    job_id = cluster.sbatch("-o", str(work / "out-%j"), str(script), "alpha", "two words", "--gamma")
    assert cluster.wait_job(job_id) == "COMPLETED"
    text = (work / f"out-{job_id}").read_text()
    assert "count=3 first=alpha second=two words third=--gamma" in text, text


def test_tres_bind_refused_at_submission_in_slurms_words(cluster):
    result = cluster.cli("sbatch", "--tres-bind=gres/gpu:map:3y", "--wrap", "true", check=False)
    assert result.returncode == 1, result
    assert f"sbatch: error: Batch job submission failed: {TRES_ERROR}" in result.stderr, result.stderr
    jobs = cluster.jobs_json()
    assert jobs == [], jobs


def test_tres_bind_shown_and_updated_with_scontrol(cluster):
    job_id = cluster.sbatch("--hold", "--tres-bind=gres/gpu:mask:0xf0", "--wrap", "true")
    shown = cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    assert "TresBind=gres/gpu:mask:0xf0" in shown, shown
    cluster.cli("scontrol", "update", f"JobId={job_id}", "TresBind=gres/gpu:map:5*3")
    shown = cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    assert "TresBind=gres/gpu:map:5*3" in shown, shown
    refused = cluster.cli("scontrol", "update", f"JobId={job_id}", "TresBind=gres/gpu:map:0x5", check=False)
    assert refused.returncode == 1
    assert TRES_ERROR in refused.stderr and f"for job {job_id}" in refused.stderr, refused.stderr
    shown = cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    assert "TresBind=gres/gpu:map:5*3" in shown, shown
    # --gpu-bind is recorded as the job's tres-bind, as Slurm records it.
    other = cluster.sbatch("--hold", "--gpu-bind=closest", "--wrap", "true")
    assert "TresBind=gres/gpu:closest" in cluster.cli("scontrol", "show", "job", str(other)).stdout


def test_overcommit_runs_more_tasks_than_cpus(cluster):
    # Each node has 4 CPUs: 7 tasks on one node only fit overcommitted.
    refused = cluster.cli("srun", "-N1", "-n7", "hostname", check=False, timeout=30)
    assert refused.returncode != 0
    result = cluster.cli("srun", "-N1", "-n7", "-O", "hostname", timeout=60)
    lines = result.stdout.split()
    assert len(lines) == 7 and len(set(lines)) == 1, result.stdout


def test_sbatch_wait_exits_with_the_jobs_exit_code(cluster):
    started = time.time()
    result = cluster.cli("sbatch", "-W", "--wrap", "sleep 2; exit 6", check=False, timeout=60)
    assert result.returncode == 6, (result.returncode, result.stderr)
    assert result.stdout.startswith("Submitted batch job"), result.stdout
    assert time.time() - started >= 2
    ok = cluster.cli("sbatch", "--wait", "--parsable", "--wrap", "true", check=False, timeout=60)
    assert ok.returncode == 0, ok.stderr


def test_signal_reaches_the_batch_shell_before_the_time_limit(cluster):
    work = cluster.root / "signal"
    work.mkdir()
    script = work / "job.sh"
    script.write_text("#!/bin/bash\ntrap 'echo warned; exit 0' USR2\nsleep 40 & wait\n")
    # A 25 s limit, warned 20 s before it: the trap ends the job well before.
    job_id = cluster.sbatch("-t", "0:25", "--signal=B:USR2@20", "-o", str(work / "out-%j"), str(script))
    assert cluster.wait_job(job_id, timeout=40) == "COMPLETED"
    assert "warned" in (work / f"out-{job_id}").read_text()


def test_distribution_reaches_the_job_environment(cluster):
    work = cluster.root / "dist"
    work.mkdir()
    job_id = cluster.sbatch("-m", "Cyclic:Block", "-o", str(work / "out-%j"), "--wrap",
                            "echo dist=$SLURM_DISTRIBUTION")
    assert cluster.wait_job(job_id) == "COMPLETED"
    assert "dist=cyclic:block" in (work / f"out-{job_id}").read_text()
    bad = cluster.cli("sbatch", "--distribution=zigzag", "--wrap", "true", check=False)
    assert bad.returncode == 1
    assert "--distribution: invalid distribution 'zigzag'" in bad.stderr, bad.stderr


def test_open_mode_append_keeps_earlier_output(cluster):
    work = cluster.root / "append"
    work.mkdir()
    out = work / "log.txt"
    out.write_text("earlier\n")
    first = cluster.sbatch("--open-mode=append", "-o", str(out), "--wrap", "echo second")
    assert cluster.wait_job(first) == "COMPLETED"
    assert out.read_text() == "earlier\nsecond\n"
    truncated = cluster.sbatch("--open-mode=truncate", "-o", str(out), "--wrap", "echo third")
    assert cluster.wait_job(truncated) == "COMPLETED"
    assert out.read_text() == "third\n"
