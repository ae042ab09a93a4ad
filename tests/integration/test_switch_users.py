"""switch/lua and other users: the controller's calls run as SlurmUser
whoever submitted the job, and the dictionary a setup returns is shown to
no other user (it is carried to the job's own steps only)."""

import os
import pwd
import shutil
import subprocess

from gantry_cluster import as_user, binary
from switch_harness import (assert_no_call_left, log_text, script_calls, started_calls, switch_cluster, wait_calls,
                            wait_log)

MARKER = "dictionary-only-for-the-owner-5117"

# Wraps the example's job_start: logs the uid the call runs as, and keeps a
# marker in the dictionary that no other user may read back.
WHO_AM_I = f"""
local exampleStart = slurm_switch_job_start
function slurm_switch_job_start(job)
  local pipe = io.popen("id -u")
  local uid = pipe:read("l")
  pipe:close()
  slurm.log_info("switchlua: call of JobId=%d for user %s ran as uid %s", job.job_id, tostring(job.user), uid)
  local rc, dictionary = exampleStart(job)
  if type(dictionary) == "table" then dictionary.marker = "{MARKER}" end
  return rc, dictionary
end
"""


def user_cli(cluster, user, *args, env=None):
    """The CLI as `user`, from a copy the user can run."""
    copy = cluster.root / "gantry-for-users"
    if not copy.exists():
        shutil.copy(binary("gantry"), copy)
        os.chmod(copy, 0o755)
    return subprocess.run(as_user(user, [str(copy), *args]), env={**cluster.env(), **(env or {})},
                          capture_output=True, text=True, cwd="/", timeout=60)


def test_calls_run_as_slurm_user_and_the_dictionary_stays_private(two_users):
    slurm_user, owner = two_users
    cluster = switch_cluster(extra_script=WHO_AM_I, extra_conf=f"SlurmUser={slurm_user}\n", nodes=("sw1", "sw2"))
    try:
        # The submitter's environment does not reach the call: the script's
        # state folder stays the controller's.
        decoy = cluster.root / "decoy-state"
        decoy.mkdir()
        os.chmod(decoy, 0o777)
        submitted = user_cli(cluster, owner, "sbatch", "--parsable", "--network=switchlua:plain", "-N2",
                             "-o", "/dev/null", "--wrap", "sleep 3", env={"SWITCHLUA_STATE_DIR": str(decoy)})
        assert submitted.returncode == 0, submitted.stderr
        job = int(submitted.stdout.strip().split(";")[0])
        wait_log(cluster, f"switchlua: call of JobId={job} for user {owner} ran as uid")
        uid = pwd.getpwnam(slurm_user).pw_uid
        assert f"switchlua: call of JobId={job} for user {owner} ran as uid {uid}\n" in log_text(cluster)
        assert uid != 0 and uid != pwd.getpwnam(owner).pw_uid

        for user in ("nobody", owner):
            for args in (("scontrol", "show", "job", str(job)), ("scontrol", "show", "job", str(job), "--json"),
                         ("squeue", "--json", "-t", "all")):
                shown = user_cli(cluster, user, *args)
                assert shown.returncode == 0, shown.stderr
                assert MARKER not in shown.stdout, (user, args)

        assert cluster.wait_job(job) == "COMPLETED"
        wait_calls(cluster, "job_complete", job, 1)
        assert script_calls(cluster, "job_start", job) == started_calls(cluster, "job_start", job) == 1
        assert list(decoy.iterdir()) == []
        assert_no_call_left(cluster)
    finally:
        cluster.cleanup()
