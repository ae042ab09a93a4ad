"""sbatch, srun and salloc read their command lines as Slurm's do, on a
loopback cluster: an unknown option is refused in getopt's words with the
"Try ... --help" line before the controller hears of it; the first word
that is not an option starts the program, whose own options stay its own;
-v prints the allocation lines scripts read, -Q silences the informational
ones; srun takes --exact; --help and --usage print Slurm's layout."""

import re
import subprocess

import pytest

from gantry_cluster import binary


def no_jobs(cluster):
    return cluster.jobs_json() == []


@pytest.mark.parametrize("command,status", [("srun", 255), ("salloc", 255), ("sbatch", 255)])
def test_a_launcher_refuses_an_unknown_option_and_submits_nothing(cluster, command, status):
    result = cluster.cli(command, "-N1", "--no-such-option", "true", check=False)
    assert result.returncode == status
    assert result.stderr == (f"{command}: unrecognized option '--no-such-option'\n"
                             f"Try \"{command} --help\" for more information\n")
    short = cluster.cli(command, "-Y", "true", check=False)
    assert short.returncode == status
    assert short.stderr.startswith(f"{command}: invalid option -- 'Y'\n")
    assert no_jobs(cluster)


@pytest.mark.parametrize("command", ["squeue", "sinfo", "scontrol", "scancel"])
def test_the_other_commands_refuse_an_unknown_option_the_same_way(cluster, command):
    result = cluster.cli(command, "--no-such-option", check=False)
    assert result.returncode == 1
    assert result.stderr == (f"{command}: unrecognized option '--no-such-option'\n"
                             f"Try \"{command} --help\" for more information\n")


def test_srun_verbose_names_the_job_and_its_nodes_and_runs_the_program(cluster):
    result = cluster.cli("srun", "-v", "-N2", "-n2", "true", check=False)
    assert result.returncode == 0, result.stderr
    match = re.search(r"srun: jobid (\d+): nodes\(2\):`n\[1-2\]', cpu counts: \d+\(x2\)", result.stderr)
    assert match, result.stderr
    assert f"srun: launching StepId={match.group(1)}.0 on hosts n[1-2], 2 tasks: 0-1\n" in result.stderr
    assert "No such file" not in result.stderr


def test_options_after_the_program_belong_to_the_program(cluster):
    result = cluster.cli("srun", "-N1", "sh", "-c", 'echo "$@"', "prog", "-v", "--bogus", "-N3")
    assert result.stdout == "-v --bogus -N3\n"


def test_sbatch_verbose_prints_the_defined_options_and_submits(cluster, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH -N 2\n#SBATCH -J from-script\ntrue\n")
    result = cluster.cli("sbatch", "-v", "-J", "from-line", str(script), check=False)
    assert result.returncode == 0, result.stderr
    block = result.stderr.split("sbatch: defined options\n", 1)[1].split("sbatch: end of defined options\n")[0]
    assert "sbatch: job-name            : from-line\n" in block, result.stderr
    assert "sbatch: nodes               : 2\n" in block, result.stderr
    assert "sbatch: verbose             : 1\n" in block, result.stderr
    assert re.match(r"Submitted batch job \d+\n", result.stdout), result.stdout


def test_salloc_verbose_reports_the_grant_and_the_nodes(cluster):
    result = cluster.cli("salloc", "--verbose", "-N2", "true", check=False)
    assert result.returncode == 0, result.stderr
    job = re.search(r"salloc: Granted job allocation (\d+)\n", result.stderr)
    assert job, result.stderr
    assert "salloc: Nodes n[1-2] are ready for job\n" in result.stderr
    assert f"salloc: Relinquishing job allocation {job.group(1)}\n" in result.stderr


def test_quiet_launchers_print_nothing_but_the_program_output(cluster):
    salloc = cluster.cli("salloc", "-Q", "-n1", "true", check=False)
    assert (salloc.returncode, salloc.stdout, salloc.stderr) == (0, "", "")
    sbatch = cluster.cli("sbatch", "-Q", "--wrap", "true", check=False)
    assert (sbatch.returncode, sbatch.stdout, sbatch.stderr) == (0, "", "")


def test_srun_exact_inside_an_allocation_runs_the_step(cluster):
    result = cluster.cli("salloc", "-Q", "-N1", "-n2", "sh", "-c",
                         f"{binary('gantry')} srun --exact -n1 sh -c 'echo $SLURM_STEP_ID'")
    assert result.stdout == "0\n", result.stderr


def test_help_and_usage_are_printed_without_a_controller(cluster):
    for command, operands in [("srun", "executable(0)"), ("salloc", "[command(0)"), ("sbatch", "script(0)")]:
        help_text = cluster.cli(command, "--help").stdout
        assert help_text.startswith(f"Usage: {command} [OPTIONS(0)...] [ : [OPTIONS(N)...]] {operands}")
        assert "\nHelp options:\n  -h, --help " in help_text
        usage = cluster.cli(command, "--usage").stdout
        assert usage.startswith(f"Usage: {command} [")
        assert all(len(line) <= 80 for line in usage.splitlines())



def test_salloc_no_shell_keeps_the_allocation_after_it_exits(cluster):
    result = cluster.cli("salloc", "--no-shell", "-N1", "-t", "5", check=False)
    assert result.returncode == 0, result.stderr
    job_id = int(re.search(r"salloc: Granted job allocation (\d+)\n", result.stderr).group(1))
    assert "Relinquishing" not in result.stderr
    [job] = cluster.jobs_json(job_id)
    assert job["state"] == "RUNNING"
    assert job["spec"]["name"] == "no-shell"
    # No client keeps it alive, so the controller does not end it when
    # salloc is gone (InactiveLimit); a step can still join it.
    assert not job["spec"].get("client_keepalive", False)
    env = dict(cluster.env(), SLURM_JOB_ID=str(job_id))
    step = subprocess.run([binary("gantry"), "srun", "-n1", "sh", "-c", "echo $SLURM_JOB_ID"], env=env,
                          cwd=cluster.root, capture_output=True, text=True, timeout=60)
    assert step.stdout == f"{job_id}\n", step.stderr
    # srun --jobid names it without the environment.
    named = cluster.cli("srun", f"--jobid={job_id}", "-n1", "sh", "-c", "echo $SLURM_JOB_ID")
    assert named.stdout == f"{job_id}\n", named.stderr
    cluster.cli("scancel", str(job_id))
