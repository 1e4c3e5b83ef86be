#!/usr/bin/env python3
# A small bot to learn from: Python 3.9 or later, standard library only.
#
# It receives the MESSAGE webhook of `core sandbox --bot-url`, checks its Standard Webhooks
# signature, and answers through the API (POST /api/v1/chatbot): an echo with a button, or, when
# the customer asks for a person, a hand-over to agents (code SWITCH_TO_HUMAN).
#
#   core example bot --lang python > bot.py
#   core sandbox --port 8080 --bot-url http://127.0.0.1:3000/webhook     # prints the export lines
#   export CORE_BASE_URL=... CORE_TENANT=... CORE_TOKEN=... CORE_WEBHOOK_SECRET=...
#   python3 bot.py                                                       # PORT=3000 by default
#
# It passes every check of `core check-bot` (docs/check-bot.md): signatures verified over the raw
# body (any of several, for a key rotation), timestamps within five minutes either way, one answerId
# per webhook-id (a replay or a retry cannot deliver twice), EMAIL answers by sessionId and index.
# Python's json keeps integers exact, so identifiers past 2^53 come back as they were sent.
#
# The webhook's body is the sandbox's own format (docs/sandbox.md, "The MESSAGE webhook"): the
# platform's is not published, so adapt `message` to what your platform sends.
import base64
import hashlib
import hmac
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def env(name):
    value = os.environ.get(name)
    if not value:
        print(f"bot: set {name} (core sandbox prints it as an export line)", file=sys.stderr)
        sys.exit(2)
    return value


BASE_URL = env("CORE_BASE_URL").rstrip("/")
TENANT = env("CORE_TENANT")
TOKEN = env("CORE_TOKEN")
SECRET = env("CORE_WEBHOOK_SECRET")
PORT = int(os.environ.get("PORT", "3000"))

# ---- Standard Webhooks 1.0: verify before anything else ------------------------------------------

# The key is the secret's base64 part, decoded; the signed content is "<id>.<timestamp>.<raw body>".
KEY = base64.b64decode(SECRET[len("whsec_"):] if SECRET.startswith("whsec_") else SECRET)
TOLERANCE_SECONDS = 5 * 60


def verify(headers, raw_body):
    """None when the delivery is authentic and fresh, else why not. raw_body: the bytes as received."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        return "missing webhook-id, webhook-timestamp or webhook-signature"
    # A stale timestamp is a replayed delivery.
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return "timestamp too old or too new"
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    # The header may hold several space-separated "v1,<base64>" signatures (during a secret rotation).
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return None
    return "no valid signature"


# ---- the bot -------------------------------------------------------------------------------------

HANDOVER = re.compile(r"\b(human|person|agent|operator)\b", re.IGNORECASE)


def answer_to(message, webhook_id):
    """What the bot says to one customer message."""
    # One answer per webhook: a retried or redelivered webhook makes the same answerId, which the
    # platform delivers once (docs/api.md, chatbot rule 6).
    answer = {"answerId": f"answer-{webhook_id}"}
    # Chatbot rule 2: an answer to an EMAIL message is addressed by sessionId and questionIndex.
    if message["type"] == "EMAIL":
        answer.update(sessionId=message["sessionId"], questionIndex=message["questionIndex"])
    else:
        answer["questionId"] = message["questionId"]
    if HANDOVER.search(message["text"]):
        answer.update(text="Passing you to a person, one moment.", code="SWITCH_TO_HUMAN")
    else:
        answer.update(
            text=f"You said: {message['text']}",
            code="SUCCESS",
            quickReplies=[{"type": "TEXT", "text": "Talk to a person"}],
        )
    return answer


def send(answer):
    """POST /api/v1/chatbot, the same body again after a 5xx, a 429 or a network failure; the last status, 0 when unreachable."""
    data = json.dumps(answer).encode()
    status = 0
    for attempt in range(3):
        request = urllib.request.Request(
            f"{BASE_URL}/api/v1/chatbot",
            data=data,
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}", "X-Tenant-Name": TENANT},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            status = error.code
            print(f"bot: the API answered {error.code}: {error.read().decode(errors='replace')}", flush=True)
            if error.code < 500 and error.code != 429:
                return status
            time.sleep(min(int(error.headers.get("Retry-After", "1") or "1"), 5))
        except OSError as error:
            status = 0
            print(f"bot: the API could not be reached: {error}", flush=True)
            time.sleep(1)
    return status


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        problem = verify(headers, raw_body)
        if problem:
            print(f"bot: refused a delivery: {problem}", flush=True)
            self.reply(401, problem)
            return
        webhook = json.loads(raw_body)
        if webhook.get("type") != "MESSAGE":
            self.reply(204, "")
            return
        message = webhook["message"]
        print(f"bot: {message['channel']} {message['sessionId']} #{message['questionIndex']}: {message['text']}", flush=True)
        # Answer first, then acknowledge: when the API cannot take the answer now, a 503 makes the
        # platform send the webhook again, and the answerId keeps the answer from arriving twice.
        status = send(answer_to(message, headers["webhook-id"]))
        if status == 0 or status >= 500:
            self.reply(503, "the answer could not be sent; try again")
        else:
            self.reply(200, f"answered {status}")

    def reply(self, status, text):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print(f"bot listening on http://127.0.0.1:{server.server_address[1]}/webhook", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
