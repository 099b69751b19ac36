#!/usr/bin/env python3
"""Generate the synthetic App Store receipt test fixtures.

Usage (from the repository root):

    python3 TestReceipts/generate.py            # (re)generate + openssl self-check
    python3 TestReceipts/generate.py --no-check  # (re)generate only

Needs Python >= 3.11 and the `cryptography` package; the optional self-check
needs the `openssl` CLI on PATH.

Everything is written next to this script:

    pki/NAME.key.pem   RSA-2048 private keys (PKCS#8 PEM, unencrypted); reused if present
    pki/NAME.der       certificates (DER); NAME.pem as well for the trust roots
    receipts/...       the fixtures, plus SHA256SUMS
    hostile/...        hostile fixtures (forged certificates, bombs), plus SHA256SUMS
    README.md          the fixture table (generated from FIXTURES below)

Keys are the only source of randomness.  Certificates use fixed names, serials
and validity periods, and RSA PKCS#1 v1.5 signatures are deterministic, so with
the keys in pki/ every run reproduces byte-identical certificates and receipts.

The PKCS#7 / receipt structures are encoded by the tiny DER encoder below on
purpose (and not with cryptography's pkcs7 builder): many fixtures are
deliberately malformed, and the exact byte layout matters (unsorted SETs,
certificate order, BER indefinite lengths, ...).
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HERE = Path(__file__).resolve().parent
PKI_DIR = HERE / "pki"
OUT_DIR = HERE / "receipts"
HOSTILE_DIR = HERE / "hostile"
README = HERE / "README.md"

# --------------------------------------------------------------------------
# Minimal DER / BER encoder
# --------------------------------------------------------------------------


def der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + der_len(len(content)) + content


def ber_indef(tag: int, content: bytes) -> bytes:
    """Constructed encoding with indefinite length (BER): tag 80 ... 00 00."""
    return bytes([tag, 0x80]) + content + b"\x00\x00"


def integer(n: int) -> bytes:
    if n < 0:
        raise ValueError("only non-negative INTEGERs are needed here")
    return tlv(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big"))


def oid(dotted: str) -> bytes:
    arcs = [int(x) for x in dotted.split(".")]
    body = bytearray([40 * arcs[0] + arcs[1]])
    for arc in arcs[2:]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        body += bytes(reversed(chunk))
    return tlv(0x06, bytes(body))


NULL = b"\x05\x00"


def octet(b: bytes) -> bytes:
    return tlv(0x04, b)


def utf8(s: str) -> bytes:
    return tlv(0x0C, s.encode("utf-8"))


def ia5(s: str) -> bytes:
    return tlv(0x16, s.encode("ascii"))


def utctime(s: str) -> bytes:
    return tlv(0x17, s.encode("ascii"))


def seq(*items: bytes) -> bytes:
    return tlv(0x30, b"".join(items))


def set_unsorted(*items: bytes) -> bytes:
    """SET / SET OF with the elements kept in the given order."""
    return tlv(0x31, b"".join(items))


def der_set_of_sorted_content(items: list[bytes]) -> bytes:
    """Content octets of a DER SET OF (X.690 11.6: ascending, zero padded)."""
    width = max((len(i) for i in items), default=0)
    return b"".join(sorted(items, key=lambda i: i.ljust(width, b"\x00")))


def explicit(n: int, content: bytes) -> bytes:
    return tlv(0xA0 | n, content)


# --- tiny DER reader, used to copy fields out of certificates -------------


def read_tlv(buf: bytes, off: int = 0) -> tuple[int, int, int]:
    """Return (tag, content_start, end) of the TLV starting at off."""
    tag = buf[off]
    first = buf[off + 1]
    if first < 0x80:
        return tag, off + 2, off + 2 + first
    n = first & 0x7F
    length = int.from_bytes(buf[off + 2 : off + 2 + n], "big")
    start = off + 2 + n
    return tag, start, start + length


def children(buf: bytes, off: int = 0) -> list[bytes]:
    """Raw TLVs inside the constructed TLV at off."""
    _, pos, end = read_tlv(buf, off)
    out = []
    while pos < end:
        _, _, nxt = read_tlv(buf, pos)
        out.append(buf[pos:nxt])
        pos = nxt
    return out


# --------------------------------------------------------------------------
# OIDs
# --------------------------------------------------------------------------

OID_SIGNED_DATA = "1.2.840.113549.1.7.2"
OID_DATA = "1.2.840.113549.1.7.1"
OID_DIGESTED_DATA = "1.2.840.113549.1.7.5"
OID_RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
OID_CONTENT_TYPE = "1.2.840.113549.1.9.3"
OID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
OID_SIGNING_TIME = "1.2.840.113549.1.9.5"
OID_APPLE_WWDR_INTERMEDIATE = "1.2.840.113635.100.6.2.1"
OID_APPLE_RECEIPT_SIGNING = "1.2.840.113635.100.6.11.1"

DIGESTS = {
    # name: (OID, cryptography hash, hashlib name)
    "sha1": ("1.3.14.3.2.26", hashes.SHA1, "sha1"),
    "sha256": ("2.16.840.1.101.3.4.2.1", hashes.SHA256, "sha256"),
    "sha512": ("2.16.840.1.101.3.4.2.3", hashes.SHA512, "sha512"),
}


def alg_id(dotted: str) -> bytes:
    return seq(oid(dotted), NULL)


def digest_alg(name: str) -> bytes:
    return alg_id(DIGESTS[name][0])


# --------------------------------------------------------------------------
# Test PKI
# --------------------------------------------------------------------------


def utc(y: int, m: int, d: int) -> dt.datetime:
    return dt.datetime(y, m, d, tzinfo=dt.timezone.utc)


def name(cn: str, o: str, ou: str | None = None, c: str = "US") -> x509.Name:
    # DER order is C, O, (OU,) CN so that RFC 4514 prints "CN=..., [OU=...,] O=..., C=US".
    attrs = [x509.NameAttribute(NameOID.COUNTRY_NAME, c), x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)]
    if ou is not None:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def load_or_create_key(key_name: str) -> rsa.RSAPrivateKey:
    path = PKI_DIR / f"{key_name}.key.pem"
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise SystemExit(f"{path}: not an RSA key")
        return key
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    print(f"  created new key {path.relative_to(HERE)}")
    return key


@dataclass
class Cert:
    name: str
    key: rsa.RSAPrivateKey
    cert: x509.Certificate
    der: bytes

    @property
    def issuer_der(self) -> bytes:
        """The issuer Name exactly as encoded in the certificate."""
        tbs = children(self.der)[0]
        fields = children(tbs)
        i = 1 if fields[0][0] == 0xA0 else 0  # skip [0] version
        return fields[i + 2]  # serialNumber, signature, issuer

    @property
    def serial_der(self) -> bytes:
        tbs = children(self.der)[0]
        fields = children(tbs)
        i = 1 if fields[0][0] == 0xA0 else 0
        return fields[i]

    @property
    def subject_der(self) -> bytes:
        """The subject Name exactly as encoded in the certificate."""
        tbs = children(self.der)[0]
        fields = children(tbs)
        i = 1 if fields[0][0] == 0xA0 else 0
        return fields[i + 4]  # serialNumber, signature, issuer, validity, subject

    @property
    def ski(self) -> bytes:
        return self.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest


OID_SHA1_WITH_RSA = "1.2.840.113549.1.1.5"


def resign_sha1(cert: x509.Certificate, signing_key: rsa.RSAPrivateKey) -> bytes:
    """Return the DER of cert re-signed with sha1WithRSAEncryption."""
    tbs_fields = children(cert.tbs_certificate_bytes)
    i = 1 if tbs_fields[0][0] == 0xA0 else 0  # skip [0] version
    sha1_alg = alg_id(OID_SHA1_WITH_RSA)
    tbs_fields[i + 1] = sha1_alg  # TBSCertificate.signature
    tbs = seq(*tbs_fields)
    signature = signing_key.sign(tbs, padding.PKCS1v15(), hashes.SHA1())
    return seq(tbs, sha1_alg, tlv(0x03, b"\x00" + signature))


def make_cert(
    cert_name: str,
    subject: x509.Name,
    serial: int,
    not_before: dt.datetime,
    not_after: dt.datetime,
    *,
    issuer: Cert | None,  # None = self-signed
    ca: bool,
    key_usage: set[str],
    apple_oids: tuple[str, ...] = (),
    eku_critical: list[x509.ObjectIdentifier] | None = None,
    ski: bool = True,
    sig_hash: type[hashes.HashAlgorithm] = hashes.SHA256,
    write_pem: bool = False,
) -> Cert:
    key = load_or_create_key(cert_name)
    ku = {k: (k in key_usage) for k in (
        "digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
        "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")}
    unknown = key_usage - ku.keys()
    if unknown:
        raise ValueError(unknown)
    b = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.cert.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(**ku), critical=True)
    )
    if eku_critical:
        b = b.add_extension(x509.ExtendedKeyUsage(eku_critical), critical=True)
    if ski:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if issuer is not None:
        b = b.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
                issuer.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            ),
            critical=False,
        )
    for o in apple_oids:
        b = b.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(o), NULL), critical=False)
    signing_key = issuer.key if issuer else key
    if sig_hash is hashes.SHA1:
        # cryptography >= 4x refuses to sign certificates with SHA-1, so build
        # the certificate with SHA-256 and re-sign its TBSCertificate ourselves.
        der = resign_sha1(b.sign(signing_key, hashes.SHA256()), signing_key)
        cert = x509.load_der_x509_certificate(der)
        assert cert.signature_algorithm_oid.dotted_string == OID_SHA1_WITH_RSA
    else:
        cert = b.sign(signing_key, sig_hash())
    der = cert.public_bytes(serialization.Encoding.DER)
    (PKI_DIR / f"{cert_name}.der").write_bytes(der)
    if write_pem:
        (PKI_DIR / f"{cert_name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return Cert(cert_name, key, cert, der)


def build_pki() -> dict[str, Cert]:
    PKI_DIR.mkdir(parents=True, exist_ok=True)
    O = "ReceiptParser Tests"
    OA = "Attacker Tests"
    ca_ku = {"key_cert_sign", "crl_sign"}
    ee_ku = {"digital_signature"}
    y2020, y2040 = utc(2020, 1, 1), utc(2040, 1, 1)
    y2024, y2026 = utc(2024, 1, 1), utc(2026, 1, 1)
    p: dict[str, Cert] = {}

    p["test-root"] = make_cert(
        "test-root", name("ReceiptParser Test Root CA", O), 0x1001, y2020, y2040,
        issuer=None, ca=True, key_usage=ca_ku, write_pem=True)
    p["test-intermediate"] = make_cert(
        "test-intermediate", name("ReceiptParser Test WWDR Intermediate", O, "G5"), 0x2001, y2020, y2040,
        issuer=p["test-root"], ca=True, key_usage=ca_ku, apple_oids=(OID_APPLE_WWDR_INTERMEDIATE,))
    p["test-signer"] = make_cert(
        "test-signer", name("ReceiptParser Test Receipt Signing", O), 0x3001, y2024, y2026,
        issuer=p["test-intermediate"], ca=False, key_usage=ee_ku, apple_oids=(OID_APPLE_RECEIPT_SIGNING,))

    p["test-intermediate-sha1"] = make_cert(
        "test-intermediate-sha1", name("ReceiptParser Test WWDR Intermediate SHA1", O, "G5"), 0x2002, y2020, y2040,
        issuer=p["test-root"], ca=True, key_usage=ca_ku, apple_oids=(OID_APPLE_WWDR_INTERMEDIATE,),
        sig_hash=hashes.SHA1)
    p["test-signer-sha1"] = make_cert(
        "test-signer-sha1", name("ReceiptParser Test Receipt Signing SHA1", O), 0x3002, y2024, y2026,
        issuer=p["test-intermediate-sha1"], ca=False, key_usage=ee_ku,
        apple_oids=(OID_APPLE_RECEIPT_SIGNING,), sig_hash=hashes.SHA1)

    p["rogue-signer"] = make_cert(
        "rogue-signer", name("Mallory Developer", O), 0x3003, y2024, y2026,
        issuer=p["test-intermediate"], ca=False, key_usage=ee_ku)

    p["intermediate-no-oid"] = make_cert(
        "intermediate-no-oid", name("ReceiptParser Test Intermediate Without Apple OID", O), 0x2003, y2020, y2040,
        issuer=p["test-root"], ca=True, key_usage=ca_ku)
    p["signer-under-no-oid-intermediate"] = make_cert(
        "signer-under-no-oid-intermediate", name("ReceiptParser Test Receipt Signing Under No-OID Intermediate", O),
        0x3004, y2024, y2026, issuer=p["intermediate-no-oid"], ca=False, key_usage=ee_ku,
        apple_oids=(OID_APPLE_RECEIPT_SIGNING,))

    p["other-root"] = make_cert(
        "other-root", name("Attacker Test Root CA", OA), 0x1001, y2020, y2040,
        issuer=None, ca=True, key_usage=ca_ku, write_pem=True)
    p["other-intermediate"] = make_cert(
        "other-intermediate", name("Attacker Test WWDR Intermediate", OA, "G5"), 0x2001, y2020, y2040,
        issuer=p["other-root"], ca=True, key_usage=ca_ku, apple_oids=(OID_APPLE_WWDR_INTERMEDIATE,))
    p["other-signer"] = make_cert(
        "other-signer", name("Attacker Test Receipt Signing", OA), 0x3001, y2024, y2026,
        issuer=p["other-intermediate"], ca=False, key_usage=ee_ku, apple_oids=(OID_APPLE_RECEIPT_SIGNING,))

    p["self-signed-signer"] = make_cert(
        "self-signed-signer", name("ReceiptParser Test Self-Signed Receipt Signing", O), 0x3005, y2024, y2026,
        issuer=None, ca=False, key_usage=ee_ku, apple_oids=(OID_APPLE_RECEIPT_SIGNING,))

    p["storekit-test"] = make_cert(
        "storekit-test", name("StoreKit Test", O), 0x4001, utc(2020, 4, 1), utc(2040, 3, 27),
        issuer=None, ca=True, key_usage={"digital_signature", "key_cert_sign"},
        eku_critical=[ExtendedKeyUsageOID.CODE_SIGNING], ski=False, write_pem=True)
    return p


# --------------------------------------------------------------------------
# Receipt payload
# --------------------------------------------------------------------------

DEVICE_GUID = uuid.UUID("6F1C2D3E-4A5B-4C6D-8E7F-9A0B1C2D3E4F")
OPAQUE_VALUE = bytes.fromhex("a1b2c3d4e5f60718293a4b5c6d7e8f90")
BUNDLE_ID = "com.example.receiptparser.sample"

# An attribute is (type, version, value bytes = content of the OCTET STRING).
Attr = tuple[int, int, bytes]


def encode_attrs(attrs: list[Attr]) -> bytes:
    """SET OF ReceiptAttribute, kept in the given (unsorted) order."""
    return set_unsorted(*(seq(integer(t), integer(v), octet(val)) for t, v, val in attrs))


def sha1_hash(bundle_id_value: bytes) -> bytes:
    return hashlib.sha1(DEVICE_GUID.bytes + OPAQUE_VALUE + bundle_id_value).digest()


def iap_consumable() -> list[Attr]:
    return [
        (1701, 1, integer(3)),
        (1702, 1, utf8("com.example.coins.100")),
        (1703, 1, utf8("2000000000000001")),
        (1704, 1, ia5("2025-05-01T10:00:00Z")),
        (1705, 1, utf8("2000000000000001")),
        (1706, 1, ia5("2025-05-01T10:00:00Z")),
        (1707, 1, integer(1)),
        (1708, 1, ia5("")),
        (1711, 1, integer(0)),
        (1712, 1, ia5("")),
        (1713, 1, integer(0)),
        (1719, 1, integer(0)),
    ]


def iap_subscription() -> list[Attr]:
    return [
        (1701, 1, integer(1)),
        (1702, 1, utf8("com.example.pro.monthly")),
        (1703, 1, utf8("2000000000000002")),
        (1704, 1, ia5("2025-05-20T09:30:00.250Z")),
        (1705, 1, utf8("2000000000000002")),
        (1706, 1, ia5("2025-05-20T09:30:00Z")),
        (1707, 1, integer(3)),
        (1708, 1, ia5("2025-06-20T09:30:00Z")),
        (1711, 1, integer(5000000000123456)),
        (1712, 1, ia5("")),
        (1713, 1, integer(1)),
        (1719, 1, integer(0)),
        (1721, 1, utf8("com.example.pro.winback")),
        (1799, 1, utf8("kept")),
    ]


def iap_refunded() -> list[Attr]:
    return [
        (1701, 1, integer(1)),
        (1702, 1, utf8("com.example.unlock")),
        (1703, 1, utf8("2000000000000003")),
        (1704, 1, ia5("2025-04-02T08:00:00+0200")),
        (1705, 1, utf8("2000000000000003")),
        (1706, 1, ia5("2025-04-02T08:00:00+0200")),
        (1707, 1, integer(0)),
        (1708, 1, ia5("")),
        (1711, 1, integer(0)),
        (1712, 1, ia5("2025-04-10T00:00:00-0700")),
        (1713, 1, integer(0)),
        (1719, 1, integer(0)),
    ]


def sample_attrs(in_app: list[list[Attr]] | None = None) -> list[Attr]:
    """The top-level attributes of the standard sample payload.

    Deliberately NOT in type order (nor DER order): the in-app receipts are
    interleaved with the other attributes and type 99 precedes some of them.
    """
    if in_app is None:
        in_app = [iap_consumable(), iap_subscription(), iap_refunded()]
    bundle = utf8(BUNDLE_ID)
    iaps = [(17, 1, encode_attrs(entry)) for entry in in_app]
    attrs: list[Attr] = [
        (0, 1, utf8("ProductionSandbox")),
        (1, 1, integer(0)),
        (2, 1, bundle),
        (3, 1, utf8("1.4.2")),
        (4, 1, OPAQUE_VALUE),
        (5, 1, sha1_hash(bundle)),
        (10, 1, ia5("4+")),
        (12, 1, ia5("2025-06-01T12:00:00Z")),
    ]
    if len(iaps) > 0:
        attrs.append(iaps[0])
    attrs += [(15, 1, integer(0)), (16, 1, integer(0))]
    if len(iaps) > 1:
        attrs.append(iaps[1])
    attrs += [(99, 2, bytes.fromhex("deadbeef")), (18, 1, ia5("2013-08-01T07:00:00Z"))]
    if len(iaps) > 2:
        attrs += iaps[2:]
    attrs.append((19, 1, utf8("1.0")))
    return attrs


def replace_attr(attrs: list[Attr], typ: int, value: bytes) -> list[Attr]:
    assert sum(1 for a in attrs if a[0] == typ) == 1, typ
    return [(t, v, value if t == typ else val) for t, v, val in attrs]


def storekit_attrs() -> list[Attr]:
    bundle = utf8(BUNDLE_ID)
    entry = [
        (1701, 1, integer(1)),
        (1702, 1, utf8("com.example.coins.100")),
        (1703, 1, utf8("0")),
        (1704, 1, ia5("2025-06-01T12:59:30+0100")),
        (1705, 1, utf8("0")),
        (1706, 1, ia5("2025-06-01T12:59:30+0100")),
        (1707, 1, integer(1)),
        (1708, 1, ia5("")),
        (1711, 1, integer(0)),
        (1712, 1, ia5("")),
        (1713, 1, integer(0)),
        (1719, 1, integer(0)),
    ]
    return [
        (0, 1, utf8("Xcode")),
        (1, 1, integer(0)),
        (2, 1, bundle),
        (3, 1, utf8("1.4.2")),
        (4, 1, OPAQUE_VALUE),
        (5, 1, sha1_hash(bundle)),
        (12, 1, ia5("2025-06-01T13:00:00+0100")),
        (17, 1, encode_attrs(entry)),
        (19, 1, utf8("1.0")),
        (21, 1, ia5("4001-01-01T00:00:00+0000")),
    ]


# --------------------------------------------------------------------------
# PKCS#7 SignedData
# --------------------------------------------------------------------------


def rsa_sign(key: rsa.RSAPrivateKey, data: bytes, digest: str) -> bytes:
    return key.sign(data, padding.PKCS1v15(), DIGESTS[digest][1]())


def signed_attrs_content(payload: bytes, digest: str, message_digest: bytes | None = None) -> bytes:
    """Content octets of signedAttrs (DER SET OF, sorted)."""
    if message_digest is None:
        message_digest = hashlib.new(DIGESTS[digest][2], payload).digest()
    attrs = [
        seq(oid(OID_CONTENT_TYPE), set_unsorted(oid(OID_DATA))),
        seq(oid(OID_MESSAGE_DIGEST), set_unsorted(octet(message_digest))),
        seq(oid(OID_SIGNING_TIME), set_unsorted(utctime("250601120000Z"))),
    ]
    return der_set_of_sorted_content(attrs)


def signer_info(
    signer: Cert,
    payload: bytes,
    digest: str = "sha256",
    *,
    sid: str = "issuer-serial",
    serial_override: int | None = None,
    signed_attrs: bytes | None = None,  # content octets
    tamper_signature: bool = False,
) -> bytes:
    if sid == "issuer-serial":
        version = 1
        serial = signer.serial_der if serial_override is None else integer(serial_override)
        sid_der = seq(signer.issuer_der, serial)
    elif sid == "ski":
        version = 3
        sid_der = tlv(0x80, signer.ski)  # [0] IMPLICIT SubjectKeyIdentifier
    else:
        raise ValueError(sid)
    if signed_attrs is None:
        signature = rsa_sign(signer.key, payload, digest)
        attrs_der = b""
    else:
        # RFC 5652 5.4: the signature covers the DER of the attributes with the
        # EXPLICIT SET OF tag (0x31), not the [0] IMPLICIT tag used in the SignerInfo.
        signature = rsa_sign(signer.key, tlv(0x31, signed_attrs), digest)
        attrs_der = tlv(0xA0, signed_attrs)
    if tamper_signature:
        signature = signature[:-1] + bytes([signature[-1] ^ 0xFF])
    return seq(
        integer(version),
        sid_der,
        digest_alg(digest),
        attrs_der,
        alg_id(OID_RSA_ENCRYPTION),
        octet(signature),
    )


def pkcs7(
    payload: bytes | None,
    signer_infos: list[bytes],
    certs: list[Cert],
    digests: tuple[str, ...] = ("sha256",),
    *,
    content_type: str = OID_DATA,
    version: int = 1,
) -> bytes:
    """DER ContentInfo(SignedData). payload=None -> detached (no eContent)."""
    encap = [oid(content_type)]
    if payload is not None:
        encap.append(explicit(0, octet(payload)))
    signed_data = seq(
        integer(version),
        set_unsorted(*(digest_alg(d) for d in digests)),
        seq(*encap),
        tlv(0xA0, b"".join(c.der for c in certs)),  # certificates [0] IMPLICIT, order kept
        set_unsorted(*signer_infos),
    )
    return seq(oid(OID_SIGNED_DATA), explicit(0, signed_data))


def simple_receipt(payload: bytes, signer: Cert, chain: list[Cert], digest: str = "sha256") -> bytes:
    return pkcs7(payload, [signer_info(signer, payload, digest)], [signer, *chain], (digest,))


def storekit_receipt(payload: bytes, signer: Cert, chunk: int = 100) -> bytes:
    """BER like Xcode: indefinite lengths and a constructed, chunked OCTET STRING."""
    chunks = b"".join(octet(payload[i : i + chunk]) for i in range(0, len(payload), chunk))
    econtent = ber_indef(0x24, chunks)
    encap = ber_indef(0x30, oid(OID_DATA) + ber_indef(0xA0, econtent))
    signed_data = ber_indef(
        0x30,
        integer(1)
        + set_unsorted(digest_alg("sha256"))
        + encap
        + tlv(0xA0, signer.der)
        + set_unsorted(signer_info(signer, payload, "sha256")),
    )
    return ber_indef(0x30, oid(OID_SIGNED_DATA) + ber_indef(0xA0, signed_data))


# --------------------------------------------------------------------------
# Other inputs
# --------------------------------------------------------------------------


def legacy_transaction() -> bytes:
    """Synthetic iOS 6 style transaction receipt (an old-style ASCII plist, base64)."""
    purchase_ms = int(dt.datetime(2012, 10, 1, 17, 0, tzinfo=dt.timezone.utc).timestamp() * 1000)
    purchase_info = (
        "{\n"
        '\t"original-purchase-date-pst" = "2012-10-01 10:00:00 America/Los_Angeles";\n'
        f'\t"purchase-date-ms" = "{purchase_ms}";\n'
        '\t"unique-identifier" = "0000000000000000000000000000000000000000";\n'
        '\t"original-transaction-id" = "1000000055555555";\n'
        '\t"bvrs" = "1.0";\n'
        '\t"app-item-id" = "0";\n'
        '\t"transaction-id" = "1000000055555555";\n'
        '\t"quantity" = "1";\n'
        f'\t"original-purchase-date-ms" = "{purchase_ms}";\n'
        '\t"item-id" = "0";\n'
        '\t"product-id" = "com.example.coins.100";\n'
        '\t"purchase-date" = "2012-10-01 17:00:00 Etc/GMT";\n'
        '\t"original-purchase-date" = "2012-10-01 17:00:00 Etc/GMT";\n'
        f'\t"bid" = "{BUNDLE_ID}";\n'
        '\t"purchase-date-pst" = "2012-10-01 10:00:00 America/Los_Angeles";\n'
        "}"
    ).encode()
    # Made-up "signature" blob: a version byte followed by pseudo-random bytes.
    sig = b"\x02" + b"".join(hashlib.sha256(b"legacy-transaction-%d" % i).digest() for i in range(4))
    text = (
        "{\n"
        f'\t"signature" = "{base64.b64encode(sig).decode()}";\n'
        f'\t"purchase-info" = "{base64.b64encode(purchase_info).decode()}";\n'
        '\t"environment" = "Sandbox";\n'
        '\t"pod" = "100";\n'
        '\t"signing-status" = "0";\n'
        "}"
    ).encode()
    return base64.b64encode(text) + b"\n"


def wrap64(b64: bytes) -> bytes:
    return b"".join(b64[i : i + 64] + b"\n" for i in range(0, len(b64), 64))


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------

ROOT = "`pki/test-root.der`"

# (file, what it is, outcome a verifier must give). Also drives README.md.
FIXTURES: list[tuple[str, str, str]] = [
    # --- valid
    ("sample.receipt", "The standard sample payload (see below), SHA-256, signed by test-signer; certificates test-signer, test-intermediate, test-root.",
     "**valid** (App Store rules, root " + ROOT + ")"),
    ("sample.b64", "`sample.receipt` in base64, wrapped at 64 characters with `\\n`.", "**valid** after base64 decoding"),
    ("sample-oneline.b64", "`sample.receipt` in base64 on one line, trailing newline.", "**valid** after base64 decoding"),
    ("sample-request.json", '`{"receipt-data": "<base64 of sample.receipt>", "password": "x"}` (verifyReceipt request body).', "**valid** (receipt extracted from `receipt-data`)"),
    ("sha1.receipt", "Sample payload, digest SHA-1 (1.3.14.3.2.26); signer test-signer-sha1 ← test-intermediate-sha1 ← test-root (both certificates signed with sha1WithRSAEncryption).",
     "**valid** under the default policy; **invalid** (digest/signature algorithm not allowed) under a \"require SHA-256\" policy"),
    ("signed-attributes.receipt", "Sample payload with signedAttrs (contentType = data, messageDigest = SHA-256(payload), signingTime 2025-06-01 12:00:00Z); signature over the DER SET OF (tag 0x31) of the attributes.",
     "**valid**"),
    ("subject-key-id.receipt", "Sample payload; SignerInfo version 3 with sid `[0]` subjectKeyIdentifier of test-signer (SignedData version 3, as RFC 5652 §5.1 requires).",
     "**valid**"),
    ("no-in-app.receipt", "Sample top-level attributes without any type 17 attribute.", "**valid**, zero in-app purchases"),
    ("storekit.receipt", "Xcode StoreKit Testing style BER: indefinite lengths on ContentInfo, `[0]`, SignedData, encapContentInfo and its `[0]`; payload as a constructed OCTET STRING (0x24, indefinite) of 100-byte primitive chunks; only certificate storekit-test, which also signs (SHA-256). Payload: receipt type \"Xcode\", creation date 2025-06-01T13:00:00+0100, one in-app entry, expiration date (21) 4001-01-01T00:00:00+0000.",
     "**valid only in StoreKit Testing mode** with `pki/storekit-test.der`; **invalid** (untrusted chain / missing Apple OIDs) under App Store rules"),
    # --- invalid: signature / chain / policy
    ("tampered-payload.receipt", "`sample.receipt` with one byte of the product id changed after signing (\"com.example.coins.100\" → \"com.example.coins.900\").",
     "**invalid**: signature does not verify"),
    ("tampered-signature.receipt", "Sample with the last byte of the signature XORed with 0xFF.", "**invalid**: signature does not verify"),
    ("two-signers.receipt", "Sample payload with two SignerInfos, both correct (test-signer, and test-signer-sha1 using SHA-256); certificates test-signer, test-intermediate, test-signer-sha1, test-intermediate-sha1, test-root.",
     "**invalid**: more than one signer"),
    ("signer-not-in-certificates.receipt", "Sample; the sid names issuer test-intermediate with serial 999999, which no included certificate has (signature itself by test-signer).",
     "**invalid**: signer certificate not found"),
    ("content-type-not-data.receipt", "Sample; eContentType is 1.2.840.113549.1.7.5 (digestedData) instead of data; signature otherwise correct (SignedData version 3, as RFC 5652 §5.1 requires for non-data content).",
     "**invalid**: content type is not data"),
    ("detached.receipt", "encapContentInfo has no `[0]` eContent; the signature covers the sample payload.", "**invalid**: detached content / no payload"),
    ("signed-attributes-bad-digest.receipt", "Like `signed-attributes.receipt` but messageDigest = SHA-256(\"this is not the payload\"); the signature over the attributes is correct.",
     "**invalid**: message digest mismatch"),
    ("sha512-digest.receipt", "Sample; digest algorithm SHA-512 (2.16.840.1.101.3.4.2.3) in digestAlgorithms and the SignerInfo, signature correct over SHA-512.",
     "**invalid**: digest algorithm not allowed"),
    ("rogue-signer.receipt", "Sample signed by rogue-signer (issued by test-intermediate, no 1.2.840.113635.100.6.11.1); certificates rogue-signer, test-intermediate, test-root.",
     "**invalid**: signer lacks the Apple receipt-signing OID"),
    ("intermediate-without-oid.receipt", "Sample signed by signer-under-no-oid-intermediate; certificates it, intermediate-no-oid (no 1.2.840.113635.100.6.2.1), test-root.",
     "**invalid**: intermediate lacks the Apple WWDR intermediate OID"),
    ("wrong-root.receipt", "Sample signed by other-signer ← other-intermediate ← other-root (attacker PKI with the Apple OIDs).",
     "**invalid**: untrusted chain (does not end at test-root)"),
    ("self-signed-signer.receipt", "Sample signed by self-signed-signer (CA:FALSE, has 6.11.1); it is the only certificate.", "**invalid**: untrusted chain"),
    ("expired-at-creation.receipt", "Sample with creation date 2027-01-01T00:00:00Z (test-signer is valid 2024-01-01..2026-01-01).",
     "**invalid**: signer certificate not valid at the receipt creation date (expired)"),
    ("not-yet-valid-at-creation.receipt", "Sample with creation date 2023-06-01T00:00:00Z.",
     "**invalid**: signer certificate not valid at the receipt creation date (not yet valid)"),
    ("no-creation-date.receipt", "Sample without attribute 12.",
     "**invalid**: missing creation date (cannot choose a verification time) — unless the caller supplies a verification time, then valid"),
    # --- invalid payloads (signature and chain fine)
    ("bad-creation-date.receipt", "Sample with 12 = \"2025-13-45T25:61:00Z\".", "signature **valid**; decoding **fails**: malformed date (attribute 12)"),
    ("bad-purchase-date.receipt", "Sample with the first in-app entry's 1704 = \"yesterday\".", "signature **valid**; decoding **fails**: malformed date (in-app 1704)"),
    ("wrong-value-type.receipt", "Sample with attribute 2 (bundle id) holding the DER INTEGER 5 instead of a UTF8String.", "signature **valid**; decoding **fails**: unexpected value type (attribute 2)"),
    ("integer-overflow.receipt", "Sample with the first in-app entry's 1711 = 9-byte INTEGER 01 00 00 00 00 00 00 00 00 (2^64).", "signature **valid**; decoding **fails**: integer out of range (in-app 1711)"),
    ("duplicate-bundle-id.receipt", "Sample with a second type 2 attribute (\"com.example.other\") right after the first.", "signature **valid**; decoding **fails**: duplicate attribute 2"),
    ("payload-not-a-set.receipt", "Payload is `30 03 02 01 01` (a SEQUENCE of an INTEGER) instead of the attribute SET.", "signature **valid**; decoding **fails**: payload is not a SET"),
    # --- other inputs
    ("legacy-transaction.b64", "Base64 of a synthetic iOS 6 style transaction receipt (old-style plist text with \"signature\", \"purchase-info\", \"environment\" = \"Sandbox\", \"pod\", \"signing-status\").",
     "**rejected**: not a PKCS#7 receipt (legacy transaction receipt format)"),
    ("not-pkcs7.bin", "64 bytes of text: \"this is not a receipt\" padded with spaces and a final newline.", "**rejected**: not PKCS#7 / not DER"),
]


def generate(pki: dict[str, Cert]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    signer, inter, root = pki["test-signer"], pki["test-intermediate"], pki["test-root"]
    chain = [inter, root]

    def signed(attrs_or_payload: list[Attr] | bytes) -> bytes:
        payload = attrs_or_payload if isinstance(attrs_or_payload, bytes) else encode_attrs(attrs_or_payload)
        return simple_receipt(payload, signer, chain)

    sample_payload = encode_attrs(sample_attrs())

    # --- valid
    out["sample.receipt"] = simple_receipt(sample_payload, signer, chain)
    b64 = base64.b64encode(out["sample.receipt"])
    out["sample.b64"] = wrap64(b64)
    out["sample-oneline.b64"] = b64 + b"\n"
    out["sample-request.json"] = (json.dumps({"receipt-data": b64.decode(), "password": "x"}) + "\n").encode()
    out["sha1.receipt"] = simple_receipt(
        sample_payload, pki["test-signer-sha1"], [pki["test-intermediate-sha1"], root], "sha1")
    out["signed-attributes.receipt"] = pkcs7(
        sample_payload,
        [signer_info(signer, sample_payload, signed_attrs=signed_attrs_content(sample_payload, "sha256"))],
        [signer, inter, root])
    out["subject-key-id.receipt"] = pkcs7(
        sample_payload, [signer_info(signer, sample_payload, sid="ski")], [signer, inter, root], version=3)
    out["no-in-app.receipt"] = signed(sample_attrs(in_app=[]))
    out["storekit.receipt"] = storekit_receipt(encode_attrs(storekit_attrs()), pki["storekit-test"])

    # --- invalid: signature / chain / policy
    old, new = b"com.example.coins.100", b"com.example.coins.900"
    assert sample_payload.count(old) == 1
    tampered_payload = sample_payload.replace(old, new)
    out["tampered-payload.receipt"] = pkcs7(
        tampered_payload, [signer_info(signer, sample_payload)], [signer, inter, root])
    out["tampered-signature.receipt"] = pkcs7(
        sample_payload, [signer_info(signer, sample_payload, tamper_signature=True)], [signer, inter, root])
    s1 = pki["test-signer-sha1"]
    out["two-signers.receipt"] = pkcs7(
        sample_payload,
        [signer_info(signer, sample_payload), signer_info(s1, sample_payload)],
        [signer, inter, s1, pki["test-intermediate-sha1"], root])
    out["signer-not-in-certificates.receipt"] = pkcs7(
        sample_payload, [signer_info(signer, sample_payload, serial_override=999999)], [signer, inter, root])
    out["content-type-not-data.receipt"] = pkcs7(
        sample_payload, [signer_info(signer, sample_payload)], [signer, inter, root],
        content_type=OID_DIGESTED_DATA, version=3)
    out["detached.receipt"] = pkcs7(None, [signer_info(signer, sample_payload)], [signer, inter, root])
    out["signed-attributes-bad-digest.receipt"] = pkcs7(
        sample_payload,
        [signer_info(signer, sample_payload, signed_attrs=signed_attrs_content(
            sample_payload, "sha256", message_digest=hashlib.sha256(b"this is not the payload").digest()))],
        [signer, inter, root])
    out["sha512-digest.receipt"] = simple_receipt(sample_payload, signer, chain, "sha512")
    out["rogue-signer.receipt"] = simple_receipt(sample_payload, pki["rogue-signer"], chain)
    out["intermediate-without-oid.receipt"] = simple_receipt(
        sample_payload, pki["signer-under-no-oid-intermediate"], [pki["intermediate-no-oid"], root])
    out["wrong-root.receipt"] = simple_receipt(
        sample_payload, pki["other-signer"], [pki["other-intermediate"], pki["other-root"]])
    out["self-signed-signer.receipt"] = simple_receipt(sample_payload, pki["self-signed-signer"], [])
    out["expired-at-creation.receipt"] = signed(replace_attr(sample_attrs(), 12, ia5("2027-01-01T00:00:00Z")))
    out["not-yet-valid-at-creation.receipt"] = signed(replace_attr(sample_attrs(), 12, ia5("2023-06-01T00:00:00Z")))
    out["no-creation-date.receipt"] = signed([a for a in sample_attrs() if a[0] != 12])

    # --- invalid payloads
    out["bad-creation-date.receipt"] = signed(replace_attr(sample_attrs(), 12, ia5("2025-13-45T25:61:00Z")))
    out["bad-purchase-date.receipt"] = signed(sample_attrs(in_app=[
        replace_attr(iap_consumable(), 1704, ia5("yesterday")), iap_subscription(), iap_refunded()]))
    out["wrong-value-type.receipt"] = signed(replace_attr(sample_attrs(), 2, integer(5)))
    overflow = tlv(0x02, bytes.fromhex("010000000000000000"))
    out["integer-overflow.receipt"] = signed(sample_attrs(in_app=[
        replace_attr(iap_consumable(), 1711, overflow), iap_subscription(), iap_refunded()]))
    dup: list[Attr] = []
    for a in sample_attrs():
        dup.append(a)
        if a[0] == 2:
            dup.append((2, 1, utf8("com.example.other")))
    out["duplicate-bundle-id.receipt"] = signed(dup)
    out["payload-not-a-set.receipt"] = signed(seq(integer(1)))

    # --- other inputs
    out["legacy-transaction.b64"] = legacy_transaction()
    out["not-pkcs7.bin"] = b"this is not a receipt".ljust(63, b" ") + b"\n"
    assert len(out["not-pkcs7.bin"]) == 64

    assert [f for f, _, _ in FIXTURES] == list(out), "FIXTURES table and generated files differ"
    return out


# --------------------------------------------------------------------------
# Hostile fixtures (hostile/): forged certificates an attacker with a developer
# account could put in a receipt. Written by hand (no private halves needed);
# every "random" number comes from SHAKE-256 of a fixed label, so they
# regenerate byte-identically.
# --------------------------------------------------------------------------

OID_SHA256_WITH_RSA = "1.2.840.113549.1.1.11"
OID_ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2"
OID_BASIC_CONSTRAINTS = "2.5.29.19"
OID_KEY_USAGE = "2.5.29.15"
OID_SUBJECT_KEY_ID = "2.5.29.14"
TRUE = tlv(0x01, b"\xff")


def det_bytes(label: str, count: int) -> bytes:
    return hashlib.shake_256(label.encode()).digest(count)


def det_odd(label: str, bits: int) -> int:
    """A deterministic odd number of exactly `bits` bits (not a real RSA modulus: none is needed)."""
    n = int.from_bytes(det_bytes(label, (bits + 7) // 8), "big")
    n &= (1 << bits) - 1
    return n | (1 << (bits - 1)) | 1


def rsa_spki(modulus: int, exponent: int) -> bytes:
    return seq(alg_id(OID_RSA_ENCRYPTION), tlv(0x03, b"\x00" + seq(integer(modulus), integer(exponent))))


def fake_intermediate(label: str, serial: int, spki: bytes, inter: Cert) -> bytes:
    """A CA certificate claiming test-intermediate's name, issuer and key identifier, with the
    WWDR marker, but another key and a signature of random bytes."""
    extensions = seq(
        seq(oid(OID_BASIC_CONSTRAINTS), TRUE, octet(seq(TRUE))),
        seq(oid(OID_KEY_USAGE), TRUE, octet(tlv(0x03, b"\x01\x06"))),  # keyCertSign, cRLSign
        seq(oid(OID_SUBJECT_KEY_ID), octet(octet(inter.ski))),
        seq(oid(OID_APPLE_WWDR_INTERMEDIATE), octet(NULL)),
    )
    tbs = seq(
        explicit(0, integer(2)),
        integer(serial),
        alg_id(OID_SHA256_WITH_RSA),
        inter.issuer_der,
        seq(utctime("200101000000Z"), utctime("400101000000Z")),
        inter.subject_der,
        spki,
        explicit(3, extensions),
    )
    return seq(tbs, alg_id(OID_SHA256_WITH_RSA), tlv(0x03, b"\x00" + det_bytes(label + "/signature", 256)))


def relabel(der: bytes, algorithm: bytes, signing_key: rsa.RSAPrivateKey) -> bytes:
    """The certificate with its signature algorithm replaced by `algorithm` (inside and outside
    the signed part) and an RSA PKCS#1 v1.5 SHA-256 signature by `signing_key` whatever the label says."""
    tbs_fields = children(children(der)[0], 0)
    i = 1 if tbs_fields[0][0] == 0xA0 else 0
    tbs_fields[i + 1] = algorithm
    tbs = seq(*tbs_fields)
    signature = signing_key.sign(tbs, padding.PKCS1v15(), hashes.SHA256())
    return seq(tbs, algorithm, tlv(0x03, b"\x00" + signature))


def ec_signer_cert(inter: Cert) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A receipt-signing certificate with a P-256 key (from a fixed scalar) issued by test-intermediate."""
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
        .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
            inter.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value), critical=False)
        .add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(OID_APPLE_RECEIPT_SIGNING), NULL), critical=False)
        .sign(inter.key, hashes.SHA256())
    )
    return key, cert


def receipt_with(payload: bytes, signer_info_der: bytes, cert_ders: list[bytes]) -> bytes:
    signed_data = seq(
        integer(1),
        set_unsorted(digest_alg("sha256")),
        seq(oid(OID_DATA), explicit(0, octet(payload))),
        tlv(0xA0, b"".join(cert_ders)),
        set_unsorted(signer_info_der),
    )
    return seq(oid(OID_SIGNED_DATA), explicit(0, signed_data))


def relabelled_signer_info(signer_info_der: bytes, algorithm: bytes) -> bytes:
    """The SignerInfo with its signatureAlgorithm replaced, the signature kept."""
    fields = children(signer_info_der)
    fields[-2] = algorithm  # version, sid, digestAlgorithm, signatureAlgorithm, signature
    return seq(*fields)


ECDSA_SHA256 = seq(oid(OID_ECDSA_WITH_SHA256))  # RFC 5758: no parameters
RSA_ENCRYPTION = alg_id(OID_RSA_ENCRYPTION)
CAP = 10  # DecodingLimits.maximumCertificates

# Every receipt type the environment rule knows, and some it must not: (file label, type or None
# for no attribute 0, how the README shows it, the environment it means).
RECEIPT_TYPES: list[tuple[str, str | None, str, str]] = [
    ("production", "Production", "`Production`", "production"),
    ("production-vpp", "ProductionVPP", "`ProductionVPP`", "production"),
    ("production-sandbox", "ProductionSandbox", "`ProductionSandbox`", "sandbox"),
    ("production-vpp-sandbox", "ProductionVPPSandbox", "`ProductionVPPSandbox`", "sandbox"),
    ("xcode", "Xcode", "`Xcode`", "xcode (StoreKit Testing)"),
    ("missing", None, "absent", "unknown"),
    ("unknown", "ProductionTest", "`ProductionTest`", "unknown"),
    ("lowercase", "production", "`production`", "unknown (types match byte for byte)"),
]

# (file, what it is, outcome a verifier must give). Also drives README.md.
HOSTILE: list[tuple[str, str, str]] = [
    ("certificate-bomb.receipt",
     "Sample signed by test-signer; 50 certificates: test-signer, 47 forged intermediates (3072-bit random moduli, "
     "3071-bit odd public exponents, test-intermediate's subject, issuer and key identifier, WWDR marker, random "
     "signature bytes), test-intermediate, test-root.",
     "**invalid**: `tooManyCertificates` (more than 10), before any certificate is parsed"),
    ("budget-one-fake.receipt",
     "Sample; certificates test-signer, one forged intermediate (2048-bit RSA, e = 65537, wrong key, same names and "
     "key identifier), test-intermediate, test-root: 4 signature checks (receipt, fake, intermediate, root).",
     "**valid**: the budget of 4 signature checks suffices"),
    ("budget-eight-fakes.receipt",
     "Sample; 10 certificates: test-signer, 8 forged intermediates like the one above, test-intermediate (no root: "
     "the root is the configured test-root).",
     "**invalid**: `untrustedChain`, the signature budget (4) runs out before test-intermediate is reached"),
    ("key-exponent-too-large.receipt",
     "Sample; 10 certificates: test-signer, 8 forged intermediates with 2048-bit moduli and 2047-bit odd public "
     "exponents, test-intermediate.",
     "**invalid**: `keyNotAllowed` (exponent above 2^32), before any signature check with the key"),
    ("key-rsa-8192.receipt",
     "Like `key-exponent-too-large.receipt` with 8192-bit moduli, e = 65537.",
     "**invalid**: `keyNotAllowed` (modulus above 4096 bits)"),
    ("key-rsa-1024.receipt",
     "Like `key-exponent-too-large.receipt` with 1024-bit moduli, e = 65537.",
     "**invalid**: `keyNotAllowed` (modulus below 2048 bits)"),
    ("key-ec-p521.receipt",
     "Like `key-exponent-too-large.receipt` with one forged intermediate whose key is EC P-521 (from a fixed scalar).",
     "**invalid**: `keyNotAllowed` (only P-256 and P-384)"),
    ("ecdsa-label-rsa-signature.receipt",
     "`sample.receipt` with the SignerInfo's signatureAlgorithm ecdsa-with-SHA256 (no parameters); the signature is "
     "test-signer's RSA PKCS#1 v1.5 signature, otherwise valid.",
     "**invalid**: `unsupportedSignatureAlgorithm` (an ECDSA label on an RSA key is not verified)"),
    ("ecdsa-labelled-signer-certificate.receipt",
     "Sample signed by test-signer; its certificate relabelled ecdsa-with-SHA256 (inside and outside the TBS) but "
     "signed RSA PKCS#1 v1.5 SHA-256 by test-intermediate; certificates that, test-intermediate, test-root.",
     "**invalid**: `unsupportedSignatureAlgorithm` (an ECDSA label on the RSA issuer key)"),
    ("ec-signer.receipt",
     "Sample signed ECDSA P-256 SHA-256 (deterministic, RFC 6979) by an EC receipt-signing certificate issued by "
     "test-intermediate (sha256WithRSA); SignerInfo labelled ecdsa-with-SHA256; certificates it, test-intermediate, "
     "test-root.",
     "**valid** (the control for the next one)"),
    ("rsa-label-ec-signer.receipt",
     "`ec-signer.receipt` with the SignerInfo's signatureAlgorithm rsaEncryption; the ECDSA signature unchanged.",
     "**invalid**: `unsupportedSignatureAlgorithm` (an RSA label on an EC key is not verified)"),
    # Hostile strings, sizes and identities: what reaches people and servers on the way out.
    ("terminal-escapes.receipt",
     "Sample signed by test-signer; every displayed string (receipt type, bundle id, versions, age rating, product, "
     "transaction, original transaction and offer ids, unknown attributes 98 and 1799) ends in escape sequences: clear "
     "screen, cursor home, a green `Verdict: VERIFIED`, concealed text.",
     "**valid**; every human-facing output shows the escapes as `\\u{1B}`, JSON keeps the exact value"),
    ("bidi-controls.receipt",
     "Like `terminal-escapes.receipt` with U+202E (right-to-left override), U+2066/U+2069 isolates, U+200B, U+FEFF, "
     "U+2028 and U+0085.",
     "**valid**; shown escaped, never reordered"),
    ("newline-tab-fields.receipt",
     "Like `terminal-escapes.receipt` with a newline, a fake `--format summary` line (tab-separated), CR, DEL and C1 "
     "CSI (U+009B) in every displayed field.",
     "**valid**; `--format summary` stays one line, log records one line"),
    ("bad-date-escapes.receipt",
     "Sample whose creation date (12) is `\\r ESC[2K  Verdict: VERIFIED`, quoted by the error reason.",
     "signature **valid**; `invalidDate`, reason shown escaped"),
    ("wide-cells.receipt",
     "Sample with one more in-app entry whose product id is 50 000 characters and 4 000 empty in-app entries (100 KB).",
     "**valid**; tables capped at 64 characters a cell (`… (50000 characters)`), output within 100 bytes per input byte"),
    ("deep-nesting.receipt",
     "Sample with attribute 98 holding attribute SETs nested 5 000 levels deep (98 KB).",
     "**valid**; `--format asn1` indents 8 levels (`[depth N]` past them), expands 32, output proportional"),
    ("decomposed-bundle-id.receipt",
     "Sample with bundle id `com.example.cafe` + U+0301 (decomposed é).",
     "**valid**; does not match `--bundle-id com.example.café` (precomposed): identifiers compare byte for byte"),
    ("duplicate-receipt-data.json",
     "A verifyReceipt body with two `receipt-data` members: `sample.receipt`, then `no-in-app.receipt`.",
     "**refused**: `duplicateKey` (receipt-dump exit 2, /verifyReceipt 21002, /v1/receipts HTTP 400)"),
] + [
    (f"receipt-type-{label}.receipt",
     f"Sample with receipt type (0) {shown}.",
     f"**valid**; environment {environment}")
    for label, _, shown, environment in RECEIPT_TYPES
]


def generate_hostile(pki: dict[str, Cert]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    signer, inter, root = pki["test-signer"], pki["test-intermediate"], pki["test-root"]
    payload = encode_attrs(sample_attrs())
    info = signer_info(signer, payload)

    def fakes(label: str, count: int, spki_of) -> list[bytes]:
        return [fake_intermediate(f"{label}/{k}", 0x2F00 + k, spki_of(f"{label}/{k}"), inter) for k in range(count)]

    bombs = fakes("bomb", 47, lambda l: rsa_spki(det_odd(l + "/n", 3072), det_odd(l + "/e", 3071)))
    out["certificate-bomb.receipt"] = receipt_with(payload, info, [signer.der, *bombs, inter.der, root.der])
    assert 1 + 47 + 2 == 50

    wrong = lambda l: rsa_spki(det_odd(l + "/n", 2048), 65537)
    out["budget-one-fake.receipt"] = receipt_with(payload, info, [signer.der, *fakes("fake", 1, wrong), inter.der, root.der])
    out["budget-eight-fakes.receipt"] = receipt_with(payload, info, [signer.der, *fakes("fake", 8, wrong), inter.der])

    at_cap = CAP - 2
    out["key-exponent-too-large.receipt"] = receipt_with(payload, info, [
        signer.der, *fakes("big-e", at_cap, lambda l: rsa_spki(det_odd(l + "/n", 2048), det_odd(l + "/e", 2047))), inter.der])
    out["key-rsa-8192.receipt"] = receipt_with(payload, info, [
        signer.der, *fakes("rsa-8192", at_cap, lambda l: rsa_spki(det_odd(l + "/n", 8192), 65537)), inter.der])
    out["key-rsa-1024.receipt"] = receipt_with(payload, info, [
        signer.der, *fakes("rsa-1024", at_cap, lambda l: rsa_spki(det_odd(l + "/n", 1024), 65537)), inter.der])
    p521 = ec.derive_private_key(int.from_bytes(det_bytes("p521/key", 64), "big") % (1 << 520), ec.SECP521R1())
    p521_spki = p521.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    out["key-ec-p521.receipt"] = receipt_with(payload, info, [
        signer.der, *fakes("p521", 1, lambda l: p521_spki), inter.der])

    out["ecdsa-label-rsa-signature.receipt"] = receipt_with(
        payload, relabelled_signer_info(info, ECDSA_SHA256), [signer.der, inter.der, root.der])
    out["ecdsa-labelled-signer-certificate.receipt"] = receipt_with(
        payload, info, [relabel(signer.der, ECDSA_SHA256, inter.key), inter.der, root.der])

    ec_key, ec_cert = ec_signer_cert(inter)
    ec_der = ec_cert.public_bytes(serialization.Encoding.DER)
    ec_signature = ec_key.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    issuer_serial = children(children(ec_der)[0])
    ec_info = seq(integer(1), seq(issuer_serial[3], issuer_serial[1]), digest_alg("sha256"),
                  ECDSA_SHA256, octet(ec_signature))
    out["ec-signer.receipt"] = receipt_with(payload, ec_info, [ec_der, inter.der, root.der])
    out["rsa-label-ec-signer.receipt"] = receipt_with(
        payload, relabelled_signer_info(ec_info, RSA_ENCRYPTION), [ec_der, inter.der, root.der])

    out.update(generate_hostile_content(pki))
    for f, data in out.items():
        assert len(data) < 1 << 20, f
    assert [f for f, _, _ in HOSTILE] == list(out), "HOSTILE table and generated files differ"
    return out


def write_outputs(out: dict[str, bytes], directory: Path = OUT_DIR) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for fname, data in out.items():
        (directory / fname).write_bytes(data)
    sums = "".join(f"{hashlib.sha256(out[f]).hexdigest()}  {f}\n" for f in sorted(out))
    (directory / "SHA256SUMS").write_text(sums)


# --------------------------------------------------------------------------
# README
# --------------------------------------------------------------------------


def write_readme(pki: dict[str, Cert]) -> None:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    rows = "\n".join(f"| `{f}` | {esc(w)} | {esc(o)} |" for f, w, o in FIXTURES)
    hostile_rows = "\n".join(f"| `{f}` | {esc(w)} | {esc(o)} |" for f, w, o in HOSTILE)
    pki_rows = []
    for n, c in pki.items():
        if c.cert.issuer == c.cert.subject:
            issuer = "self-signed"
        else:
            issuer = next(k for k, v in pki.items() if k != n and v.cert.subject == c.cert.issuer)
        exts = []
        bc = c.cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        exts.append("CA:TRUE" if bc.ca else "CA:FALSE")
        for o in (OID_APPLE_WWDR_INTERMEDIATE, OID_APPLE_RECEIPT_SIGNING):
            try:
                c.cert.extensions.get_extension_for_oid(x509.ObjectIdentifier(o))
                exts.append(o)
            except x509.ExtensionNotFound:
                pass
        try:
            c.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
            exts.append("EKU codeSigning (critical)")
        except x509.ExtensionNotFound:
            pass
        pki_rows.append(
            f"| `{n}` | {c.cert.subject.rfc4514_string()} | {issuer} | {c.cert.serial_number:#x} | "
            f"{c.cert.not_valid_before_utc:%Y-%m-%d}..{c.cert.not_valid_after_utc:%Y-%m-%d} | "
            f"{c.cert.signature_hash_algorithm.name} | {', '.join(exts)} |")
    pki_table = "\n".join(pki_rows)

    text = f"""# Test receipts

Synthetic App Store receipts (PKCS#7 SignedData around a DER receipt payload)
signed by a private test PKI. **Generated — do not edit by hand.** Regenerate
from the repository root with

    python3 TestReceipts/generate.py

(Python ≥ 3.11 + `cryptography`; it also runs an `openssl` self-check, skip it
with `--no-check`.) The private keys in `pki/*.key.pem` are reused when present,
and certificates have fixed names, serials and dates, so regenerating gives
byte-identical files (RSA PKCS#1 v1.5 is deterministic); compare with
`cd TestReceipts/receipts && sha256sum -c SHA256SUMS`. If the keys are deleted,
new ones are created and every certificate and receipt changes.

Nothing here is derived from real receipts or Apple certificates.

## Verification rules assumed by the outcomes

* "App Store rules": exactly one SignerInfo; eContentType is data and the
  content is embedded; digest SHA-256 (SHA-1 accepted unless a "require
  SHA-256" policy is set; anything else rejected); signature RSA PKCS#1 v1.5;
  chain signer ← intermediate ← root ending at the trusted root given with
  `--root pki/test-root.der`; the signer has the extension
  1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1;
  certificates are checked for validity **at the receipt creation date
  (attribute 12)**, not "now" (test-signer expires 2026-01-01).
* "StoreKit Testing mode": the receipt is signed directly by the trusted
  StoreKit certificate (`pki/storekit-test.der`), no Apple OIDs required.

## Fixtures (`receipts/`)

| File | What it is | Outcome a verifier must give |
|---|---|---|
{rows}

`SHA256SUMS` lists the SHA-256 of every file above.

## Hostile fixtures (`hostile/`)

Receipts an attacker with a developer account could write: forged certificates
claiming test-intermediate's name and key identifier (hand-written DER with
deterministic pseudo-random keys and signature bytes: no private halves), too
many certificates, keys outside the key policy, algorithm labels that do not fit
the key. Outcomes are under App Store rules with the configured root
`pki/test-root.der`. `hostile/SHA256SUMS` lists their SHA-256.

| File | What it is | Outcome a verifier must give |
|---|---|---|
{hostile_rows}

## The sample payload

SET OF `SEQUENCE {{ type INTEGER, version INTEGER, value OCTET STRING }}`, all
version 1 except type 99. Written **unsorted**, in this order:

| Type | Value |
|---|---|
| 0 receipt type | UTF8String "ProductionSandbox" |
| 1 app item id | INTEGER 0 |
| 2 bundle id | UTF8String "{BUNDLE_ID}" |
| 3 application version | UTF8String "1.4.2" |
| 4 opaque value | raw bytes `{OPAQUE_VALUE.hex()}` |
| 5 SHA-1 hash | raw 20 bytes `{sha1_hash(utf8(BUNDLE_ID)).hex()}` |
| 10 age rating | IA5String "4+" |
| 12 creation date | IA5String "2025-06-01T12:00:00Z" |
| 17 in-app #1 | consumable (below) |
| 15 download id | INTEGER 0 |
| 16 version external identifier | INTEGER 0 |
| 17 in-app #2 | auto-renewable subscription (below) |
| 99 (unknown, **version 2**) | raw bytes `deadbeef` — must be kept as an unknown attribute |
| 18 original purchase date | IA5String "2013-08-01T07:00:00Z" |
| 17 in-app #3 | refunded non-consumable (below) |
| 19 original application version | UTF8String "1.0" |

SHA-1 hash = SHA1(device GUID bytes ‖ opaque value ‖ the full bundle id
attribute value, i.e. the UTF8String TLV `0c 20 …`), with device GUID
**{str(DEVICE_GUID).upper()}** (bytes `{DEVICE_GUID.bytes.hex()}`).

In-app entries (each a SET in type order 1701, 1702, …):

| Type | #1 consumable | #2 subscription | #3 refunded non-consumable |
|---|---|---|---|
| 1701 quantity | 3 | 1 | 1 |
| 1702 product id | com.example.coins.100 | com.example.pro.monthly | com.example.unlock |
| 1703 transaction id | 2000000000000001 | 2000000000000002 | 2000000000000003 |
| 1704 purchase date | 2025-05-01T10:00:00Z | 2025-05-20T09:30:00.250Z | 2025-04-02T08:00:00+0200 |
| 1705 original transaction id | 2000000000000001 | 2000000000000002 | 2000000000000003 |
| 1706 original purchase date | 2025-05-01T10:00:00Z | 2025-05-20T09:30:00Z | 2025-04-02T08:00:00+0200 |
| 1707 product type (1 consumable, 3 auto-renewable, 0 non-consumable, as in real receipts) | 1 | 3 | 0 |
| 1708 expires date | "" | 2025-06-20T09:30:00Z | "" |
| 1711 web order line item id | 0 | 5000000000123456 | 0 |
| 1712 cancellation date | "" | "" | 2025-04-10T00:00:00-0700 |
| 1713 is trial period | 0 | 1 | 0 |
| 1719 is in intro offer period | 0 | 0 | 0 |
| 1721 promotional offer id | — | com.example.pro.winback | — |
| 1799 (unknown, version 1) | — | UTF8String "kept" | — |

Strings are UTF8String, dates IA5String (empty IA5String when absent),
numbers DER INTEGER, all wrapped in the attribute's OCTET STRING.

`storekit.receipt` payload: 0 "Xcode", 1 = 0, 2 "{BUNDLE_ID}", 3 "1.4.2",
4/5 as above, 12 "2025-06-01T13:00:00+0100", one 17 (quantity 1,
com.example.coins.100, transaction "0", purchase 2025-06-01T12:59:30+0100,
product type 1), 19 "1.0", 21 "4001-01-01T00:00:00+0000".

## Container

DER `ContentInfo {{ signedData, [0] SignedData {{ version 1, digestAlgorithms
{{ sha256 + NULL }}, encapContentInfo {{ data, [0] OCTET STRING payload }},
certificates [0] IMPLICIT (signer, intermediate, root — in that order),
signerInfos {{ SignerInfo {{ version 1, IssuerAndSerialNumber (issuer Name
copied from the signer certificate), sha256, rsaEncryption + NULL, signature
}} }} }} }}`, no signed attributes unless stated.

## Test PKI (`pki/`)

RSA-2048 keys `NAME.key.pem` (PKCS#8, unencrypted — test keys only),
certificates `NAME.der`; `NAME.pem` too for the roots (test-root, other-root,
storekit-test). CA certificates have basicConstraints CA:TRUE critical and
keyUsage keyCertSign+cRLSign critical; end-entity certificates CA:FALSE
critical and keyUsage digitalSignature critical; all but storekit-test have a
SubjectKeyIdentifier, all issued ones an AuthorityKeyIdentifier. The Apple
OIDs are non-critical extensions whose value is DER NULL (`05 00`).
storekit-test has keyUsage digitalSignature+keyCertSign critical and
extendedKeyUsage codeSigning critical.

| Name | Subject | Issuer | Serial | Validity (UTC) | Signed with | Notes |
|---|---|---|---|---|---|---|
{pki_table}

## Self-check used by the generator

    openssl cms -verify -inform DER -in receipts/sample.receipt \\
        -CAfile pki/test-root.pem -purpose any -attime 1748779200 -out /dev/null

(1748779200 = 2025-06-01T12:00:00Z.) Likewise for sha1, signed-attributes and
(with `-CAfile pki/storekit-test.pem`) storekit; tampered-payload must fail;
every `*.receipt` must parse with `openssl asn1parse -inform DER`.
"""
    README.write_text(text)


# --------------------------------------------------------------------------
# openssl self-check
# --------------------------------------------------------------------------

ATTIME_2025_06_01 = str(int(dt.datetime(2025, 6, 1, 12, tzinfo=dt.timezone.utc).timestamp()))

# (fixture, CA file, attime, expected: True=verify OK, False=verify fails, None=informational)
OPENSSL_CHECKS: list[tuple[str, str, str, bool | None]] = [
    ("sample.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("sha1.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("signed-attributes.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("storekit.receipt", "storekit-test.pem", ATTIME_2025_06_01, True),
    ("tampered-payload.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    # Consistency checks: each fixture is broken only in the advertised way.
    ("subject-key-id.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("no-in-app.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("tampered-signature.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    ("two-signers.receipt", "test-root.pem", ATTIME_2025_06_01, True),  # both signers are correct
    ("signer-not-in-certificates.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    ("content-type-not-data.receipt", "test-root.pem", ATTIME_2025_06_01, None),
    ("signed-attributes-bad-digest.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    ("sha512-digest.receipt", "test-root.pem", ATTIME_2025_06_01, True),  # signature itself is fine
    ("rogue-signer.receipt", "test-root.pem", ATTIME_2025_06_01, True),  # openssl ignores Apple OIDs
    ("intermediate-without-oid.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("wrong-root.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    ("wrong-root.receipt", "other-root.pem", ATTIME_2025_06_01, True),
    ("self-signed-signer.receipt", "test-root.pem", ATTIME_2025_06_01, False),
    ("expired-at-creation.receipt", "test-root.pem", "1798761600", False),  # 2027-01-01
    ("not-yet-valid-at-creation.receipt", "test-root.pem", "1685577600", False),  # 2023-06-01
    ("expired-at-creation.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("no-creation-date.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("bad-creation-date.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("bad-purchase-date.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("wrong-value-type.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("integer-overflow.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("duplicate-bundle-id.receipt", "test-root.pem", ATTIME_2025_06_01, True),
    ("payload-not-a-set.receipt", "test-root.pem", ATTIME_2025_06_01, True),
]


def with_text(attrs: list[Attr], types: set[int], text: str) -> list[Attr]:
    """`attrs` with `text` appended to the string value of each attribute of `types` (as UTF8String)."""
    def appended(value: bytes) -> bytes:
        tag, start, end = read_tlv(value)
        return utf8(value[start:end].decode() + text)
    return [(t, v, appended(val) if t in types else val) for t, v, val in attrs]


def generate_hostile_content(pki: dict[str, Cert]) -> dict[str, bytes]:
    """Receipts whose strings, sizes and identities are chosen to deceive a reader or starve a
    server, signed by test-signer (so they also reach the verified paths)."""
    out: dict[str, bytes] = {}
    signer, chain = pki["test-signer"], [pki["test-intermediate"], pki["test-root"]]

    def signed(attrs: list[Attr]) -> bytes:
        return simple_receipt(encode_attrs(attrs), signer, chain)

    def strings(text: str) -> list[Attr]:
        entry = with_text(iap_subscription(), {1702, 1703, 1705, 1721, 1799}, text)
        attrs = with_text(sample_attrs(in_app=[iap_consumable(), entry]), {0, 2, 3, 10, 19}, text)
        return attrs + [(98, 1, utf8("unknown" + text))]

    out["terminal-escapes.receipt"] = signed(strings("\x1b[2J\x1b[H\x1b[32mVerdict: VERIFIED\x1b[0m\x1b[8m"))
    out["bidi-controls.receipt"] = signed(strings("\u202egnp.exe\u2066\u2069\u200b\ufeff\u2028\u0085"))
    out["newline-tab-fields.receipt"] = signed(strings(
        "\ncases/other.der\tverified\tcom.example.other\tProduction\t0 in-app\n\r\x7f\u009b31m"))
    out["bad-date-escapes.receipt"] = signed(replace_attr(sample_attrs(), 12, ia5("\r\x1b[2K  Verdict: VERIFIED")))

    wide = [(1701, 1, integer(1)), (1702, 1, utf8("w" * 50_000)), (1703, 1, utf8("2000000000000009"))]
    out["wide-cells.receipt"] = signed(sample_attrs(in_app=[iap_consumable(), wide] + [[]] * 4_000))

    nested = set_unsorted()
    for _ in range(5_000):
        nested = set_unsorted(seq(integer(99), integer(1), octet(nested)))
    out["deep-nesting.receipt"] = signed(sample_attrs() + [(98, 1, nested)])

    bundle = utf8("com.example.cafe\u0301")
    out["decomposed-bundle-id.receipt"] = signed(replace_attr(replace_attr(sample_attrs(), 2, bundle), 5, sha1_hash(bundle)))

    sample = simple_receipt(encode_attrs(sample_attrs()), signer, chain)
    other = simple_receipt(encode_attrs(sample_attrs(in_app=[])), signer, chain)
    out["duplicate-receipt-data.json"] = ('{"receipt-data": "%s", "receipt-data": "%s"}\n' % (
        base64.b64encode(sample).decode(), base64.b64encode(other).decode())).encode()

    for label, receipt_type, _, _ in RECEIPT_TYPES:
        attrs = [a for a in sample_attrs() if a[0] != 0]
        if receipt_type is not None:
            attrs.insert(0, (0, 1, utf8(receipt_type)))
        out[f"receipt-type-{label}.receipt"] = signed(attrs)
    return out


# Hostile fixtures openssl can judge: (fixture, CA file, expected: True=verify OK, False=fails, None=informational).
# OpenSSL has no budget, key policy or label check, so most of them are informational.
OPENSSL_HOSTILE_CHECKS: list[tuple[str, str, bool | None]] = [
    ("ec-signer.receipt", "test-root.pem", True),
    # OpenSSL takes the first certificate matching name and key identifier (the fake) and does
    # not try the next, so it fails both; ours tries up to the budget.
    ("budget-one-fake.receipt", "test-root.pem", None),
    ("budget-eight-fakes.receipt", "test-root.pem", None),
    ("ecdsa-label-rsa-signature.receipt", "test-root.pem", None),
    ("rsa-label-ec-signer.receipt", "test-root.pem", None),  # OpenSSL goes by the key, not the label
]


def openssl_check(out: dict[str, bytes], hostile: dict[str, bytes]) -> bool:
    exe = shutil.which("openssl")
    if exe is None:
        print("openssl not found; self-check skipped")
        return True
    ok = True

    def run(args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([exe, *args], capture_output=True, text=True)

    for f in (f for f in out if f.endswith(".receipt")):
        r = run(["asn1parse", "-inform", "DER", "-in", str(OUT_DIR / f)])
        if r.returncode != 0:
            ok = False
            print(f"  FAIL asn1parse {f}: {r.stderr.strip()}")
    for f in (f for f in hostile if f.endswith(".receipt")):
        r = run(["asn1parse", "-inform", "DER", "-in", str(HOSTILE_DIR / f)])
        if r.returncode != 0:
            ok = False
            print(f"  FAIL asn1parse hostile/{f}: {r.stderr.strip()}")
    print("  asn1parse: all *.receipt parsed" if ok else "  asn1parse: failures above")

    for f, ca, expected in OPENSSL_HOSTILE_CHECKS:
        r = run(["cms", "-verify", "-inform", "DER", "-in", str(HOSTILE_DIR / f), "-CAfile", str(PKI_DIR / ca),
                 "-purpose", "any", "-attime", ATTIME_2025_06_01, "-out", os.devnull])
        verified = r.returncode == 0
        status = "info" if expected is None else "ok  " if verified == expected else "FAIL"
        ok &= status != "FAIL"
        print(f"  {status} cms -verify hostile/{f:40s} CA={ca:18s} -> {'verified' if verified else 'failed'}")

    for f, ca, attime, expected in OPENSSL_CHECKS:
        r = run(["cms", "-verify", "-inform", "DER", "-in", str(OUT_DIR / f), "-CAfile", str(PKI_DIR / ca),
                 "-purpose", "any", "-attime", attime, "-out", os.devnull])
        verified = r.returncode == 0
        err = (r.stderr.strip().splitlines() or [""])[-1] if not verified else ""
        if expected is None:
            status = "info"
        elif verified == expected:
            status = "ok  "
        else:
            status = "FAIL"
            ok = False
        print(f"  {status} cms -verify {f:40s} CA={ca:18s} -> {'verified' if verified else 'failed: ' + err[:90]}")

    # detached.receipt verifies when the sample payload is supplied as external content.
    with tempfile.NamedTemporaryFile(delete=False) as tmp:
        tmp.write(encode_attrs(sample_attrs()))
    try:
        r = run(["cms", "-verify", "-binary", "-inform", "DER", "-in", str(OUT_DIR / "detached.receipt"),
                 "-content", tmp.name,
                 "-CAfile", str(PKI_DIR / "test-root.pem"), "-purpose", "any", "-attime", ATTIME_2025_06_01,
                 "-out", os.devnull])
    finally:
        os.unlink(tmp.name)
    status = "ok  " if r.returncode == 0 else "FAIL"
    ok &= r.returncode == 0
    print(f"  {status} cms -verify detached.receipt with -content <sample payload> -> "
          f"{'verified' if r.returncode == 0 else 'failed'}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-check", action="store_true", help="skip the openssl self-check")
    args = ap.parse_args()

    print("PKI ...")
    pki = build_pki()
    print("receipts ...")
    out = generate(pki)
    write_outputs(out)
    hostile = generate_hostile(pki)
    write_outputs(hostile, HOSTILE_DIR)
    write_readme(pki)
    print(f"wrote {len(out)} fixtures + SHA256SUMS to {OUT_DIR}, {len(hostile)} to {HOSTILE_DIR}, README to {README}")
    if not args.no_check:
        print("openssl self-check ...")
        if not openssl_check(out, hostile):
            print("SELF-CHECK FAILED")
            return 1
        print("self-check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
