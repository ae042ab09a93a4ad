"""A damaged state database: the controller refuses to start and says
which file and what is wrong; with --recover it moves the file aside,
goes on from what can be read, and never hands out an old job id again."""

import os
import signal
import sqlite3
import stat
import subprocess

from gantry_cluster import binary


def overwrite_page(path, page, page_size=4096):
    """Overwrites page `page` (from 1) of the file with garbage."""
    with open(path, "r+b") as db:
        db.seek((page - 1) * page_size)
        db.write(bytes((i * 167 + 13) % 256 for i in range(page_size)))


def newest_jobs_page(path):
    """The page holding the jobs with the highest ids: the rightmost leaf of
    table jobs. The file's last page need not be it (a node's record that
    grew is moved to the end of the file)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        row = db.execute("SELECT pageno FROM dbstat WHERE name = 'jobs' AND pagetype = 'leaf' "
                         "ORDER BY path DESC LIMIT 1").fetchone()
    return row[0]


def test_damaged_state_database_stops_the_controller_until_recover(cluster):
    ids = [cluster.sbatch("--hold", "-J", f"held{i}", "--wrap", "x" * 2000) for i in range(60)]
    state_dir = cluster.root / "ctld"
    db = state_dir / "gantry.db"
    assert stat.S_IMODE(os.stat(state_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    cluster.kill_controller(signal.SIGTERM)
    pages = db.stat().st_size // 4096
    assert pages >= 8
    # The newest jobs' page: the one whose loss used to reset the job id
    # counter.
    overwrite_page(db, newest_jobs_page(db))

    refused = subprocess.run([binary("gantryctld"), "--conf-dir", str(cluster.conf_dir)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0
    assert f"state database {db} is damaged" in refused.stderr, refused.stderr
    assert "--recover" in refused.stderr
    assert not list(state_dir.glob("gantry.db.corrupt-*")), "nothing is moved without --recover"

    cluster.start_controller("--recover")
    moved = list(state_dir.glob("gantry.db.corrupt-*"))
    assert len(moved) == 1
    log = (cluster.root / "gantryctld.log").read_text()
    assert "--recover: LOST: table jobs" in log
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    known = {j["job_id"] for j in cluster.jobs_json()}
    assert known and known < set(ids), "some jobs were read back, the last page's were lost"
    new_id = cluster.sbatch("--hold", "--wrap", "true")
    assert new_id > max(ids)


def test_recover_help_is_listed():
    out = subprocess.run([binary("gantryctld"), "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "--recover" in out
