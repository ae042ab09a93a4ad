"""SwitchType=switch/lua: gantryctld loads switch.lua beside gantry.conf at
start and does not start when the script cannot be loaded (the spec's
"error: switch/lua:" line, then its fatal line). A loaded script sets up
each --network job; without a switch plugin --network is kept and changes
nothing."""

import subprocess

import pytest

from gantry_cluster import Cluster, binary

FATAL = "fatal: Can't find plugin for switch/lua"


def controller_refuses(cluster):
    """Runs gantryctld on the cluster's configuration; it must stop by itself."""
    proc = subprocess.run([binary("gantryctld"), "--conf-dir", str(cluster.conf_dir)],
                          capture_output=True, text=True, timeout=30)
    log = cluster.root / "gantryctld.log"
    return proc.returncode, proc.stderr + (log.read_text() if log.exists() else "")


@pytest.mark.parametrize("script, phrase", [
    (None, "Unable to stat"),
    ("this is not lua (\n", "syntax error"),
    ("error('no switch today')\n", "no switch today"),
    ("return 7\n", "returned 7 on load"),
])
def test_a_script_that_does_not_load_stops_the_controller(script, phrase):
    cluster = Cluster(extra_conf="SwitchType=switch/lua")
    try:
        if script is not None:
            (cluster.conf_dir / "switch.lua").write_text(script)
        code, output = controller_refuses(cluster)
        assert code != 0
        assert "error: switch/lua:" in output and phrase in output, output
        assert FATAL in output, output
        assert output.index("error: switch/lua:") < output.index(FATAL)
    finally:
        cluster.cleanup()


def test_a_good_script_loads_and_sets_up_network_jobs(cluster_factory):
    cluster = Cluster(extra_conf="SwitchType=switch/lua")
    (cluster.conf_dir / "switch.lua").write_text(
        "slurm.log_info('top level of %s', 'switch.lua')\n"
        "function slurm_switch_job_start(job)\n"
        "  slurm.log_info('set up %s for job %d on %s', job.network, job.job_id, job.nodes)\n"
        "  return slurm.SUCCESS, { lanes = 2 }\n"
        "end\n"
        "return slurm.SUCCESS\n")
    try:
        cluster.start()
        log = (cluster.root / "gantryctld.log").read_text()
        assert "switchlua: script loaded" in log
        assert "top level of switch.lua" in log
        job_id = cluster.sbatch("--network=ib0", "--wrap", "true")
        assert cluster.wait_job(job_id) == "COMPLETED"
        log = (cluster.root / "gantryctld.log").read_text()
        assert f"switch/lua: slurm_switch_job_start: set up ib0 for job {job_id} on n" in log, log[-3000:]
        assert "Network=ib0" in cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    finally:
        cluster.stop()
        cluster.cleanup()


def test_without_a_switch_plugin_network_is_kept_and_shown(cluster):
    job_id = cluster.sbatch("--network=ib0", "--hold", "--wrap", "true")
    assert "Network=ib0" in cluster.cli("scontrol", "show", "job", str(job_id)).stdout
    cluster.cli("scancel", str(job_id))


def test_a_step_whose_launcher_cannot_load_the_script_fails_before_it_runs(cluster_factory):
    cluster = Cluster(extra_conf="SwitchType=switch/lua")
    script = cluster.conf_dir / "switch.lua"
    script.write_text("return slurm.SUCCESS\n")
    try:
        cluster.start()
        marker = cluster.root / "ran"
        # Each step's launcher loads the file afresh: an edit reaches the next step.
        script.write_text("return 5\n")
        job_id = cluster.sbatch("--wrap", f"touch {marker}")
        assert cluster.wait_job(job_id) == "FAILED"
        reason = cluster.job(job_id)["reason"]
        assert "switch/lua:" in reason and "returned 5 on load" in reason, reason
        assert not marker.exists(), "the step ran although switch.lua did not load"
        # The launcher's log lines reach the agent's log.
        agent_log = (cluster.root / "gantryd-n1.log").read_text() + (cluster.root / "gantryd-n2.log").read_text()
        assert "error: switch/lua:" in agent_log and FATAL in agent_log, agent_log[-2000:]
        script.write_text("slurm.log_info('loaded on the node')\nreturn slurm.SUCCESS\n")
        ok = cluster.sbatch("--wrap", f"touch {marker}")
        assert cluster.wait_job(ok) == "COMPLETED"
        assert marker.exists()
    finally:
        cluster.stop()
        cluster.cleanup()
