"""The test PKI: RSA keys kept in pki/, certificates with fixed names, serials and dates.

Keys are the only source of randomness. They are reused when present, and RSA PKCS#1 v1.5
signatures are deterministic, so with the keys in pki/ every run gives the same certificates.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from . import oids
from .der import NULL, bit_string, children, seq


def utc(y: int, m: int, d: int) -> dt.datetime:
    return dt.datetime(y, m, d, tzinfo=dt.timezone.utc)


def name(cn: str, o: str, ou: str | None = None, c: str = "US") -> x509.Name:
    # DER order is C, O, (OU,) CN so that RFC 4514 prints "CN=..., [OU=...,] O=..., C=US".
    attrs = [x509.NameAttribute(NameOID.COUNTRY_NAME, c), x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)]
    if ou is not None:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def _tbs_fields(der: bytes) -> tuple[list[bytes], int]:
    """The TBSCertificate's fields, and where serialNumber is (after the [0] version if any)."""
    fields = children(children(der)[0])
    return fields, 1 if fields[0][0] == 0xA0 else 0


def tbs_field(der: bytes, index: int) -> bytes:
    """Field `index` of a certificate's TBSCertificate, counted from serialNumber:
    0 serialNumber, 1 signature, 2 issuer, 3 validity, 4 subject, exactly as encoded."""
    fields, start = _tbs_fields(der)
    return fields[start + index]


def resigned(der: bytes, algorithm: bytes, signing_key: rsa.RSAPrivateKey,
             hash_algorithm: type[hashes.HashAlgorithm]) -> bytes:
    """The certificate with its signature algorithm replaced by `algorithm` (inside and outside
    the signed part) and an RSA PKCS#1 v1.5 signature by `signing_key` with `hash_algorithm`,
    whatever the label says."""
    fields, start = _tbs_fields(der)
    fields[start + 1] = algorithm
    tbs = seq(*fields)
    return seq(tbs, algorithm, bit_string(signing_key.sign(tbs, padding.PKCS1v15(), hash_algorithm())))


def load_key(path: Path, key_type: type = rsa.RSAPrivateKey):
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, key_type):
        raise SystemExit(f"{path}: not a {key_type.__name__}")
    return key


def new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def load_or_create_key(pki_dir: Path, key_name: str, generate=new_rsa_key, key_type: type = rsa.RSAPrivateKey):
    """The key in pki/NAME.key.pem, or a new one from `generate` written there."""
    path = pki_dir / f"{key_name}.key.pem"
    if path.exists():
        return load_key(path, key_type)
    key = generate()
    path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    print(f"  created new key {path}")
    return key


@dataclass
class Cert:
    name: str
    key: rsa.RSAPrivateKey
    cert: x509.Certificate
    der: bytes

    @property
    def serial_der(self) -> bytes:
        return tbs_field(self.der, 0)

    @property
    def issuer_der(self) -> bytes:
        """The issuer Name exactly as encoded in the certificate."""
        return tbs_field(self.der, 2)

    @property
    def subject_der(self) -> bytes:
        """The subject Name exactly as encoded in the certificate."""
        return tbs_field(self.der, 4)

    @property
    def ski(self) -> bytes:
        return self.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest


def load_cert(pki_dir: Path, cert_name: str) -> Cert:
    """A certificate of the committed PKI with its key, as the generator wrote them (for other
    scripts that sign with the test PKI; nothing is created)."""
    der = (pki_dir / f"{cert_name}.der").read_bytes()
    return Cert(cert_name, load_key(pki_dir / f"{cert_name}.key.pem"), x509.load_der_x509_certificate(der), der)


def key_usage(*names: str) -> x509.KeyUsage:
    flags = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
             "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    unknown = set(names) - set(flags)
    if unknown:
        raise ValueError(unknown)
    return x509.KeyUsage(**{flag: flag in names for flag in flags})


def authority_key_id(issuer: Cert) -> x509.AuthorityKeyIdentifier:
    return x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(
        issuer.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value)


def apple_marker(dotted: str) -> x509.UnrecognizedExtension:
    """Apple's marker extensions hold DER NULL."""
    return x509.UnrecognizedExtension(x509.ObjectIdentifier(dotted), NULL)


def make_cert(
    pki_dir: Path,
    cert_name: str,
    subject: x509.Name,
    serial: int,
    not_before: dt.datetime,
    not_after: dt.datetime,
    *,
    issuer: Cert | None,  # None = self-signed
    ca: bool,
    usage: x509.KeyUsage,
    apple_oids: tuple[str, ...] = (),
    eku_critical: list[x509.ObjectIdentifier] | None = None,
    ski: bool = True,
    sig_hash: type[hashes.HashAlgorithm] = hashes.SHA256,
    write_pem: bool = False,
) -> Cert:
    key = load_or_create_key(pki_dir, cert_name)
    b = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.cert.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(serial)
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(usage, critical=True)
    )
    if eku_critical:
        b = b.add_extension(x509.ExtendedKeyUsage(eku_critical), critical=True)
    if ski:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if issuer is not None:
        b = b.add_extension(authority_key_id(issuer), critical=False)
    for o in apple_oids:
        b = b.add_extension(apple_marker(o), critical=False)
    signing_key = issuer.key if issuer else key
    if sig_hash is hashes.SHA1:
        # cryptography refuses to sign certificates with SHA-1, so build the certificate with
        # SHA-256 and re-sign its TBSCertificate ourselves.
        der = resigned(b.sign(signing_key, hashes.SHA256()).public_bytes(serialization.Encoding.DER),
                       oids.alg_id(oids.SHA1_WITH_RSA), signing_key, hashes.SHA1)
        cert = x509.load_der_x509_certificate(der)
        assert cert.signature_algorithm_oid.dotted_string == oids.SHA1_WITH_RSA
    else:
        cert = b.sign(signing_key, sig_hash())
    der = cert.public_bytes(serialization.Encoding.DER)
    (pki_dir / f"{cert_name}.der").write_bytes(der)
    if write_pem:
        (pki_dir / f"{cert_name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return Cert(cert_name, key, cert, der)


def build_pki(pki_dir: Path) -> dict[str, Cert]:
    """Every certificate of pki/, in the order of the README's table."""
    pki_dir.mkdir(parents=True, exist_ok=True)
    O, OA = "ReceiptParser Tests", "Attacker Tests"
    ca_ku, ee_ku = key_usage("key_cert_sign", "crl_sign"), key_usage("digital_signature")
    y2020, y2040 = utc(2020, 1, 1), utc(2040, 1, 1)
    y2024, y2026 = utc(2024, 1, 1), utc(2026, 1, 1)
    wwdr, signing = (oids.APPLE_WWDR_INTERMEDIATE,), (oids.APPLE_RECEIPT_SIGNING,)
    p: dict[str, Cert] = {}

    def ca(cert_name, subject, serial, issuer, markers=(), **kw):
        p[cert_name] = make_cert(pki_dir, cert_name, subject, serial, y2020, y2040, issuer=issuer and p[issuer],
                                 ca=True, usage=ca_ku, apple_oids=markers, **kw)

    def signer(cert_name, subject, serial, issuer, markers=signing, **kw):
        p[cert_name] = make_cert(pki_dir, cert_name, subject, serial, y2024, y2026, issuer=issuer and p[issuer],
                                 ca=False, usage=ee_ku, apple_oids=markers, **kw)

    ca("test-root", name("ReceiptParser Test Root CA", O), 0x1001, None, write_pem=True)
    ca("test-intermediate", name("ReceiptParser Test WWDR Intermediate", O, "G5"), 0x2001, "test-root", wwdr)
    signer("test-signer", name("ReceiptParser Test Receipt Signing", O), 0x3001, "test-intermediate")
    ca("test-intermediate-sha1", name("ReceiptParser Test WWDR Intermediate SHA1", O, "G5"), 0x2002, "test-root",
       wwdr, sig_hash=hashes.SHA1)
    signer("test-signer-sha1", name("ReceiptParser Test Receipt Signing SHA1", O), 0x3002, "test-intermediate-sha1",
           sig_hash=hashes.SHA1)
    signer("rogue-signer", name("Mallory Developer", O), 0x3003, "test-intermediate", markers=())
    ca("intermediate-no-oid", name("ReceiptParser Test Intermediate Without Apple OID", O), 0x2003, "test-root")
    signer("signer-under-no-oid-intermediate",
           name("ReceiptParser Test Receipt Signing Under No-OID Intermediate", O), 0x3004, "intermediate-no-oid")
    ca("other-root", name("Attacker Test Root CA", OA), 0x1001, None, write_pem=True)
    ca("other-intermediate", name("Attacker Test WWDR Intermediate", OA, "G5"), 0x2001, "other-root", wwdr)
    signer("other-signer", name("Attacker Test Receipt Signing", OA), 0x3001, "other-intermediate")
    signer("self-signed-signer", name("ReceiptParser Test Self-Signed Receipt Signing", O), 0x3005, None)
    # Shaped like Xcode's StoreKit Testing certificate: it signs receipts itself.
    p["storekit-test"] = make_cert(
        pki_dir, "storekit-test", name("StoreKit Test", O), 0x4001, utc(2020, 4, 1), utc(2040, 3, 27),
        issuer=None, ca=True, usage=key_usage("digital_signature", "key_cert_sign"),
        eku_critical=[ExtendedKeyUsageOID.CODE_SIGNING], ski=False, write_pem=True)
    return p
