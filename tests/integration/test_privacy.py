"""What one user can learn of another's jobs through the commands: scripts
and environments never travel in listings, `scontrol write batch_script` is
for the owner and administrators, PrivateData=jobs hides other users' jobs,
secrets of gantry.conf are hidden from plain users, and large scripts
neither break the queue listing nor pass max_script_size."""

import json
import os
import pwd
import subprocess

import pytest


@pytest.fixture
def two_users():
    """Two throw-away local users, removed after the test."""
    names = [f"gtpa{os.getpid() % 100000}", f"gtpb{os.getpid() % 100000}"]
    for name in names:
        subprocess.run(["useradd", "-M", "-N", "-s", "/bin/sh", name], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield names
    for name in names:
        subprocess.run(["userdel", name], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def shared_dir(cluster):
    shared = cluster.root / "shared"
    shared.mkdir(exist_ok=True)
    os.chmod(shared, 0o1777)
    return shared


def submit_as(cluster, user, *args):
    out = cluster.cli("sbatch", "--parsable", *args, user=user, cwd=shared_dir(cluster)).stdout
    return int(out.strip().split(";")[0])


def test_scripts_and_environments_reach_only_owner_and_root(cluster, two_users):
    alice, bob = two_users
    job_id = submit_as(cluster, alice, "--hold", "--export=ALL,API_KEY=envsecret42",
                       "--wrap", "echo scriptsecret42")
    for user in (alice, bob, None):
        listing = cluster.cli("squeue", "--json", user=user).stdout
        shown = cluster.cli("scontrol", "show", "job", str(job_id), "--json", user=user).stdout
        for text in (listing, shown):
            assert "scriptsecret42" not in text and "envsecret42" not in text
    refused = cluster.cli("scontrol", "write", "batch_script", str(job_id), "-", user=bob, check=False)
    assert refused.returncode != 0
    assert "permission denied" in refused.stderr.lower()
    assert "scriptsecret42" not in refused.stdout
    own = cluster.cli("scontrol", "write", "batch_script", str(job_id), "-", user=alice).stdout
    assert "scriptsecret42" in own
    target = cluster.root / "root-copy.sh"
    written = cluster.cli("scontrol", "write", "batch_script", str(job_id), str(target)).stdout
    assert f"batch script for job {job_id} written to {target}" in written
    assert "scriptsecret42" in target.read_text()


def test_private_data_jobs_hides_other_users_jobs(cluster_factory, two_users):
    alice, bob = two_users
    cluster = cluster_factory(extra_conf="PrivateData=jobs")
    alices = submit_as(cluster, alice, "--hold", "--wrap", "true")
    bobs = submit_as(cluster, bob, "--hold", "--wrap", "true")
    seen_by_bob = cluster.cli("squeue", "-h", "-o", "%i", user=bob).stdout.split()
    assert seen_by_bob == [str(bobs)]
    assert cluster.cli("squeue", "-h", "-j", str(alices), "-o", "%i", user=bob, check=False).stdout.strip() == ""
    seen_by_root = cluster.cli("squeue", "-h", "-o", "%i").stdout.split()
    assert sorted(seen_by_root) == sorted([str(alices), str(bobs)])


def test_config_secrets_are_for_administrators(cluster_factory, two_users):
    _, bob = two_users
    cluster = cluster_factory(extra_conf="AccountingStoragePass=dbpass-xyzzy")
    as_bob = json.loads(cluster.cli("scontrol", "show", "config", "--json", user=bob).stdout)["config"]
    assert as_bob["AccountingStoragePass"] == "(hidden)"
    as_root = json.loads(cluster.cli("scontrol", "show", "config", "--json").stdout)["config"]
    assert as_root["AccountingStoragePass"] == "dbpass-xyzzy"


def test_large_scripts_do_not_break_listings_and_the_limit_holds(cluster, two_users):
    alice, _ = two_users
    shared = shared_dir(cluster)
    big = shared / "big.sh"
    big.write_text("#!/bin/sh\n" + ("# padding line to make the script large\n" * 64000) + "true\n")
    os.chmod(big, 0o644)
    assert big.stat().st_size > 2_500_000
    held = [submit_as(cluster, alice, "--hold", str(big)) for _ in range(2)]
    listing = json.loads(cluster.cli("squeue", "--json").stdout)["jobs"]
    assert {j["job_id"] for j in listing} >= set(held)
    huge = shared / "huge.sh"
    huge.write_text("#!/bin/sh\n" + ("# padding line to make the script huge\n" * 130000) + "true\n")
    os.chmod(huge, 0o644)
    refused = cluster.cli("sbatch", str(huge), user=alice, cwd=shared, check=False)
    assert refused.returncode != 0
    assert "too large" in refused.stderr and "max_script_size" in refused.stderr


def test_only_administrators_set_a_priority(cluster, two_users):
    alice, _ = two_users
    refused = cluster.cli("sbatch", "--priority=500", "--hold", "--wrap", "true", user=alice,
                          cwd=shared_dir(cluster), check=False)
    assert refused.returncode != 0
    assert "priority" in refused.stderr and "permission denied" in refused.stderr.lower()
    assert cluster.cli("squeue", "-h", "-o", "%i").stdout.strip() == ""
    job_id = cluster.sbatch("--priority=500", "--hold", "--wrap", "true")
    assert cluster.job(job_id)["spec"]["priority"] == 500
