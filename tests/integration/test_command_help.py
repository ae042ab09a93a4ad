"""The query and admin commands answer --help, --usage and -V/--version in
Slurm's layout, whether called by their installed names (the links beside
the gantry binary) or as `gantry <command>`, and refuse an unknown option
with getopt's words, the --help hint and status 1. None of this needs a
controller: the configuration folder given is empty."""

import subprocess

import pytest

from gantry_cluster import binary

QUERY_COMMANDS = ["sinfo", "squeue", "scancel"]
ALL_COMMANDS = QUERY_COMMANDS + ["scontrol"]


def run(tmp_path, command, *args, installed=True):
    argv = [binary(command)] if installed else [binary("gantry"), command]
    env = {"PATH": "/usr/bin:/bin", "GANTRY_CONF_DIR": str(tmp_path)}
    return subprocess.run(argv + list(args), env=env, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("installed", [True, False], ids=["installed-name", "gantry-subcommand"])
@pytest.mark.parametrize("command", QUERY_COMMANDS)
def test_help_has_the_usage_line_and_ends_with_the_help_options(tmp_path, command, installed):
    result = run(tmp_path, command, "--help", installed=installed)
    assert result.returncode == 0, result.stderr
    first, _, rest = result.stdout.partition("\n")
    assert first.startswith(f"Usage: {command} [OPTIONS]")
    assert rest.endswith("\nHelp options:\n"
                         "      --help                  show this help message\n"
                         "      --usage                 display a brief usage message\n")
    assert "  -V, --version " in rest


@pytest.mark.parametrize("command", QUERY_COMMANDS)
def test_usage_is_one_short_list_of_the_options(tmp_path, command):
    result = run(tmp_path, command, "--usage")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: {command} [")
    assert "[-V]" in result.stdout
    assert "Help options" not in result.stdout


@pytest.mark.parametrize("spelling", ["-V", "--version", "--vers"])
@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_version_is_slurms_one_line(tmp_path, command, spelling):
    result = run(tmp_path, command, spelling)
    assert (result.returncode, result.stdout, result.stderr) == (0, "slurm 26.11.0\n", "")


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_an_unknown_option_is_refused_with_the_hint(tmp_path, command):
    result = run(tmp_path, command, "--no-such-thing")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (f"{command}: unrecognized option '--no-such-thing'\n"
                             f"Try \"{command} --help\" for more information\n")


@pytest.mark.parametrize("words", [["--help"], ["-h"], ["--usage"], ["help"]])
def test_scontrol_help_lists_options_and_commands(tmp_path, words):
    result = run(tmp_path, "scontrol", *words)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("scontrol [<OPTION>] [<COMMAND>]\n    Valid <OPTION> values are:\n")
    assert "\n     -d or --details: " in text
    assert "\n    Valid <COMMAND> values are:\n" in text
    for command in ["show <ENTITY> [<ID>]", "reconfigure", "version", "hold <job_list>"]:
        assert f"\n     {command} " in text


def test_scontrol_version_command_needs_no_controller(tmp_path):
    result = run(tmp_path, "scontrol", "version")
    assert (result.returncode, result.stdout) == (0, "slurm 26.11.0\n")


def test_sacct_answers_help_usage_and_version(tmp_path):
    help_text = run(tmp_path, "sacct", "--help").stdout
    assert help_text.startswith("sacct [<OPTION>]\n    Valid <OPTION> values are:\n")
    assert "\n     -X, --allocations:\n" in help_text
    assert run(tmp_path, "sacct", "--usage").stdout.startswith("Usage: sacct [")
    assert run(tmp_path, "sacct", "--version").stdout == "slurm 26.11.0\n"


def test_sacctmgr_answers_help_and_version(tmp_path):
    help_text = run(tmp_path, "sacctmgr", "--help").stdout
    assert help_text.startswith("sacctmgr [<OPTION>] [<COMMAND>]\n    Valid <OPTION> values are:\n")
    assert "\n     show event [<CONDITIONS>]\n" in help_text
    for words in (["-V"], ["version"]):
        assert run(tmp_path, "sacctmgr", *words).stdout == "slurm 26.11.0\n"
