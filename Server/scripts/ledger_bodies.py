#!/usr/bin/env python3
"""Distinct credit requests for the ledger's load run and crash test, one JSON body per line.

Each body is `{"user": ..., "receipt-data": ...}` (a receipt with one consumable purchase),
`{"user": ..., "signedTransaction": ...}` (a StoreKit 2 transaction) or `{"signedPayload": ...}`
(an App Store Server Notification: SUBSCRIBED to a new monthly subscription, with its transaction
and renewal info, carrying the appAccountToken of its user, `app_account_token(user)`), signed by the test PKI
(TestReceipts/pki) exactly as the fixtures are, with a transaction id of its own: every request
of a load run is a new credit, not a replay. Users cycle over USERS names.

Usage: Server/scripts/ledger_bodies.py {receipt|jws|notification} COUNT OUT [--users N] [--first ID]
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import uuid
from multiprocessing import Pool
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

TEST_RECEIPTS = Path(__file__).resolve().parents[2] / "TestReceipts"
sys.path.insert(0, str(TEST_RECEIPTS))

from generator.jws_fixture import JWSKit  # noqa: E402
from generator.payload import encode_attrs, in_app_entry, sample_attrs  # noqa: E402
from generator.pki import Cert, load_cert, load_key  # noqa: E402
from generator.pkcs7 import simple_receipt  # noqa: E402
from generator.storekit2 import DROP, notification, notification_data, plain_renewal_info, plain_transaction  # noqa: E402

PKI = TEST_RECEIPTS / "pki"


def transaction_id(first: int, index: int) -> str:
    return str(first + index)


def receipt_body(user: str, transaction: str) -> dict:
    purchase = in_app_entry(1, "com.example.coins.100", transaction, "2025-05-01T10:00:00Z",
                            "2025-05-01T10:00:00Z", 1)
    payload = encode_attrs(sample_attrs([purchase]))
    receipt = simple_receipt(payload, RECEIPT_SIGNER, RECEIPT_CHAIN)
    return {"user": user, "receipt-data": base64.b64encode(receipt).decode()}


def jws_body(user: str, transaction: str) -> dict:
    payload = plain_transaction(transactionId=transaction, originalTransactionId=transaction,
                                productId="com.example.coins.100", type="Consumable", expiresDate=DROP,
                                webOrderLineItemId=DROP, subscriptionGroupIdentifier=DROP)
    return {"user": user, "signedTransaction": JWS_KIT.token(payload)}


def app_account_token(user: str) -> str:
    """The appAccountToken a load run binds to USER (PUT /v1/users/USER) and its purchases carry."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "receipt-parser-load/" + user))


def notification_body(user: str, transaction: str) -> dict:
    token = app_account_token(user)
    signed_transaction = JWS_KIT.token(plain_transaction(transactionId=transaction, originalTransactionId=transaction,
                                                         appAccountToken=token))
    renewal = JWS_KIT.token(plain_renewal_info(originalTransactionId=transaction, appAccountToken=token))
    data = dict(notification_data(), signedTransactionInfo=signed_transaction, signedRenewalInfo=renewal)
    payload = notification("SUBSCRIBED", "INITIAL_BUY", "data", data, uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, transaction)))
    return {"signedPayload": JWS_KIT.token(payload)}


def ec_cert(name: str) -> Cert:
    der = (PKI / f"{name}.der").read_bytes()
    return Cert(name, load_key(PKI / f"{name}.key.pem", ec.EllipticCurvePrivateKey),
                x509.load_der_x509_certificate(der), der)


RECEIPT_SIGNER = load_cert(PKI, "test-signer")
RECEIPT_CHAIN = [load_cert(PKI, "test-intermediate"), load_cert(PKI, "test-root")]
JWS_KIT = JWSKit({name: ec_cert(name) for name in ("jws-leaf", "jws-intermediate", "jws-root")})
KINDS = {"receipt": receipt_body, "jws": jws_body, "notification": notification_body}


def line(job: tuple[str, int, int, int]) -> str:
    kind, first, users, index = job
    body = KINDS[kind](f"user-{index % users}", transaction_id(first, index))
    return json.dumps(body, separators=(",", ":"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("count", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--first", type=int, default=3_000_000_000_000_000)
    args = parser.parse_args()
    jobs = [(args.kind, args.first, args.users, i) for i in range(args.count)]
    with Pool() as pool, args.out.open("w") as out:
        for text in pool.imap(line, jobs, chunksize=256):
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
