#!/usr/bin/env python3
"""The credit ledger with real receipt-server processes, as several servers and a crash see it.

- Two processes, one ledger: two receipt-server processes share one ledger (an SQLite file, and a
  PostgreSQL database when RECEIPT_LEDGER_POSTGRES_URL names a server) and 50 users race for one
  transaction through both: exactly one credit, the 49 others refused (409 when they asked for it,
  listed as conflicts when they did not).
- SIGKILL under load: one server credits distinct purchases for 16 clients and is killed with
  SIGKILL mid-run; restarted on the same ledger, every credit it acknowledged (200, listed in
  `credited`) is there, held by its user, and replaying every request sent gives no conflict.

Usage: Server/scripts/ledger-process-tests.py RECEIPT_SERVER_BINARY
Without RECEIPT_LEDGER_POSTGRES_URL the PostgreSQL cases are skipped, or fail when CI is set.
"""

from __future__ import annotations

import json
import os
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

    def __init__(self, binary: str, ledger: str, log: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "--root", str(TEST_ROOT), "--environment", "sandbox",
             "--ledger", ledger, "--ledger-token", TOKEN, "--log-level", "warning"],
            stdout=self.log, stderr=self.log)
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
    server = Server(binary, ledger, work / "server-killed.log")
    acknowledged: dict[str, str] = {}  # transaction -> user, for every 200 that listed it as credited
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
                return  # the server is gone: the answer to this request is unknown
            if status == 200 and transaction_of(body) in answer.get("credited", []):
                with lock:
                    acknowledged[transaction_of(body)] = body["user"]

    clients = [threading.Thread(target=client) for _ in range(16)]
    for thread in clients:
        thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 300 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.process.send_signal(signal.SIGKILL)  # mid-run: 16 requests are in flight
    server.process.wait(timeout=30)
    stop.set()
    for thread in clients:
        thread.join()
    server.log.close()
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
    failures = 0
    for store, ledger_of in stores:
        for case in (two_processes_race, sigkill_under_load):
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
