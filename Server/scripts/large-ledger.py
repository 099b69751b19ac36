#!/usr/bin/env python3
"""Fills an SQLite ledger with COUNT subscriptions, for the scale figures in BENCHMARKS.md: each a
monthly auto-renewable subscription (one purchase, one renewal), with both transactions' snapshots,
its renewal info, a notification logged, and an owner: users own 10 subscriptions each, half
through a credit of the purchase, half through the appAccountToken their purchases carry.

The rows are what the server itself writes (the snapshots are the JSON `SubscriptionSnapshot`
keeps); the file must already have the server's schema: run receipt-server once with
--ledger sqlite:FILE, or let this script do it with --server.

With --webhook-backlog USERS:EVENTS it also leaves USERS users EVENTS webhook events each, as
while their receiver is down: the first tried once and in backoff for a day, the rest behind it
(waiting, or due where the schema predates v7-webhook-waiting, as servers then wrote them).

Usage: Server/scripts/large-ledger.py FILE COUNT [--server PATH/TO/receipt-server] [--webhook-backlog USERS:EVENTS]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import time
import uuid
from datetime import datetime, timedelta, timezone

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def snapshot(fields: dict) -> bytes:
    return json.dumps(fields, separators=(",", ":"), sort_keys=True).encode()


def rows(index: int):
    original = str(5_000_000_000_000_000 + index * 2)
    renewal = str(5_000_000_000_000_000 + index * 2 + 1)
    user = f"user-{index // 10}"
    token = str(uuid.uuid5(uuid.NAMESPACE_URL, "large-ledger/" + user))
    bought = T0 + timedelta(minutes=index % 500_000)
    renewed = bought + timedelta(days=30)
    product = ("pro.monthly", "pro.yearly", "plus.monthly")[index % 3]
    transactions = []
    for transaction_id, purchase in ((original, bought), (renewal, renewed)):
        fields = {"transactionId": transaction_id, "originalTransactionId": original, "productId": product,
                  "bundleId": "com.example.receiptparser.sample", "type": "Auto-Renewable Subscription",
                  "purchaseDate": rfc3339(purchase), "originalPurchaseDate": rfc3339(bought),
                  "expiresDate": rfc3339(purchase + timedelta(days=30)), "signedDate": rfc3339(purchase),
                  "environment": "Sandbox", "inAppOwnershipType": "PURCHASED", "subscriptionGroupIdentifier": "21000001",
                  "appAccountToken": token}
        transactions.append((transaction_id, purchase, fields))
    renewal_info = {"originalTransactionId": original, "autoRenewProductId": product, "autoRenewStatus": 1,
                    "isInBillingRetryPeriod": False, "signedDate": rfc3339(renewed), "environment": "Sandbox"}
    return original, user, token, renewed, transactions, renewal_info


WAITING = 2**63 - 1  # LedgerSQL.waitingBehindEarlierEvent


def webhook_backlog(db: sqlite3.Connection, users: int, events: int) -> None:
    waits = db.execute("SELECT 1 FROM ledger_schema_migrations WHERE identifier = 'v7-webhook-waiting'").fetchone() is not None
    now = int(time.time() * 1000)
    rows = []
    for index in range(users * events):
        user, position = f"backlog-user-{index % users}", index // users
        created = now - users * events + index
        body = json.dumps({"id": f"evt-{index}", "type": "credit.created", "data": {"user": user, "transactionId": str(index)}}).encode()
        first = position == 0
        rows.append((f"msg_{created:013d}{index:010d}0000{random.getrandbits(64):016x}", user, "credit.created", body, created,
                     1 if first else 0, now + 86_400_000 if first else (WAITING if waits else created), "HTTP 503" if first else None))
        if len(rows) == 20_000 or index == users * events - 1:
            db.executemany("INSERT INTO ledger_webhook_events (event_id, user_id, event_type, body, created_at_ms, state, attempts,"
                           " next_attempt_at_ms, last_error) VALUES (?,?,?,?,?,'pending',?,?,?)", rows)
            db.commit()
            rows = []
    print(f"{users * events} webhook events for {users} users, each behind one in backoff ({'waiting' if waits else 'due'})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("count", type=int)
    parser.add_argument("--server")
    parser.add_argument("--webhook-backlog")
    args = parser.parse_args()
    if args.server:
        server = subprocess.Popen([args.server, "--port", "0", "--environment", "sandbox", "--ledger", f"sqlite:{args.file}",
                                   "--ledger-token", "large-ledger-token-0123456789", "--log-level", "error"])
        time.sleep(3)  # migrated at start
        server.terminate()
        server.wait()
    started = time.monotonic()
    db = sqlite3.connect(args.file)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA journal_mode = WAL")
    seen_ms = ms(datetime(2026, 1, 1, tzinfo=timezone.utc))
    # v9 keeps whether each snapshot entitles and its purchase date beside it; a ledger before has neither.
    picks_latest = any(column[1] == "entitles" for column in db.execute("PRAGMA table_info(ledger_transaction_snapshots)"))
    batch = 20_000
    for first in range(0, args.count, batch):
        tx, snaps, renewals, users, owners, credits, notes = [], [], [], [], [], [], []
        for index in range(first, min(first + batch, args.count)):
            original, user, token, renewed, transactions, renewal_info = rows(index)
            through_credit = (index // 10) % 2 == 0
            for transaction_id, purchase, fields in transactions:
                tx.append((transaction_id, original, fields["productId"], fields["bundleId"], "Sandbox", ms(purchase),
                           ms(purchase + timedelta(days=30)), "jws", None if through_credit else token, seen_ms, original))
                snaps.append((transaction_id, original, ms(purchase), snapshot(fields)) + ((1, ms(purchase)) if picks_latest else ()))
            renewals.append((original, ms(renewed), snapshot(renewal_info)))
            if index % 10 == 0:
                users.append((user, token))
            if through_credit:
                owners.append((original, user, seen_ms))
                credits.append((original, user, seen_ms))
            notes.append((str(uuid.uuid5(uuid.NAMESPACE_URL, original)), "DID_RENEW", None, ms(renewed), original, transactions[1][0],
                          1, 0, seen_ms, seen_ms))
        db.executemany("INSERT INTO ledger_transactions (transaction_id, original_transaction_id, product_id, bundle_id, environment,"
                       " purchase_date_ms, expires_date_ms, source, app_account_token, first_seen_at_ms, subscription_key)"
                       " VALUES (?,?,?,?,?,?,?,?,?,?,?)", tx)
        db.executemany("INSERT INTO ledger_transaction_snapshots (transaction_id, original_transaction_id, signed_date_ms, snapshot"
                       + (", entitles, purchase_date_ms) VALUES (?,?,?,?,?,?)" if picks_latest else ") VALUES (?,?,?,?)"), snaps)
        db.executemany("INSERT INTO ledger_renewal_snapshots (original_transaction_id, signed_date_ms, snapshot) VALUES (?,?,?)", renewals)
        db.executemany("INSERT INTO ledger_users (user_id, app_account_token) VALUES (?,?)", users)
        db.executemany("INSERT INTO ledger_subscription_owners (subscription_key, user_id, since_ms) VALUES (?,?,?)", owners)
        db.executemany("INSERT INTO ledger_credits (transaction_id, user_id, credited_at_ms) VALUES (?,?,?)", credits)
        db.executemany("INSERT INTO ledger_notifications (notification_uuid, notification_type, subtype, signed_date_ms,"
                       " original_transaction_id, transaction_id, deliveries, stale, first_received_at_ms, last_received_at_ms)"
                       " VALUES (?,?,?,?,?,?,?,?,?,?)", notes)
        db.commit()
    if args.webhook_backlog:
        webhook_backlog(db, *map(int, args.webhook_backlog.split(":")))
    db.execute("ANALYZE")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"{args.count} subscriptions ({args.count // 10} users) written to {args.file} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
