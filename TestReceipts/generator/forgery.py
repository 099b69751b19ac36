"""Certificates an attacker with a developer account could put in a receipt, written by hand.

No private halves are needed: every "random" number comes from SHAKE-256 of a fixed label, so
the hostile fixtures regenerate byte-identically. The EC keys come from fixed scalars, and
ECDSA signatures are deterministic (RFC 6979).
"""

from __future__ import annotations

import hashlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from . import oids
from .der import NULL, TRUE, bit_string, explicit, integer, octet, oid, seq, tlv, utctime
from .pki import Cert, apple_marker, authority_key_id, key_usage, name, utc


def det_bytes(label: str, count: int) -> bytes:
    return hashlib.shake_256(label.encode()).digest(count)


def det_odd(label: str, bits: int) -> int:
    """A deterministic odd number of exactly `bits` bits (not a real RSA modulus: none is needed)."""
    n = int.from_bytes(det_bytes(label, (bits + 7) // 8), "big")
    n &= (1 << bits) - 1
    return n | (1 << (bits - 1)) | 1


def rsa_spki(modulus: int, exponent: int) -> bytes:
    return seq(oids.RSA_ENCRYPTION_ALG, bit_string(seq(integer(modulus), integer(exponent))))


def p521_spki() -> bytes:
    """An EC P-521 public key (outside the key policy: only P-256 and P-384)."""
    key = ec.derive_private_key(int.from_bytes(det_bytes("p521/key", 64), "big") % (1 << 520), ec.SECP521R1())
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def fake_intermediate(label: str, serial: int, spki: bytes, inter: Cert) -> bytes:
    """A CA certificate claiming test-intermediate's name, issuer and key identifier, with the
    WWDR marker, but another key and a signature of random bytes."""
    extensions = seq(
        seq(oid(oids.BASIC_CONSTRAINTS), TRUE, octet(seq(TRUE))),
        seq(oid(oids.KEY_USAGE), TRUE, octet(tlv(0x03, b"\x01\x06"))),  # keyCertSign, cRLSign
        seq(oid(oids.SUBJECT_KEY_ID), octet(octet(inter.ski))),
        seq(oid(oids.APPLE_WWDR_INTERMEDIATE), octet(NULL)),
    )
    tbs = seq(
        explicit(0, integer(2)),
        integer(serial),
        oids.alg_id(oids.SHA256_WITH_RSA),
        inter.issuer_der,
        seq(utctime("200101000000Z"), utctime("400101000000Z")),
        inter.subject_der,
        spki,
        explicit(3, extensions),
    )
    return seq(tbs, oids.alg_id(oids.SHA256_WITH_RSA), bit_string(det_bytes(label + "/signature", 256)))


def fake_intermediates(label: str, count: int, spki_of, inter: Cert) -> list[bytes]:
    """`count` forged intermediates; `spki_of(label)` gives each its key."""
    return [fake_intermediate(f"{label}/{k}", 0x2F00 + k, spki_of(f"{label}/{k}"), inter) for k in range(count)]


def ec_signer(inter: Cert) -> tuple[ec.EllipticCurvePrivateKey, bytes]:
    """A receipt-signing certificate (DER) with a P-256 key from a fixed scalar, issued by
    test-intermediate, and its key."""
    key = ec.derive_private_key(int.from_bytes(det_bytes("ec-signer/key", 31), "big"), ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("ReceiptParser Test EC Receipt Signing", "ReceiptParser Tests"))
        .issuer_name(inter.cert.subject)
        .public_key(key.public_key())
        .serial_number(0x3101)
        .not_valid_before(utc(2024, 1, 1))
        .not_valid_after(utc(2026, 1, 1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(key_usage("digital_signature"), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(authority_key_id(inter), critical=False)
        .add_extension(apple_marker(oids.APPLE_RECEIPT_SIGNING), critical=False)
        .sign(inter.key, hashes.SHA256())
    )
    return key, cert.public_bytes(serialization.Encoding.DER)
