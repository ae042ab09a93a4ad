"""Job arrays on a real cluster: each task runs once with its index in its
environment and its own output file; the throttle holds tasks back;
squeue shows the pending rest as one line (-r one per task); scancel,
scontrol hold/release/show take one task, a task list or the whole array;
another user's scancel is refused; bad --array text is refused and
queues nothing; the pending tasks survive a controller kill -9. Node
names and sizes are our own."""

import re
import signal

from gantry_cluster import wait_for

NODE = {"name": "ar1", "cpus": 3, "memory": 3000}
REPORT = ('echo "$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT '
          '$SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP"')


def lines(cluster, *args):
    return cluster.cli("squeue", "-h", *args).stdout.split("\n")[:-1]


def active(cluster, array):
    """The array's lines that have not ended (asked by id, ended records are listed too)."""
    return lines(cluster, "-j", str(array), "-t", "PD,CF,R,S,CG")


def array_states(cluster, array):
    """{task id text: state} for every record of the array, ended ones included."""
    out = cluster.cli("squeue", "-h", "-r", "-t", "all", "-j", str(array), "-o", "%i %T").stdout
    return dict(line.split() for line in out.splitlines())


def test_tasks_run_once_each_with_their_index_and_own_file(cluster_factory, tmp_path):
    cluster = cluster_factory(nodes=[dict(NODE)])
    array = cluster.sbatch("--array=3-15:4%2", "-n1", "--mem=50", "-o", str(tmp_path / "t-%A_%a.out"),
                           "--wrap", REPORT + "; sleep 2")
    # Two run (the throttle), the rest wait as one line.
    wait_for(lambda: len(lines(cluster, "-j", str(array), "-t", "R")) == 2, what="two tasks running")
    pending = lines(cluster, "-j", str(array), "-t", "PD", "-o", "%i %r")
    assert pending == [f"{array}_[11,15%2] JobArrayTaskLimit"]
    assert sorted(lines(cluster, "-j", str(array), "-t", "R", "-o", "%i")) == [f"{array}_3", f"{array}_7"]
    wait_for(lambda: len(list(tmp_path.glob("t-*.out"))) == 4 and not active(cluster, array),
             timeout=60, what="every task to end")
    for index in (3, 7, 11, 15):
        assert (tmp_path / f"t-{array}_{index}.out").read_text() == f"{array} {index} 4 3 15 4\n"
    states = array_states(cluster, array)
    assert states == {f"{array}_{i}": "COMPLETED" for i in (3, 7, 11, 15)}


def test_scancel_hold_and_show_take_single_tasks_and_whole_arrays(cluster_factory, two_users, tmp_path):
    stranger = two_users[0]
    cluster = cluster_factory(nodes=[dict(NODE)])
    array = cluster.sbatch("-H", "-a", "0-9", "-n1", "--mem=50", "-D", str(tmp_path), "--wrap", "sleep 1")
    # Held, the whole array is one line; -r shows every task.
    assert lines(cluster, "-j", str(array), "-o", "%i %r") == [f"{array}_[0-9] JobHeldUser"]
    assert [l.split()[0] for l in lines(cluster, "-r", "-j", str(array), "-o", "%i")] == \
        [f"{array}_{i}" for i in range(10)]
    # Another user can neither cancel nor split it.
    refused = cluster.cli("scancel", f"{array}_4", user=stranger, check=False)
    assert refused.returncode == 1
    assert "Access/permission denied" in refused.stderr
    assert lines(cluster, "-j", str(array), "-o", "%i") == [f"{array}_[0-9]"]
    cluster.cli("scancel", f"{array}_[2-3,8]", f"{array}_5")
    assert lines(cluster, "-j", str(array), "-t", "PD", "-o", "%i") == [f"{array}_[0-1,4,6-7,9]"]
    shown = cluster.cli("scontrol", "show", "job", f"{array}_7").stdout
    assert f"ArrayJobId={array} ArrayTaskId=0-1,4,6-7,9 " in shown
    cancelled = cluster.cli("scontrol", "show", "job", f"{array}_8").stdout
    assert re.search(rf"ArrayJobId={array} ArrayTaskId=8 .*JobState=CANCELLED", cancelled, re.S)
    # Releasing one task runs it alone; the array's id releases the rest.
    cluster.cli("scontrol", "release", f"{array}_9")
    wait_for(lambda: array_states(cluster, array).get(f"{array}_9") == "COMPLETED", what="task 9 to run")
    assert array_states(cluster, array).get(f"{array}_0") == "PENDING"
    cluster.cli("scontrol", "release", str(array))
    wait_for(lambda: not active(cluster, array), timeout=60, what="the array to finish")
    states = array_states(cluster, array)
    assert sorted(k for k, v in states.items() if v == "COMPLETED") == \
        sorted(f"{array}_{i}" for i in (0, 1, 4, 6, 7, 9))
    # The default output name has the array's id and the task's index.
    assert (tmp_path / f"slurm-{array}_6.out").exists()


def test_bad_array_text_is_refused_and_queues_nothing(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)], extra_conf="MaxArraySize=40")
    for text, why in (("0-40", "index 40 is not below MaxArraySize (40)"), ("5-1", "ends before it starts"),
                      ("1-3%x", "throttle"), ("1:2", "step but no range")):
        result = cluster.cli("sbatch", f"--array={text}", "--wrap", "true", check=False)
        assert result.returncode != 0, text
        assert why in result.stderr, result.stderr
    refused = cluster.cli("srun", "--array=0-1", "true", check=False)
    assert refused.returncode != 0
    assert lines(cluster, "-t", "all") == []


def test_pending_tasks_survive_a_controller_kill(cluster_factory):
    cluster = cluster_factory(nodes=[dict(NODE)])
    array = cluster.sbatch("--array=1-6%1", "-n1", "--mem=50", "--wrap", "sleep 300")
    wait_for(lambda: len(lines(cluster, "-j", str(array), "-t", "R")) == 1, what="one task running")
    cluster.kill_controller(signal.SIGKILL)
    cluster.start_controller()
    wait_for(lambda: cluster.cli_ok("squeue"), what="the controller back")
    assert lines(cluster, "-j", str(array), "-t", "PD", "-o", "%i") == [f"{array}_[2-6%1]"]
    assert lines(cluster, "-j", str(array), "-t", "R", "-o", "%i") == [f"{array}_1"]
    cluster.cli("scancel", str(array))
    wait_for(lambda: not active(cluster, array), what="the array cancelled")
