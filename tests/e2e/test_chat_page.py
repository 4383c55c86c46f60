"""The chat page in a real browser: drafts survive a reload, the judge may keep typing while
the system replies, a message the server never acknowledged goes back into the composer, and
an ended conversation stays ended without reconnecting."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from testing.servers import Daphne, TemporaryDatabase
from tests.e2e.conftest import DEMO_PASSWORD, log_in

pytestmark = pytest.mark.e2e

SLOW_REPLY_S = 1.2

MAKE_JUDGE = """
from django.contrib.auth.models import Group, User
user = User.objects.create_user("%(name)s", password="%(password)s")
user.groups.add(Group.objects.get(name="judges"))
"""


class SlowSystem(BaseHTTPRequestHandler):
    """An external system that takes its time and says which message it answers."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(SLOW_REPLY_S)
        answer = json.dumps({"reply": f"answer to {body['message']}", "end": False}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def slow_system() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowSystem)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def start_conversation(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne], judge: str, system: str
) -> None:
    database, server = app_server
    database.manage("shell", "-c", MAKE_JUDGE % {"name": judge, "password": DEMO_PASSWORD})
    database.manage(
        "create_campaign", f"Chat page {judge}", "--systems", system, "--tasks", "flight-01",
        "--judges", judge, "--k", "1", "--open", env=server.env,
    )  # fmt: skip
    log_in(page, server.url, judge)
    page.locator("#start-next").click()
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)


def test_a_reload_mid_conversation_keeps_the_history_the_draft_and_the_page(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    start_conversation(page, app_server, "drafter", "reference")
    box = page.locator("#chat-input")
    box.fill("我想订一张明天从北京去上海的机票")
    box.press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(1, timeout=15_000)
    box.press_sequentially("上午或者")  # typed, not sent
    page.reload()
    expect(page.locator('#chat-status[data-live="1"]')).to_have_count(1)
    expect(page.locator("#chat-log .bubble")).to_have_count(2)
    expect(page.locator("#chat-input")).to_have_value("上午或者")
    expect(page.locator(".task-description")).to_be_visible()
    page.locator("#chat-input").press_sequentially("中午")
    page.locator("#chat-input").press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(2, timeout=15_000)
    assert "上午或者中午" in page.locator("#chat-log .bubble.user").last.inner_text()
    page.reload()  # a sent draft is gone for good
    expect(page.locator("#chat-log .bubble")).to_have_count(4)
    expect(page.locator("#chat-input")).to_have_value("")


def test_the_judge_keeps_typing_while_the_system_replies_and_nothing_is_dropped(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne], slow_system: str
) -> None:
    database, server = app_server
    database.manage(
        "add_system", "slowpoke", "--kind", "http", "--alias", "System W",
        "--endpoint", slow_system, "--timeout", "10", env=server.env,
    )  # fmt: skip
    start_conversation(page, app_server, "hasty", "slowpoke")
    box = page.locator("#chat-input")
    box.fill("first")
    box.press("Enter")
    expect(page.locator("#chat-status .typing")).to_be_visible()
    expect(box).to_be_enabled()
    box.fill("second")  # while the first reply is pending
    box.press("Enter")
    box.fill("third")
    box.press("Enter")
    replies = page.locator("#chat-log .bubble.system")
    expect(replies).to_have_count(3, timeout=20_000)
    assert replies.all_inner_texts()[0].startswith("answer to first")
    assert replies.all_inner_texts()[2].startswith("answer to third")
    order = [b.get_attribute("data-role") for b in page.locator("#chat-log .bubble").all()]
    assert order == ["user", "system"] * 3


def test_an_ended_conversation_shows_its_end_and_stops_reconnecting(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    start_conversation(page, app_server, "finisher", "reference")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#end-button").click()
    expect(page.locator("#rating-form")).to_be_visible()
    expect(page.locator(".ended-note")).to_be_visible()
    page.wait_for_timeout(2500)  # htmx's ws extension would have retried by now
    assert len(sockets) == 1
    page.reload()  # reopening the ended conversation opens no socket at all
    expect(page.locator(".ended-note")).to_be_visible()
    expect(page.locator("#rating-form")).to_be_visible()
    page.wait_for_timeout(1000)
    assert len(sockets) == 1


def test_a_message_the_server_never_acknowledged_goes_back_into_the_composer(
    page: Page, app_server: tuple[TemporaryDatabase, Daphne]
) -> None:
    """As when the server process dies with the message on the wire: the socket closes before
    the message is stored. The text must come back, and stay in the draft over a reload."""
    cut: list[str] = []
    opened: list[WebSocketRoute] = []

    def relay(socket: WebSocketRoute) -> None:
        opened.append(socket)
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if isinstance(message, str) and "never stored" in message:
                cut.append(message)
                socket.close(code=1012, reason="server restarting")
            else:
                server.send(message)

        socket.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/live/.*"), relay)
    start_conversation(page, app_server, "survivor", "reference")
    box = page.locator("#chat-input")
    box.fill("我想订一张明天从北京去上海的机票")
    box.press("Enter")
    expect(page.locator("#chat-log .bubble.system")).to_have_count(1, timeout=15_000)
    expect(box).to_have_value("")
    box.fill("never stored")
    box.press("Enter")
    expect(box).to_have_value("never stored")
    assert len(cut) == 1
    for _ in range(100):  # the page reconnects after a back-off of 0.5 to 1 s
        if len(opened) == 2:
            break
        page.wait_for_timeout(100)
    assert len(opened) == 2
    expect(page.locator("#chat-log .bubble")).to_have_count(2)
    page.reload()
    expect(page.locator("#chat-input")).to_have_value("never stored")
