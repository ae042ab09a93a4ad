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


def test_agent_sighup_registers_the_gres_of_a_changed_gres_conf(cluster_factory):
    gres = "Name=gpu Type=rtx_pro_6000 File=/dev/nvidia[0-1]\n"
    cluster = cluster_factory(nodes=[{"name": "g1", "cpus": 4, "memory": 4000, "gres": "gpu:2"}], gres_conf=gres)

    def devices():
        return next(n for n in cluster.nodes_json() if n["name"] == "g1")["gres_devices"]

    assert [d.split()[0] for d in devices()] == ["gpu:rtx_pro_6000", "gpu:rtx_pro_6000"]
    (cluster.conf_dir / "gres.conf").write_text("Name=gpu Type=pro6000 File=/dev/nvidia[0-1]\n")
    log = cluster.root / "gantryd-g1.log"
    cluster.agents["g1"].send_signal(signal.SIGHUP)
    wait_for(lambda: "reconfigured from" in log.read_text(), timeout=20, what="the agent to reconfigure")
    wait_for(lambda: [d.split()[0] for d in devices()] == ["gpu:pro6000", "gpu:pro6000"],
             timeout=20, what="the controller to show the new GRES")
    out = cluster.cli("srun", "--gres=gpu:pro6000:2", "printenv", "CUDA_VISIBLE_DEVICES", timeout=30).stdout
    assert out.strip() == "0,1"
