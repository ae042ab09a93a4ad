"""switch/lua with the real daemons, the setup side: a job that asks for a
network waits CONFIGURING while slurm_switch_job_start() runs in a process
of its own, and each way the setup can answer (success, decline, failure,
Lua error, os.exit, a refused dictionary, a timeout, a signal, a late
report) ends as docs/switch-lua.md says: the job's state and reason, the
nodes never drained, the calls the script logged, the controller's lines,
and no process of a call left behind.

The example script conf/switch-lua/switch.lua runs with its directives on;
the numbers here (3 nodes, switch_timeout=3, switch_retries=2) are not the
spec's."""

import signal
import time

import pytest

from gantry_cluster import wait_for
from switch_harness import (TIMEOUT, assert_in_service, assert_log_order, assert_no_call_left,
                            assert_within_ten_percent, call_running, controller_announced, job_named, ledger_lines,
                            log_text, script_calls, script_lines, show_job, squeue_state, started_calls, submit,
                            switch_cluster, wait_calls, wait_job_state, wait_log)

PAIR = ("-N2",)  # the default partition: sw1 and sw2


@pytest.fixture(scope="module")
def unheld():
    """block_job_complete() false, switch_drain_on_failure=yes."""
    cluster = switch_cluster()
    yield cluster
    cluster.cleanup()


def settle(cluster):
    """Waits until the calls are over (none of their processes left)."""
    assert_no_call_left(cluster, timeout=TIMEOUT + 5)


# ------------------------------------------------------------ the setup answers


def test_a_network_job_is_configuring_while_its_setup_runs_then_runs_and_is_torn_down(unheld):
    c = unheld
    job = submit(c, "start_sleep=1", *PAIR, wrap="sleep 1")
    wait_job_state(c, job, "CONFIGURING")
    assert squeue_state(c, job) == "CF"
    assert call_running(c), "no process runs the setup"
    wait_job_state(c, job, "RUNNING", timeout=TIMEOUT + 5)
    assert c.wait_job(job) == "COMPLETED"
    wait_log(c, f"switch teardown of JobId={job} done")
    assert show_job(c, job)["Reason"] == "None"
    assert script_calls(c, "job_start", job) == started_calls(c, "job_start", job) == 1
    assert script_calls(c, "job_complete", job) == started_calls(c, "job_complete", job) == 1
    assert controller_announced(c, "job_start", job) == 1
    assert controller_announced(c, "job_complete", job) == 1
    assert "nodes=sw[1-2]" in script_lines(c, "job_start", job)[0]
    assert "jobinfo=yes" in script_lines(c, "job_complete", job)[0]
    assert_log_order(c, f"switchlua: job_start(): JobId={job}", f"switch setup of JobId={job} done",
                     f"switchlua: job_complete(): JobId={job}", f"switch teardown of JobId={job} done")
    assert_in_service(c, "sw1", "sw2")
    assert_no_call_left(c)


@pytest.mark.parametrize("command", ["srun", "salloc"])
def test_an_interactive_allocation_waits_for_its_setup_then_runs(unheld, command):
    c = unheld
    name = f"{command}-waits"
    result = c.cli(command, "-J", name, "--network=switchlua:start_sleep=1", *PAIR, "hostname", timeout=30)
    job = job_named(c, name)
    assert len(result.stdout.split()) == (2 if command == "srun" else 1), result.stdout
    assert c.wait_job(job) == "COMPLETED"
    wait_log(c, f"switch teardown of JobId={job} done")
    assert_log_order(c, f"switch setup of JobId={job} done", f"switchlua: job_complete(): JobId={job}")
    assert script_calls(c, "job_start", job) == started_calls(c, "job_start", job) == 1
    assert script_calls(c, "job_complete", job) == started_calls(c, "job_complete", job) == 1
    assert_in_service(c, "sw1", "sw2")
    assert_no_call_left(c)


def test_a_job_without_a_network_is_neither_set_up_nor_torn_down(unheld):
    c = unheld
    calls_before = len(ledger_lines(c))
    job = c.sbatch("-N2", "--wrap", "true")
    assert c.wait_job(job) == "COMPLETED"
    tested = c.cli("sbatch", "--test-only", "--network=switchlua:", "--wrap", "true", check=False)
    time.sleep(0.5)
    assert len(ledger_lines(c)) == calls_before
    assert controller_announced(c, "job_start", job) == 0
    assert controller_announced(c, "job_complete", job) == 0
    assert "sluid=" not in "".join(l for l in log_text(c).splitlines() if f"JobId={job} " in l)
    assert tested.returncode == 0, tested.stderr
    assert not call_running(c)


def test_a_declined_job_runs_without_a_teardown(unheld):
    c = unheld
    job = submit(c, "start_decline", *PAIR)
    assert c.wait_job(job) == "COMPLETED"
    wait_log(c, f"switch setup declined JobId={job}")
    time.sleep(0.5)  # a teardown would have been announced by now
    assert script_calls(c, "job_start", job) == 1
    assert script_calls(c, "job_complete", job) == 0
    assert controller_announced(c, "job_complete", job) == 0
    assert show_job(c, job)["Reason"] == "None"
    assert_in_service(c, "sw1", "sw2")
    assert_no_call_left(c)


FAILED, TIMED_OUT = "switch setup failed", "switch setup timed out"

# One row per rule of "Failure" and "Timeout": the directive, how the job is
# submitted (only a requeueable batch job is requeued, see below), the
# reason the job is cancelled with, whether a teardown (with nil) follows,
# and the controller's line.
SETUP_FAILURES = [
    pytest.param("start_fail", "sbatch", FAILED, False, "failed", id="error_return"),
    pytest.param("start_rc=4", "srun", FAILED, False, "failed", id="another_number"),
    pytest.param("start_text", "salloc", FAILED, False, "failed", id="not_a_number"),
    pytest.param("start_error", "srun", FAILED, False, "failed", id="lua_error"),
    pytest.param("start_exit", "sbatch", FAILED, True, "exited without a result", id="os_exit"),
    pytest.param("start_big", "srun", FAILED, True, "returned a dictionary the controller refused",
                 id="over_the_entry_limit"),
    pytest.param("start_deep", "sbatch", FAILED, True, "returned a dictionary the controller refused",
                 id="over_the_depth_limit"),
    pytest.param("start_sleep=9", "sbatch", TIMED_OUT, True, f"did not report within {TIMEOUT}s",
                 id="no_report_within_the_timeout"),
    pytest.param("start_crash", "srun", TIMED_OUT, True, "died on", id="death_on_a_signal"),
]


@pytest.mark.parametrize("directive, how, reason, torn_down, phrase", SETUP_FAILURES)
def test_a_failed_setup_cancels_a_job_that_cannot_be_requeued(unheld, directive, how, reason, torn_down,
                                                              phrase):
    c = unheld
    began = time.monotonic()
    if how == "sbatch":
        job = submit(c, directive, "--no-requeue", *PAIR)
    else:
        name = f"{how}-{directive.replace('=', '')}"
        result = c.cli(how, "-J", name, f"--network=switchlua:{directive}", *PAIR, "true", check=False,
                       timeout=TIMEOUT + 30)
        assert result.returncode != 0, result
        assert reason in result.stderr, result.stderr
        job = job_named(c, name)
    assert c.wait_job(job, timeout=TIMEOUT + 20) == "CANCELLED"
    shown = show_job(c, job)
    assert shown["Reason"] == reason, shown
    assert shown["Restarts"] == "0", shown
    wait_log(c, f"switch setup of JobId={job} ")
    line = next(l for l in log_text(c).splitlines() if f"switch setup of JobId={job} " in l)
    assert phrase in line, line
    if reason == TIMED_OUT and directive.startswith("start_sleep"):
        # Killed at switch_timeout, counted from the start of the call.
        assert TIMEOUT * 0.9 <= time.monotonic() - began < TIMEOUT + 6
        assert_within_ten_percent(c, f"switchlua: job_start(): JobId={job}", line, TIMEOUT)
    if torn_down:
        wait_calls(c, "job_complete", job, 1)
    settle(c)
    time.sleep(0.3)
    assert script_calls(c, "job_start", job) == started_calls(c, "job_start", job) == 1
    assert script_calls(c, "job_complete", job) == started_calls(c, "job_complete", job) == (1 if torn_down else 0)
    if torn_down:
        assert "jobinfo=nil" in script_lines(c, "job_complete", job)[0]
    assert_in_service(c, "sw1", "sw2")
    assert "after a failed switch teardown" not in log_text(c)


def test_a_failed_setup_requeues_a_batch_job_and_each_run_is_set_up_again(unheld):
    c = unheld
    job = submit(c, "start_fail", *PAIR)
    wait_for(lambda: int(show_job(c, job)["Restarts"]) >= 2, timeout=30, what="two requeues")
    c.cli("scancel", str(job))
    assert c.wait_job(job) == "CANCELLED"
    settle(c)
    runs = int(show_job(c, job)["Restarts"])
    # One setup per run: each requeue followed a failed setup, and the
    # run in progress at the scancel may have had its setup too.
    assert runs <= started_calls(c, "job_start", job) <= runs + 1
    assert runs <= script_calls(c, "job_start", job) <= runs + 1
    assert started_calls(c, "job_complete", job) == 0
    assert_in_service(c, "sw1", "sw2")


def test_a_setup_that_reports_after_the_timeout_gets_one_more_teardown(unheld):
    """The controller gives up at switch_timeout, but a report can still
    come: here the controller is stopped past the deadline while the
    script returns its dictionary. Which of the two it sees first is a
    race that either side may win several times running on a loaded
    machine, so each attempt must be consistent with its outcome, and one
    of ten must be late."""
    c = unheld
    for attempt in range(10):
        job = submit(c, "start_sleep=2", "--no-requeue", *PAIR)
        wait_job_state(c, job, "CONFIGURING")
        c.ctld.send_signal(signal.SIGSTOP)
        try:
            time.sleep(TIMEOUT + 1.5)  # the script answered at 2s and its process has ended
        finally:
            c.ctld.send_signal(signal.SIGCONT)
        state = c.wait_job(job, states=("COMPLETED", "CANCELLED"), timeout=20)
        settle(c)
        if state == "COMPLETED":
            print(f"attempt {attempt + 1}: the report came first")
            continue  # the report won the race: an ordinary success
        assert show_job(c, job)["Reason"] == TIMED_OUT
        wait_log(c, f"late setup of JobId={job}")
        wait_calls(c, "job_complete", job, 2)
        settle(c)
        time.sleep(0.3)
        assert script_calls(c, "job_start", job) == 1
        # One teardown for the abandoned setup (nil), one for its late dictionary.
        lines = script_lines(c, "job_complete", job)
        assert len(lines) == 2, lines
        assert sorted("jobinfo=yes" in l for l in lines) == [False, True], lines
        assert f"switchlua: job_complete(): JobId={job}, once more for its late setup" in log_text(c)
        wait_log(c, f"late setup of JobId={job}: its job_complete()")
        assert_in_service(c, "sw1", "sw2")
        return
    pytest.fail("ten setups that answered while the controller was stopped were all on time")
