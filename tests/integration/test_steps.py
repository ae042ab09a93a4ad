"""Interactive steps on a loopback cluster: srun's output, labels, standard
input and exit code; srun inside a batch job and inside salloc; concurrent
--exclusive steps sharing one allocation (the gres_test.bash pattern, on
cores and on fixture GPUs); Ctrl-C; --pty; the extern step; and the retry
lines srun prints while its job is suspended."""

import json
import os
import pty
import re
import select
import signal
import subprocess
import time
from pathlib import Path

from gantry_cluster import binary, wait_for


def popen_cli(cluster, *args, env=None):
    return subprocess.Popen([binary("gantry"), *args], env=env or cluster.env(), cwd=cluster.root,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def active_jobs(cluster):
    return [j for j in cluster.jobs_json() if j["state"] in ("PENDING", "RUNNING", "SUSPENDED")]


def test_srun_labels_output_and_exits_with_the_highest_task_code(cluster):
    result = cluster.cli("srun", "-n2", "-l", "sh", "-c", "echo $SLURM_PROCID; exit $((SLURM_PROCID + 2))",
                         check=False)
    assert result.returncode == 3, result.stderr
    assert sorted(result.stdout.splitlines()) == ["0: 0", "1: 1"]
    # srun outside a job allocated one for itself and gave it back.
    wait_for(lambda: not active_jobs(cluster), timeout=10, what="srun's allocation to be released")


def test_srun_sends_stdin_to_task_0_and_passes_stderr_through(cluster):
    result = cluster.cli("srun", "sh", "-c", "cat; echo oops >&2", input="hello\nworld\n")
    assert result.stdout == "hello\nworld\n"
    assert "oops" in result.stderr


def test_srun_in_a_batch_job_runs_a_step_of_that_job(cluster):
    out = cluster.root / "batch.out"
    job_id = cluster.sbatch("-n2", "-N1", "-o", str(out), "--wrap",
                            f"{binary('gantry')} srun -l sh -c 'echo step=$SLURM_STEP_ID job=$SLURM_JOB_ID "
                            f"ntasks=$SLURM_NTASKS'")
    assert cluster.wait_job(job_id, timeout=30) == "COMPLETED", out.read_text() if out.exists() else ""
    lines = sorted(out.read_text().splitlines())
    assert lines == [f"0: step=0 job={job_id} ntasks=2", f"1: step=0 job={job_id} ntasks=2"]


def test_concurrent_exclusive_steps_divide_the_allocation(cluster):
    # gres_test.bash with cores instead of GPUs: steps of 2, 1 and 1 tasks in
    # a 4-task job run side by side on distinct CPUs.
    out = cluster.root / "exclusive.out"
    gantry = binary("gantry")
    show = ("echo JobStep=$SLURM_JOB_ID.$SLURM_STEP_ID task=$SLURM_PROCID cpus=$SLURM_CPUS_ON_NODE "
            "start=$(date +%s.%N); sleep 2; echo end=$(date +%s.%N)")
    script = (f"#!/bin/sh\n"
              f"{gantry} srun -n2 --exclusive sh -c '{show}' &\n"
              f"{gantry} srun -n1 --exclusive sh -c '{show}' &\n"
              f"{gantry} srun -n1 --exclusive sh -c '{show}' &\n"
              f"wait\n")
    path = cluster.root / "gres_test.sh"
    path.write_text(script)
    job_id = cluster.sbatch("-n4", "-N1", "-o", str(out), str(path))
    assert cluster.wait_job(job_id, timeout=30) == "COMPLETED", out.read_text() if out.exists() else ""
    text = out.read_text()
    steps = {}
    for step, cpus in re.findall(r"JobStep=\d+\.(\d+) task=\d+ cpus=(\d+)", text):
        steps.setdefault(step, set()).add(int(cpus))
    assert sorted(steps) == ["0", "1", "2"], text
    assert sorted(c for s in steps.values() for c in s) == [1, 1, 2], text
    starts = [float(x) for x in re.findall(r"start=([\d.]+)", text)]
    ends = [float(x) for x in re.findall(r"end=([\d.]+)", text)]
    assert len(starts) == 4 and len(ends) == 4, text
    assert max(starts) < min(ends), f"steps did not overlap:\n{text}"


def test_salloc_runs_a_command_with_the_allocation_in_its_environment(cluster):
    gantry = binary("gantry")
    result = cluster.cli("salloc", "-n2", "-N1", "sh", "-c",
                         f"echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NODELIST; {gantry} srun -l sh -c 'echo in-step'")
    granted = re.search(r"salloc: Granted job allocation (\d+)", result.stderr)
    assert granted, result.stderr
    job_id = int(granted.group(1))
    assert f"job={job_id} nodes=n" in result.stdout
    assert sorted(l for l in result.stdout.splitlines() if "in-step" in l) == ["0: in-step", "1: in-step"]
    assert f"salloc: Relinquishing job allocation {job_id}" in result.stderr
    assert cluster.wait_job(job_id, timeout=10) == "COMPLETED"


def test_ctrl_c_ends_a_running_step_quickly(cluster):
    proc = popen_cli(cluster, "srun", "sh", "-c", "echo started; exec sleep 60")
    assert proc.stdout.readline().strip() == "started"
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=15)
    assert time.monotonic() - began < 10
    assert proc.returncode != 0
    assert "srun: interrupt" in err
    wait_for(lambda: not active_jobs(cluster), timeout=10, what="srun's allocation to be released")


def test_srun_retries_while_the_job_is_suspended_then_proceeds(cluster):
    job_id = cluster.sbatch("-n1", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    cluster.cli("scontrol", "suspend", str(job_id))
    env = cluster.env()
    env["SLURM_JOB_ID"] = str(job_id)
    proc = popen_cli(cluster, "srun", "echo", "step ran", env=env)
    time.sleep(3)
    assert proc.poll() is None, "srun did not wait for the suspended job"
    cluster.cli("scontrol", "resume", str(job_id))
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out == "step ran\n"
    lines = err.splitlines()
    assert lines[0] == "srun: Job step creation temporarily disabled, retrying"
    assert "srun: Job step creation still disabled, retrying" in lines
    assert lines[-1] == "srun: Job step created"
    cluster.cli("scancel", str(job_id))


def test_a_second_ctrl_c_within_a_second_kills_a_step_that_ignores_the_first(cluster):
    proc = popen_cli(cluster, "srun", "sh", "-c", "trap '' INT; echo started; sleep 60; echo survived")
    assert proc.stdout.readline().strip() == "started"
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert "survived" not in out
    # The step is ended with SIGTERM and SIGKILL at once; either may win.
    assert proc.returncode in (128 + signal.SIGKILL, 128 + signal.SIGTERM), err
    assert "srun: forcing job termination" in err


def test_prolog_flags_contain_runs_an_extern_step_for_the_job(cluster_factory):
    cluster = cluster_factory(extra_conf="PrologFlags=Contain")
    job_id = cluster.sbatch("-n1", "--wrap", "sleep 60")
    wait_for(lambda: cluster.job_state(job_id) == "RUNNING", what="job to run")
    extern = lambda: list(cluster.root.glob(f"spool/*/steps/{job_id}.extern"))
    wait_for(extern, timeout=10, what="the extern step to start")
    cluster.cli("scancel", str(job_id))
    wait_for(lambda: not extern(), timeout=20, what="the extern step to end with its job")


def test_gres_test_bash_gives_each_concurrent_step_its_own_gpus(cluster_factory):
    # The spec's gres_test.bash on a node with four (fixture) GPUs. The sruns
    # start a moment apart so their step ids follow the script's order, and
    # each lasts long enough to overlap the others even on a loaded machine.
    hosts = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"
    cluster = cluster_factory(
        nodes=[{"name": "pairs", "cpus": 4, "gres": "gpu:4", "host_root": hosts / "pcie4-linked-pairs"}],
        gres_conf="NodeName=pairs AutoDetect=nvidia\n")
    gantry = binary("gantry")
    show = "echo JobStep=$SLURM_JOB_ID.$SLURM_STEP_ID CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; sleep 4"
    path = cluster.root / "gres_test.bash"
    path.write_text("#!/bin/sh\n"
                    f"{gantry} srun --gres=gpu:2 -n2 --exclusive sh -c '{show}' &\nsleep 0.5\n"
                    f"{gantry} srun --gres=gpu:1 -n1 --exclusive sh -c '{show}' &\nsleep 0.5\n"
                    f"{gantry} srun --gres=gpu:1 -n1 --exclusive sh -c '{show}' &\n"
                    "wait\n")
    out = cluster.root / "gres_test.out"
    job_id = cluster.sbatch("--gres=gpu:4", "-n4", "-N1-1", "-o", str(out), str(path))
    assert cluster.wait_job(job_id, timeout=30) == "COMPLETED", out.read_text() if out.exists() else ""
    lines = sorted(set(out.read_text().splitlines()))
    assert lines == [f"JobStep={job_id}.0 CUDA_VISIBLE_DEVICES=0,1",
                     f"JobStep={job_id}.1 CUDA_VISIBLE_DEVICES=2",
                     f"JobStep={job_id}.2 CUDA_VISIBLE_DEVICES=3"], out.read_text()


def read_until(fd, needle, timeout=15):
    seen = b""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"{needle!r} not seen; got {seen!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise EOFError(f"{needle!r} not seen before the end; got {seen!r}")
            seen += chunk
    return seen


def test_pty_runs_one_task_on_a_terminal(cluster):
    master, slave = pty.openpty()
    proc = subprocess.Popen([binary("gantry"), "srun", "--pty", "sh", "-c",
                             "test -t 0 && echo on-a-tty; read line; echo got-$line; exit 5"],
                            env=cluster.env(), cwd=cluster.root, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    try:
        read_until(master, b"on-a-tty")
        os.write(master, b"hello\r")
        read_until(master, b"got-hello")
        assert proc.wait(timeout=15) == 5
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


# ------------------------------------------------------------ allocations whose srun is gone

def allocation_of(cluster, name):
    jobs = json.loads(cluster.cli("squeue", "--json", "-t", "all").stdout)["jobs"]
    found = [j for j in jobs if j["spec"]["name"] == name]
    return found[-1] if found else None


def test_an_allocation_whose_srun_is_killed_ends_and_frees_its_resources(cluster):
    # srun -9 cannot give its allocation back; the controller notices that
    # it stopped calling and ends the allocation, its step included.
    proc = popen_cli(cluster, "srun", "-J", "orphaned", "-N2", "-n8", "sh", "-c", "echo started; exec sleep 300")
    assert proc.stdout.readline().strip() == "started"
    job = allocation_of(cluster, "orphaned")
    assert job and job["state"] == "RUNNING"
    job_id = job["job_id"]
    proc.kill()
    proc.wait(timeout=10)
    killed_at = time.monotonic()
    assert cluster.wait_job(job_id, timeout=40) == "TIMEOUT"
    assert time.monotonic() - killed_at < 30
    assert cluster.job(job_id)["reason"] == "InactiveLimit"
    # Its cores are free again: a job that needs every core of both nodes runs.
    follower = cluster.sbatch("-N2", "-n8", "--wrap", "true")
    assert cluster.wait_job(follower, timeout=40) == "COMPLETED"
    wait_for(lambda: not list(cluster.root.glob(f"spool/*/steps/{job_id}.*")), timeout=30,
             what="the orphaned step to end on its nodes")


def test_an_allocation_whose_salloc_is_killed_ends_too(cluster):
    proc = subprocess.Popen([binary("gantry"), "salloc", "-J", "abandoned", "-N1", "-n4", "sh", "-c",
                             "echo granted; exec sleep 300"], env=cluster.env(), cwd=cluster.root,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "granted"
        job_id = allocation_of(cluster, "abandoned")["job_id"]
        proc.kill()  # salloc only: its command (the sleep) is left running
        proc.wait(timeout=10)
        assert cluster.wait_job(job_id, timeout=40) == "TIMEOUT"
        assert cluster.job(job_id)["reason"] == "InactiveLimit"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def run_into_head(cluster, command):
    gantry = binary("gantry")
    return subprocess.run(["bash", "-c", f"{gantry} srun -J piped {command} | head -1; echo srun=${{PIPESTATUS[0]}}"],
                          env=cluster.env(), cwd=cluster.root, capture_output=True, text=True, timeout=60)


def test_srun_whose_output_reader_goes_away_ends_its_step_and_gives_its_allocation_back(cluster):
    result = run_into_head(cluster, "yes again")
    assert result.stdout.splitlines()[0] == "again"
    # srun was not killed by the SIGPIPE: its task got it (exit 141, which
    # srun passes on) and srun gave the allocation back itself, at once.
    job = allocation_of(cluster, "piped")
    assert job and job["state"] == "FAILED" and job["exit_code"] == 128 + signal.SIGPIPE, job


def test_srun_kills_a_step_that_ignores_sigpipe_once_its_reader_is_gone(cluster):
    began = time.monotonic()
    result = run_into_head(cluster, "sh -c 'trap \"\" PIPE; while :; do echo tick; sleep 0.05; done'")
    assert result.stdout.splitlines()[0] == "tick"
    assert time.monotonic() - began < 30
    job = allocation_of(cluster, "piped")
    assert job and job["state"] in ("COMPLETED", "FAILED"), job


def test_steps_of_an_exclusive_job_get_only_the_gpus_the_job_asked_for(cluster_factory):
    # An --exclusive job holds every GPU of its node; a plain srun in it
    # gets what the job asked for (here: none, then one), while an srun
    # that asks for GPUs still gets them.
    hosts = Path(__file__).resolve().parents[1] / "fixtures" / "hosts"
    cluster = cluster_factory(
        nodes=[{"name": "pairs", "cpus": 4, "gres": "gpu:4", "host_root": hosts / "pcie4-linked-pairs"}],
        gres_conf="NodeName=pairs AutoDetect=nvidia\n")
    gantry = binary("gantry")
    show = "echo STEP$SLURM_STEP_ID=${CUDA_VISIBLE_DEVICES:-unset}"
    path = cluster.root / "exclusive.sh"
    path.write_text("#!/bin/sh\n"
                    f"{gantry} srun -n1 sh -c '{show}'\n"
                    f"{gantry} srun -n1 --gres=gpu:3 sh -c '{show}'\n")
    for job_gpus, plain in ((None, "unset"), ("1", "0")):
        out = cluster.root / f"exclusive-{plain}.out"
        options = ["--exclusive", "-n1", "-o", str(out)] + ([f"--gres=gpu:{job_gpus}"] if job_gpus else [])
        job_id = cluster.sbatch(*options, str(path))
        assert cluster.wait_job(job_id, timeout=30) == "COMPLETED", out.read_text() if out.exists() else ""
        assert out.read_text().split() == [f"STEP0={plain}", "STEP1=0,1,2"], (job_gpus, out.read_text())
