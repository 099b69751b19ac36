"""The fixtures of receipts/: the sample in every input form, valid variants, and one receipt
per failure class of the envelope, the signature, the chain, the time and the payload."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json

from . import oids
from .der import ia5, integer, seq, tlv, utf8
from .fixture import FixtureList, Kit
from .outcome import AFTER_EXPIRY, APP_STORE, APPLE, AT_MARCH_2025, OTHER_ROOT, REQUIRE_SHA256, STOREKIT, VERIFIED, \
    Outcome, invalid, unreadable, valid
from .payload import BUNDLE_ID, encode_attrs, iap_consumable, iap_refunded, iap_subscription, replace_attr, \
    sample_attrs, storekit_attrs, without
from .pkcs7 import pkcs7, signed_attrs_content, signer_info, simple_receipt, storekit_receipt

RECEIPTS = FixtureList("receipts")
fixture = RECEIPTS.fixture

# What decodes from the sample payload, checked wherever a fixture carries it.
SAMPLE = {"bundleID": BUNDLE_ID, "inAppPurchases": 3}

# --- valid


@fixture("sample.receipt", "The standard sample payload (see below), SHA-256, signed by test-signer; certificates "
         "test-signer, test-intermediate, test-root.",
         valid(receiptType="ProductionSandbox", environment="sandbox", **SAMPLE)
         .under(REQUIRE_SHA256, VERIFIED).under(AFTER_EXPIRY, "certificateNotValidAtTime")
         .under(OTHER_ROOT, "untrustedChain").under(STOREKIT, "untrustedChain").under(APPLE, "untrustedChain"))
def sample(kit: Kit) -> bytes:
    return kit.sample_receipt


def wrap64(b64: bytes) -> bytes:
    return b"".join(b64[i : i + 64] + b"\n" for i in range(0, len(b64), 64))


@fixture("sample.b64", "`sample.receipt` in base64, wrapped at 64 characters with `\\n`.",
         valid("after base64 decoding", **SAMPLE))
def sample_b64(kit: Kit) -> bytes:
    return wrap64(base64.b64encode(kit.sample_receipt))


@fixture("sample-oneline.b64", "`sample.receipt` in base64 on one line, trailing newline.",
         valid("after base64 decoding", **SAMPLE))
def sample_oneline(kit: Kit) -> bytes:
    return base64.b64encode(kit.sample_receipt) + b"\n"


@fixture("sample-request.json",
         '`{"receipt-data": "<base64 of sample.receipt>", "password": "x"}` (verifyReceipt request body).',
         valid("the receipt is read from `receipt-data`", **SAMPLE))
def sample_request(kit: Kit) -> bytes:
    return (json.dumps({"receipt-data": base64.b64encode(kit.sample_receipt).decode(), "password": "x"}) + "\n").encode()


@fixture("sha1.receipt", "Sample payload, digest SHA-1 (1.3.14.3.2.26); signer test-signer-sha1 ← "
         "test-intermediate-sha1 ← test-root (both certificates signed with sha1WithRSAEncryption).",
         valid(**SAMPLE).under(REQUIRE_SHA256, "digestNotAllowed"))
def sha1(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.pki["test-signer-sha1"],
                          [kit.pki["test-intermediate-sha1"], kit.root], "sha1")


@fixture("signed-attributes.receipt", "Sample payload with signedAttrs (contentType = data, messageDigest = "
         "SHA-256(payload), signingTime 2025-06-01 12:00:00Z); signature over the DER SET OF (tag 0x31) of the "
         "attributes.", valid(**SAMPLE))
def signed_attributes(kit: Kit) -> bytes:
    attrs = signed_attrs_content(kit.sample_payload, "sha256")
    return pkcs7(kit.sample_payload, [signer_info(kit.signer, kit.sample_payload, signed_attrs=attrs)],
                 [kit.signer, *kit.chain])


@fixture("subject-key-id.receipt", "Sample payload; SignerInfo version 3 with sid `[0]` subjectKeyIdentifier of "
         "test-signer (SignedData version 3, as RFC 5652 §5.1 requires).", valid(**SAMPLE))
def subject_key_id(kit: Kit) -> bytes:
    return pkcs7(kit.sample_payload, [signer_info(kit.signer, kit.sample_payload, sid="ski")],
                 [kit.signer, *kit.chain], version=3)


@fixture("no-in-app.receipt", "Sample top-level attributes without any type 17 attribute.",
         valid(bundleID=BUNDLE_ID, inAppPurchases=0))
def no_in_app(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(sample_attrs(in_app=[])))


@fixture("storekit.receipt", "Xcode StoreKit Testing style BER: indefinite lengths on ContentInfo, `[0]`, "
         "SignedData, encapContentInfo and its `[0]`; payload as a constructed OCTET STRING (0x24, indefinite) of "
         "100-byte primitive chunks; only certificate storekit-test, which also signs (SHA-256). Payload: receipt "
         "type \"Xcode\", creation date 2025-06-01T13:00:00+0100, one in-app entry, expiration date (21) "
         "4001-01-01T00:00:00+0000.",
         Outcome({STOREKIT: VERIFIED, APP_STORE: "missingAppleExtension", APPLE: "missingAppleExtension"},
                 "the StoreKit certificate is its own chain, without Apple's markers",
                 receipt={"receiptType": "Xcode", "environment": "xcode", "inAppPurchases": 1}))
def storekit(kit: Kit) -> bytes:
    return storekit_receipt(encode_attrs(storekit_attrs()), kit.pki["storekit-test"])


# --- invalid: signature / chain / policy


@fixture("tampered-payload.receipt", "`sample.receipt` with one byte of the product id changed after signing "
         "(\"com.example.coins.100\" → \"com.example.coins.900\").", invalid("signatureInvalid"))
def tampered_payload(kit: Kit) -> bytes:
    old, new = b"com.example.coins.100", b"com.example.coins.900"
    assert kit.sample_payload.count(old) == 1
    return pkcs7(kit.sample_payload.replace(old, new), [kit.sample_info], [kit.signer, *kit.chain])


@fixture("tampered-signature.receipt", "Sample with the last byte of the signature XORed with 0xFF.",
         invalid("signatureInvalid"))
def tampered_signature(kit: Kit) -> bytes:
    return pkcs7(kit.sample_payload, [signer_info(kit.signer, kit.sample_payload, tamper_signature=True)],
                 [kit.signer, *kit.chain])


@fixture("two-signers.receipt", "Sample payload with two SignerInfos, both correct (test-signer, and "
         "test-signer-sha1 using SHA-256); certificates test-signer, test-intermediate, test-signer-sha1, "
         "test-intermediate-sha1, test-root.", invalid("signerCount", "more than one signer"))
def two_signers(kit: Kit) -> bytes:
    other = kit.pki["test-signer-sha1"]
    return pkcs7(kit.sample_payload, [kit.sample_info, signer_info(other, kit.sample_payload)],
                 [kit.signer, kit.inter, other, kit.pki["test-intermediate-sha1"], kit.root])


@fixture("signer-not-in-certificates.receipt", "Sample; the sid names issuer test-intermediate with serial 999999, "
         "which no included certificate has (signature itself by test-signer).", invalid("signerNotFound"))
def signer_not_in_certificates(kit: Kit) -> bytes:
    return pkcs7(kit.sample_payload, [signer_info(kit.signer, kit.sample_payload, serial_override=999999)],
                 [kit.signer, *kit.chain])


@fixture("content-type-not-data.receipt", "Sample; eContentType is 1.2.840.113549.1.7.5 (digestedData) instead "
         "of data; signature otherwise correct (SignedData version 3, as RFC 5652 §5.1 requires for non-data "
         "content).", invalid("unsupportedContentType"))
def content_type_not_data(kit: Kit) -> bytes:
    return pkcs7(kit.sample_payload, [kit.sample_info], [kit.signer, *kit.chain],
                 content_type=oids.DIGESTED_DATA, version=3)


@fixture("detached.receipt", "encapContentInfo has no `[0]` eContent; the signature covers the sample payload.",
         invalid("detachedContent", "no payload to read"))
def detached(kit: Kit) -> bytes:
    return pkcs7(None, [kit.sample_info], [kit.signer, *kit.chain])


@fixture("signed-attributes-bad-digest.receipt", "Like `signed-attributes.receipt` but messageDigest = "
         "SHA-256(\"this is not the payload\"); the signature over the attributes is correct.",
         invalid("messageDigestMismatch"))
def signed_attributes_bad_digest(kit: Kit) -> bytes:
    wrong = hashlib.sha256(b"this is not the payload").digest()
    attrs = signed_attrs_content(kit.sample_payload, "sha256", message_digest=wrong)
    return pkcs7(kit.sample_payload, [signer_info(kit.signer, kit.sample_payload, signed_attrs=attrs)],
                 [kit.signer, *kit.chain])


@fixture("sha512-digest.receipt", "Sample; digest algorithm SHA-512 (2.16.840.1.101.3.4.2.3) in digestAlgorithms "
         "and the SignerInfo, signature correct over SHA-512.",
         invalid("digestNotAllowed", "only SHA-256 and SHA-1 are"))
def sha512_digest(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.signer, kit.chain, "sha512")


@fixture("rogue-signer.receipt", "Sample signed by rogue-signer (issued by test-intermediate, no "
         "1.2.840.113635.100.6.11.1); certificates rogue-signer, test-intermediate, test-root.",
         invalid("missingAppleExtension", "the signer lacks the Apple receipt-signing OID"))
def rogue_signer(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.pki["rogue-signer"], kit.chain)


@fixture("intermediate-without-oid.receipt", "Sample signed by signer-under-no-oid-intermediate; certificates it, "
         "intermediate-no-oid (no 1.2.840.113635.100.6.2.1), test-root.",
         invalid("missingAppleExtension", "the intermediate lacks the Apple WWDR intermediate OID"))
def intermediate_without_oid(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.pki["signer-under-no-oid-intermediate"],
                          [kit.pki["intermediate-no-oid"], kit.root])


@fixture("wrong-root.receipt", "Sample signed by other-signer ← other-intermediate ← other-root (attacker PKI with "
         "the Apple OIDs).",
         invalid("untrustedChain", "the chain does not end at test-root", bundleID=BUNDLE_ID)
         .under(OTHER_ROOT, VERIFIED))
def wrong_root(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.pki["other-signer"],
                          [kit.pki["other-intermediate"], kit.pki["other-root"]])


@fixture("self-signed-signer.receipt", "Sample signed by self-signed-signer (CA:FALSE, has 6.11.1); it is the "
         "only certificate.", invalid("untrustedChain"))
def self_signed_signer(kit: Kit) -> bytes:
    return simple_receipt(kit.sample_payload, kit.pki["self-signed-signer"], [])


@fixture("expired-at-creation.receipt", "Sample with creation date 2027-01-01T00:00:00Z (test-signer is valid "
         "2024-01-01..2026-01-01).",
         invalid("certificateNotValidAtTime", "the signer has expired at the receipt creation date")
         .under(AT_MARCH_2025, VERIFIED))
def expired_at_creation(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(replace_attr(sample_attrs(), 12, ia5("2027-01-01T00:00:00Z"))))


@fixture("not-yet-valid-at-creation.receipt", "Sample with creation date 2023-06-01T00:00:00Z.",
         invalid("certificateNotValidAtTime", "the signer is not yet valid at the receipt creation date"))
def not_yet_valid_at_creation(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(replace_attr(sample_attrs(), 12, ia5("2023-06-01T00:00:00Z"))))


@fixture("no-creation-date.receipt", "Sample without attribute 12.",
         invalid("missingCreationDate", "no time to check the certificates at, unless the caller gives one")
         .under(AT_MARCH_2025, VERIFIED))
def no_creation_date(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(without(sample_attrs(), 12)))


# --- invalid payloads (signature and chain fine)


@fixture("bad-creation-date.receipt", "Sample with 12 = \"2025-13-45T25:61:00Z\".",
         unreadable("invalidDate", "attribute 12"))
def bad_creation_date(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(replace_attr(sample_attrs(), 12, ia5("2025-13-45T25:61:00Z"))))


@fixture("bad-purchase-date.receipt", "Sample with the first in-app entry's 1704 = \"yesterday\".",
         unreadable("invalidDate", "in-app 1704"))
def bad_purchase_date(kit: Kit) -> bytes:
    first = replace_attr(iap_consumable(), 1704, ia5("yesterday"))
    return kit.signed(encode_attrs(sample_attrs(in_app=[first, iap_subscription(), iap_refunded()])))


@fixture("wrong-value-type.receipt", "Sample with attribute 2 (bundle id) holding the DER INTEGER 5 instead of a "
         "UTF8String.", unreadable("wrongValueType", "attribute 2"))
def wrong_value_type(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(replace_attr(sample_attrs(), 2, integer(5))))


@fixture("integer-overflow.receipt", "Sample with the first in-app entry's 1711 = 9-byte INTEGER 01 00 00 00 00 00 "
         "00 00 00 (2^64).", unreadable("integerOverflow", "in-app 1711"))
def integer_overflow(kit: Kit) -> bytes:
    first = replace_attr(iap_consumable(), 1711, tlv(0x02, bytes.fromhex("010000000000000000")))
    return kit.signed(encode_attrs(sample_attrs(in_app=[first, iap_subscription(), iap_refunded()])))


@fixture("duplicate-bundle-id.receipt", "Sample with a second type 2 attribute (\"com.example.other\") right after "
         "the first.", unreadable("duplicateAttribute", "attribute 2"))
def duplicate_bundle_id(kit: Kit) -> bytes:
    attrs = sample_attrs()
    at = next(i for i, a in enumerate(attrs) if a[0] == 2) + 1
    return kit.signed(encode_attrs(attrs[:at] + [(2, 1, utf8("com.example.other"))] + attrs[at:]))


@fixture("payload-not-a-set.receipt", "Payload is `30 03 02 01 01` (a SEQUENCE of an INTEGER) instead of the "
         "attribute SET.", unreadable("notReceiptPayload"))
def payload_not_a_set(kit: Kit) -> bytes:
    return kit.signed(seq(integer(1)))


# --- other inputs


@fixture("legacy-transaction.b64", "Base64 of a synthetic iOS 6 style transaction receipt (old-style plist text "
         "with \"signature\", \"purchase-info\", \"environment\" = \"Sandbox\", \"pod\", \"signing-status\").",
         invalid("legacyTransactionReceipt", "the old transaction receipt format, not PKCS #7"))
def legacy_transaction(kit: Kit) -> bytes:
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


@fixture("not-pkcs7.bin", "64 bytes of text: \"this is not a receipt\" padded with spaces and a final newline.",
         invalid("notBase64", "neither DER nor base64"))
def not_pkcs7(kit: Kit) -> bytes:
    return b"this is not a receipt".ljust(63, b" ") + b"\n"
