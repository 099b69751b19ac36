#!/usr/bin/env python3
"""Fills an SQLite ledger with COUNT subscriptions, for the scale figures in BENCHMARKS.md: each a
monthly auto-renewable subscription (one purchase, one renewal), with both transactions' snapshots,
its renewal info, a notification logged, and an owner: users own 10 subscriptions each, half
through a credit of the purchase, half through the appAccountToken their purchases carry.

The rows are what the server itself writes (the snapshots are the JSON `SubscriptionSnapshot`
keeps); the file must already have the server's schema: run receipt-server once with
--ledger sqlite:FILE, or let this script do it with --server.

Usage: Server/scripts/large-ledger.py FILE COUNT [--server PATH/TO/receipt-server]
"""

from __future__ import annotations

import argparse
import json
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("count", type=int)
    parser.add_argument("--server")
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
    batch = 20_000
    for first in range(0, args.count, batch):
        tx, snaps, renewals, users, owners, credits, notes = [], [], [], [], [], [], []
        for index in range(first, min(first + batch, args.count)):
            original, user, token, renewed, transactions, renewal_info = rows(index)
            through_credit = (index // 10) % 2 == 0
            for transaction_id, purchase, fields in transactions:
                tx.append((transaction_id, original, fields["productId"], fields["bundleId"], "Sandbox", ms(purchase),
                           ms(purchase + timedelta(days=30)), "jws", None if through_credit else token, seen_ms, original))
                snaps.append((transaction_id, original, ms(purchase), snapshot(fields)))
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
        db.executemany("INSERT INTO ledger_transaction_snapshots (transaction_id, original_transaction_id, signed_date_ms, snapshot)"
                       " VALUES (?,?,?,?)", snaps)
        db.executemany("INSERT INTO ledger_renewal_snapshots (original_transaction_id, signed_date_ms, snapshot) VALUES (?,?,?)", renewals)
        db.executemany("INSERT INTO ledger_users (user_id, app_account_token) VALUES (?,?)", users)
        db.executemany("INSERT INTO ledger_subscription_owners (subscription_key, user_id, since_ms) VALUES (?,?,?)", owners)
        db.executemany("INSERT INTO ledger_credits (transaction_id, user_id, credited_at_ms) VALUES (?,?,?)", credits)
        db.executemany("INSERT INTO ledger_notifications (notification_uuid, notification_type, subtype, signed_date_ms,"
                       " original_transaction_id, transaction_id, deliveries, stale, first_received_at_ms, last_received_at_ms)"
                       " VALUES (?,?,?,?,?,?,?,?,?,?)", notes)
        db.commit()
    db.execute("ANALYZE")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"{args.count} subscriptions ({args.count // 10} users) written to {args.file} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
