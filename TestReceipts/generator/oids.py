"""Object identifiers by name, and the AlgorithmIdentifiers built from them."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes

from .der import NULL, oid, seq

SIGNED_DATA = "1.2.840.113549.1.7.2"
DATA = "1.2.840.113549.1.7.1"
DIGESTED_DATA = "1.2.840.113549.1.7.5"
RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
SHA1_WITH_RSA = "1.2.840.113549.1.1.5"
SHA256_WITH_RSA = "1.2.840.113549.1.1.11"
ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2"
CONTENT_TYPE = "1.2.840.113549.1.9.3"
MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
SIGNING_TIME = "1.2.840.113549.1.9.5"
BASIC_CONSTRAINTS = "2.5.29.19"
KEY_USAGE = "2.5.29.15"
SUBJECT_KEY_ID = "2.5.29.14"
# Apple's marker extensions: the WWDR intermediate and the receipt-signing certificate.
APPLE_WWDR_INTERMEDIATE = "1.2.840.113635.100.6.2.1"
APPLE_RECEIPT_SIGNING = "1.2.840.113635.100.6.11.1"

DIGESTS = {
    # name: (OID, cryptography hash, hashlib name)
    "sha1": ("1.3.14.3.2.26", hashes.SHA1, "sha1"),
    "sha256": ("2.16.840.1.101.3.4.2.1", hashes.SHA256, "sha256"),
    "sha512": ("2.16.840.1.101.3.4.2.3", hashes.SHA512, "sha512"),
}


def alg_id(dotted: str) -> bytes:
    """An AlgorithmIdentifier with NULL parameters (RSA and digests)."""
    return seq(oid(dotted), NULL)


def digest_alg(name: str) -> bytes:
    return alg_id(DIGESTS[name][0])


ECDSA_SHA256_ALG = seq(oid(ECDSA_WITH_SHA256))  # RFC 5758: no parameters
RSA_ENCRYPTION_ALG = alg_id(RSA_ENCRYPTION)
