"""The hostile/ fixtures about certificates: a certificate bomb, forged intermediates against the
signature budget, keys outside the key policy, algorithm labels that do not fit the key.
Outcomes are under App Store rules with the configured root pki/test-root.der."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from . import oids
from .der import integer, octet, seq
from .fixture import FixtureList, Kit
from .forgery import det_odd, ec_signer, fake_intermediates, p521_spki, rsa_spki
from .outcome import invalid, valid
from .payload import BUNDLE_ID
from .pkcs7 import pkcs7, relabelled_signer_info
from .pki import resigned, tbs_field

CERTIFICATES = FixtureList("hostile")
fixture = CERTIFICATES.fixture

CAP = 10  # DecodingLimits.maximumCertificates
AT_CAP = CAP - 2  # forged intermediates that fit beside test-signer and test-intermediate


def with_fakes(kit: Kit, fakes: list[bytes], root: bool = False) -> bytes:
    """The sample signed by test-signer; certificates test-signer, `fakes`, test-intermediate (and test-root)."""
    certs = [kit.signer, *fakes, kit.inter] + ([kit.root] if root else [])
    return pkcs7(kit.sample_payload, [kit.sample_info], certs)


def wrong_key(label: str) -> bytes:
    return rsa_spki(det_odd(label + "/n", 2048), 65537)


@fixture("certificate-bomb.receipt",
         "Sample signed by test-signer; 50 certificates: test-signer, 47 forged intermediates (3072-bit random "
         "moduli, 3071-bit odd public exponents, test-intermediate's subject, issuer and key identifier, WWDR "
         "marker, random signature bytes), test-intermediate, test-root.",
         invalid("tooManyCertificates", f"more than {CAP}, before any certificate is parsed"))
def certificate_bomb(kit: Kit) -> bytes:
    bombs = fake_intermediates("bomb", 47, lambda l: rsa_spki(det_odd(l + "/n", 3072), det_odd(l + "/e", 3071)),
                               kit.inter)
    return with_fakes(kit, bombs, root=True)


@fixture("budget-one-fake.receipt",
         "Sample; certificates test-signer, one forged intermediate (2048-bit RSA, e = 65537, wrong key, same names "
         "and key identifier), test-intermediate, test-root: 4 signature checks (receipt, fake, intermediate, root).",
         valid("the budget of 4 signature checks suffices", bundleID=BUNDLE_ID))
def budget_one_fake(kit: Kit) -> bytes:
    return with_fakes(kit, fake_intermediates("fake", 1, wrong_key, kit.inter), root=True)


@fixture("budget-eight-fakes.receipt",
         f"Sample; {CAP} certificates: test-signer, {AT_CAP} forged intermediates like the one above, "
         "test-intermediate (no root: the root is the configured test-root).",
         invalid("untrustedChain", "the signature budget (4) runs out before test-intermediate is reached"))
def budget_eight_fakes(kit: Kit) -> bytes:
    return with_fakes(kit, fake_intermediates("fake", AT_CAP, wrong_key, kit.inter))


@fixture("key-exponent-too-large.receipt",
         f"Sample; {CAP} certificates: test-signer, {AT_CAP} forged intermediates with 2048-bit moduli and 2047-bit "
         "odd public exponents, test-intermediate.",
         invalid("keyNotAllowed", "exponent above 2^32, before any signature check with the key"))
def key_exponent_too_large(kit: Kit) -> bytes:
    spki = lambda l: rsa_spki(det_odd(l + "/n", 2048), det_odd(l + "/e", 2047))
    return with_fakes(kit, fake_intermediates("big-e", AT_CAP, spki, kit.inter))


@fixture("key-rsa-8192.receipt", "Like `key-exponent-too-large.receipt` with 8192-bit moduli, e = 65537.",
         invalid("keyNotAllowed", "modulus above 4096 bits"))
def key_rsa_8192(kit: Kit) -> bytes:
    return with_fakes(kit, fake_intermediates("rsa-8192", AT_CAP, lambda l: rsa_spki(det_odd(l + "/n", 8192), 65537),
                                              kit.inter))


@fixture("key-rsa-1024.receipt", "Like `key-exponent-too-large.receipt` with 1024-bit moduli, e = 65537.",
         invalid("keyNotAllowed", "modulus below 2048 bits"))
def key_rsa_1024(kit: Kit) -> bytes:
    return with_fakes(kit, fake_intermediates("rsa-1024", AT_CAP, lambda l: rsa_spki(det_odd(l + "/n", 1024), 65537),
                                              kit.inter))


@fixture("key-ec-p521.receipt",
         "Like `key-exponent-too-large.receipt` with one forged intermediate whose key is EC P-521 (from a fixed "
         "scalar).", invalid("keyNotAllowed", "only P-256 and P-384"))
def key_ec_p521(kit: Kit) -> bytes:
    spki = p521_spki()
    return with_fakes(kit, fake_intermediates("p521", 1, lambda l: spki, kit.inter))


@fixture("ecdsa-label-rsa-signature.receipt",
         "`sample.receipt` with the SignerInfo's signatureAlgorithm ecdsa-with-SHA256 (no parameters); the signature "
         "is test-signer's RSA PKCS#1 v1.5 signature, otherwise valid.",
         invalid("unsupportedSignatureAlgorithm", "an ECDSA label on an RSA key is not verified"))
def ecdsa_label_rsa_signature(kit: Kit) -> bytes:
    info = relabelled_signer_info(kit.sample_info, oids.ECDSA_SHA256_ALG)
    return pkcs7(kit.sample_payload, [info], [kit.signer, *kit.chain])


@fixture("ecdsa-labelled-signer-certificate.receipt",
         "Sample signed by test-signer; its certificate relabelled ecdsa-with-SHA256 (inside and outside the TBS) "
         "but signed RSA PKCS#1 v1.5 SHA-256 by test-intermediate; certificates that, test-intermediate, test-root.",
         invalid("unsupportedSignatureAlgorithm", "an ECDSA label on the RSA issuer key"))
def ecdsa_labelled_signer_certificate(kit: Kit) -> bytes:
    relabelled = resigned(kit.signer.der, oids.ECDSA_SHA256_ALG, kit.inter.key, hashes.SHA256)
    return pkcs7(kit.sample_payload, [kit.sample_info], [relabelled, *kit.chain])


def ec_signed(kit: Kit) -> tuple[bytes, bytes]:
    """The EC receipt-signing certificate and its SignerInfo over the sample (deterministic ECDSA)."""
    key, der = ec_signer(kit.inter)
    signature = key.sign(kit.sample_payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    sid = seq(tbs_field(der, 2), tbs_field(der, 0))  # issuer, serialNumber
    return der, seq(integer(1), sid, oids.digest_alg("sha256"), oids.ECDSA_SHA256_ALG, octet(signature))


@fixture("ec-signer.receipt",
         "Sample signed ECDSA P-256 SHA-256 (deterministic, RFC 6979) by an EC receipt-signing certificate issued by "
         "test-intermediate (sha256WithRSA); SignerInfo labelled ecdsa-with-SHA256; certificates it, "
         "test-intermediate, test-root.",
         valid("the control for the next one", bundleID=BUNDLE_ID))
def ec_signer_receipt(kit: Kit) -> bytes:
    der, info = ec_signed(kit)
    return pkcs7(kit.sample_payload, [info], [der, *kit.chain])


@fixture("rsa-label-ec-signer.receipt",
         "`ec-signer.receipt` with the SignerInfo's signatureAlgorithm rsaEncryption; the ECDSA signature unchanged.",
         invalid("unsupportedSignatureAlgorithm", "an RSA label on an EC key is not verified"))
def rsa_label_ec_signer(kit: Kit) -> bytes:
    der, info = ec_signed(kit)
    return pkcs7(kit.sample_payload, [relabelled_signer_info(info, oids.RSA_ENCRYPTION_ALG)], [der, *kit.chain])
