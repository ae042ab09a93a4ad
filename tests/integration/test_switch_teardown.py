"""switch/lua with the real daemons, the teardown side: each answer of
slurm_switch_job_complete() (success, failure, Lua error, os.exit, a
timeout, other numbers, EAGAIN below and above switch_retries), with and
without block_job_complete() and switch_drain_on_failure, and a job that
ends while its setup still runs. Each scenario checks the job, the state
and drain reason of its nodes, the calls the script logged, the
controller's lines and that no process of a call is left.

Numbers: 3 nodes, switch_timeout=3 (so the periodic check that retries
EAGAIN comes every 3s), switch_retries=2."""

import time

import pytest

from gantry_cluster import wait_for
from switch_harness import (DRAIN_REASON, RETRIES, TIMEOUT, assert_drained, assert_in_service, assert_log_order,
                            assert_no_call_left, assert_within_ten_percent, call_running, log_text, node_state, resume,
                            script_calls, script_lines, show_job, show_node, sinfo_state, squeue_state, started_calls,
                            submit, switch_cluster, wait_calls, wait_in_service, wait_job_state, wait_log, wait_started)

PAIR = ("-N2",)  # the default partition: sw1 and sw2


def make(**kwargs):
    cluster = switch_cluster(**kwargs)
    yield cluster
    cluster.cleanup()


@pytest.fixture(scope="module")
def unheld():
    yield from make(block=False)


@pytest.fixture(scope="module")
def held():
    yield from make(block=True)


@pytest.fixture(scope="module")
def kept():
    yield from make(block=False, drain=False)


def completing(cluster, *names):
    return all("COMPLETING" in node_state(cluster, n) for n in names)


def finish(cluster, job):
    """Waits for the job to end and for every call of it to be over."""
    assert cluster.wait_job(job, timeout=30) == "COMPLETED"
    wait_for(lambda: not call_running(cluster), timeout=TIMEOUT * (RETRIES + 2) + 5,
             what="the job's calls to end")


# ------------------------------------------------------------ failures drain the nodes

# One row per way a teardown fails: the directive and the error line's phrase.
TEARDOWN_FAILURES = [
    pytest.param("complete_fail", "switch teardown failed for JobId={job}", id="error_return"),
    pytest.param("complete_rc=-7", "switch teardown failed for JobId={job}", id="negative_number"),
    pytest.param("complete_error", "switch teardown failed for JobId={job}", id="lua_error"),
    pytest.param("complete_exit", "switch teardown failed for JobId={job}", id="no_result"),
    pytest.param("complete_sleep=8", f"switch completion did not report within {TIMEOUT}s for JobId={{job}}",
                 id="no_report_within_the_timeout"),
    pytest.param("complete_eagain=1", "switch teardown failed for JobId={job}: returned EAGAIN, but its nodes "
                 "are not held", id="eagain_while_not_held"),
]


@pytest.mark.parametrize("directive, phrase", TEARDOWN_FAILURES)
def test_a_failed_teardown_drains_the_nodes_of_the_job(unheld, directive, phrase):
    c = unheld
    job = submit(c, directive, *PAIR)
    finish(c, job)
    wait_log(c, f"drained sw[1-2] after a failed switch teardown of JobId={job}")
    try:
        assert show_job(c, job)["Reason"] == "None"
        assert_log_order(c, f"switchlua: job_complete(): JobId={job}", phrase.format(job=job),
                         f"drained sw[1-2] after a failed switch teardown of JobId={job}")
        assert_drained(c, "sw1", "sw2")
        assert_in_service(c, "sw3")
        if directive.startswith("complete_sleep"):
            assert_within_ten_percent(c, f"switchlua: job_complete(): JobId={job}", phrase.format(job=job), TIMEOUT)
        assert DRAIN_REASON in c.cli("sinfo", "-R", "-h").stdout
        assert script_calls(c, "job_start", job) == 1
        assert script_calls(c, "job_complete", job) == 1
        assert_no_call_left(c)
    finally:
        resume(c, "sw[1-2]")
    wait_in_service(c, "sw1", "sw2")


@pytest.mark.parametrize("directive, phrase", [
    pytest.param("complete_rc=5", "switch teardown of JobId={job} returned 5; logged, not enforced",
                 id="another_positive_number"),
    pytest.param("complete_text", "switch teardown of JobId={job} returned string, not a number; taken as success",
                 id="not_a_number"),
])
def test_a_teardown_answer_that_is_not_enforced_drains_nothing(unheld, directive, phrase):
    c = unheld
    job = submit(c, directive, *PAIR)
    finish(c, job)
    wait_log(c, phrase.format(job=job))
    time.sleep(0.3)
    assert script_calls(c, "job_complete", job) == 1
    assert f"failed switch teardown of JobId={job}" not in log_text(c)
    assert_in_service(c, "sw1", "sw2")
    assert_no_call_left(c)


def test_without_drain_on_failure_a_failed_teardown_keeps_the_nodes_in_service(kept):
    c = kept
    job = submit(c, "complete_fail", *PAIR)
    finish(c, job)
    wait_log(c, f"switch_drain_on_failure=no: sw[1-2] of JobId={job}")
    assert_log_order(c, f"switch teardown failed for JobId={job}", f"switch_drain_on_failure=no: sw[1-2]")
    assert "after a failed switch teardown" not in log_text(c)
    assert_in_service(c, "sw1", "sw2")
    assert script_calls(c, "job_complete", job) == 1
    assert_no_call_left(c)


# ------------------------------------------------------------ holding the nodes

def test_with_block_false_the_nodes_serve_the_next_job_while_the_teardown_runs(unheld):
    c = unheld
    first = submit(c, "complete_sleep=2", *PAIR)
    assert c.wait_job(first) == "COMPLETED"
    wait_started(c, "job_complete", first, 1)
    assert call_running(c)
    assert_in_service(c, "sw1", "sw2")
    nxt = submit(c, "plain", *PAIR)
    assert c.wait_job(nxt) == "COMPLETED"
    wait_log(c, f"switch teardown of JobId={first} done")
    # The next job had the nodes while the teardown still ran.
    assert_log_order(c, f"switchlua: job_complete(): JobId={first}", f"switchlua: job_start(): JobId={nxt}",
                     f"switch teardown of JobId={first} done")
    assert_in_service(c, "sw1", "sw2")
    assert script_calls(c, "job_complete", first) == 1
    assert_no_call_left(c)


def test_with_block_true_the_nodes_stay_completing_until_the_teardown_reports(held):
    c = held
    first = submit(c, "complete_sleep=2", "-N3", "-p", "all")
    wait_started(c, "job_complete", first, 1)
    assert show_job(c, first)["JobState"] == "COMPLETING"
    assert squeue_state(c, first) == "CG"
    for name in ("sw1", "sw2", "sw3"):
        assert "COMPLETING" in node_state(c, name), show_node(c, name)
        assert sinfo_state(c, name) in ("completing", "comp"), sinfo_state(c, name)
    nxt = submit(c, "plain", "-N3", "-p", "all")
    time.sleep(0.5)
    assert show_job(c, nxt)["JobState"] == "PENDING"
    assert call_running(c)
    assert c.wait_job(nxt, timeout=20) == "COMPLETED"
    # The next job could only start once the teardown had reported.
    assert_log_order(c, f"switch teardown of JobId={first} done", f"switchlua: job_start(): JobId={nxt}")
    assert show_job(c, first)["JobState"] == "COMPLETED"
    assert script_calls(c, "job_complete", first) == 1
    wait_in_service(c, "sw1", "sw2", "sw3")
    assert_no_call_left(c)


def test_eagain_fewer_times_than_switch_retries_holds_the_nodes_then_frees_them(held):
    c = held
    job = submit(c, f"complete_eagain={RETRIES}", *PAIR)
    wait_calls(c, "job_complete", job, 1)
    began = time.monotonic()
    assert completing(c, "sw1", "sw2")
    wait_calls(c, "job_complete", job, 2, timeout=TIMEOUT + 3)
    assert completing(c, "sw1", "sw2"), "the nodes were let go between retries"
    wait_log(c, f"switch teardown of JobId={job} done", timeout=TIMEOUT + 5)
    # Retried at the periodic check, once every switch_timeout.
    assert time.monotonic() - began >= TIMEOUT * 0.9
    assert script_calls(c, "job_complete", job) == RETRIES + 1
    assert_log_order(c, f"JobId={job} returned EAGAIN; retry 1 of {RETRIES}",
                     f"JobId={job} returned EAGAIN; retry {RETRIES} of {RETRIES}",
                     f"switch teardown of JobId={job} done")
    assert c.wait_job(job) == "COMPLETED"
    wait_in_service(c, "sw1", "sw2")
    assert f"failed switch teardown of JobId={job}" not in log_text(c)
    assert_no_call_left(c)


def test_eagain_more_times_than_switch_retries_drains_the_nodes(held):
    c = held
    job = submit(c, f"complete_eagain={RETRIES + 1}", *PAIR)
    wait_log(c, f"drained sw[1-2] after a failed switch teardown of JobId={job}",
             timeout=TIMEOUT * (RETRIES + 1) + 10)
    try:
        assert script_calls(c, "job_complete", job) == RETRIES + 1
        assert_log_order(c, f"retry {RETRIES} of {RETRIES}",
                         f"switch teardown still not done after {RETRIES} retries for JobId={job}",
                         f"drained sw[1-2] after a failed switch teardown of JobId={job}")
        assert c.wait_job(job) == "COMPLETED"
        wait_for(lambda: "COMPLETING" not in node_state(c, "sw1"), timeout=5, what="the hold to end")
        assert_drained(c, "sw1", "sw2")
        assert_no_call_left(c)
    finally:
        resume(c, "sw[1-2]")
    wait_in_service(c, "sw1", "sw2")


# ------------------------------------------------------------ a job that ends during its setup

def test_a_job_cancelled_during_its_setup_holds_its_nodes_until_the_setup_reports(unheld):
    c = unheld
    job = submit(c, "start_sleep=2", *PAIR, wrap="sleep 30")
    wait_job_state(c, job, "CONFIGURING")
    c.cli("scancel", str(job))
    wait_log(c, f"JobId={job} ended while its switch setup runs; sw[1-2] held until the setup reports")
    # Held whatever block_job_complete() says (false here).
    assert completing(c, "sw1", "sw2"), (node_state(c, "sw1"), node_state(c, "sw2"))
    wait_calls(c, "job_complete", job, 1, timeout=TIMEOUT + 3)
    assert "jobinfo=yes" in script_lines(c, "job_complete", job)[0]
    wait_log(c, f"switch teardown of JobId={job} done")
    assert c.wait_job(job) == "CANCELLED"
    wait_in_service(c, "sw1", "sw2")
    assert script_calls(c, "job_start", job) == 1
    assert script_calls(c, "job_complete", job) == 1
    assert_no_call_left(c)


def test_a_job_cancelled_during_a_setup_that_never_reports_is_torn_down_at_the_timeout(unheld):
    c = unheld
    job = submit(c, "start_sleep=9", *PAIR, wrap="sleep 30")
    wait_job_state(c, job, "CONFIGURING")
    began = time.monotonic()
    c.cli("scancel", str(job))
    wait_log(c, f"JobId={job} ended while its switch setup runs")
    assert completing(c, "sw1", "sw2")
    wait_calls(c, "job_complete", job, 1, timeout=TIMEOUT + 3)
    # switch_timeout counts from the start of the setup, not from the cancel.
    assert time.monotonic() - began < TIMEOUT + 1
    assert "jobinfo=nil" in script_lines(c, "job_complete", job)[0]
    assert_log_order(c, f"switch setup of JobId={job} did not report within {TIMEOUT}s",
                     f"switchlua: job_complete(): JobId={job}")
    assert c.wait_job(job) == "CANCELLED"
    wait_in_service(c, "sw1", "sw2")
    assert script_calls(c, "job_start", job) == 1
    assert_no_call_left(c)


def test_a_job_cancelled_during_a_setup_that_then_fails_frees_its_nodes_without_a_teardown(unheld):
    c = unheld
    job = submit(c, "start_sleep=2,start_fail", *PAIR, wrap="sleep 30")
    wait_job_state(c, job, "CONFIGURING")
    c.cli("scancel", str(job))
    wait_log(c, f"JobId={job} ended while its switch setup runs")
    assert completing(c, "sw1", "sw2")
    wait_log(c, f"switch setup of JobId={job} failed", timeout=TIMEOUT + 3)
    wait_in_service(c, "sw1", "sw2", timeout=5)
    assert c.wait_job(job) == "CANCELLED"
    time.sleep(0.5)
    assert started_calls(c, "job_start", job) == script_calls(c, "job_start", job) == 1
    assert started_calls(c, "job_complete", job) == 0
    assert_no_call_left(c)
