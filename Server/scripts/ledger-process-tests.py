#!/usr/bin/env python3
"""The credit ledger with real receipt-server processes, as several servers and a crash see it.

- Two processes, one ledger: two receipt-server processes share one ledger (an SQLite file, and a
  PostgreSQL database when RECEIPT_LEDGER_POSTGRES_URL names a server) and 50 users race for one
  transaction through both: exactly one credit, the 49 others refused (409 when they asked for it,
  listed as conflicts when they did not).
- SIGKILL under load: one server credits distinct purchases for 16 clients and is killed with
  SIGKILL mid-run; restarted on the same ledger, every credit it acknowledged (200, listed in
  `credited`) is there, held by its user, and replaying every request sent gives no conflict.
- Webhooks through a SIGKILL: the same, with --webhook-url to a local receiver that fails one
  delivery in five and checks every signature with the `standardwebhooks` package (PyPI, the
  specification's reference library); restarted, the server delivers a credit.created for every
  credit it acknowledged, every retry of an event with the same webhook-id and body.
- Two servers, one ledger, webhooks: credits through both; each event is delivered exactly once.

Usage: Server/scripts/ledger-process-tests.py RECEIPT_SERVER_BINARY
Without RECEIPT_LEDGER_POSTGRES_URL the PostgreSQL cases are skipped, or fail when CI is set.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

SERVER_DIR = Path(__file__).resolve().parents[1]
ROOT = SERVER_DIR.parent
TEST_ROOT = ROOT / "TestReceipts" / "pki" / "test-root.der"
TOKEN = "process-test-" + uuid.uuid4().hex
RACERS = 50
WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
STANDARDWEBHOOKS = "1.1.0"


class Failure(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One receipt-server process on loopback with a ledger."""

    def __init__(self, binary: str, ledger: str, log: Path, webhook_url: str | None = None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log.open("ab")
        webhooks = [] if webhook_url is None else ["--webhook-url", webhook_url, "--webhook-retry-schedule", "1s,1s,1s,1s,1s,1s,1s,1s"]
        environment = dict(os.environ, RECEIPT_SERVER_WEBHOOK_SECRET=WEBHOOK_SECRET)
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "--root", str(TEST_ROOT), "--environment", "sandbox",
             "--ledger", ledger, "--ledger-token", TOKEN, "--log-level", "warning", *webhooks],
            stdout=self.log, stderr=self.log, env=environment)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            check(self.process.poll() is None, f"receipt-server exited with {self.process.returncode} at start ({log})")
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise Failure("receipt-server did not answer /health within 60 s")

    def request(self, method: str, path: str, body: dict | None = None, timeout: float = 30) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {TOKEN}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def credits(self, user: str) -> list[str]:
        status, answer = self.request("GET", f"/v1/users/{urllib.parse.quote(user, safe='')}/credits?limit=10000")
        check(status == 200, f"GET credits of {user}: {status} {answer}")
        return [credit["transactionId"] for credit in answer["credits"]]

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
        self.log.close()


def bodies(kind: str, count: int, folder: Path, first: int) -> list[dict]:
    """COUNT distinct signed requests from ledger_bodies.py, each with its transaction id (numbered
    from FIRST) under "_transaction", which `send` leaves out."""
    out = folder / f"{kind}-{first}.jsonl"
    subprocess.run([sys.executable, str(SERVER_DIR / "scripts" / "ledger_bodies.py"), kind, str(count), str(out),
                    "--users", "16", "--first", str(first)], check=True)
    items = [json.loads(line) for line in out.read_text().splitlines()]
    for index, body in enumerate(items):
        body["_transaction"] = str(first + index)
    return items


def transaction_of(body: dict) -> str:
    return body["_transaction"]


def send(server: Server, body: dict, **extra: str) -> tuple[int, dict]:
    payload = {k: v for k, v in body.items() if not k.startswith("_")}
    payload.update(extra)
    return server.request("POST", "/v1/credits", payload)


class Receiver:
    """A webhook receiver on loopback: checks each delivery with the standardwebhooks package,
    records it, and answers 500 to one in `fail_one_in` (never, when 0)."""

    def __init__(self, fail_one_in: int = 0):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from standardwebhooks.webhooks import Webhook

        self.lock = threading.Lock()
        self.deliveries: dict[str, list[bytes]] = {}  # webhook-id -> bodies of every attempt answered 2xx or not
        self.accepted: dict[str, dict] = {}  # webhook-id -> the body of the first 2xx
        self.accepted_count: dict[str, int] = {}
        self.bad_signatures = 0
        receiver = self
        verifier = Webhook(WEBHOOK_SECRET)
        chance = random.Random(25)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {name.lower(): value for name, value in self.headers.items()}
                try:
                    verifier.verify(body, headers)
                except Exception:  # noqa: BLE001 - any refusal of the reference library
                    with receiver.lock:
                        receiver.bad_signatures += 1
                    self.send_response(400)
                    self.end_headers()
                    return
                event_id = headers["webhook-id"]
                with receiver.lock:
                    receiver.deliveries.setdefault(event_id, []).append(body)
                    fails = fail_one_in and chance.randrange(fail_one_in) == 0
                    if not fails:
                        receiver.accepted.setdefault(event_id, json.loads(body))
                        receiver.accepted_count[event_id] = receiver.accepted_count.get(event_id, 0) + 1
                self.send_response(500 if fails else 204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def credited(self) -> set[str]:
        """The transactions of every credit.created accepted."""
        with self.lock:
            return {body["data"]["transactionId"] for body in self.accepted.values() if body["type"] == "credit.created"}

    def close(self) -> None:
        self.server.shutdown()


def install_standardwebhooks() -> None:
    try:
        if importlib.metadata.version("standardwebhooks") == STANDARDWEBHOOKS:
            return
    except importlib.metadata.PackageNotFoundError:
        pass
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    f"standardwebhooks=={STANDARDWEBHOOKS}"], check=True)


# --- the cases

def two_processes_race(binary: str, ledger: str, work: Path) -> str:
    servers = [Server(binary, ledger, work / "server-a.log"), Server(binary, ledger, work / "server-b.log")]
    try:
        asked, unasked = bodies("receipt", 2, work, first=4_100_000_000_000_000)
        results: dict[str, list[tuple[int, dict]]] = {"asked": [None] * RACERS, "unasked": [None] * RACERS}
        for label, body in (("asked", asked), ("unasked", unasked)):
            barrier = threading.Barrier(RACERS)

            def racer(index: int) -> None:
                barrier.wait()
                extra = {"transactionId": transaction_of(body)} if label == "asked" else {}
                results[label][index] = send(servers[index % 2], dict(body, user=f"racer-{index}"), **extra)

            threads = [threading.Thread(target=racer, args=(i,)) for i in range(RACERS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()

        for label, body in (("asked", asked), ("unasked", unasked)):
            transaction = transaction_of(body)
            answers = results[label]
            winners = [i for i, (status, answer) in enumerate(answers)
                       if status == 200 and answer.get("credited") == [transaction]]
            check(len(winners) == 1, f"{label}: {len(winners)} credits of {transaction}, expected 1: {answers[:3]}")
            losers = [a for i, a in enumerate(answers) if i != winners[0]]
            if label == "asked":
                refused = [a for a in losers if a[0] == 409 and a[1].get("error", {}).get("code") == "creditedToAnotherUser"]
            else:
                refused = [a for a in losers if a[0] == 200 and a[1].get("conflicts") == [transaction]
                           and a[1].get("credited") == []]
            check(len(refused) == RACERS - 1, f"{label}: {len(refused)} refusals, expected {RACERS - 1}: {losers[:3]}")
            holders = [i for i in range(RACERS) if transaction in servers[i % 2].credits(f"racer-{i}")]
            check(holders == winners, f"{label}: held by racers {holders}, credited to {winners}")
        return f"2 processes, {RACERS} users x 2 transactions: 1 credit each, {RACERS - 1} refusals each"
    finally:
        for server in servers:
            server.stop()


def sigkill_under_load(binary: str, ledger: str, work: Path) -> str:
    items = bodies("receipt", 4000, work, first=4_200_000_000_000_000)
    # 16 clients until 300 credits are acknowledged, then SIGKILL with requests in flight.
    acknowledged, sent = load(Server(binary, ledger, work / "server-killed.log"), items, until=300)
    check(len(acknowledged) >= 300, f"only {len(acknowledged)} credits acknowledged before the kill")

    restarted = Server(binary, ledger, work / "server-restarted.log")
    try:
        held: dict[str, set[str]] = {}
        for user in sorted(set(acknowledged.values())):
            held[user] = set(restarted.credits(user))
        lost = [t for t, user in acknowledged.items() if t not in held[user]]
        check(not lost, f"{len(lost)} acknowledged credits lost after SIGKILL: {lost[:5]}")
        # Every request sent, answered or not, replayed: credited now or already, never a conflict.
        conflicts = []
        for body in sent:
            status, answer = send(restarted, body)
            transaction = transaction_of(body)
            if status != 200 or transaction not in answer.get("credited", []) + answer.get("alreadyCredited", []):
                conflicts.append((transaction, status, answer))
        check(not conflicts, f"{len(conflicts)} replays after the restart did not credit their user: {conflicts[:3]}")
        return f"{len(acknowledged)} credits acknowledged before SIGKILL, all kept; {len(sent)} requests replayed cleanly"
    finally:
        restarted.stop()


def load(server: Server, items: list[dict], until: int) -> tuple[dict[str, str], list[dict]]:
    """16 clients credit ITEMS through SERVER until UNTIL are acknowledged (or the items run
    out), then SERVER is killed with SIGKILL with requests in flight."""
    acknowledged: dict[str, str] = {}
    sent: list[dict] = []
    lock = threading.Lock()
    cursor = iter(items)
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            with lock:
                body = next(cursor, None)
                if body is None:
                    return
                sent.append(body)
            try:
                status, answer = send(server, body)
            except OSError:
                return
            if status == 200 and transaction_of(body) in answer.get("credited", []):
                with lock:
                    acknowledged[transaction_of(body)] = body["user"]

    clients = [threading.Thread(target=client) for _ in range(16)]
    for thread in clients:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < until and time.monotonic() < deadline:
        time.sleep(0.01)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=30)
    stop.set()
    for thread in clients:
        thread.join()
    server.log.close()
    return acknowledged, sent


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def webhooks_through_sigkill(binary: str, ledger: str, work: Path) -> str:
    receiver = Receiver(fail_one_in=5)
    try:
        items = bodies("receipt", 1500, work, first=4_300_000_000_000_000)
        acknowledged, _ = load(Server(binary, ledger, work / "server-killed.log", receiver.url), items, until=200)
        check(len(acknowledged) >= 200, f"only {len(acknowledged)} credits acknowledged before the kill")
        restarted = Server(binary, ledger, work / "server-restarted.log", receiver.url)
        try:
            # The killed server's leases run out (30 s), then the restarted one sends what it held.
            wait_for(lambda: set(acknowledged) <= receiver.credited(), 120)
            missing = set(acknowledged) - receiver.credited()
            check(not missing, f"{len(missing)} acknowledged credits never arrived as credit.created: {sorted(missing)[:5]}")
            check(receiver.bad_signatures == 0, f"{receiver.bad_signatures} deliveries failed standardwebhooks' check")
            with receiver.lock:
                changed = [event_id for event_id, attempts in receiver.deliveries.items() if len(set(attempts)) != 1]
                retried = sum(1 for attempts in receiver.deliveries.values() if len(attempts) > 1)
                events = len(receiver.deliveries)
            check(not changed, f"{len(changed)} events changed body between attempts: {changed[:3]}")
            status, failed = restarted.request("GET", "/v1/webhooks/failed")
            check(status == 200 and failed["failed"] == [], f"failed webhooks after the run: {status} {failed}")
            return (f"{len(acknowledged)} credits acknowledged before SIGKILL, each delivered as credit.created; "
                    f"{events} events, {retried} retried with the same id and body, every signature checked")
        finally:
            restarted.stop()
    finally:
        receiver.close()


def two_servers_deliver_once(binary: str, ledger: str, work: Path) -> str:
    receiver = Receiver()
    servers = [Server(binary, ledger, work / "server-a.log", receiver.url),
               Server(binary, ledger, work / "server-b.log", receiver.url)]
    try:
        items = bodies("receipt", 400, work, first=4_400_000_000_000_000)
        for index, body in enumerate(items):
            status, answer = send(servers[index % 2], body)
            check(status == 200 and answer["credited"] == [transaction_of(body)], f"credit {index}: {status} {answer}")
        wanted = {transaction_of(body) for body in items}
        wait_for(lambda: wanted <= receiver.credited(), 60)
        time.sleep(2)  # room for a duplicate to show
        check(wanted <= receiver.credited(), f"{len(wanted - receiver.credited())} credits never delivered")
        with receiver.lock:
            twice = [event_id for event_id, count in receiver.accepted_count.items() if count != 1]
            events = len(receiver.accepted_count)
        check(not twice, f"{len(twice)} events delivered more than once by two servers: {twice[:3]}")
        check(events == len(wanted), f"{events} events for {len(wanted)} credits")
        return f"{len(wanted)} credits through 2 servers: {events} events, each delivered once"
    finally:
        for server in servers:
            server.stop()
        receiver.close()


# --- ledgers

def sqlite_ledger(work: Path) -> str:
    return f"sqlite:{work / 'ledger.sqlite'}"


def postgres_ledger(work: Path) -> str:
    url = os.environ["RECEIPT_LEDGER_POSTGRES_URL"]
    database = f"ledger_process_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", f"CREATE DATABASE {database}"], check=True)
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    binary = sys.argv[1]
    stores = [("SQLite", sqlite_ledger)]
    if os.environ.get("RECEIPT_LEDGER_POSTGRES_URL"):
        stores.append(("PostgreSQL", postgres_ledger))
    elif os.environ.get("CI"):
        print("ledger-process-tests: RECEIPT_LEDGER_POSTGRES_URL is not set, and CI must test PostgreSQL "
              "(run it under Server/scripts/with-postgres)", file=sys.stderr)
        return 1
    else:
        print("ledger-process-tests: SKIPPED the PostgreSQL cases: RECEIPT_LEDGER_POSTGRES_URL is not set",
              file=sys.stderr)
    install_standardwebhooks()
    failures = 0
    for store, ledger_of in stores:
        for case in (two_processes_race, sigkill_under_load, webhooks_through_sigkill, two_servers_deliver_once):
            with tempfile.TemporaryDirectory(prefix="ledger-process-") as folder:
                work = Path(folder)
                started = time.monotonic()
                try:
                    result = case(binary, ledger_of(work), work)
                    print(f"ok   {store} {case.__name__}: {result} ({time.monotonic() - started:.1f} s)")
                except Failure as failure:
                    failures += 1
                    print(f"FAIL {store} {case.__name__}: {failure}")
                    for log in sorted(work.glob("*.log")):
                        print(f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
