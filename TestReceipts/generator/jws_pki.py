"""The JWS test PKI: shaped like the chain Apple signs StoreKit 2 data with, named
"ReceiptParser Test ...", never Apple's.

    jws-root (P-384, CA) -> jws-intermediate (P-384, CA pathlen 0, 1.2.840.113635.100.6.2.1)
        -> jws-leaf (P-256, not a CA, 1.2.840.113635.100.6.11.1)

Certificates are signed ecdsa-with-SHA384 (the P-256 StoreKit Testing ones ecdsa-with-SHA256),
deterministically (RFC 6979), with fixed names, serials and dates, and the keys in
pki/jws-*.key.pem are reused when present: every run gives the same certificates. Beside the
chain: certificates that each break one rule, an attacker's look-alike PKI, and a certificate
shaped like Xcode's "StoreKit Testing in Xcode" one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from . import oids
from .pki import Cert, apple_marker, authority_key_id, key_usage, load_or_create_key, name, utc

O, OA = "ReceiptParser Tests", "Attacker Tests"

# Validity windows (UTC). Tokens are judged at their own signed date, which the fixtures put
# inside jws-leaf's window, so the outcomes never depend on when the tests run.
ROOT_VALIDITY = (utc(2020, 1, 1), utc(2045, 1, 1))
CA_VALIDITY = (utc(2020, 1, 1), utc(2040, 1, 1))
LEAF_VALIDITY = (utc(2024, 1, 1), utc(2027, 1, 1))
SHORT_CA_VALIDITY = (utc(2020, 1, 1), utc(2025, 1, 1))  # jws-intermediate-expired
STOREKIT_VALIDITY = (utc(2025, 1, 1), utc(2026, 1, 1))  # Xcode's last a year

CURVES = {"P-256": ec.SECP256R1, "P-384": ec.SECP384R1}


def new_key(algorithm: str):
    if algorithm == "RSA-2048":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(CURVES[algorithm]())


def load_or_create(pki_dir: Path, key_name: str, algorithm: str):
    key_type = rsa.RSAPrivateKey if algorithm == "RSA-2048" else ec.EllipticCurvePrivateKey
    key = load_or_create_key(pki_dir, key_name, lambda: new_key(algorithm), key_type)
    if algorithm in CURVES and not isinstance(key.curve, CURVES[algorithm]):
        raise SystemExit(f"{pki_dir / key_name}.key.pem: not a {algorithm} key")
    return key


@dataclass(frozen=True)
class Spec:
    """One certificate of the JWS PKI, as the README's table shows it."""
    name: str
    subject: x509.Name
    serial: int
    validity: tuple[dt.datetime, dt.datetime]
    issuer: str | None  # None: self-signed
    key: str = "P-256"  # P-256, P-384 or RSA-2048
    ca: bool | None = False  # None: no basicConstraints at all
    path_length: int | None = None
    usage: tuple[str, ...] = ("digital_signature",)
    markers: tuple[str, ...] = ()
    key_file: str | None = None  # another certificate's key (the same name as the key's owner)
    storekit: bool = False  # Xcode's layout: SAN email, no key identifiers, SHA-256
    pem: bool = False
    note: str = ""


WWDR, SIGNING = (oids.APPLE_WWDR_INTERMEDIATE,), (oids.APPLE_RECEIPT_SIGNING,)
CA_USAGE = ("key_cert_sign", "crl_sign")
ROOT_NAME = name("ReceiptParser Test Root CA - G3", O, "ReceiptParser Test Certification Authority")
INTERMEDIATE_CN = "ReceiptParser Test WWDR Certification Authority"
LEAF_CN = "ReceiptParser Test ECC App Store Receipt Signing"
LEAF_OU = "ReceiptParser Test Worldwide Developer Relations"
STOREKIT_NAME = "ReceiptParser Test StoreKit Testing in Xcode"


def intermediate(cert_name: str, cn: str, serial: int, note: str, *, issuer: str = "jws-root",
                 validity=CA_VALIDITY, **kw) -> Spec:
    kw = {"ca": True, "path_length": 0, "usage": CA_USAGE, "markers": WWDR, **kw}
    return Spec(cert_name, name(cn, O, "G6"), serial, validity, issuer, "P-384", note=note, **kw)


def leaf(cert_name: str, serial: int, note: str, *, issuer: str = "jws-intermediate", cn: str = LEAF_CN, **kw) -> Spec:
    kw = {"markers": SIGNING, **kw}
    return Spec(cert_name, name(cn, O, LEAF_OU), serial, LEAF_VALIDITY, issuer, note=note, **kw)


SPECS: list[Spec] = [
    Spec("jws-root", ROOT_NAME, 0x5001, ROOT_VALIDITY, None, "P-384", ca=True, usage=CA_USAGE, pem=True,
         note="the root to configure (`--root pki/jws-root.der`)"),
    intermediate("jws-intermediate", INTERMEDIATE_CN, 0x5101, "the WWDR-like intermediate"),
    leaf("jws-leaf", 0x5201, "signs every token that verifies"),
    # One rule broken each.
    Spec("jws-root-twin", ROOT_NAME, 0x5002, ROOT_VALIDITY, None, "P-384", ca=True, usage=CA_USAGE,
         key_file="jws-root", note="jws-root's name and key, another serial: other bytes"),
    intermediate("jws-intermediate-not-ca", INTERMEDIATE_CN + " Not CA", 0x5102,
                 "an end-entity certificate used as intermediate", ca=False, path_length=None,
                 usage=("digital_signature",)),
    leaf("jws-leaf-under-not-ca", 0x5202, "", issuer="jws-intermediate-not-ca"),
    intermediate("jws-intermediate-no-basic-constraints", INTERMEDIATE_CN + " No BC", 0x5103,
                 "", ca=None, path_length=None),
    leaf("jws-leaf-under-no-basic-constraints", 0x5203, "", issuer="jws-intermediate-no-basic-constraints"),
    intermediate("jws-intermediate-no-oid", INTERMEDIATE_CN + " No OID", 0x5104, "", markers=()),
    leaf("jws-leaf-under-no-oid-intermediate", 0x5204, "", issuer="jws-intermediate-no-oid"),
    intermediate("jws-intermediate-expired", INTERMEDIATE_CN + " Expired", 0x5105,
                 "expired before the tokens' dates", validity=SHORT_CA_VALIDITY),
    leaf("jws-leaf-under-expired-intermediate", 0x5205, "", issuer="jws-intermediate-expired"),
    leaf("jws-leaf-no-oid", 0x5206, "", cn=LEAF_CN + " No OID", markers=()),
    leaf("jws-leaf-p384", 0x5207, "", cn=LEAF_CN + " P-384", key="P-384"),
    leaf("jws-leaf-rsa", 0x5208, "", cn="ReceiptParser Test RSA App Store Receipt Signing", key="RSA-2048"),
    leaf("jws-leaf-by-root", 0x5209, "issued by the root directly", issuer="jws-root", cn=LEAF_CN + " By Root"),
    # An attacker's PKI with every marker, which only `--root pki/jws-attacker-root.der` trusts.
    Spec("jws-attacker-root", name("Attacker Test Root CA - G3", OA), 0x5001, ROOT_VALIDITY, None, "P-384", ca=True,
         usage=CA_USAGE, pem=True, note="another root"),
    Spec("jws-attacker-intermediate", name("Attacker Test Worldwide Developer Relations CA", OA, "G6"), 0x5101,
         CA_VALIDITY, "jws-attacker-root", "P-384", ca=True, path_length=0, usage=CA_USAGE, markers=WWDR),
    Spec("jws-attacker-leaf", name("Attacker Test Receipt Signing", OA), 0x5201, LEAF_VALIDITY,
         "jws-attacker-intermediate", markers=SIGNING),
    # Like Xcode's "StoreKit Testing in Xcode": self-signed P-256, a CA, no Apple markers.
    Spec("jws-storekit", name(STOREKIT_NAME, O), 0x5301, STOREKIT_VALIDITY, None, ca=True, path_length=0,
         storekit=True, pem=True, note="for `--storekit-testing pki/jws-storekit.der`"),
    Spec("jws-storekit-other", name(STOREKIT_NAME, O), 0x5302, STOREKIT_VALIDITY, None, ca=True, path_length=0,
         storekit=True, note="jws-storekit's name, another key"),
]


def make(pki_dir: Path, spec: Spec, issuer: Cert | None) -> Cert:
    key = load_or_create(pki_dir, spec.key_file or spec.name, spec.key)
    public = key.public_key()
    b = (x509.CertificateBuilder().subject_name(spec.subject)
         .issuer_name(issuer.cert.subject if issuer else spec.subject)
         .public_key(public).serial_number(spec.serial)
         .not_valid_before(spec.validity[0]).not_valid_after(spec.validity[1]))
    # Extensions in the order Apple's certificates have them.
    if spec.storekit:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=spec.path_length), critical=True)
        b = b.add_extension(x509.SubjectAlternativeName([x509.RFC822Name(STOREKIT_NAME)]), critical=False)
        b = b.add_extension(key_usage(*spec.usage), critical=True)
    else:
        if issuer is None:
            b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        if spec.ca is not None:
            b = b.add_extension(x509.BasicConstraints(ca=spec.ca, path_length=spec.path_length), critical=True)
        if issuer is not None:
            b = b.add_extension(authority_key_id(issuer), critical=False)
            b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        b = b.add_extension(key_usage(*spec.usage), critical=True)
        for marker in spec.markers:
            b = b.add_extension(apple_marker(marker), critical=False)
    signing_key = issuer.key if issuer else key
    digest = hashes.SHA384() if signing_key.curve.key_size > 256 else hashes.SHA256()
    cert = b.sign(signing_key, digest, ecdsa_deterministic=True)
    der = cert.public_bytes(serialization.Encoding.DER)
    (pki_dir / f"{spec.name}.der").write_bytes(der)
    if spec.pem:
        (pki_dir / f"{spec.name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return Cert(spec.name, key, cert, der)


def build_jws_pki(pki_dir: Path) -> dict[str, Cert]:
    """Every certificate of the JWS PKI, in the order of SPECS (issuers first)."""
    pki_dir.mkdir(parents=True, exist_ok=True)
    made: dict[str, Cert] = {}
    for spec in SPECS:
        made[spec.name] = make(pki_dir, spec, made[spec.issuer] if spec.issuer else None)
    return made
