"""SIGHUP and `scontrol reconfigure` make the daemons re-read their
configuration: a good file takes effect without a restart, a bad one is
logged (and reported to the command) and changes nothing."""

import shutil
import signal
from pathlib import Path

from gantry_cluster import wait_for

REPO = Path(__file__).resolve().parents[2]


def test_bad_reconfigure_keeps_running_configuration_and_good_one_applies(cluster):
    conf = cluster.conf_dir / "gantry.conf"
    good = conf.read_text()
    conf.write_text(good + "PartitionName=broken Nodes=n[1-2] MaxTime=banana\n")
    cluster.ctld.send_signal(signal.SIGHUP)
    log = cluster.root / "gantryctld.log"
    wait_for(lambda: "Resuming operation, reconfigure failed" in log.read_text(), timeout=20,
             what="the failed reconfigure to be logged")
    assert "MaxTime" in log.read_text()
    # The CLI reads gantry.conf too: give it the good file back (no SIGHUP),
    # and the controller, still on its old configuration, serves as before.
    conf.write_text(good)
    assert cluster.cli("sinfo", "-h", "-o", "%P").stdout.split() == ["debug*"]
    assert cluster.sbatch("--wrap", "true") > 0

    conf.write_text(good + "PartitionName=short Nodes=n1 MaxTime=5\n")
    cluster.ctld.send_signal(signal.SIGHUP)
    wait_for(lambda: "short" in cluster.cli("sinfo", "-h", "-o", "%P").stdout, timeout=20,
             what="the new partition to appear")
    job_id = cluster.sbatch("-p", "short", "--wrap", "true")
    assert cluster.wait_job(job_id) == "COMPLETED"
    assert cluster.job(job_id)["batch_host"] == "n1"


def test_agent_survives_sighup_and_keeps_its_configuration_on_errors(cluster):
    conf = cluster.conf_dir / "gantry.conf"
    good = conf.read_text()
    conf.write_text(good + "NodeName=bad CPUs=banana\n")
    cluster.agents["n1"].send_signal(signal.SIGHUP)
    log = cluster.root / "gantryd-n1.log"
    wait_for(lambda: "Resuming operation, reconfigure failed" in log.read_text(), timeout=20,
             what="the agent to log the failed reconfigure")
    conf.write_text(good)
    cluster.agents["n1"].send_signal(signal.SIGHUP)
    wait_for(lambda: "reconfigured from" in log.read_text(), timeout=20, what="the agent to reconfigure")
    assert cluster.agents["n1"].poll() is None
    job_id = cluster.sbatch("-J", "after-hup", "--wrap", "true")
    assert cluster.wait_job(job_id) == "COMPLETED"


# ------------------------------------------------------------ scontrol reconfigure

def agent_log(cluster, name):
    return (cluster.root / f"gantryd-{name}.log").read_text()


def test_scontrol_reconfigure_applies_a_good_configuration_on_the_controller_and_the_agents(cluster):
    conf = cluster.conf_dir / "gantry.conf"
    conf.write_text(conf.read_text() + "PartitionName=quick Nodes=n2 MaxTime=7\n")
    result = cluster.cli("scontrol", "reconfigure")
    assert result.stderr == ""
    # Answered once applied: no waiting for the new partition.
    assert "quick" in cluster.cli("sinfo", "-h", "-o", "%P").stdout.split()
    for name in ("n1", "n2"):
        assert "reconfigured from" in agent_log(cluster, name)
    job_id = cluster.sbatch("-p", "quick", "--wrap", "true")
    assert cluster.wait_job(job_id) == "COMPLETED"
    assert cluster.job(job_id)["batch_host"] == "n2"


def test_scontrol_reconfigure_reports_a_controller_error_and_changes_nothing(cluster):
    # cgroup.conf is read by the controller, not by the command itself.
    conf = cluster.conf_dir / "gantry.conf"
    conf.write_text(conf.read_text() + "PartitionName=later Nodes=n1 MaxTime=9\n")
    (cluster.conf_dir / "cgroup.conf").write_text("ConstrainCores=sometimes\n")
    result = cluster.cli("scontrol", "reconfigure", check=False)
    assert result.returncode == 1
    assert "Resuming operation, reconfigure failed." in result.stderr
    assert "cgroup.conf" in result.stderr and "ConstrainCores" in result.stderr
    assert "Resuming operation, reconfigure failed." in (cluster.root / "gantryctld.log").read_text()
    # The controller kept its configuration and did not ask the agents.
    assert cluster.cli("sinfo", "-h", "-o", "%P").stdout.split() == ["debug*"]
    assert all("reconfigured from" not in agent_log(cluster, n) for n in ("n1", "n2"))
    assert cluster.ctld.poll() is None
    assert cluster.wait_job(cluster.sbatch("--wrap", "true")) == "COMPLETED"


def test_an_agent_error_found_on_scontrol_reconfigure_does_not_stop_it(cluster):
    # gres.conf is read by the agents only: the controller takes the change,
    # the agent of n1 finds the bad line, logs it, says so to the command,
    # and keeps running on its previous configuration.
    (cluster.conf_dir / "gres.conf").write_text("NodeName=n1 Name=gpu Type=l40 File=/dev/null ChunkSizes=3,5\n")
    result = cluster.cli("scontrol", "reconfigure", check=False)
    assert result.returncode == 1
    assert "node n1: " in result.stderr and "Resuming operation, reconfigure failed." in result.stderr
    assert "ChunkSizes" in result.stderr
    wait_for(lambda: "Resuming operation, reconfigure failed." in agent_log(cluster, "n1"), timeout=10,
             what="the agent to log the failed reconfigure")
    assert cluster.agents["n1"].poll() is None
    assert cluster.agents["n2"].poll() is None
    job_id = cluster.sbatch("-N2", "--wrap", "true")  # n1 takes work as before
    assert cluster.wait_job(job_id) == "COMPLETED"

    (cluster.conf_dir / "gres.conf").write_text("")
    assert cluster.cli("scontrol", "reconfigure").stderr == ""
    assert "reconfigured from" in agent_log(cluster, "n1")


def test_scontrol_reconfigure_is_for_administrators_only(cluster):
    conf = cluster.conf_dir / "gantry.conf"
    conf.write_text(conf.read_text() + "PartitionName=mine Nodes=n1 MaxTime=3\n")
    denied = cluster.cli("scontrol", "reconfigure", user="nobody", check=False)
    assert denied.returncode == 1
    assert "Access/permission denied" in denied.stderr
    assert cluster.cli("sinfo", "-h", "-o", "%P").stdout.split() == ["debug*"]
    assert all("reconfigured from" not in agent_log(cluster, n) for n in ("n1", "n2"))


def resctrl_yaml(cpu_only_mb):
    return ("groups:\n"
            "  - name: cpu_only\n    schemata: |\n      MB:0={0};1={0}\n"
            "  - name: gpu_one_per_socket\n    schemata: |\n      MB:0=30;1=30\n"
            "  - name: gpu_two_per_socket\n    schemata: |\n      MB:0=60;1=60\n").format(cpu_only_mb)


def test_scontrol_reconfigure_sets_the_resctrl_groups_up_again(cluster_factory, tmp_path):
    # As at every start: missing group directories are created again and
    # every schemata is written as the file now says.
    host = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/resctrl/host", host, symlinks=True)
    cluster = cluster_factory(nodes=[{"name": "m1", "cpus": 4, "host_root": host}],
                              extra_conf="TaskPlugin=task/resctrl",
                              conf_files={"resctrl.yaml": resctrl_yaml(15)})
    resctrl = host / "sys/fs/resctrl"
    assert "MB:0=15;1=15" in (resctrl / "cpu_only" / "schemata").read_text()
    shutil.rmtree(resctrl / "gpu_two_per_socket")
    (cluster.conf_dir / "resctrl.yaml").write_text(resctrl_yaml(25))
    assert cluster.cli("scontrol", "reconfigure").stderr == ""
    assert "MB:0=25;1=25" in (resctrl / "cpu_only" / "schemata").read_text()
    assert "MB:0=60;1=60" in (resctrl / "gpu_two_per_socket" / "schemata").read_text()
