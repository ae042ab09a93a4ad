"""A throwaway PostgreSQL server for the integration tests: initdb and
pg_ctl in a temporary folder, on a free loopback port, with password
authentication. initdb refuses root, so as root the server runs as
`nobody`. Machines without PostgreSQL's server programs skip, saying so."""

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from gantry_cluster import free_port

DATABASE = "gantry_acct"
ROLE = "gantry"


def _bindir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    def __init__(self):
        self.bindir = _bindir()
        if self.bindir is None:
            pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed; "
                        "scripts/install-deps.sh installs them")
        self.dir = Path(tempfile.mkdtemp(prefix="gantry-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.password = secrets.token_hex(12)
        self.owner = "nobody" if os.geteuid() == 0 else None
        if self.owner:
            entry = pwd.getpwnam(self.owner)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.dir.chmod(0o700)
        pwfile = self.dir / "pw"
        pwfile.write_text(self.password + "\n")
        if self.owner:
            os.chown(pwfile, pwd.getpwnam(self.owner).pw_uid, -1)
        self._run("initdb", "-D", str(self.data), "-U", ROLE, "--auth=scram-sha-256", f"--pwfile={pwfile}",
                  "-E", "UTF8", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", ROLE, DATABASE,
                  env={"PGPASSWORD": self.password})

    def _run(self, program, *args, env=None):
        command = [str(self.bindir / program), *args]
        if self.owner:
            command = ["runuser", "-u", self.owner, "--"] + command
        subprocess.run(command, check=True, capture_output=True, cwd=self.dir,
                       env={**os.environ, **(env or {})}, timeout=120)

    def start(self):
        self._run("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.dir / "server.log"), "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", mode, "stop")

    def conf(self):
        return "\n".join([
            "AccountingStorageType=accounting_storage/postgresql",
            "AccountingStorageHost=127.0.0.1",
            f"AccountingStoragePort={self.port}",
            f"AccountingStorageUser={ROLE}",
            f"AccountingStoragePass={self.password}",
            f"AccountingStorageLoc={DATABASE}",
        ])

    def cleanup(self):
        try:
            self.stop("immediate")
        except subprocess.SubprocessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
