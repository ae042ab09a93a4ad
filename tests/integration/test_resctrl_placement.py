"""task/resctrl placement against the real daemons on a fixture resctrl
tree: the plugin must be in TaskPlugin, --exclusive is placed like any job
where the partition forces sharing, --exclusive=user shares the node only
with the same user's jobs and is placed in a group, and a failed resctrl
reconfigure stops an agent that runs in the foreground without --systemd."""

import os
import shutil
import signal
import time
from pathlib import Path

from gantry_cluster import wait_for

REPO = Path(__file__).resolve().parents[2]

# Numbers of our own; the fixture's MB domains are 0 and 1.
RESCTRL_YAML = """groups:
  - name: cpu_only
    schemata: |
      MB:0=1500;1=1500
  - name: gpu_one_per_socket
    schemata: |
      MB:0=3500;1=3500
  - name: gpu_two_per_socket
    schemata: |
      MB:0=6500;1=6500
"""
GROUPS = ("cpu_only", "gpu_one_per_socket", "gpu_two_per_socket")


def resctrl_host(tmp_path):
    """A four-GPU single-socket node whose kernel has resctrl mounted."""
    host = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/hosts/pcie4-linked-pairs", host, symlinks=True)
    shutil.copytree(REPO / "tests/fixtures/resctrl/host", host, symlinks=True, dirs_exist_ok=True)
    return host


def resctrl_cluster(cluster_factory, host, task_plugin="task/resctrl", partitions=None, agent_args=()):
    return cluster_factory(
        nodes=[{"name": "q1", "cpus": 12, "cores_per_socket": 12, "memory": 24000, "gres": "gpu:4",
                "host_root": host, "args": list(agent_args)}],
        partitions=partitions,
        gres_conf="AutoDetect=nvidia\n",
        extra_conf=f"TaskPlugin={task_plugin}" if task_plugin else "",
        conf_files={"resctrl.yaml": RESCTRL_YAML})


def agent_log(cluster):
    return (cluster.root / "gantryd-q1.log").read_text()


def tasks_of(host, group):
    path = host / "sys/fs/resctrl" / group / "tasks"
    return path.read_text().split() if path.exists() else []


def test_without_task_resctrl_no_group_is_made_and_no_step_placed(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host, task_plugin="task/affinity")
    for group in GROUPS:
        assert not (host / "sys/fs/resctrl" / group).exists(), f"{group} was created without task/resctrl"
    job_id = cluster.sbatch("--gpus-per-node=2", "--wrap", "true")
    assert cluster.wait_job(job_id) == "COMPLETED"
    assert "resctrl: job" not in agent_log(cluster)
    assert "resctrl: groups ready" not in agent_log(cluster)


def test_exclusive_jobs_in_a_partition_forcing_sharing_join_a_group(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host, partitions=[
        "PartitionName=forced Nodes=q1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:3",
        "PartitionName=forcedone Nodes=q1 MaxTime=INFINITE State=UP OverSubscribe=FORCE:1",
        "PartitionName=plain Nodes=q1 MaxTime=INFINITE State=UP",
    ])
    forced = cluster.sbatch("-p", "forced", "--exclusive", "--gpus-per-node=2", "--wrap", "true")
    assert cluster.wait_job(forced) == "COMPLETED"
    log = agent_log(cluster)
    assert f"resctrl: job {forced} on q1 placed in gpu_two_per_socket (gpus=2 " in log, log
    assert tasks_of(host, "gpu_two_per_socket"), "nothing joined gpu_two_per_socket"
    allocation = cluster.job(forced)["allocation"]
    assert len(allocation[0].get("devices", [])) == 2, allocation  # only what it asked, not the node

    # With a count of 1 the partition does not force sharing, and without
    # FORCE at all --exclusive owns the node: no group.
    for partition in ("forcedone", "plain"):
        whole = cluster.sbatch("-p", partition, "--exclusive", "--gpus-per-node=1", "--wrap", "true")
        assert cluster.wait_job(whole) == "COMPLETED"
        assert f"resctrl: job {whole} on q1 placed in no group (whole node)" in agent_log(cluster)


def test_exclusive_user_shares_only_with_the_same_user_and_joins_a_group(two_users, cluster_factory, tmp_path):
    alice, bob = two_users
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host)
    shared = cluster.root / "shared"
    shared.mkdir(exist_ok=True)
    os.chmod(shared, 0o1777)

    def submit(user, *args):
        out = cluster.cli("sbatch", "--parsable", *args, user=user, cwd=shared).stdout
        return int(out.strip().split(";")[0])

    first = submit(alice, "--exclusive=user", "-n1", "--wrap", "sleep 30")
    wait_for(lambda: cluster.job_state(first) == "RUNNING", what="alice's --exclusive=user job to run")
    # The same user's job joins the node; another user's waits.
    same = submit(alice, "-n1", "--gpus-per-node=1", "--wrap", "sleep 30")
    other = submit(bob, "-n1", "--wrap", "true")
    wait_for(lambda: cluster.job_state(same) == "RUNNING", what="alice's second job to share the node")
    time.sleep(2)
    assert cluster.job_state(other) == "PENDING"

    log = agent_log(cluster)
    assert f"resctrl: job {first} on q1 placed in cpu_only" in log, log
    assert f"resctrl: job {same} on q1 placed in gpu_one_per_socket" in log, log
    shown = cluster.cli("scontrol", "show", "job", str(first)).stdout
    assert "OverSubscribe=USER" in shown, shown

    cluster.cli("scancel", str(first))
    assert cluster.wait_job(first) == "CANCELLED"
    # Alice's plain job does not keep bob away.
    assert cluster.wait_job(other) == "COMPLETED"
    cluster.cli("scancel", str(same))


def test_exclusive_mcs_and_topo_are_accepted(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host)
    mcs = cluster.sbatch("--exclusive=mcs", "--gpus-per-node=1", "--wrap", "true")
    topo = cluster.sbatch("--exclusive=topo", "--wrap", "true")
    assert cluster.wait_job(mcs) == "COMPLETED"
    assert cluster.wait_job(topo) == "COMPLETED"
    log = agent_log(cluster)
    # mcs shares the node (no MCS plugin), topo owns it.
    assert f"resctrl: job {mcs} on q1 placed in gpu_one_per_socket" in log, log
    assert f"resctrl: job {topo} on q1 placed in no group (whole node)" in log, log
    run = cluster.cli("srun", "--exclusive=user", "-n1", "true", check=False)
    assert run.returncode == 0, run.stderr
    refused = cluster.cli("sbatch", "--exclusive=node", "--wrap", "true", check=False)
    assert refused.returncode != 0 and "--exclusive: invalid value 'node'" in refused.stderr


def break_resctrl_conf(cluster):
    # gpu_two_per_socket is missing: the file no longer loads.
    (cluster.conf_dir / "resctrl.yaml").write_text(RESCTRL_YAML.split("  - name: gpu_two_per_socket")[0])


def test_failed_resctrl_reconfigure_stops_a_foreground_agent(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host)
    agent = cluster.agents["q1"]
    break_resctrl_conf(cluster)
    agent.send_signal(signal.SIGHUP)
    agent.wait(timeout=20)
    assert agent.returncode != 0
    log = agent_log(cluster)
    assert "gpu_two_per_socket" in log and "reconfigure failed" in log, log


def test_failed_resctrl_set_up_on_reconfigure_stops_a_foreground_agent(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host)
    agent = cluster.agents["q1"]
    # Groups made outside gantry leave too few CLOSIDs (8) for ours.
    for i in range(5):
        (host / "sys/fs/resctrl" / f"outside{i}").mkdir()
    agent.send_signal(signal.SIGHUP)
    agent.wait(timeout=20)
    assert agent.returncode != 0
    assert "CLOSIDs" in agent_log(cluster)


def test_failed_resctrl_reconfigure_under_systemd_keeps_running(cluster_factory, tmp_path):
    host = resctrl_host(tmp_path)
    cluster = resctrl_cluster(cluster_factory, host, agent_args=["--systemd"])
    agent = cluster.agents["q1"]
    break_resctrl_conf(cluster)
    agent.send_signal(signal.SIGHUP)
    wait_for(lambda: "Resuming operation, reconfigure failed" in agent_log(cluster), timeout=20,
             what="the agent to resume after the failed reconfigure")
    assert agent.poll() is None
    job_id = cluster.sbatch("--gpus-per-node=1", "--wrap", "true")
    assert cluster.wait_job(job_id) == "COMPLETED"
    # It keeps its previous groups, so the job is still placed.
    assert f"resctrl: job {job_id} on q1 placed in gpu_one_per_socket" in agent_log(cluster)
