"""Words a hostile fixture's probe is written in: an independent reading of the file's bytes
(json, base64, `cryptography`), nothing the generator made the tokens with. A probe is declared
beside its builder (`jws_fixture.probe`) and run by the self-check."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from .jws_rules import N, kind_of


def parts_of(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").strip(" \t\r\n").split(".")


def seg(data: bytes, i: int) -> bytes:
    text = parts_of(data)[i]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header(data: bytes) -> dict:
    return json.loads(seg(data, 0))


def payload_text(data: bytes) -> bytes:
    return seg(data, 1)


def first_dup(raw: bytes) -> list[str]:
    found: list[str] = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        found.extend(k for k in set(keys) if keys.count(k) > 1)
        return dict(pairs)
    json.loads(raw, object_pairs_hook=hook)
    return found


def sig(data: bytes) -> bytes:
    return seg(data, 2)


def is_der(b: bytes) -> bool:
    try:
        decode_dss_signature(b)
        return True
    except ValueError:
        return False


def x5c_of(data: bytes) -> list:
    return header(data)["x5c"]


def cert_name(data: bytes, index: int) -> str:
    return x509.load_der_x509_certificate(base64.b64decode(x5c_of(data)[index])).subject.rfc4514_string()


def nested_payload(data: bytes, member: str = "signedTransactionInfo") -> dict:
    return json.loads(seg(json.loads(payload_text(data))["data"][member].encode(), 1))


def pl(data: bytes) -> dict:
    return json.loads(payload_text(data))


def token_payload(token: str) -> dict:
    return json.loads(seg(token.encode(), 1))


def app_nested(data: bytes) -> dict:
    return token_payload(pl(data)["appData"]["signedAppTransactionInfo"])


def member_kind(data: bytes, member: str) -> str | None:
    return kind_of(token_payload(json.loads(data)[member]))


def es256_valid(token: str) -> bool:
    """Whether the token's signature verifies with its x5c[0]'s key (nothing else is checked)."""
    h, p, _ = token.split(".")
    key = x509.load_der_x509_certificate(base64.b64decode(header(token.encode())["x5c"][0])).public_key()
    raw = sig(token.encode())
    try:
        key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                   f"{h}.{p}".encode(), ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def leaf_key(data: bytes):
    return x509.load_der_x509_certificate(base64.b64decode(x5c_of(data)[0])).public_key()


def signing_input(data: bytes) -> bytes:
    h, p, _ = parts_of(data)
    return f"{h}.{p}".encode()


def signed_by_leaf(data: bytes, raw: bytes | None = None) -> bool:
    """Whether the token's signature (or `raw`) verifies with x5c[0]'s key over its signing input."""
    return verifies(leaf_key(data), signing_input(data), sig(data) if raw is None else raw)


def verifies(key, message: bytes, raw: bytes, digest: hashes.HashAlgorithm | None = None) -> bool:
    """Whether `raw` (r ‖ s, or DER) is a valid ECDSA signature of `message` by `key`."""
    der = raw if is_der(raw) else encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(digest or hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def cert_key(out: Path, name: str):
    return x509.load_der_x509_certificate((out / "pki" / f"{name}.der").read_bytes()).public_key()


def jwk_key(jwk: dict):
    coordinate = lambda c: int.from_bytes(base64.urlsafe_b64decode(jwk[c] + "=" * (-len(jwk[c]) % 4)), "big")
    return ec.EllipticCurvePublicNumbers(coordinate("x"), coordinate("y"), ec.SECP256R1()).public_key()


def nested_token(data: bytes, member: str = "signedTransactionInfo") -> str:
    return pl(data)["data"][member]


def s_is_high(data: bytes) -> bool:
    return int.from_bytes(sig(data)[32:], "big") > N // 2
