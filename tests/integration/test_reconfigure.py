"""SIGHUP makes the controller re-read its configuration: a good file takes
effect without a restart, a bad one is logged and changes nothing."""

import signal

from gantry_cluster import wait_for


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
