"""A PostgreSQL cluster on loopback for tests: a primary and hot standbys streaming from
it, started with the binaries inside the `pgserver` wheel (initdb, pg_ctl,
pg_basebackup), on 127.0.0.1 ports, in a temporary directory removed at the end.

Standbys are made as an operator would: `pg_basebackup -R -X stream` from the running
primary (which writes `primary_conninfo` and `standby.signal`), then started on their
own port. PostgreSQL refuses to run as root, so as root every server command runs as the
system user pgserver itself uses. When anything cannot start, the caller skips with why.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SYSTEM_USER = "pgserver"  # the user pgserver runs PostgreSQL as, when started by root


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Node:
    name: str
    data: Path
    port: int
    cluster: Cluster

    def url(self, database: str = "docs") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self.cluster.run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.data.parent / f"{self.name}.log"),
            "-o",
            f"-p {self.port}",
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self.cluster.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def promote(self) -> None:
        self.cluster.run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "promote")

    def running(self) -> bool:
        status = subprocess.run(
            [str(self.cluster.bin / "pg_ctl"), "-D", str(self.data), "status"],
            capture_output=True,
            **self.cluster.as_user,
        )
        return status.returncode == 0

    def sql(self, statement: str, params: Any = (), database: str = "postgres") -> Any:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(statement.encode(), params)
            row = cursor.fetchone() if cursor.description else None
        return None if row is None else row[0]


@dataclass
class Cluster:
    root: Path
    bin: Path
    as_user: dict[str, Any]
    nodes: list[Node] = field(default_factory=list)

    def run(self, program: str, *args: str) -> str:
        done = subprocess.run(
            [str(self.bin / program), *args],
            capture_output=True,
            text=True,
            timeout=120,
            **self.as_user,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} {' '.join(args)}: {done.stderr.strip()[-800:]}")
        return done.stdout

    @property
    def primary(self) -> Node:
        return self.nodes[0]

    @property
    def standbys(self) -> list[Node]:
        return self.nodes[1:]

    def start_primary(self) -> Node:
        data = self.root / "primary"
        self.run(
            "initdb",
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=utf8",
            "--no-sync",
        )
        with open(data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                "\n# docql-sqlite test cluster\n"
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.root}'\n"
                "wal_level = replica\nmax_wal_senders = 10\nhot_standby = on\n"
                "wal_keep_size = '256MB'\n"
                # Test data is thrown away: no waiting for the shared disk.
                "fsync = off\nsynchronous_commit = off\n"
            )
        node = Node("primary", data, _free_port(), self)
        node.start()
        self.nodes.append(node)
        return node

    def add_standby(self) -> Node:
        name = f"standby{len(self.nodes)}"
        data = self.root / name
        self.run(
            "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.primary.port),
            "-U",
            "postgres",
            "-D",
            str(data),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "--no-sync",
        )
        node = Node(name, data, _free_port(), self)
        node.start()
        self.nodes.append(node)
        return node

    def wait_for_replay(self, timeout: float = 60.0) -> str:
        """Block until every running standby has replayed the primary's current WAL; the LSN."""
        lsn = str(self.primary.sql("SELECT pg_current_wal_lsn()"))
        deadline = time.monotonic() + timeout
        for standby in self.standbys:
            while not standby.sql("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (lsn,)):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{standby.name} has not replayed up to {lsn}")
                time.sleep(0.1)
        return lsn

    def stop(self) -> None:
        for node in reversed(self.nodes):
            if node.running():
                try:
                    node.stop("immediate")
                except RuntimeError:
                    pass
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster(standbys: int = 2) -> Cluster:
    """A primary and `standbys` streaming standbys; raises when PostgreSQL cannot start."""
    import pgserver

    bin_dir = Path(pgserver.__file__).parent / "pginstall" / "bin"
    root = Path(tempfile.mkdtemp(prefix="docql-cluster-", dir="/tmp"))
    as_user: dict[str, Any] = {}
    if os.geteuid() == 0:
        from pgserver.utils import ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists(SYSTEM_USER)
        assert entry is not None
        ensure_prefix_permissions(root)
        os.chown(root, entry.pw_uid, entry.pw_gid)
        as_user = {"user": entry.pw_uid, "group": entry.pw_gid}
    cluster = Cluster(root, bin_dir, as_user)
    try:
        cluster.start_primary()
        cluster.primary.sql("CREATE DATABASE docs TEMPLATE template0 ENCODING 'UTF8'")
        for _ in range(standbys):
            cluster.add_standby()
    except BaseException:
        cluster.stop()
        raise
    return cluster
