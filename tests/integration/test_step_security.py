"""What one user can do to another's steps and what a user's signals can do
to the node: step files are root-only, srun listens only toward the
cluster, scancel -s reaches the tasks and never the launcher, and a
launcher that dies takes its tasks with it before the job ends."""

import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

from gantry_cluster import as_user, binary, process_alive, process_state, wait_for

CGROUP_V2 = Path("/sys/fs/cgroup/unified")
if not (CGROUP_V2 / "cgroup.controllers").exists():
    CGROUP_V2 = Path("/sys/fs/cgroup")


def cgroup_v2_writable():
    return (CGROUP_V2 / "cgroup.controllers").exists() and os.access(CGROUP_V2, os.W_OK)


def one_node(cluster_factory, cpus=2, **kwargs):
    return cluster_factory(nodes=[{"name": "n1", "cpus": cpus, "memory": 4096}], **kwargs)


def shared_dir(cluster):
    """A folder every test user may write to (job output, pid files)."""
    path = cluster.root / "shared"
    path.mkdir(exist_ok=True)
    os.chmod(path, 0o777)
    return path


def read_pid(path):
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text.isdigit() else None


def wait_pid(path, what):
    return wait_for(lambda: read_pid(path), what=what)


def submit_as(cluster, user, script, *args):
    path = shared_dir(cluster) / f"script-{time.monotonic_ns()}.sh"
    path.write_text(script)
    os.chmod(path, 0o755)
    out = cluster.cli("sbatch", "--parsable", "-o", str(shared_dir(cluster) / "job-%j.out"), *args, str(path),
                      user=user, cwd=shared_dir(cluster)).stdout
    return int(out.strip().split(";")[0])


def listening_addresses(pid):
    """Local addresses of the TCP sockets `pid` listens on (an IPv4 address
    mapped into IPv6 as the plain IPv4 one)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    found = []
    for table in ("tcp", "tcp6"):
        lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            addr, port = local.split(":")
            # Each 32-bit word is in host (little-endian) order.
            raw = b"".join(bytes.fromhex(addr[i:i + 8])[::-1] for i in range(0, len(addr), 8))
            text = socket.inet_ntop(socket.AF_INET if table == "tcp" else socket.AF_INET6, raw)
            found.append(text.removeprefix("::ffff:"))
    return found


# ---------------------------------------------------------------- item 1


def test_another_user_can_neither_read_nor_reach_a_running_srun_step(two_users, cluster_factory):
    owner, other = two_users
    cluster = one_node(cluster_factory)
    srun = subprocess.Popen(as_user(owner, [binary("gantry"), "srun", "sh", "-c", "echo started; exec sleep 60"]),
                            env=cluster.env(), cwd=shared_dir(cluster), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert srun.stdout.readline().strip() == "started"
        spool = cluster.root / "spool" / "n1"
        step_dir = wait_for(lambda: next(iter(spool.glob("steps/*.0")), None), what="the step directory")
        job_dir = spool / "jobs" / step_dir.name.split(".")[0]
        wait_for(lambda: (step_dir / "pid").exists() and (step_dir / "state").exists(), what="gantrystepd's files")

        # Everything the agent and gantrystepd keep is root's alone.
        for top in (step_dir, job_dir):
            for path in [top, *top.rglob("*")]:
                info = path.lstat()
                expected = 0o700 if stat.S_ISDIR(info.st_mode) else 0o600
                assert (stat.S_IMODE(info.st_mode), info.st_uid) == (expected, 0), path
        for path in (step_dir / "spec.json", job_dir / "spec.json", step_dir / "stepd.log"):
            read = subprocess.run(as_user(other, ["cat", str(path)]), capture_output=True, text=True)
            assert read.returncode != 0 and "Permission denied" in read.stderr, path
        listed = subprocess.run(as_user(other, ["ls", str(step_dir)]), capture_output=True, text=True)
        assert listed.returncode != 0

        # srun listens toward the controller only (loopback here), never on
        # every interface.
        addresses = listening_addresses(srun.pid)
        assert addresses, "srun listens on no TCP socket"
        assert set(addresses) == {"127.0.0.1"}, addresses
    finally:
        srun.send_signal(signal.SIGINT)
        time.sleep(0.2)
        srun.send_signal(signal.SIGINT)
        srun.communicate(timeout=20)


# ---------------------------------------------------------------- item 3

STEP_TRAPPING_USR1 = ("trap 'echo usr1 >> {d}/step.sig' USR1; echo $$ > {d}/step.pid; "
                      "while :; do sleep 0.1; done")


def user_runnable_gantry(d):
    """A copy of the CLI in `d`: the build folder need not be open to the
    test users (a CI checkout may live in a root-only folder), and a job's
    tasks run with the user's rights only."""
    copy = d / "gantry"
    if not copy.exists():
        shutil.copy(binary("gantry"), copy)
        os.chmod(copy, 0o755)
    return copy


def batch_with_step(d, step_body):
    gantry = user_runnable_gantry(d)
    return (f"#!/bin/sh\n"
            f"trap 'echo usr1 >> {d}/batch.sig' USR1\n"
            f"echo $$ > {d}/batch.pid\n"
            f"{gantry} srun -n1 sh -c \"{step_body}\" &\n"
            f"while :; do sleep 0.1; done\n")


def test_scancel_kill_ends_the_task_before_the_cpus_go_to_another_job(two_users, cluster_factory):
    user, _ = two_users
    cluster = one_node(cluster_factory, cpus=1)
    d = shared_dir(cluster)
    first = submit_as(cluster, user, f"#!/bin/sh\necho $$ > {d}/shell.pid\nsleep 300 &\necho $! > {d}/child.pid\nwait\n")
    shell, child = wait_pid(d / "shell.pid", "the batch shell"), wait_pid(d / "child.pid", "its child")
    second = submit_as(cluster, user, f"#!/bin/sh\nsleep 1\n")
    assert cluster.job_state(second) == "PENDING"

    cluster.cli("scancel", "-s", "KILL", str(first), user=user)
    # Whenever the CPU is free for the next job, the first job's processes
    # are gone already.
    def next_job_started():
        state = cluster.job_state(second)
        if state == "PENDING":
            return False
        assert not process_alive(shell) and not process_alive(child), "job 2 started while job 1's tasks ran"
        return True
    wait_for(next_job_started, timeout=30, what="the next job to start")
    assert cluster.wait_job(first) in ("FAILED", "CANCELLED")
    assert cluster.wait_job(second) == "COMPLETED"


def test_scancel_stop_then_cancel_leaves_no_task(two_users, cluster_factory):
    user, _ = two_users
    cluster = one_node(cluster_factory)
    d = shared_dir(cluster)
    job = submit_as(cluster, user, batch_with_step(d, f"echo \\$\\$ > {d}/step.pid; exec sleep 300"))
    shell, task = wait_pid(d / "batch.pid", "the batch shell"), wait_pid(d / "step.pid", "the step's task")

    cluster.cli("scancel", "-s", "STOP", str(job), user=user)
    wait_for(lambda: process_state(task) == "T", timeout=10, what="the step's task to stop")
    assert process_state(shell) != "T", "without --batch/--full the batch shell is not signalled"
    assert cluster.job_state(job) == "RUNNING"

    cluster.cli("scancel", str(job), user=user)
    assert cluster.wait_job(job) == "CANCELLED"
    wait_for(lambda: not process_alive(task) and not process_alive(shell), timeout=15,
             what="the stopped task and the batch shell to end")


def test_scancel_usr1_reaches_the_tasks_and_never_suspends_the_job(two_users, cluster_factory):
    user, _ = two_users
    cluster = one_node(cluster_factory)
    d = shared_dir(cluster)
    job = submit_as(cluster, user, batch_with_step(d, STEP_TRAPPING_USR1.format(d=d).replace("$$", "\\$\\$")))
    shell, task = wait_pid(d / "batch.pid", "the batch shell"), wait_pid(d / "step.pid", "the step's task")

    cluster.cli("scancel", "-s", "USR1", str(job), user=user)
    wait_for(lambda: (d / "step.sig").exists(), timeout=10, what="the step's task to get SIGUSR1")
    time.sleep(1.0)
    assert cluster.job_state(job) == "RUNNING"
    assert process_state(task) in ("R", "S") and process_state(shell) in ("R", "S")
    assert not (d / "batch.sig").exists(), "without --batch/--full the batch shell is not signalled"
    # Signals never reach gantrystepd: the job still ends normally.
    cluster.cli("scancel", str(job), user=user)
    assert cluster.wait_job(job) == "CANCELLED"
    wait_for(lambda: not process_alive(task) and not process_alive(shell), timeout=15, what="the tasks to end")


def test_scancel_batch_signals_only_the_batch_shell(two_users, cluster_factory):
    user, _ = two_users
    cluster = one_node(cluster_factory)
    d = shared_dir(cluster)
    job = submit_as(cluster, user, batch_with_step(d, STEP_TRAPPING_USR1.format(d=d).replace("$$", "\\$\\$")))
    wait_pid(d / "batch.pid", "the batch shell")
    wait_pid(d / "step.pid", "the step's task")
    cluster.cli("scancel", "--batch", "-s", "USR1", str(job), user=user)
    wait_for(lambda: (d / "batch.sig").exists(), timeout=10, what="the batch shell to get SIGUSR1")
    time.sleep(0.5)
    assert not (d / "step.sig").exists()
    cluster.cli("scancel", str(job), user=user)


# ---------------------------------------------------------------- item 4


@pytest.mark.parametrize("confinement", ["process group", "cgroup"])
def test_a_killed_gantrystepd_takes_its_tasks_along_before_the_job_ends(two_users, cluster_factory, confinement):
    user, _ = two_users
    if confinement == "cgroup":
        if not cgroup_v2_writable():
            pytest.skip("no writable cgroup v2 hierarchy on this machine")
        cluster = one_node(cluster_factory, extra_conf="TaskPlugin=task/cgroup",
                           conf_files={"cgroup.conf": f"CgroupMountpoint={CGROUP_V2}\n"})
        # Only the cgroup can find a process that left the task's group.
        spawn = "setsid sleep 300 &"
    else:
        cluster = one_node(cluster_factory)
        spawn = "sleep 300 &"
    d = shared_dir(cluster)
    job = submit_as(cluster, user, f"#!/bin/sh\necho $$ > {d}/shell.pid\n{spawn}\necho $! > {d}/child.pid\nwait\n")
    shell, child = wait_pid(d / "shell.pid", "the batch shell"), wait_pid(d / "child.pid", "its child")
    stepd = read_pid(cluster.root / "spool" / "n1" / "steps" / f"{job}.batch" / "pid")
    assert stepd and process_alive(stepd)

    os.kill(stepd, signal.SIGKILL)

    def job_ended():
        state = cluster.job_state(job)
        if state in ("RUNNING", "COMPLETING"):
            return False
        assert not process_alive(shell) and not process_alive(child), f"job {state} while its tasks ran"
        return state
    assert wait_for(job_ended, timeout=30, what="the job to end") == "FAILED"
    wait_for(lambda: next(n for n in cluster.nodes_json() if n["name"] == "n1")["state"] == "IDLE",
             timeout=15, what="the node to be idle")


def test_srun_files_are_opened_with_the_users_own_rights(two_users, cluster_factory):
    """srun -o/-e/-i name files that gantrystepd (root) opens on the node: as
    the step's user, so another user's file is neither overwritten, nor
    appended to, nor read."""
    owner, other = two_users
    cluster = one_node(cluster_factory)
    d = shared_dir(cluster)
    theirs = d / "theirs.txt"
    theirs.write_text("other's data\n")
    secret = d / "secret.txt"
    secret.write_text("other's secret\n")
    entry = pwd.getpwnam(other)
    for path, mode in ((theirs, 0o644), (secret, 0o600)):
        os.chown(path, entry.pw_uid, entry.pw_gid)
        os.chmod(path, mode)
    for option in ("-o", "-e"):
        for open_mode in ("truncate", "append"):
            run = cluster.cli("srun", option, str(theirs), f"--open-mode={open_mode}", "sh", "-c",
                              "echo clobbered; echo clobbered >&2", user=owner, cwd=d, check=False)
            assert run.returncode != 0, (option, open_mode)
            assert theirs.read_text() == "other's data\n", (option, open_mode)
    leaked = cluster.cli("srun", "-i", str(secret), "cat", user=owner, cwd=d, check=False)
    assert leaked.returncode != 0
    assert "secret" not in leaked.stdout
    # The owner's own file in the same folder is written as usual.
    cluster.cli("srun", "-o", str(d / "mine.txt"), "echo", "mine", user=owner, cwd=d)
    assert (d / "mine.txt").read_text() == "mine\n"
    assert (d / "mine.txt").stat().st_uid == pwd.getpwnam(owner).pw_uid
