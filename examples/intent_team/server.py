"""A team's intent server speaking the SMP2018 Task 1 protocol, for trying EvalSite's endpoint runs.

EvalSite POSTs ``{"sentencesList": [{"id", "content"}]}``; this server answers
``{"resultsList": [{"id", "result"}]}`` with a label chosen by keywords (``chat`` when none
matches). To show how EvalSite treats a bad server, it can answer some batches late or
malformed, counting batches from 1::

    python examples/intent_team/server.py --port 8601 --late 2 --malformed 3 --delay 6

EvalSite calls participants' endpoints at public addresses only: to register this server as
``http://127.0.0.1:8601/`` on the same host, start EvalSite with
``EVALSITE_ENDPOINT_PRIVATE_NETWORKS=127.0.0.1/32``.

Only the Python standard library is used.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEYWORDS = (
    ("weather", ("天气", "下雨", "气温")),
    ("music", ("歌", "专辑")),
    ("flight", ("航班", "机票", "飞机")),
    ("train", ("高铁", "火车", "动车")),
    ("cookbook", ("怎么做", "材料", "教我做")),
    ("telephone", ("打电话", "拨打", "呼叫")),
    ("datetime", ("几号", "几点", "星期")),
)


def label_of(content: str) -> str:
    for label, words in KEYWORDS:
        if any(word in content for word in words):
            return label
    return "chat"


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, late: set[int], malformed: set[int], delay: float) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.late, self.malformed, self.delay = late, malformed, delay
        self.batches = 0
        self.lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_POST(self) -> None:
        body: Any = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.lock:
            self.server.batches += 1
            number = self.server.batches
        if number in self.server.late:
            time.sleep(self.server.delay)
        if number in self.server.malformed:
            answer = b'{"resultsList": [oops'
        else:
            results = [
                {"id": item["id"], "result": label_of(item["content"])}
                for item in body["sentencesList"]
            ]
            answer = json.dumps({"resultsList": results}, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:
        return


def numbers(text: str) -> set[int]:
    return {int(part) for part in text.split(",") if part.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8601)
    parser.add_argument("--late", default="", help="batch numbers to answer late, e.g. 2,5")
    parser.add_argument("--malformed", default="", help="batch numbers to answer with bad JSON")
    parser.add_argument("--delay", type=float, default=6.0, help="seconds a late answer waits")
    options = parser.parse_args()
    server = Server(options.port, numbers(options.late), numbers(options.malformed), options.delay)
    print(f"listening on http://127.0.0.1:{options.port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
