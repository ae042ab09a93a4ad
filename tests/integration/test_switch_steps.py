"""switch/lua in gantrystepd: the step functions of a managed job, with the
dictionary job_start returned as their stepinfo. Only an explicit negative
number is enforced (preinit/init fail the step with "Error configuring
interconnect", postfini drains the node with "switch_g_job_postfini
failed"); a Lua error or a positive number is logged and the step goes on.
step_init's environment table sets strings and numbers, true as 1, unsets
on false and skips other values; the batch step gets it only when
setup_special_steps() is true; a declined job runs no step function."""

import subprocess

import pytest

from gantry_cluster import binary, wait_for
from switch_harness import (assert_in_service, assert_no_call_left, job_named, resume, show_job, show_node,
                            set_script, submit, switch_cluster, wait_calls, wait_in_service)

NODES = ("sw1", "sw2")
POSTFINI_REASON = "switch_g_job_postfini failed"


@pytest.fixture(scope="module")
def plain():
    cluster = switch_cluster(nodes=NODES, special=False)
    yield cluster
    cluster.cleanup()


@pytest.fixture(scope="module")
def special():
    cluster = switch_cluster(nodes=NODES, special=True)
    yield cluster
    cluster.cleanup()


def agent_logs(cluster):
    return "".join((cluster.root / f"gantryd-{n}.log").read_text(errors="replace")
                   for n in NODES if (cluster.root / f"gantryd-{n}.log").exists())


def step_lines(cluster, function, job_id):
    marker = f"switchlua: {function}(): JobId={job_id} "
    return [l for l in agent_logs(cluster).splitlines() if marker in l]


def run(cluster, directives, *command, env=None, name="step"):
    """srun -N2 of a job asking switchlua:<directives>; its result and job id."""
    result = subprocess.run([binary("gantry"), "srun", "-J", name, "-N2", f"--network=switchlua:{directives}",
                             *command], env={**cluster.env(), **(env or {})}, capture_output=True, text=True,
                            cwd=cluster.root, timeout=60)
    return result, job_named(cluster, name)


# One row per rule: the directive, whether the step runs its tasks.
STEP_ANSWERS = [
    pytest.param("preinit_fail", False, id="preinit_negative_fails_the_step"),
    pytest.param("preinit_rc=-3", False, id="preinit_other_negative_fails_the_step"),
    pytest.param("preinit_rc=4", True, id="preinit_positive_is_logged"),
    pytest.param("preinit_error", True, id="preinit_lua_error_fails_open"),
    pytest.param("init_fail", False, id="init_negative_fails_the_step"),
    pytest.param("init_rc=6", True, id="init_positive_is_logged"),
    pytest.param("init_error", True, id="init_lua_error_fails_open"),
    pytest.param("postfini_rc=3", True, id="postfini_positive_is_logged"),
    pytest.param("postfini_error", True, id="postfini_lua_error_does_not_drain"),
]


@pytest.mark.parametrize("directive, runs", STEP_ANSWERS)
def test_only_an_explicit_negative_answer_of_a_step_function_is_enforced(plain, directive, runs):
    c = plain
    name = f"st-{directive.replace('=', '')}"
    result, job = run(c, directive, "echo", "tasks-ran", name=name)
    if runs:
        assert result.returncode == 0, result.stderr
        assert result.stdout.count("tasks-ran") == 2
    else:
        assert result.returncode != 0
        assert "tasks-ran" not in result.stdout
        assert "Error configuring interconnect" in result.stderr + show_job(c, job).get("Reason", ""), result.stderr
    function = {"pre": "step_preinit", "ini": "step_init", "pos": "step_postfini"}[directive[:3]]
    wait_for(lambda: len(step_lines(c, function, job)) >= 2, timeout=15, what=f"{function} on both nodes")
    assert all("stepinfo=yes" in l for l in step_lines(c, function, job))
    assert_in_service(c, *NODES)
    wait_calls(c, "job_complete", job, 1)
    assert_no_call_left(c)


def test_a_negative_postfini_drains_the_node(plain):
    c = plain
    result, job = run(c, "postfini_fail", "echo", "tasks-ran", name="st-postfini-fail")
    try:
        assert result.stdout.count("tasks-ran") == 2
        for name in NODES:
            wait_for(lambda: POSTFINI_REASON in show_node(c, name).get("Reason", ""), timeout=15,
                     what=f"{name} to be drained by postfini")
            assert "DRAIN" in show_node(c, name)["State"]
    finally:
        resume(c, "sw[1-2]")
    wait_in_service(c, *NODES)


def test_step_init_sets_the_environment_of_the_step_by_the_value_rules(plain):
    c = plain
    result, job = run(c, "init_env", "env", env={"SWITCHLUA_UNSET": "from-the-submitter"}, name="st-env")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines.count("SWITCHLUA_TEXT=set by switch.lua") == 2
    assert lines.count("SWITCHLUA_NUMBER=6") == 2
    assert lines.count("SWITCHLUA_FLAG=1") == 2
    assert not [l for l in lines if l.startswith("SWITCHLUA_UNSET=")]
    assert not [l for l in lines if l.startswith("SWITCHLUA_SKIPPED=")]
    # Gantry's own variables are set after step_init.
    assert any(l.startswith("SLURM_JOB_ID=") for l in lines)
    wait_for(lambda: "SWITCHLUA_SKIPPED" in agent_logs(c), timeout=15, what="the skipped entry to be logged")


def test_the_batch_step_runs_step_init_only_with_setup_special_steps(plain, special):
    for cluster, expected in ((plain, False), (special, True)):
        out = cluster.root / "batch-env.out"
        job = submit(cluster, "init_env", "-N1", "-o", str(out), wrap="env")
        assert cluster.wait_job(job) == "COMPLETED"
        text = out.read_text()
        assert ("SWITCHLUA_TEXT=set by switch.lua" in text) == expected, text
        assert ("SWITCHLUA_FLAG=1" in text) == expected, text


def test_a_declined_job_runs_no_step_function(plain):
    c = plain
    result, job = run(c, "start_decline,preinit_fail,init_fail", "echo", "tasks-ran", name="st-declined")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("tasks-ran") == 2
    assert step_lines(c, "step_preinit", job) == []
    assert step_lines(c, "step_init", job) == []


# step_init of this copy tries to set one of Gantry's own variables.
CLAIMS_SLURM_JOB_ID = """
local exampleInit = slurm_switch_step_init
function slurm_switch_step_init(step, stepinfo)
  local rc, env = exampleInit(step, stepinfo)
  if stepinfo and stepinfo.directives and stepinfo.directives.init_slurm then
    return slurm.SUCCESS, { SLURM_JOB_ID = "set-by-switch-lua", SWITCHLUA_BESIDE = "kept" }
  end
  return rc, env
end
"""


def test_gantry_sets_its_own_variables_after_step_init(plain):
    c = plain
    set_script(c, extra=CLAIMS_SLURM_JOB_ID)  # each step's launcher reads the file afresh
    try:
        result, job = run(c, "init_slurm", "printenv", "SLURM_JOB_ID", "SWITCHLUA_BESIDE", name="st-claims")
    finally:
        set_script(c)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == sorted([str(job)] * 2 + ["kept"] * 2), result.stdout
