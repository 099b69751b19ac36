#!/usr/bin/env python3
"""receipt-dump sign against Apple's own library, app-store-server-library (PyPI, pinned): for the
same key, inputs, nonce and time, the promotional-offer signature covers the same text and the two
JWS (promotional offer v2, introductory-offer eligibility) have the same header and payload, byte
for byte; every signature receipt-dump makes verifies with the key's public half.

Usage: scripts/offer-signature-oracle.py RECEIPT_DUMP
"""
import base64
import datetime
import importlib.metadata
import json
import subprocess
import sys
import tempfile
import uuid

LIBRARY = "3.1.2"


def install() -> None:
    try:
        if importlib.metadata.version("app-store-server-library") == LIBRARY:
            return
    except importlib.metadata.PackageNotFoundError:
        pass
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--root-user-action=ignore",
                    f"app-store-server-library=={LIBRARY}"], check=True)


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main() -> int:
    install()
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    from appstoreserverlibrary import jws_signature_creator
    from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator

    dump = sys.argv[1]
    fresh_uuid = uuid.uuid4  # the library's uuid4 is replaced below by one that answers our nonce
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = key.public_key()
    failures = []

    def check(condition: bool, what: str) -> None:
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if not condition:
            failures.append(what)

    with tempfile.NamedTemporaryFile(suffix=".p8") as key_file:
        key_file.write(pem)
        key_file.flush()
        credentials = ["--key-file", key_file.name, "--key-id", "KEY1234567", "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a",
                       "--bundle-id", "com.example.app", "--format", "json"]

        def sign(*arguments: str) -> dict:
            run = subprocess.run([dump, "sign", *arguments, *credentials], capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit(f"receipt-dump sign {' '.join(arguments)}: exit {run.returncode}: {run.stderr}")
            return json.loads(run.stdout)

        # The original promotional offer signature: the same signed text, and our signature verifies over it.
        for product, offer, account in [("com.example.monthly", "FREE_WEEK", ""), ("com.example.yearly", "WINBACK", "D5B2F8C2-9E57-4E5A-A1B1-1B6E0B2C6A10")]:
            nonce = fresh_uuid()
            ours = sign("promotional-offer", "--product", product, "--offer", offer, "--app-account-token", account,
                        "--nonce", str(nonce), "--timestamp", "1750000000000")
            captured = {}
            creator = PromotionalOfferSignatureCreator(pem, "KEY1234567", "com.example.app")
            real = creator._signing_key

            class Capturing:
                def sign(self, data, algorithm):
                    captured["text"] = data
                    return real.sign(data, algorithm)
            creator._signing_key = Capturing()
            apple = creator.create_signature(product, offer, account, nonce, 1750000000000)
            check(ours["signedText"].encode() == captured["text"], f"promotional offer {offer}: the signed text is Apple's")
            try:
                public.verify(base64.b64decode(ours["signature"]), captured["text"], ec.ECDSA(hashes.SHA256()))
                public.verify(base64.b64decode(apple), captured["text"], ec.ECDSA(hashes.SHA256()))
                check(True, f"promotional offer {offer}: our signature verifies over Apple's text")
            except Exception as error:  # noqa: BLE001
                check(False, f"promotional offer {offer}: signature does not verify: {error}")

        # The JWS: Apple's library with its nonce and clock fixed to ours.
        issued = datetime.datetime(2026, 11, 27, 12, 0, 0, tzinfo=datetime.timezone.utc)

        class FixedDateTime(datetime.datetime):
            @classmethod
            def now(cls, tz=None):
                return issued
        jws_signature_creator.datetime.datetime = FixedDateTime
        cases = [
            ("promotional offer v2 with a transaction", ["promotional-offer-v2", "--product", "com.example.monthly", "--offer", "FREE_WEEK", "--transaction-id", "2000000000000001"],
             lambda: jws_signature_creator.PromotionalOfferV2SignatureCreator(pem, "KEY1234567", "57246542-96fe-1a63-e053-0824d011072a", "com.example.app")
             .create_signature("com.example.monthly", "FREE_WEEK", "2000000000000001")),
            ("promotional offer v2 without one", ["promotional-offer-v2", "--product", "com.example.monthly", "--offer", "caf\u00e9 \"x\""],
             lambda: jws_signature_creator.PromotionalOfferV2SignatureCreator(pem, "KEY1234567", "57246542-96fe-1a63-e053-0824d011072a", "com.example.app")
             .create_signature("com.example.monthly", "caf\u00e9 \"x\"", None)),
            ("introductory offer eligibility", ["introductory-offer-eligibility", "--product", "com.example.yearly", "--allow", "false", "--transaction-id", "7"],
             lambda: jws_signature_creator.IntroductoryOfferEligibilitySignatureCreator(pem, "KEY1234567", "57246542-96fe-1a63-e053-0824d011072a", "com.example.app")
             .create_signature("com.example.yearly", False, "7")),
        ]
        for name, arguments, apple_sign in cases:
            nonce = fresh_uuid()
            jws_signature_creator.uuid.uuid4 = lambda nonce=nonce: nonce
            ours = sign(*arguments, "--nonce", str(nonce), "--issued-at", "2026-11-27T12:00:00Z")["jws"].split(".")
            apple = apple_sign().split(".")
            check(ours[0] == apple[0], f"{name}: the header is Apple's ({b64url(ours[0])!r})")
            check(ours[1] == apple[1], f"{name}: the payload is Apple's ({b64url(ours[1])!r} vs {b64url(apple[1])!r})")
            raw = b64url(ours[2])
            try:
                public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                              f"{ours[0]}.{ours[1]}".encode(), ec.ECDSA(hashes.SHA256()))
                check(len(raw) == 64, f"{name}: our ES256 signature verifies")
            except Exception as error:  # noqa: BLE001
                check(False, f"{name}: our signature does not verify: {error}")
    print(f"offer signatures: {len(failures)} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
