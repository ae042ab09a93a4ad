"""sacct's Group: the name of the job's gid, resolved by sacct from the
host's group database as Slurm's sacct does, and the number once the group
is gone. Needs root (groupadd/groupdel); the group name is our own."""

import grp
import json
import os
import subprocess

import pytest

from gantry_cluster import binary

SQLITE = "AccountingStorageType=accounting_storage/sqlite"


@pytest.fixture
def new_group():
    name = f"gtgrp{os.getpid() % 100000}"
    subprocess.run(["groupadd", name], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield name, grp.getgrnam(name).gr_gid
    finally:
        subprocess.run(["groupdel", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_sacct_names_the_jobs_group_and_falls_back_to_its_number(cluster_factory, new_group):
    name, gid = new_group
    cluster = cluster_factory(extra_conf=SQLITE)
    # Submitted as root under the new group: the job's gid is the group's.
    submitted = subprocess.run(["setpriv", f"--regid={gid}", "--clear-groups", binary("gantry"), "sbatch",
                                "--parsable", "--wrap", "true"], env=cluster.env(), capture_output=True,
                               text=True, check=True, cwd=cluster.root)
    job = int(submitted.stdout.strip().split(";")[0])
    cluster.wait_job(job)
    fields = ("sacct", "-j", str(job), "-X", "-n", "-P", "-o", "JobID,Group,GID")
    assert cluster.cli(*fields).stdout.splitlines() == [f"{job}|{name}|{gid}"]
    record = json.loads(cluster.cli("sacct", "-j", str(job), "-X", "--json").stdout)["jobs"][0]
    assert (record["group"], record["gid"]) == (name, gid)

    subprocess.run(["groupdel", name], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert cluster.cli(*fields).stdout.splitlines() == [f"{job}|{gid}|{gid}"]
