"""The openssl self-check: an independent CMS implementation agrees that each fixture is broken
only in the advertised way (OpenSSL knows no Apple markers, budget, key policy or label check,
so several checks are informational)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ATTIME = str(int(dt.datetime(2025, 6, 1, 12, tzinfo=dt.timezone.utc).timestamp()))

# (fixture, CA file, attime, expected: True=verify OK, False=verify fails, None=informational)
CHECKS: list[tuple[str, str, str, bool | None]] = [
    ("receipts/sample.receipt", "test-root.pem", ATTIME, True),
    ("receipts/sha1.receipt", "test-root.pem", ATTIME, True),
    ("receipts/signed-attributes.receipt", "test-root.pem", ATTIME, True),
    ("receipts/storekit.receipt", "storekit-test.pem", ATTIME, True),
    ("receipts/tampered-payload.receipt", "test-root.pem", ATTIME, False),
    ("receipts/subject-key-id.receipt", "test-root.pem", ATTIME, True),
    ("receipts/no-in-app.receipt", "test-root.pem", ATTIME, True),
    ("receipts/tampered-signature.receipt", "test-root.pem", ATTIME, False),
    ("receipts/two-signers.receipt", "test-root.pem", ATTIME, True),  # both signers are correct
    ("receipts/signer-not-in-certificates.receipt", "test-root.pem", ATTIME, False),
    ("receipts/content-type-not-data.receipt", "test-root.pem", ATTIME, None),
    ("receipts/signed-attributes-bad-digest.receipt", "test-root.pem", ATTIME, False),
    ("receipts/sha512-digest.receipt", "test-root.pem", ATTIME, True),  # the signature itself is fine
    ("receipts/rogue-signer.receipt", "test-root.pem", ATTIME, True),  # openssl ignores Apple OIDs
    ("receipts/intermediate-without-oid.receipt", "test-root.pem", ATTIME, True),
    ("receipts/wrong-root.receipt", "test-root.pem", ATTIME, False),
    ("receipts/wrong-root.receipt", "other-root.pem", ATTIME, True),
    ("receipts/self-signed-signer.receipt", "test-root.pem", ATTIME, False),
    ("receipts/expired-at-creation.receipt", "test-root.pem", "1798761600", False),  # 2027-01-01
    ("receipts/not-yet-valid-at-creation.receipt", "test-root.pem", "1685577600", False),  # 2023-06-01
    ("receipts/expired-at-creation.receipt", "test-root.pem", ATTIME, True),
    ("receipts/no-creation-date.receipt", "test-root.pem", ATTIME, True),
    ("receipts/bad-creation-date.receipt", "test-root.pem", ATTIME, True),
    ("receipts/bad-purchase-date.receipt", "test-root.pem", ATTIME, True),
    ("receipts/wrong-value-type.receipt", "test-root.pem", ATTIME, True),
    ("receipts/integer-overflow.receipt", "test-root.pem", ATTIME, True),
    ("receipts/duplicate-bundle-id.receipt", "test-root.pem", ATTIME, True),
    ("receipts/payload-not-a-set.receipt", "test-root.pem", ATTIME, True),
    ("hostile/ec-signer.receipt", "test-root.pem", ATTIME, True),
    # OpenSSL takes the first certificate matching name and key identifier (the fake) and does
    # not try the next, so it fails both; ours tries up to the budget.
    ("hostile/budget-one-fake.receipt", "test-root.pem", ATTIME, None),
    ("hostile/budget-eight-fakes.receipt", "test-root.pem", ATTIME, None),
    ("hostile/ecdsa-label-rsa-signature.receipt", "test-root.pem", ATTIME, None),
    ("hostile/rsa-label-ec-signer.receipt", "test-root.pem", ATTIME, None),  # OpenSSL goes by the key, not the label
]


def openssl_check(out: Path, files: list[str], sample_payload: bytes) -> bool:
    exe = shutil.which("openssl")
    if exe is None:
        print("openssl not found; self-check skipped")
        return True
    ok = True

    def run(args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([exe, *args], capture_output=True, text=True)

    def verify(f: str, ca: str, attime: str, *extra: str) -> subprocess.CompletedProcess:
        return run(["cms", "-verify", *extra, "-inform", "DER", "-in", str(out / f), "-CAfile", str(out / "pki" / ca),
                    "-purpose", "any", "-attime", attime, "-out", os.devnull])

    for f in (f for f in files if f.endswith(".receipt")):
        r = run(["asn1parse", "-inform", "DER", "-in", str(out / f)])
        if r.returncode != 0:
            ok = False
            print(f"  FAIL asn1parse {f}: {r.stderr.strip()}")
    print("  asn1parse: all *.receipt parsed" if ok else "  asn1parse: failures above")

    for f, ca, attime, expected in CHECKS:
        r = verify(f, ca, attime)
        verified = r.returncode == 0
        err = (r.stderr.strip().splitlines() or [""])[-1] if not verified else ""
        status = "info" if expected is None else "ok  " if verified == expected else "FAIL"
        ok &= status != "FAIL"
        print(f"  {status} cms -verify {f:50s} CA={ca:18s} -> {'verified' if verified else 'failed: ' + err[:80]}")

    # detached.receipt verifies when the sample payload is supplied as external content.
    with tempfile.NamedTemporaryFile(delete=False) as tmp:
        tmp.write(sample_payload)
    try:
        r = verify("receipts/detached.receipt", "test-root.pem", ATTIME, "-binary", "-content", tmp.name)
    finally:
        os.unlink(tmp.name)
    ok &= r.returncode == 0
    print(f"  {'ok  ' if r.returncode == 0 else 'FAIL'} cms -verify receipts/detached.receipt with -content "
          f"<sample payload> -> {'verified' if r.returncode == 0 else 'failed'}")
    return ok
