"""PKCS #7 / CMS SignedData envelopes (RFC 5652) around a receipt payload, as Apple writes
them (DER, certificates signer first, no signed attributes) and as fixtures bend them."""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric import padding, rsa

from . import oids
from .der import ber_indef, children, der_set_of_sorted_content, explicit, integer, octet, oid, seq, \
    set_unsorted, tlv, utctime
from .pki import Cert


def rsa_sign(key: rsa.RSAPrivateKey, data: bytes, digest: str) -> bytes:
    return key.sign(data, padding.PKCS1v15(), oids.DIGESTS[digest][1]())


def signed_attrs_content(payload: bytes, digest: str, message_digest: bytes | None = None) -> bytes:
    """Content octets of signedAttrs (DER SET OF, sorted)."""
    if message_digest is None:
        message_digest = hashlib.new(oids.DIGESTS[digest][2], payload).digest()
    attrs = [
        seq(oid(oids.CONTENT_TYPE), set_unsorted(oid(oids.DATA))),
        seq(oid(oids.MESSAGE_DIGEST), set_unsorted(octet(message_digest))),
        seq(oid(oids.SIGNING_TIME), set_unsorted(utctime("250601120000Z"))),
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
    return seq(integer(version), sid_der, oids.digest_alg(digest), attrs_der, oids.RSA_ENCRYPTION_ALG, octet(signature))


def relabelled_signer_info(signer_info_der: bytes, algorithm: bytes) -> bytes:
    """The SignerInfo with its signatureAlgorithm replaced, the signature kept."""
    fields = children(signer_info_der)
    fields[-2] = algorithm  # version, sid, digestAlgorithm, signatureAlgorithm, signature
    return seq(*fields)


def pkcs7(
    payload: bytes | None,
    signer_infos: list[bytes],
    certs: list[Cert | bytes],
    digests: tuple[str, ...] = ("sha256",),
    *,
    content_type: str = oids.DATA,
    version: int = 1,
) -> bytes:
    """DER ContentInfo(SignedData). payload=None -> detached (no eContent). Certificates are
    test PKI ones or hand-written DER, kept in the given order."""
    encap = [oid(content_type)]
    if payload is not None:
        encap.append(explicit(0, octet(payload)))
    signed_data = seq(
        integer(version),
        set_unsorted(*(oids.digest_alg(d) for d in digests)),
        seq(*encap),
        tlv(0xA0, b"".join(c.der if isinstance(c, Cert) else c for c in certs)),  # [0] IMPLICIT
        set_unsorted(*signer_infos),
    )
    return seq(oid(oids.SIGNED_DATA), explicit(0, signed_data))


def simple_receipt(payload: bytes, signer: Cert, chain: list[Cert], digest: str = "sha256") -> bytes:
    """Signed as Apple signs: one SignerInfo, certificates signer first, no signed attributes."""
    return pkcs7(payload, [signer_info(signer, payload, digest)], [signer, *chain], (digest,))


def storekit_receipt(payload: bytes, signer: Cert, chunk: int = 100) -> bytes:
    """BER like Xcode: indefinite lengths and a constructed, chunked OCTET STRING."""
    chunks = b"".join(octet(payload[i : i + chunk]) for i in range(0, len(payload), chunk))
    econtent = ber_indef(0x24, chunks)
    encap = ber_indef(0x30, oid(oids.DATA) + ber_indef(0xA0, econtent))
    signed_data = ber_indef(
        0x30,
        integer(1)
        + set_unsorted(oids.digest_alg("sha256"))
        + encap
        + tlv(0xA0, signer.der)
        + set_unsorted(signer_info(signer, payload, "sha256")),
    )
    return ber_indef(0x30, oid(oids.SIGNED_DATA) + ber_indef(0xA0, signed_data))
