"""The jws/ tokens whose certificates break one chain rule (exit 1): another root or PKI, an
intermediate that is no CA or lacks Apple's marker, a leaf issued by the root, x5c out of order,
keys that are not P-256, certificates changed after signing, a forged leaf, Xcode's certificate."""

from __future__ import annotations

import base64

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from .der import children, seq
from .jws import b64std, der_to_raw, ecdsa_der
from .jws_fixture import APPLE_CHAIN, JWSKit, Probe, TokenList, probe
from .jws_outcome import fails, ok
from .jws_reading import cert_key, cert_name, header, leaf_key, sig, signed_by_leaf, x5c_of
from .jws_trust import T, signed_with_header
from .jws_valid_edges import xcode_transaction_payload
from .storekit2 import plain_transaction

CHAIN = TokenList("chain", "Certificates",
                  "A plain Sandbox transaction signed by the leaf its x5c names, the chain breaking one rule.")


# --- the chain

def chain_token(file: str, what: str, names: tuple[str, ...], cases: tuple, probes: tuple[Probe, ...],
                signer: str | None = None):
    @CHAIN.token(file, what, T, *cases, probes=probes)
    def build(kit: JWSKit) -> str:
        return signed_with_header(kit, kit.header(names), signer or names[0])


# (file, what it is, x5c, cases, probes; the signer is x5c[0] unless a sixth element names it)
CHAINS = [
    ("root-twin.jws", "x5c[2] is jws-root-twin: jws-root's name and key, another serial. jws-intermediate's "
     "signature verifies under it; only its bytes differ from the configured root.",
     ("jws-leaf", "jws-intermediate", "jws-root-twin"),
     (fails("untrustedChain", "x5c[2] must be the configured root byte for byte"),),
     (Probe(lambda d: cert_name(d, 2).startswith("CN=ReceiptParser Test Root CA - G3")),
      Probe(lambda d, out: base64.b64decode(x5c_of(d)[2]) != (out / "pki" / "jws-root.der").read_bytes()
            and cert_key(out, "jws-root") == x509.load_der_x509_certificate(base64.b64decode(x5c_of(d)[2]))
            .public_key()))),
    ("attacker-chain.jws", "An attacker's PKI with both Apple markers: jws-attacker-leaf, "
     "jws-attacker-intermediate, jws-attacker-root.",
     ("jws-attacker-leaf", "jws-attacker-intermediate", "jws-attacker-root"),
     (fails("untrustedChain"), ok("its own root configured", root="pki/jws-attacker-root.der")),
     (Probe(lambda d: cert_name(d, 2).startswith("CN=Attacker")),)),
    ("attacker-chain-real-root.jws", "jws-attacker-leaf, jws-attacker-intermediate, then jws-root: x5c[2] is "
     "the configured root, but it did not issue the intermediate.",
     ("jws-attacker-leaf", "jws-attacker-intermediate", "jws-root"), (fails("untrustedChain"),),
     (Probe(lambda d: cert_name(d, 1).startswith("CN=Attacker")),)),
    ("intermediate-not-ca.jws", "The intermediate is jws-intermediate-not-ca (issued by jws-root, marker "
     "6.2.1, basicConstraints CA:FALSE) and issued the leaf.",
     ("jws-leaf-under-not-ca", "jws-intermediate-not-ca", "jws-root"),
     (fails("untrustedChain", "the intermediate is not a CA"),),
     (Probe(lambda d: cert_name(d, 1).split(",")[0].endswith("Not CA")),)),
    ("intermediate-no-basic-constraints.jws", "The intermediate has no basicConstraints extension (keyUsage "
     "keyCertSign, marker 6.2.1) and issued the leaf.",
     ("jws-leaf-under-no-basic-constraints", "jws-intermediate-no-basic-constraints", "jws-root"),
     (fails("untrustedChain", "the intermediate is not a CA"),),
     (Probe(lambda d: cert_name(d, 1).split(",")[0].endswith("No BC")),)),
    ("intermediate-no-oid.jws", "The intermediate (a CA issued by jws-root) lacks "
     "1.2.840.113635.100.6.2.1.",
     ("jws-leaf-under-no-oid-intermediate", "jws-intermediate-no-oid", "jws-root"),
     (fails("missingAppleExtension"),), (Probe(lambda d: cert_name(d, 1).split(",")[0].endswith("No OID")),)),
    ("leaf-no-oid.jws", "The leaf (issued by jws-intermediate) lacks 1.2.840.113635.100.6.11.1.",
     ("jws-leaf-no-oid", "jws-intermediate", "jws-root"), (fails("missingAppleExtension"),),
     (Probe(lambda d: cert_name(d, 0).split(",")[0].endswith("No OID")),)),
    ("leaf-by-root.jws", "The leaf was issued by jws-root directly; x5c[1] is jws-intermediate.",
     ("jws-leaf-by-root", "jws-intermediate", "jws-root"),
     (fails("untrustedChain", "the leaf must be issued by the intermediate"),),
     (Probe(lambda d: cert_name(d, 0).split(",")[0].endswith("By Root")),)),
    ("swapped-order.jws", "x5c is jws-intermediate, jws-leaf, jws-root (leaf and intermediate swapped); "
     "signed by jws-leaf.", ("jws-intermediate", "jws-leaf", "jws-root"),
     (fails("untrustedChain", "x5c[1] is not a CA issued by the root",
            other=("missingAppleExtension", "keyNotAllowed", "signatureInvalid")),),
     (Probe(lambda d: "WWDR" in cert_name(d, 0) and "Receipt Signing" in cert_name(d, 1)),), "jws-leaf"),
]
for _row in CHAINS:
    chain_token(*_row)


def other_key_leaf(file: str, what: str, cert_name: str, sign, probe):
    @CHAIN.token(file, what, T, fails("keyNotAllowed", "refused before any signature math with the key",
                                      other=("signatureInvalid",)), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        parts = kit.parts(plain_transaction(), kit.header((cert_name, "jws-intermediate", "jws-root")))
        return parts.with_signature(sign(kit.pki[cert_name].key, parts.signing_input)).text


other_key_leaf("leaf-p384.jws", "The leaf's key is P-384 (issued by jws-intermediate, marker 6.11.1); the signature "
               "is its ECDSA over SHA-256, 96 bytes r ‖ s.", "jws-leaf-p384",
               lambda key, data: der_to_raw(ecdsa_der(key, data), 48), probe=lambda d: len(sig(d)) == 96)
other_key_leaf("leaf-rsa.jws", "The leaf's key is RSA-2048 (issued by jws-intermediate, marker 6.11.1); the "
               "signature is its RSA PKCS#1 v1.5 SHA-256, 256 bytes.", "jws-leaf-rsa",
               lambda key, data: key.sign(data, padding.PKCS1v15(), hashes.SHA256()),
               probe=lambda d: len(sig(d)) == 256)


def tampered(file: str, what: str, index: int, old: bytes, new: bytes, note: str, *, probe):
    """Apple's chain with `old` replaced by `new` in x5c[index]'s DER (same key, signature unchanged)."""
    @CHAIN.token(file, what, T, fails("untrustedChain", note), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        header = kit.header()
        der = kit.der(APPLE_CHAIN[index])
        assert der.count(old) == 1 and len(old) == len(new)
        header["x5c"][index] = b64std(der.replace(old, new))
        return signed_with_header(kit, header)


tampered("tampered-leaf.jws", "x5c[0] is jws-leaf with one letter of its subject changed (`Receipt SigninG`); its "
         "key is unchanged and signs the token.", 0, b"Receipt Signing", b"Receipt SigninG",
         "the intermediate's signature on the leaf fails",
         probe=lambda d: "Receipt SigninG" in cert_name(d, 0) and signed_by_leaf(d))
tampered("tampered-intermediate.jws", "x5c[1] is jws-intermediate with its notBefore moved a day (200101 to 200102); "
         "names and key unchanged.", 1, b"200101000000Z", b"200102000000Z",
         "the root's signature on the intermediate fails",
         probe=lambda d: x509.load_der_x509_certificate(base64.b64decode(x5c_of(d)[1]))
         .not_valid_before_utc.day == 2)


@CHAIN.token("forged-leaf.jws", "x5c[0] is jws-leaf with its public key replaced by jws-attacker-leaf's (the "
             "intermediate's signature copied unchanged); the token is signed with the attacker's key.", T,
             fails("untrustedChain", "the intermediate's signature on the leaf fails"))
@probe(lambda d, out: leaf_key(d) == cert_key(out, "jws-attacker-leaf"))
@probe(lambda d: "Receipt Signing" in cert_name(d, 0) and signed_by_leaf(d))
def forged_leaf(kit: JWSKit) -> str:
    cert = children(kit.der("jws-leaf"))
    tbs = children(cert[0])
    spki = kit.pki["jws-attacker-leaf"].key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    tbs[6] = spki  # [0] version, serial, signature, issuer, validity, subject, subjectPublicKeyInfo
    header = kit.header()
    header["x5c"][0] = b64std(seq(seq(*tbs), cert[1], cert[2]))
    return signed_with_header(kit, header, "jws-attacker-leaf")


# StoreKit Testing mode: only the configured certificate, alone, with a valid signature.

@CHAIN.token("xcode-other-certificate.jws", "An Xcode-style transaction signed by jws-storekit-other (jws-storekit's "
             "name, another key), which is its one x5c certificate.", T,
             fails("untrustedChain", "not the configured StoreKit Testing certificate", storekit_testing=True),
             fails("untrustedChain", "under the test root"))
@probe(lambda d: len(x5c_of(d)) == 1)
def xcode_other(kit: JWSKit) -> str:
    return kit.xcode(xcode_transaction_payload(), "jws-storekit-other")
