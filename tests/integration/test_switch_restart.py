"""switch/lua across a controller killed with SIGKILL and across
`scontrol reconfigure`: a setup that was outstanding runs again (the job
stays CONFIGURING), a teardown that held its nodes runs again from the
start with the nodes still held, one that did not hold them is forgotten,
and a reconfigure kills the running call before running it again. The
calls are counted from the script's own log lines.

Numbers: 2 nodes, switch_timeout=6 (longer than a restart), switch_retries=1."""

import signal
import time

import pytest

from gantry_cluster import wait_for
from switch_harness import (assert_drained, assert_in_service, assert_log_order, assert_no_call_left, job_log,
                            log_text, node_state, resume, script_calls, script_lines, set_script, show_job,
                            started_calls, submit, switch_cluster, wait_in_service, wait_job_state, wait_log,
                            wait_started)

TIMEOUT = 6
NODES = ("sw1", "sw2")
BOTH = ("-N2",)


@pytest.fixture(scope="module")
def held():
    cluster = switch_cluster(timeout=TIMEOUT, retries=1, block=True, nodes=NODES)
    yield cluster
    cluster.cleanup()


def restart(cluster):
    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()


def completing(cluster):
    return all("COMPLETING" in node_state(cluster, n) for n in NODES)


def test_a_setup_outstanding_at_a_kill_9_runs_again_and_the_job_stays_configuring(held):
    c = held
    job = submit(c, "start_sleep=2", *BOTH)
    wait_job_state(c, job, "CONFIGURING")
    wait_started(c, "job_start", job, 1)
    restart(c)
    assert show_job(c, job)["JobState"] == "CONFIGURING"
    wait_log(c, f"switch setup of JobId={job} was outstanding at the restart; it runs again")
    wait_started(c, "job_start", job, 2)
    assert show_job(c, job)["JobState"] == "CONFIGURING"
    assert c.wait_job(job, timeout=TIMEOUT + 20) == "COMPLETED"
    wait_log(c, f"switch teardown of JobId={job} done")
    assert show_job(c, job)["Reason"] == "None"
    assert show_job(c, job)["Restarts"] == "0"
    assert started_calls(c, "job_start", job) == 2
    # The killed call's lines died with its controller; the repeat's are there.
    assert script_calls(c, "job_start", job) == 1
    assert started_calls(c, "job_complete", job) == script_calls(c, "job_complete", job) == 1
    wait_in_service(c, *NODES)
    assert_no_call_left(c, timeout=5)


def test_a_held_teardown_at_a_kill_9_runs_again_and_the_nodes_stay_held(held):
    c = held
    job = submit(c, "complete_sleep=2", *BOTH)
    wait_started(c, "job_complete", job, 1)
    assert completing(c)
    restart(c)
    assert completing(c), [node_state(c, n) for n in NODES]
    wait_log(c, f"switch teardown of JobId={job} held sw[1-2] at the restart; it runs again from the start")
    wait_started(c, "job_complete", job, 2)
    assert completing(c), "the nodes were let go before the repeated teardown reported"
    wait_log(c, f"switch teardown of JobId={job} done", timeout=TIMEOUT + 5)
    lines = script_lines(c, "job_complete", job)
    assert len(lines) == 1 and "jobinfo=yes" in lines[0], lines  # the same jobinfo again
    assert c.wait_job(job) == "COMPLETED"
    wait_in_service(c, *NODES)
    assert started_calls(c, "job_start", job) == script_calls(c, "job_start", job) == 1
    assert started_calls(c, "job_complete", job) == 2
    assert "had unresolved switch cleanup" not in log_text(c)
    assert_no_call_left(c, timeout=5)


def test_scontrol_reconfigure_kills_a_running_setup_and_runs_it_again(held):
    c = held
    job = submit(c, "start_sleep=2", *BOTH)
    wait_job_state(c, job, "CONFIGURING")
    wait_started(c, "job_start", job, 1)
    c.cli("scontrol", "reconfigure")
    wait_started(c, "job_start", job, 2)
    assert_log_order(c, f"killed the running", f"of JobId={job} as the controller stops")
    assert show_job(c, job)["JobState"] == "CONFIGURING"
    assert c.wait_job(job, timeout=TIMEOUT + 20) == "COMPLETED"
    wait_log(c, f"switch teardown of JobId={job} done")
    # The run goes on: the agents registering again after the reconfigure do
    # not take a CONFIGURING job for one that lost its batch step.
    assert show_job(c, job)["Restarts"] == "0", job_log(c, job)
    assert started_calls(c, "job_start", job) == 2, job_log(c, job)
    assert 1 <= script_calls(c, "job_start", job) <= 2
    assert started_calls(c, "job_complete", job) == script_calls(c, "job_complete", job) == 1
    wait_in_service(c, *NODES)
    assert_no_call_left(c)


def test_scontrol_reconfigure_kills_a_held_teardown_and_runs_it_again(held):
    c = held
    job = submit(c, "complete_sleep=2", *BOTH)
    wait_started(c, "job_complete", job, 1)
    c.cli("scontrol", "reconfigure")
    wait_started(c, "job_complete", job, 2)
    assert completing(c)
    assert_log_order(c, f"killed the running", f"of JobId={job} as the controller stops")
    wait_log(c, f"switch teardown of JobId={job} done", timeout=TIMEOUT + 5)
    wait_in_service(c, *NODES)
    assert started_calls(c, "job_complete", job) == 2
    assert 1 <= script_calls(c, "job_complete", job) <= 2
    assert f"failed switch teardown of JobId={job}" not in log_text(c)
    assert_no_call_left(c)


def test_after_a_reconfigure_to_block_false_an_unheld_teardown_is_forgotten_at_a_restart(held):
    """block_job_complete() is asked again at reconfigure; a teardown that
    did not hold its nodes is not run again after a restart."""
    c = held
    set_script(c, block=False)
    try:
        c.cli("scontrol", "reconfigure")
        job = submit(c, "complete_sleep=3", *BOTH)
        wait_started(c, "job_complete", job, 1)
        wait_in_service(c, *NODES, timeout=5)  # not held
        restart(c)
        wait_log(c, f"switch teardown of JobId={job} was not holding its nodes at the restart")
        time.sleep(1)
        assert started_calls(c, "job_complete", job) == 1
        assert_in_service(c, *NODES)
        assert f"failed switch teardown of JobId={job}" not in log_text(c)
        assert c.wait_job(job) == "COMPLETED"
        assert_no_call_left(c, timeout=5)
    finally:
        set_script(c, block=True)
        c.cli("scontrol", "reconfigure")


def test_a_held_teardown_that_cannot_run_again_after_a_restart_drains_its_nodes(held):
    """Restarted without switch/lua, the controller cannot run the teardown
    that held the nodes: it counts as failed."""
    c = held
    conf = c.conf_dir / "gantry.conf"
    original = conf.read_text()
    job = submit(c, "complete_sleep=3", *BOTH)
    wait_started(c, "job_complete", job, 1)
    assert completing(c)
    try:
        c.kill_controller(signal.SIGKILL)
        conf.write_text(original.replace("SwitchType=switch/lua\n", ""))
        c.start_controller()
        wait_log(c, f"drained sw[1-2] after a failed switch teardown of JobId={job}")
        assert_log_order(c, f"JobId={job} had unresolved switch cleanup: its teardown held sw[1-2]",
                         f"drained sw[1-2] after a failed switch teardown of JobId={job}")
        wait_for(lambda: not completing(c), timeout=5, what="the hold to end")
        assert_drained(c, *NODES)
        assert started_calls(c, "job_complete", job) == 1
        assert c.wait_job(job) == "COMPLETED"
    finally:
        conf.write_text(original)
        restart(c)
        resume(c, "sw[1-2]")
    wait_in_service(c, *NODES)
    assert_no_call_left(c, timeout=5)
