"""Accounting end to end: the controller records real jobs, steps and node
events, the step launcher's usage reaches sacct, and nothing is lost or
doubled when gantryctld is killed before the accounting store has a record.
Every test runs on the SQLite store and on a PostgreSQL server the test
starts itself."""

import re
import sqlite3
import time

import pytest

from gantry_cluster import wait_for
from postgres_server import PostgresServer
from test_usage_sampling import GPU0, GPU1, GATHER, fake_data, per_task, programs, HOSTS, FAKE_NVML

SQLITE = "AccountingStorageType=accounting_storage/sqlite"


class SqliteBackend:
    """Blocks the store's writes by holding the database's write lock."""

    name = "sqlite"

    def __init__(self):
        self.holder = None
        self.cluster = None

    def conf(self):
        return SQLITE

    def block(self):
        self.holder = sqlite3.connect(self.cluster.root / "ctld" / "accounting.db", timeout=30,
                                      isolation_level=None)
        self.holder.execute("BEGIN EXCLUSIVE")

    def unblock(self):
        self.holder.execute("ROLLBACK")
        self.holder.close()

    def cleanup(self):
        pass


class PostgresBackend:
    """Blocks the store's writes by stopping the server."""

    name = "postgresql"

    def __init__(self):
        self.server = PostgresServer()
        self.cluster = None

    def conf(self):
        return self.server.conf()

    def block(self):
        self.server.stop()

    def unblock(self):
        self.server.start()

    def cleanup(self):
        self.server.cleanup()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request):
    made = SqliteBackend() if request.param == "sqlite" else PostgresBackend()
    yield made
    made.cleanup()


def start(cluster_factory, backend, **kwargs):
    extra = kwargs.pop("extra_conf", "")
    cluster = cluster_factory(extra_conf=backend.conf() + "\n" + extra, **kwargs)
    backend.cluster = cluster
    return cluster


def sacct(cluster, *args):
    return cluster.cli("sacct", "-n", "-P", *args).stdout.splitlines()


def wait_sacct(cluster, predicate, *args, what="the record"):
    """sacct's lines once `predicate` holds for them (records reach the store
    just after the controller's change)."""
    found = []

    def ready():
        found[:] = sacct(cluster, *args)
        return predicate(found)

    try:
        wait_for(ready, timeout=30, what=what)
    except TimeoutError as timeout:
        raise AssertionError(f"{timeout}; sacct {' '.join(args)} said {found}; the job's records: "
                             f"{sacct(cluster, '-a', '-S', 'now-1hours', '-o', 'JobID,State,TRESUsageInAve')}")
    return found


def gpu_node_cluster(cluster_factory, backend, tmp_path, records=()):
    data = fake_data(tmp_path, "nvlink8-2socket", "fake-nvml.txt", list(records))
    node = {"name": "ax3", "cpus": 4, "gres": "gpu:8", "host_root": HOSTS / "nvlink8-2socket",
            "env": {"GANTRY_NVML_LIBRARY": str(FAKE_NVML), "GANTRY_FAKE_NVML_FILE": str(data)}}
    return start(cluster_factory, backend, nodes=[node], gres_conf="AutoDetect=nvml\n",
                 extra_conf=GATHER + "AccountingStorageTRES=gres/gpu\nJobAcctGatherFrequency=task=1\n")


def test_a_two_task_gpu_step_shows_its_usage_in_sacct(cluster_factory, backend, tmp_path):
    folder = programs(tmp_path, "nap0", "nap1")
    cluster = gpu_node_cluster(cluster_factory, backend, tmp_path, [
        f"proc|{GPU0}|nap0|2100|81", f"proc|{GPU1}|nap1|900|17"])
    cluster.cli("srun", "-n2", "--gres=gpu:8", *per_task(f"exec {folder}/nap$SLURM_PROCID 3"))
    job = sacct(cluster, "-X", "-o", "JobID", "-S", "now-1hours")[0]
    ave = wait_sacct(cluster, lambda lines: lines and "gres/gpumem" in lines[0], "-j", f"{job}.0",
                     "--format=tresusageinave", what="the step's usage")[0]
    tot = sacct(cluster, "-j", f"{job}.0", "--format=tresusageintot")[0]
    # The spec's shape: every always-tracked TRES, then the two GPU ones, in name order.
    shape = r"^cpu=\d\d:\d\d:\d\d,energy=0,fs/disk=\d+,gres/gpumem={}M,gres/gpuutil={},mem=\d+K,pages=\d+,vmem=\d+K$"
    assert re.match(shape.format((2100 + 900) // 2, (81 + 17) // 2), ave), ave
    assert re.match(shape.format(2100 + 900, 81 + 17), tot), tot
    # -p ends each field with '|'; the header names the field as sacct does.
    parsable = cluster.cli("sacct", "-j", f"{job}.0", "--format=tresusageinave", "-p").stdout.splitlines()
    assert parsable[0] == "TRESUsageInAve|"
    assert parsable[1] == ave + "|"
    lines = wait_sacct(cluster, lambda lines: lines and lines[0].startswith(f"{job}|COMPLETED"),
                       "-j", job, "-o", "JobID,State,ExitCode,AllocTRES", what="the allocation's end")
    assert lines[0].startswith(f"{job}|COMPLETED|0:0|") and "gres/gpu=8" in lines[0], lines
    assert any(line.startswith(f"{job}.0|COMPLETED|0:0|") for line in lines), lines


def test_draining_a_tracked_gpu_opens_and_resuming_it_closes_one_event(cluster_factory, backend, tmp_path):
    cluster = gpu_node_cluster(cluster_factory, backend, tmp_path)
    cluster.cli("scontrol", "update", "TresName=gres/gpu", "NodeName=ax3", "Index=5", "Action=Drain",
                "Reason=xid_92")
    # States= keeps a late heartbeat's DOWN event, if the machine is slow, out.
    fields = ("sacctmgr", "-P", "-n", "show", "event", "Nodes=ax3", "States=DEGRADED", "All_Time",
              "Format=NodeName,End,State,Reason,TRES,TresReference")
    wait_for(lambda: cluster.cli(*fields).stdout.strip(), what="the DEGRADED event")
    assert cluster.cli(*fields).stdout.splitlines() == [
        "ax3|Unknown|DEGRADED|xid_92|gres/gpu=1|gpu(IDX:5)(xid_92)"]
    # The default format leaves TRES and TresReference out.
    default = cluster.cli("sacctmgr", "-P", "show", "event", "Nodes=ax3", "All_Time").stdout.splitlines()
    assert default[0] == "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User"
    cluster.cli("scontrol", "update", "TresName=gres/gpu", "NodeName=ax3", "Index=5", "Action=Resume")

    def closed():
        lines = cluster.cli(*fields).stdout.splitlines()
        return len(lines) == 1 and not lines[0].split("|")[1] == "Unknown"

    wait_for(closed, what="the event's end")
    # Draining an untracked GRES records nothing: none is configured here
    # but the GPUs, so drain a core, which always counts.
    cluster.cli("scontrol", "update", "TresName=cpu", "NodeName=ax3", "Index=1", "Action=Drain", "Reason=mce")
    wait_for(lambda: len(cluster.cli(*fields).stdout.splitlines()) == 2,
             what=f"the core's event (have {cluster.cli(*fields).stdout.splitlines()})")
    assert "ax3|Unknown|DEGRADED|mce|cpu=1|cpu(IDX:1)(mce)" in cluster.cli(*fields).stdout.splitlines()


def journaled_end(cluster, job):
    """Whether the controller's state database holds the job's ended record
    in its accounting journal (so it is durable, not yet delivered)."""
    with sqlite3.connect(f"file:{cluster.root / 'ctld' / 'gantry.db'}?mode=ro", uri=True, timeout=10) as db:
        rows = [row[0] for row in db.execute("SELECT record FROM accounting_journal")]
    texts = [row.decode() if isinstance(row, bytes) else row for row in rows]
    return any(f'"job_id":{job},' in text and '"state":"FAILED"' in text and '"step_id":""' in text
               for text in texts)


def test_a_controller_killed_before_the_accounting_write_loses_no_record(cluster_factory, backend):
    cluster = start(cluster_factory, backend)
    first = cluster.sbatch("-A", "optics", "--comment", "run 12", "--wrap", "true")
    cluster.wait_job(first)
    wait_sacct(cluster, lambda lines: any(l.startswith(f"{first}|COMPLETED") for l in lines),
               "-j", str(first), "-o", "JobID,State")
    assert sacct(cluster, "-X", "-j", str(first), "-o", "JobID,Account,Comment") == [f"{first}|optics|run 12"]
    # The accounting store takes no write now: the next job's records wait
    # in the controller's journal, which is killed with them.
    backend.block()
    try:
        second = cluster.sbatch("--wrap", "exit 4")
        cluster.wait_job(second)
        wait_for(lambda: journaled_end(cluster, second), what="the job's end in the controller's journal")
        cluster.kill_controller()
    finally:
        backend.unblock()
    cluster.start_controller()
    lines = wait_sacct(cluster, lambda lines: any(l.startswith(f"{second}|FAILED") for l in lines),
                       "-j", f"{first},{second}", "-o", "JobID,State,ExitCode", what="the journaled record")
    assert lines == [f"{first}|COMPLETED|0:0", f"{first}.batch|COMPLETED|0:0",
                     f"{second}|FAILED|4:0", f"{second}.batch|FAILED|4:0"], lines
    # Once more: a restart hands over nothing twice.
    cluster.kill_controller()
    cluster.start_controller()
    time.sleep(1)
    assert sacct(cluster, "-j", f"{first},{second}", "-o", "JobID,State,ExitCode") == lines


def test_a_count_gres_stays_in_alloctres_across_a_controller_restart(cluster_factory, backend):
    # The record is rebuilt from the stored job after the restart: the
    # units it holds must come back with it.
    cluster = start(cluster_factory, backend, nodes=[{"name": "t1", "cpus": 2, "memory": 2000, "gres": "tok:4"}],
                    extra_conf="GresTypes=gpu,shard,mps,tok\nAccountingStorageTRES=gres/tok\n")
    job = cluster.sbatch("--gres=tok:3", "-n1", "--mem=100", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_state(job) == "RUNNING", what="the job to run")
    wait_sacct(cluster, lambda lines: any("gres/tok=3" in l for l in lines), "-X", "-j", str(job),
               "-o", "JobID,AllocTRES")
    cluster.kill_controller()
    cluster.start_controller()
    cluster.wait_nodes_up(["t1"])
    cluster.cli("scancel", str(job))
    lines = wait_sacct(cluster, lambda lines: any("CANCELLED" in l for l in lines), "-X", "-j", str(job),
                       "-o", "JobID,State,AllocTRES")
    assert "gres/tok=3" in lines[0], lines


def test_array_tasks_are_array_task_in_sacct_and_the_tasks_not_started_are_listed(cluster_factory, backend):
    cluster = start(cluster_factory, backend)
    array = cluster.sbatch("--array=0-2%1", "-n1", "--mem=50", "--wrap", "sleep 4")
    # One task at a time: while task 0 runs, the array's own record lists 1 and 2.
    wait_sacct(cluster, lambda lines: f"{array}_[1-2]|PENDING" in lines, "-j", str(array), "-X",
               "-o", "JobID,State", what="the array's record of tasks not started")
    lines = wait_sacct(cluster, lambda lines: len(lines) == 3 and all(l.endswith("|COMPLETED") for l in lines),
                       "-j", str(array), "-X", "-o", "JobID,JobIDRaw,State", what="every task's end")
    assert sorted(line.split("|")[0] for line in lines) == [f"{array}_0", f"{array}_1", f"{array}_2"], lines
    # Each task ran as a job of its own: the last is the array's own id.
    raw = {line.split("|")[0]: line.split("|")[1] for line in lines}
    assert raw[f"{array}_2"] == str(array) and len(set(raw.values())) == 3, lines
    one = sacct(cluster, "-j", f"{array}_1", "-o", "JobID")
    assert one == [f"{array}_1", f"{array}_1.batch"], one
