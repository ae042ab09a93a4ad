"""sacct and `sacctmgr show event` against a real gantryctld with accounting
on (SQLite in StateSaveLocation). The core does not write records yet, so
each test fills the store with the accounting_fill tool while the
controller runs (WAL lets both hold the file). Job ids, node names and
numbers are our own, away from anything the test cluster itself runs."""

import json
import pwd
import subprocess
import time

import pytest

from gantry_cluster import Cluster, binary

ACCOUNTING = "AccountingStorageType=accounting_storage/sqlite"


def fill(cluster, jobs=(), events=()):
    database = cluster.root / "ctld" / "accounting.db"
    payload = json.dumps({"jobs": list(jobs), "events": list(events)})
    subprocess.run([binary("accounting_fill"), str(database)], input=payload, text=True, check=True,
                   capture_output=True)


def job(job_id, uid, user, step="", start_ago=3000, run=1200, state="COMPLETED", now=None, **extra):
    now = int(now or time.time())
    submit = now - start_ago - 60
    record = {"cluster": "itest", "job_id": job_id, "step_id": step, "name": f"sim{job_id}", "user": user,
              "uid": uid, "group": user, "gid": uid, "account": "astro", "partition": "debug",
              "submit_time": submit, "eligible_time": submit, "start_time": now - start_ago,
              "end_time": now - start_ago + run if run else 0, "state": state, "node_count": 1,
              "node_list": "gx07", "alloc_cpus": 6}
    record.update(extra)
    return record


def with_steps(job_id, uid, user, steps=("batch", "extern", "0"), **kwargs):
    return [job(job_id, uid, user, **kwargs)] + [job(job_id, uid, user, step=s, **kwargs) for s in steps]


def sacct(cluster, *args, user=None, check=True):
    return cluster.cli("sacct", *args, user=user, check=check)


# The default window starts at 00:00 today; records of the last hours may
# be yesterday's when the test runs just after midnight.
SINCE_YESTERDAY = ("-S", "now-1days")


def column(out):
    return [line.split("|")[0] for line in out.stdout.splitlines()]


@pytest.fixture
def accounting_cluster(cluster_factory):
    return cluster_factory(extra_conf=ACCOUNTING)


def test_private_data_jobs_limits_plain_users_to_their_own(cluster_factory, two_users):
    vera, tomas = two_users
    vera_uid, tomas_uid = (pwd.getpwnam(n).pw_uid for n in two_users)
    cluster = cluster_factory(extra_conf=ACCOUNTING + "\nPrivateData=jobs")
    fill(cluster, jobs=[job(8301, vera_uid, vera), job(8302, tomas_uid, tomas)])
    assert column(sacct(cluster, "-a", "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, user=tomas)) == ["8302"]
    assert column(sacct(cluster, "-u", vera, "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, user=tomas)) == []
    assert column(sacct(cluster, "-j", "8301", "-n", "-P", "-o", "JobID", user=tomas)) == []
    assert column(sacct(cluster, "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY)) == ["8301", "8302"]


def test_private_data_jobs_hides_another_users_array_tasks_by_array_id_and_by_task(cluster_factory, two_users):
    vera, tomas = two_users
    vera_uid = pwd.getpwnam(vera).pw_uid
    cluster = cluster_factory(extra_conf=ACCOUNTING + "\nPrivateData=jobs")
    # Vera's array 8400: task 0 ran as job 8401, tasks 1-5 never started.
    fill(cluster, jobs=[job(8400, vera_uid, vera, run=0, state="PENDING", array_job_id=8400, array_tasks="1-5"),
                        job(8401, vera_uid, vera, array_job_id=8400, array_task_id=0)])
    for target in ("8400", "8400_0", "8401"):
        assert column(sacct(cluster, "-j", target, "-n", "-P", "-o", "JobID", user=tomas)) == [], target
    assert column(sacct(cluster, "-j", "8400", "-X", "-n", "-P", "-o", "JobID", user=vera)) == ["8400_[1-5]",
                                                                                               "8400_0"]


def test_without_private_data_everyone_sees_every_job(cluster_factory, two_users):
    vera, tomas = two_users
    vera_uid, tomas_uid = (pwd.getpwnam(n).pw_uid for n in two_users)
    cluster = cluster_factory(extra_conf=ACCOUNTING)
    fill(cluster, jobs=[job(8401, vera_uid, vera), job(8402, tomas_uid, tomas)])
    # A plain user without -a or -u is shown their own jobs, as in Slurm.
    assert column(sacct(cluster, "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, user=tomas)) == ["8402"]
    assert column(sacct(cluster, "-a", "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, user=tomas)) == ["8401", "8402"]
    assert column(sacct(cluster, "-u", vera, "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, user=tomas)) == ["8401"]
    assert column(sacct(cluster, "-j", "8401", "-X", "-n", "-P", "-o", "JobID,User", user=tomas)) == ["8401"]


def test_job_and_step_ids_and_allocations(accounting_cluster):
    fill(accounting_cluster, jobs=with_steps(8501, 1234, "nadia") + with_steps(8502, 1234, "nadia"))
    all_rows = column(sacct(accounting_cluster, "-a", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY))
    assert all_rows == ["8501", "8501.batch", "8501.extern", "8501.0",
                        "8502", "8502.batch", "8502.extern", "8502.0"]
    assert column(sacct(accounting_cluster, "-j", "8502.extern", "-n", "-P", "-o", "JobID")) == ["8502.extern"]
    assert column(sacct(accounting_cluster, "-j", "8501,8502.0", "-n", "-P", "-o", "JobID")) == [
        "8501", "8501.batch", "8501.extern", "8501.0", "8502.0"]
    assert column(sacct(accounting_cluster, "-a", "-X", "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY)) == ["8501", "8502"]


def test_nodes_accounts_and_the_sacct_name(accounting_cluster):
    fill(accounting_cluster, jobs=with_steps(8551, 1234, "nadia", steps=("batch",), node_list="gx[30-31]") +
         [job(8552, 1234, "nadia", node_list="gx40", account="bio")])
    ids = lambda *a: column(sacct(accounting_cluster, "-n", "-P", "-o", "JobID", *SINCE_YESTERDAY, *a))
    assert ids("-N", "gx31") == ["8551", "8551.batch"]
    assert ids("-N", "gx[39-40]") == ["8552"]
    assert ids("-N", "gx99") == []
    assert ids("-a", "-A", "bio") == ["8552"]
    # Called by the name Slurm's users type: the symlink beside gantry.
    by_name = subprocess.run([binary("sacct"), "-j", "8552", "-n", "-P", "-o", "JobID,Account"],
                             env=accounting_cluster.env(), capture_output=True, text=True, check=True)
    assert by_name.stdout.splitlines() == ["8552|bio"]


def test_time_windows_and_states(accounting_cluster):
    now = int(time.time())
    day = 86400
    fill(accounting_cluster, jobs=[
        job(8601, 1234, "nadia", start_ago=9 * day, run=600, now=now),            # last week
        job(8602, 1234, "nadia", start_ago=120, run=60, now=now),                 # minutes ago
        job(8603, 1234, "nadia", start_ago=100, run=0, state="RUNNING", now=now),
        job(8604, 1234, "nadia", start_ago=90, run=30, state="FAILED", now=now, exit_code=3),
    ])
    ids = lambda *a: column(sacct(accounting_cluster, "-a", "-X", "-n", "-P", "-o", "JobID", *a))
    # The default window starts at 00:00 today (the test may run just after
    # midnight: then the minutes-ago jobs are yesterday's).
    default = ids()
    assert "8601" not in default
    assert ids("-S", "now-10days") == ["8601", "8602", "8603", "8604"]
    assert ids("-S", "now-10days", "-E", "now-8days") == ["8601"]
    assert ids("-S", f"uts{now - 9 * day - 300}", "-E", f"uts{now - 9 * day + 100}") == ["8601"]
    assert ids("-s", "R") == ["8603"]
    assert ids("-s", "F", "-S", "now-1hours", "-E", "now") == ["8604"]
    assert ids("-s", "failed,CD", "-S", "now-1hours", "-E", "now") == ["8602", "8604"]
    backwards = sacct(accounting_cluster, "-S", "now", "-E", "now-1days", check=False)
    assert backwards.returncode != 0 and "after" in backwards.stderr


def test_output_forms(accounting_cluster):
    fill(accounting_cluster, jobs=[
        job(8701, 1234, "nadia", state="CANCELLED", cancelled_by_uid=4321, exit_signal=9),
        job(8701, 1234, "nadia", step="0", tres_usage_in_max="cpu=00:03:00,mem=2097152K,vmem=0",
            tres_usage_in_ave="cpu=00:01:30,mem=1536K,vmem=0"),
    ])
    parsable = sacct(accounting_cluster, "-j", "8701", "-p", "-o", "JobID,State,ExitCode,MaxRSS,AveCPU").stdout
    assert parsable.splitlines() == ["JobID|State|ExitCode|MaxRSS|AveCPU|",
                                     "8701|CANCELLED by 4321|0:9|||",
                                     "8701.0|COMPLETED|0:0|2G|00:01:30|"]
    parsable2 = sacct(accounting_cluster, "-j", "8701", "-P", "-n", "-o", "JobID,MaxRSS", "--units=M").stdout
    assert parsable2.splitlines() == ["8701|", "8701.0|2048M"]
    table = sacct(accounting_cluster, "-j", "8701", "-o", "JobID,State").stdout.splitlines()
    assert table[0].split() == ["JobID", "State"]
    assert set(table[1].replace(" ", "")) == {"-"}
    assert table[2].split() == ["8701", "CANCELLED+"]
    default = sacct(accounting_cluster, "-j", "8701").stdout.splitlines()
    assert default[0].split() == ["JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode"]
    twice = sacct(accounting_cluster, "-j", "8701", "-X", "-P", "--format=JobID", "--format=User%3").stdout
    assert twice.splitlines() == ["JobID|User", "8701|nadia"]
    data = json.loads(sacct(accounting_cluster, "-j", "8701", "--json").stdout)
    assert [(r["job_id"], r["step_id"]) for r in data["jobs"]] == [(8701, ""), (8701, "0")]
    assert data["jobs"][1]["tres_usage_in_max"] == "cpu=00:03:00,mem=2097152K,vmem=0"


def test_bad_options_are_refused(accounting_cluster):
    for args, named in ((["--colour"], "--colour"), (["-j", "12.prolog"], "12.prolog"),
                        (["-s", "sleepy"], "sleepy"), (["-o", "JobID,Colour"], "Colour"),
                        (["-S", "someday"], "someday"), (["--units=Q"], "Q")):
        result = sacct(accounting_cluster, *args, check=False)
        assert result.returncode != 0, args
        assert named in result.stderr, (args, result.stderr)
        assert result.stdout == ""


def test_without_accounting_sacct_says_so(cluster):
    for command in (["sacct"], ["sacctmgr", "show", "event"]):
        result = cluster.cli(*command, check=False)
        assert result.returncode == 1
        assert "accounting storage is disabled" in result.stderr
        assert "AccountingStorageType" in result.stderr


def test_sacctmgr_show_event(accounting_cluster):
    now = int(time.time())
    fill(accounting_cluster, events=[
        {"cluster": "itest", "node": "gx21", "start_time": now - 3600, "state": "DEGRADED", "reason": "ecc_storm",
         "user": "root", "tres": "cpu=48,mem=192000M,gres/gpu=6", "tres_reference": "gres/gpu=2"},
        {"cluster": "itest", "node": "gx22", "start_time": now - 7200, "end_time": now - 3000, "state": "DOWN",
         "reason": "psu", "user": "root", "tres": "cpu=48,mem=192000M", "tres_reference": ""},
    ])
    default = accounting_cluster.cli("sacctmgr", "-P", "show", "event", "Nodes=gx[21-22]").stdout.splitlines()
    assert default[0] == "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User"
    assert sorted(line.split("|")[1] for line in default[1:]) == ["gx21", "gx22"]
    asked = accounting_cluster.cli("sacctmgr", "-p", "show", "event", "Nodes=gx21", "States=Degraded",
                                   "Format=NodeName,Start,End,State,Reason,TRES,TresReference").stdout.splitlines()
    assert asked[0] == "NodeName|TimeStart|TimeEnd|State|Reason|TRES|TresReference|"
    assert asked[1].endswith("|Unknown|DEGRADED|ecc_storm|cpu=48,mem=192000M,gres/gpu=6|gres/gpu=2|")
    assert len(asked) == 2
    open_only = accounting_cluster.cli("sacctmgr", "-n", "-P", "list", "events", "Nodes=gx[21-22]",
                                       "CondFlags=Open", "Format=NodeName").stdout.split()
    assert open_only == ["gx21"]
    as_json = json.loads(accounting_cluster.cli("sacctmgr", "--json", "show", "event", "Nodes=gx21").stdout)
    assert [(e["node"], e["tres_reference"], e["end_time"]) for e in as_json["events"]] == [("gx21", "gres/gpu=2", 0)]
    refused = accounting_cluster.cli("sacctmgr", "add", "account", "name=physics", check=False)
    assert refused.returncode != 0 and "not supported" in refused.stderr
    unknown = accounting_cluster.cli("sacctmgr", "show", "event", "Colour=red", check=False)
    assert unknown.returncode != 0 and "Colour=red" in unknown.stderr


def test_a_store_that_cannot_be_opened_stops_the_controller(tmp_path):
    cluster = Cluster(root=tmp_path / "c",
                      extra_conf=f"{ACCOUNTING}\nAccountingStorageLoc={tmp_path}/no-such-dir/acct.db")
    result = subprocess.run([binary("gantryctld"), "--conf-dir", str(cluster.conf_dir)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    assert "accounting" in result.stderr and "no-such-dir/acct.db" in result.stderr
