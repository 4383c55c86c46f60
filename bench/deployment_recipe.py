"""docs/deployment.md's recipe, run on this machine: N daphne and M task workers behind nginx.

It starts PostgreSQL's temporary database, N daphne workers and M ``job_worker`` processes
with the environment the recipe gives (DEBUG off, Redis, the pool sizes), and nginx in front
with the recipe's configuration (plain HTTP on a local port instead of TLS: nginx sets
``X-Forwarded-Proto: https`` itself, as its TLS server would). Then, through nginx only:

- ``/healthz`` answers ok for the database and the channel layer;
- ``--requests`` requests for a judge's home page, 50 at a time, get no HTTP 500;
- two tabs of one chat, on different daphne workers (nginx's ``least_conn``), both see a
  message and the reference system's reply;
- a job queued by a web request's code is taken by one of the task workers;
- PostgreSQL's connections at peak stay within N × pool max + 3 × M + 5 (``manage.py``).

Needs ``nginx`` on the PATH (Debian: ``apt-get install nginx-light``). Prints one JSON line.
Usage: .venv/bin/python bench/deployment_recipe.py [--daphne 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testing.live_load import PRODUCTION, SETUP, ConnectionWatch  # noqa: E402
from testing.servers import Daphne, TemporaryDatabase, free_port  # noqa: E402

NGINX = """
daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;

    upstream evalsite {{
        least_conn;
{servers}
    }}

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}

    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 200m;

        location /ws/ {{
            proxy_pass http://evalsite;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-Proto https;
            proxy_read_timeout 3600s;
        }}

        location / {{
            proxy_pass http://evalsite;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto https;
        }}
    }}
}}
"""

QUEUE_JOB = """
from evalsite import jobs
from liveeval.simulation.job import SIMULATE_JOB
job = jobs.create(SIMULATE_JOB, {"campaign": 987654, "tasks": [], "systems": [], "personas": [],
                                 "simulator": "rules", "llm": {}})
jobs.start(job)
print(job.pk)
"""

JOB_STATE = """
from evalsite.models import Job
job = Job.objects.get(pk=%d)
print(job.status + "|" + job.worker + "|" + job.message)
"""


def get(url: str, cookie: str = "") -> int:
    request = urllib.request.Request(url, headers={"Host": "localhost", "Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return 0  # not listening (yet), or the connection broke


async def two_tabs(ws_url: str, origin: str, cookie: str) -> dict[str, bool]:
    import websockets

    headers = {"Cookie": cookie, "Origin": origin}
    async with (
        websockets.connect(ws_url, additional_headers=headers) as tab_a,
        websockets.connect(ws_url, additional_headers=headers) as tab_b,
    ):
        await asyncio.wait_for(tab_a.recv(), 30)
        await asyncio.wait_for(tab_b.recv(), 30)
        await tab_a.send(json.dumps({"message": "我想订一张明天从北京去上海的机票"}))
        seen = {}
        for name, tab in (("tab_a", tab_a), ("tab_b", tab_b)):
            async with asyncio.timeout(30):
                while True:
                    frame = str(await tab.recv())
                    if 'data-role="system"' in frame:
                        seen[name] = "北京" in frame
                        break
        return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--daphne", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pool-max", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    postgres = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    redis = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
    today = dt.date.today()
    result: dict[str, object] = {"daphne": args.daphne, "task_workers": args.workers}
    with TemporaryDatabase(like=postgres) as database, tempfile.TemporaryDirectory() as tmp:
        env = database.env(
            DJANGO_SETTINGS_MODULE="evalsite.settings",
            REDIS_URL=redis,
            TRUST_X_FORWARDED_PROTO="1",
            EVALSITE_DB_POOL_MIN="2",
            EVALSITE_DB_POOL_MAX=str(args.pool_max),
            JOB_RUNNER="worker",
            **PRODUCTION,
        )
        database.manage("migrate", "--noinput", env=env)
        database.manage("build_booking_world", "--start", today.isoformat(), "--days", "2", env=env)
        made = json.loads(
            database.manage(
                "shell", "-c", SETUP % {"today": today.isoformat(), "sessions": 2}, env=env
            ).splitlines()[-1]
        )
        name = database.url.rsplit("/", 1)[1]
        servers = [Daphne(env) for _ in range(args.daphne)]
        workers: list[subprocess.Popen[bytes]] = []
        port = free_port()
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(
            NGINX.format(
                tmp=tmp,
                port=port,
                servers="\n".join(f"        server 127.0.0.1:{s.port};" for s in servers),
            )
        )
        with ConnectionWatch(postgres, name) as watch:
            for server in servers:
                server.__enter__()
            for _ in range(args.workers):
                workers.append(
                    subprocess.Popen(
                        [sys.executable, "manage.py", "job_worker", "--queue-name", "*"],
                        cwd=ROOT,
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            proxy = subprocess.Popen([nginx, "-p", tmp, "-c", str(conf)], cwd=tmp)
            try:
                base = f"http://127.0.0.1:{port}"
                deadline = time.monotonic() + 30
                while get(f"{base}/healthz") != 200 and time.monotonic() < deadline:
                    if proxy.poll() is not None:
                        raise RuntimeError(Path(tmp, "error.log").read_text())
                    time.sleep(0.2)
                with urllib.request.urlopen(
                    urllib.request.Request(f"{base}/healthz", headers={"Host": "localhost"})
                ) as response:
                    result["healthz"] = json.loads(response.read())
                with ThreadPoolExecutor(50) as pool:
                    codes = list(
                        pool.map(
                            get, [f"{base}/"] * args.requests, [made["cookie"]] * args.requests
                        )
                    )
                result["requests"] = len(codes)
                result["http_500s"] = sum(code >= 500 for code in codes)
                result["http_ok"] = sum(code == 200 for code in codes)
                result["chat_two_workers"] = asyncio.run(
                    two_tabs(
                        f"ws://127.0.0.1:{port}/ws/live/{made['ids'][0]}/?lang=zh-hans",
                        "http://localhost",
                        made["cookie"],
                    )
                )
                job_id = int(database.manage("shell", "-c", QUEUE_JOB, env=env).splitlines()[-1])
                state = ""
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    state = database.manage("shell", "-c", JOB_STATE % job_id, env=env).strip()
                    if not state.startswith(("pending", "running")):
                        break
                    time.sleep(1)
                status, worker, message = state.splitlines()[-1].split("|", 2)
                result["job"] = {"status": status, "worker": worker, "message": message}
            finally:
                proxy.terminate()
                proxy.wait(timeout=10)
                for process in workers:
                    process.terminate()
                for process in workers:
                    process.wait(timeout=60)
                for server in servers:
                    server.__exit__(None, None, None)
            result["pg_connections_peak"] = watch.peak
            # docs/deployment.md: N × pool max + 3 × M + a few (here 5) for manage.py and psql.
            result["pg_connections_bound"] = args.daphne * args.pool_max + 3 * args.workers + 5
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
