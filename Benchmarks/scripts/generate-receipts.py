#!/usr/bin/env python3
"""Generate the benchmark receipts into Benchmarks/.receipts/ (git-ignored).

    python3 Benchmarks/scripts/generate-receipts.py [--batch N [--entries E]]

Writes inapp-1.receipt, inapp-10, inapp-100, inapp-1000 and inapp-10000.receipt: App Store
shaped receipts whose payload carries that many in-app entries (subscription renewals and
consumables with realistic identifiers and dates), signed by the test PKI in
TestReceipts/pki (test-signer <- test-intermediate <- test-root, SHA-256). With --batch N it
also writes N small receipts (1 to 8 entries each) into .receipts/batch-N/ for the receipt-dump
directory measurements; with --entries E as well, N copies of one receipt of E entries (the
payload of inapp-E.receipt) into .receipts/batch-NxE/, for measuring a batch of large receipts.

Reuses the DER encoder and PKCS #7 builder of TestReceipts/generator; reads the committed
certificates and keys, writes nothing under TestReceipts/.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "TestReceipts"))
from generator.der import ia5, integer, utf8  # noqa: E402
from generator.payload import OPAQUE_VALUE, Attr, encode_attrs, sha1_hash  # noqa: E402
from generator.pkcs7 import simple_receipt  # noqa: E402
from generator.pki import load_cert  # noqa: E402

OUT = HERE.parent / ".receipts"
PKI = ROOT / "TestReceipts" / "pki"
COUNTS = [1, 10, 100, 1000, 10000]


def date(index: int, base_day: int = 0) -> str:
    day = base_day + index
    year, rest = 2019 + day // 336, day % 336
    return f"{year:04d}-{rest // 28 + 1:02d}-{rest % 28 + 1:02d}T{index % 24:02d}:{index * 7 % 60:02d}:{index * 13 % 60:02d}Z"


def entry(index: int) -> list[Attr]:
    """One in-app entry: mostly monthly subscription renewals, every fifth a consumable."""
    subscription = index % 5 != 0
    transaction = f"{1000000000000000 + index * 7919}"
    original = f"{1000000000000000}" if subscription else transaction
    product = "com.example.receiptparser.pro.monthly" if subscription else "com.example.receiptparser.coins.100"
    attrs: list[Attr] = [
        (1701, 1, integer(1)),
        (1702, 1, utf8(product)),
        (1703, 1, utf8(transaction)),
        (1704, 1, ia5(date(index))),
        (1705, 1, utf8(original)),
        (1706, 1, ia5(date(0))),
        (1707, 1, integer(3 if subscription else 0)),
        (1708, 1, ia5(date(index, 28) if subscription else "")),
        (1711, 1, integer(1000000012345678 + index if subscription else 0)),
        (1712, 1, ia5("")),
        (1713, 1, integer(1 if index == 1 else 0)),
        (1719, 1, integer(0)),
    ]
    return attrs


def payload(count: int) -> bytes:
    bundle = utf8("com.example.receiptparser.benchmark")
    attrs: list[Attr] = [
        (0, 1, utf8("Production")),
        (1, 1, integer(1234567890)),
        (2, 1, bundle),
        (3, 1, utf8("4.2.1")),
        (4, 1, OPAQUE_VALUE),
        (5, 1, sha1_hash(bundle)),
        (10, 1, ia5("4+")),
        (12, 1, ia5("2025-06-01T12:00:00Z")),
        (15, 1, integer(98765432101)),
        (16, 1, integer(834567890)),
        (18, 1, ia5("2019-01-01T07:00:00Z")),
        (19, 1, utf8("1.0")),
    ]
    attrs += [(17, 1, encode_attrs(entry(i))) for i in range(count)]
    return encode_attrs(attrs)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=0, help="also write N small receipts into .receipts/batch-N/")
    parser.add_argument("--entries", type=int, default=0,
                        help="with --batch: N receipts of E entries each instead, into .receipts/batch-NxE/")
    args = parser.parse_args()
    signer, intermediate, root = (load_cert(PKI, name) for name in ("test-signer", "test-intermediate", "test-root"))
    OUT.mkdir(exist_ok=True)
    for count in COUNTS:
        path = OUT / f"inapp-{count}.receipt"
        data = simple_receipt(payload(count), signer, [intermediate, root])
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}: {len(data)} bytes")
    if args.batch and args.entries:
        batch = OUT / f"batch-{args.batch}x{args.entries}"
        batch.mkdir(exist_ok=True)
        # One signature for all: the copies cost the same to verify and decode as distinct ones.
        data = simple_receipt(payload(args.entries), signer, [intermediate, root])
        for index in range(args.batch):
            path = batch / f"receipt-{index:05d}.receipt"
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
        print(f"{batch.relative_to(ROOT)}: {args.batch} receipts of {args.entries} entries, {len(data)} bytes each")
    elif args.batch:
        batch = OUT / f"batch-{args.batch}"
        batch.mkdir(exist_ok=True)
        payloads = {n: payload(n) for n in range(1, 9)}
        for index in range(args.batch):
            path = batch / f"receipt-{index:05d}.receipt"
            if not path.exists():
                path.write_bytes(simple_receipt(payloads[index % 8 + 1], signer, [intermediate, root]))
        print(f"{batch.relative_to(ROOT)}: {args.batch} receipts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
