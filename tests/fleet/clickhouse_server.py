#!/usr/bin/env python3
"""clickhouse_server.py start DIR | stop DIR [WORK] — a private ClickHouse server for the
fleet tests (a ctest fixture: FIXTURES_SETUP start, FIXTURES_CLEANUP stop).

start: writes DIR/config.xml and DIR/users.xml (data, logs and tmp under
DIR; HTTP and native ports picked free on 127.0.0.1; a cluster
"seektrace_2shards" of two shards, 127.0.0.1 and 127.0.0.2, on this one
server, each shard with its own default database, seektrace_s1 and
seektrace_s2, so that a Distributed table with database '' reads each
shard's rows once), starts clickhouse-server, waits until it answers, and
records its pid and ports in DIR/server.json.
stop: kills that server (by the pid it recorded), waits for it, and
removes DIR (and WORK, the tests' runs) — whatever the tests did."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

SERVER = "/usr/sbin/clickhouse-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/log/server.log</log>
    <errorlog>{d}/log/server.err.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <listen_host>127.0.0.2</listen_host>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <format_schema_path>{d}/format_schemas/</format_schema_path>
  <users_config>{d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  <remote_servers>
    <seektrace_2shards>
      <shard><replica><host>127.0.0.1</host><port>{tcp}</port>
        <default_database>seektrace_s1</default_database></replica></shard>
      <shard><replica><host>127.0.0.2</host><port>{tcp}</port>
        <default_database>seektrace_s2</default_database></replica></shard>
    </seektrace_2shards>
  </remote_servers>
</yandex>
"""

USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage>
    <prefer_localhost_replica>0</prefer_localhost_replica></default></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.0/8</ip></networks>
      <profile>default</profile><quota>default</quota></default>
    <loader><password>{password}</password><networks><ip>127.0.0.0/8</ip></networks>
      <profile>default</profile><quota>default</quota></loader>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
"""


def start(d):
    if os.path.exists(d):
        shutil.rmtree(d)
    for sub in ("data", "tmp", "log", "user_files", "format_schemas"):
        os.makedirs(os.path.join(d, sub))
    http, tcp = free_port(), free_port()
    with open(os.path.join(d, "config.xml"), "w") as fh:
        fh.write(CONFIG.format(d=d, http=http, tcp=tcp))
    with open(os.path.join(d, "users.xml"), "w") as fh:
        fh.write(USERS.format(password="fleet-test"))
    log = open(os.path.join(d, "log", "stdout.log"), "w")
    p = subprocess.Popen([SERVER, "--config-file", os.path.join(d, "config.xml")], cwd=d,
                         stdout=log, stderr=log, start_new_session=True)
    with open(os.path.join(d, "server.json"), "w") as fh:
        json.dump({"pid": p.pid, "http": http, "tcp": tcp,
                   "url": f"http://127.0.0.1:{http}/", "user": "loader",
                   "password": "fleet-test"}, fh)
    deadline = time.time() + 60
    while time.time() < deadline:
        if p.poll() is not None:
            sys.exit(f"clickhouse-server exited {p.returncode}: see {d}/log")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http}/ping", timeout=1) as r:
                if r.read().strip() == b"Ok.":
                    return
        except OSError:
            time.sleep(0.2)
    p.kill()
    sys.exit("clickhouse-server did not answer within 60 s")


def alive(pid):
    """Whether pid runs (a zombie no one reaps counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop(d, work=None):
    try:
        with open(os.path.join(d, "server.json")) as fh:
            pid = json.load(fh)["pid"]
    except (OSError, ValueError, KeyError):
        pid = None
    # The pid is the one start recorded, and only while its command line is
    # the server's with this DIR's config (a pid reused since is left alone).
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            ours = os.path.join(d, "config.xml").encode() in fh.read()
    except (OSError, TypeError):
        ours = False
    if pid and ours:
        try:
            os.kill(pid, signal.SIGTERM)
            # Its data goes with DIR: no need to wait for a clean shutdown.
            deadline = time.time() + 3
            while alive(pid) and time.time() < deadline:
                time.sleep(0.1)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shutil.rmtree(d, ignore_errors=True)
    if work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("start", "stop") or \
            len(sys.argv) > (3 if sys.argv[1] == "start" else 4):
        sys.exit("usage: clickhouse_server.py start DIR | stop DIR [WORK]")
    if sys.argv[1] == "start":
        start(os.path.abspath(sys.argv[2]))
    else:
        stop(os.path.abspath(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
