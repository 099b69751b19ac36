"""The jws/ tokens that verify: every kind with every documented field, each form of notification,
unknown fields and enum values, Xcode's quirks, the limits at their edge, and the checks a
caller can ask for (which fail where the value differs)."""

from __future__ import annotations

import json
import hashlib

from .hostile_content import BIDI, ESCAPES, FAKE_LINES
from .jsontext import Members, Raw, encode, nested_arrays
from .jws import P256_N, b64std, b64url
from .jws_fixture import probe, JWSKit, TokenList
from .jws_outcome import fails, ok
from .payload import BUNDLE_ID
from .storekit2 import APP_ACCOUNT_TOKEN, APP_APPLE_ID, DROP, SIGNED, SIGNED_AT, app_data, app_transaction, edit, \
    external_purchase_token, ms, notification, notification_data, plain_renewal_info, plain_transaction, \
    renewal_info, summary, transaction
from .jws_rules import MAX_SIZE, depth
from .jws_reading import header, payload_text, s_is_high, seg, sig

VALID = TokenList("valid", "Tokens that verify",
                  "Every kind with every field documented today, each form of notification, what Apple may add "
                  "tomorrow (unknown fields and enum values), Xcode's tokens, the limits at their edge, and the "
                  "checks a caller can ask for. Signed by jws-leaf (x5c jws-leaf, jws-intermediate, jws-root) "
                  "unless said otherwise.")
token = VALID.token

OTHER_BUNDLE = "com.example.other"
LATER = "2027-01-01T00:00:01Z"  # past jws-leaf's notAfter
EARLIER = "2023-12-31T23:59:59Z"  # before jws-leaf's notBefore


# --- builders shared with the hostile modules

def nested_transaction(kit: JWSKit, **changes: object) -> str:
    return kit.token(plain_transaction(**changes))


def nested_renewal(kit: JWSKit, **changes: object) -> str:
    return kit.token(plain_renewal_info(**changes))


def subscribed(kit: JWSKit, transaction_token: str | None = None, renewal_token: str | None = None,
               data: dict | None = None, **changes: object) -> dict:
    """A SUBSCRIBED / INITIAL_BUY notification payload whose data nests a transaction and a
    renewal info (both Sandbox, like the notification) unless others are given."""
    body = edit(notification_data(),
                signedTransactionInfo=nested_transaction(kit) if transaction_token is None else transaction_token,
                signedRenewalInfo=nested_renewal(kit) if renewal_token is None else renewal_token, status=1)
    return notification("SUBSCRIBED", "INITIAL_BUY", "data", edit(body, **(data or {})), **changes)


def rescind_consent(kit: JWSKit, app_transaction_token: str | None = None, data: dict | None = None) -> dict:
    """A notification whose appData nests an AppTransaction (Production, like the notification)."""
    nested = kit.token(app_transaction()) if app_transaction_token is None else app_transaction_token
    return notification("RESCIND_CONSENT", None, "appData", app_data(nested, **(data or {})),
                        uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e06")


# --- every kind

CHECKS_PASS = {"expect_bundle_id": BUNDLE_ID, "expect_environment": "Sandbox"}


@token("transaction.jws", "A transaction with every documented field (price, currency, offerDiscountType, "
       "appTransactionId, offerPeriod, revocationType, revocationPercentage, advancedCommerceInfo, billingPlanType, "
       "commitmentInfo, ...), Sandbox, signed 2025-06-01T12:00:00Z.", "transaction",
       ok(decoded={"signedDate": SIGNED_AT.replace("Z", ".000Z"), "price": 9990, "currency": "USD",
                   "revocationPercentage": 50000, "commitmentInfo.commitmentPrice": 119880}),
       ok("the checks pass", **CHECKS_PASS),
       fails("appIdentityMismatch", "another bundle id expected", expect_bundle_id=OTHER_BUNDLE),
       fails("environmentMismatch", "Production expected", expect_environment="Production"),
       ok("not applicable: a transaction has no appAppleId", expect_app_apple_id=APP_APPLE_ID),
       ok("asked for as what it is", as_kind="transaction"),
       fails("wrongKind", "asked for as renewal info", as_kind="renewalInfo"),
       fails("wrongKind", "asked for as a notification", as_kind="notification"),
       fails("wrongKind", "asked for as an AppTransaction", as_kind="appTransaction"),
       ok("judged at the instant given, inside jws-leaf's window", at="2026-12-31T23:59:59Z"),
       fails("certificateNotValidAtTime", "judged at an instant after jws-leaf's notAfter", at=LATER),
       fails("certificateNotValidAtTime", "judged at an instant before jws-leaf's notBefore", at=EARLIER),
       fails("untrustedChain", "StoreKit Testing mode: three certificates, not the one configured",
             storekit_testing=True))
def transaction_full(kit: JWSKit) -> str:
    return kit.token(transaction())


@token("transaction-app-account-token.jws", "A transaction of the sample subscription (2000000000000401) with the "
       "appAccountToken the app set at purchase and no revocation: what the credit ledger credits only to the user "
       "bound to that token.", "transaction",
       ok(decoded={"appAccountToken": APP_ACCOUNT_TOKEN}),
       ok("the checks pass", expect_app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def transaction_app_account_token(kit: JWSKit) -> str:
    return nested_transaction(kit, transactionId="2000000000000401", appAccountToken=APP_ACCOUNT_TOKEN)


@token("transaction-minimal.jws", "A transaction with only transactionId and signedDate: every field is optional.",
       "transaction", ok(),
       fails("appIdentityMismatch", "a bundle id check fails when the token has none", expect_bundle_id=BUNDLE_ID),
       fails("environmentMismatch", "an environment check fails when the token has none",
             expect_environment="Sandbox"))
def transaction_minimal(kit: JWSKit) -> str:
    return kit.token({"transactionId": "2000000000000301", "signedDate": SIGNED})


@token("renewal-info.jws", "A renewal info with every documented field (renewalPrice, eligibleWinBackOfferIds, "
       "advancedCommerceInfo, commitmentInfo, renewalBillingPlanType, ...), Sandbox.", "renewalInfo",
       ok(decoded={"renewalPrice": 99990, "expirationIntent": 2}),
       ok("not applicable: renewal info has no bundleId (shown as such)", expect_bundle_id=OTHER_BUNDLE),
       ok("not applicable: renewal info has no appAppleId", expect_app_apple_id=1),
       ok("the environment check passes", expect_environment="Sandbox"),
       fails("environmentMismatch", "Production expected", expect_environment="Production"),
       fails("wrongKind", "a renewal info given as a transaction", as_kind="transaction"))
def renewal_full(kit: JWSKit) -> str:
    return kit.token(renewal_info())


@token("app-transaction.jws", "An AppTransaction with every documented field, Production; no signedDate: the "
       "chain is judged at receiptCreationDate (2025-06-01T11:58:00Z).", "appTransaction",
       ok(decoded={"receiptCreationDate": "2025-06-01T11:58:00.000Z", "appAppleId": APP_APPLE_ID}),
       ok("the checks pass; receiptType is its environment", expect_bundle_id=BUNDLE_ID,
          expect_environment="Production", expect_app_apple_id=APP_APPLE_ID),
       fails("appIdentityMismatch", "another App Apple ID expected", expect_app_apple_id=1234567891),
       fails("environmentMismatch", "Sandbox expected", expect_environment="Sandbox"),
       fails("wrongKind", "an AppTransaction given as a transaction", as_kind="transaction"))
def app_transaction_full(kit: JWSKit) -> str:
    return kit.token(app_transaction())


@token("notification-subscribed.jws", "SUBSCRIBED / INITIAL_BUY: data (appAppleId, bundleId, bundleVersion, "
       "environment Sandbox, status 1) with a signedTransactionInfo and a signedRenewalInfo, both verified.",
       "notification",
       ok(decoded={"notificationType": "SUBSCRIBED", "data.status": 1}),
       ok("the checks pass (data's values; the nested tokens agree)", expect_app_apple_id=APP_APPLE_ID,
          **CHECKS_PASS),
       fails("environmentMismatch", "Production expected", expect_environment="Production"),
       fails("appIdentityMismatch", "another bundle id expected", expect_bundle_id=OTHER_BUNDLE),
       fails("appIdentityMismatch", "another App Apple ID expected", expect_app_apple_id=1234567891),
       fails("wrongKind", "a notification given as a transaction", as_kind="transaction"))
def notification_subscribed(kit: JWSKit) -> str:
    return kit.token(subscribed(kit))


@token("notification-consumption-request.jws", "CONSUMPTION_REQUEST, Production: data with "
       "consumptionRequestReason and a signedTransactionInfo (Consumable) only, no renewal info.", "notification",
       ok(), ok("the checks pass", expect_bundle_id=BUNDLE_ID, expect_environment="Production",
                expect_app_apple_id=APP_APPLE_ID))
def notification_consumption(kit: JWSKit) -> str:
    nested = nested_transaction(kit, productId="com.example.coins.100", type="Consumable", environment="Production",
                                subscriptionGroupIdentifier=DROP, expiresDate=DROP, webOrderLineItemId=DROP,
                                transactionId="2000000000000211", originalTransactionId="2000000000000211",
                                price=990)
    data = edit(notification_data("Production"), signedTransactionInfo=nested,
                consumptionRequestReason="UNINTENDED_PURCHASE")
    return kit.token(notification("CONSUMPTION_REQUEST", None, "data", data,
                                  uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e02"))


def revocation(kit: JWSKit, notification_type: str, transaction_token: str, uuid: str) -> str:
    """A REFUND or REVOKE notification (Sandbox) whose data nests only the transaction revoked."""
    data = edit(notification_data(), signedTransactionInfo=transaction_token)
    return kit.token(notification(notification_type, None, "data", data, uuid=uuid))


@token("notification-refund.jws", "REFUND: data (Sandbox) with a signedTransactionInfo of sample.receipt's "
       "subscription purchase (2000000000000002), revoked 2025-06-02T08:00:00Z for revocationReason 1; no renewal "
       "info. The credit ledger marks the transaction refunded.", "notification",
       ok(decoded={"notificationType": "REFUND"}),
       ok("the checks pass", expect_app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_refund(kit: JWSKit) -> str:
    nested = nested_transaction(kit, transactionId="2000000000000002", originalTransactionId="2000000000000002",
                                purchaseDate=ms("2025-05-20T09:30:00.250Z"), originalPurchaseDate=ms("2025-05-20T09:30:00Z"),
                                expiresDate=ms("2025-06-20T09:30:00Z"), revocationDate=ms("2025-06-02T08:00:00Z"),
                                revocationReason=1)
    return revocation(kit, "REFUND", nested, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e07")


@token("notification-revoke.jws", "REVOKE: data (Sandbox) with a signedTransactionInfo (2000000000000241, family "
       "shared) that has no revocationDate, so the credit ledger takes the notification's signedDate; no renewal "
       "info.", "notification",
       ok(decoded={"notificationType": "REVOKE"}),
       ok("the checks pass", expect_app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_revoke(kit: JWSKit) -> str:
    nested = nested_transaction(kit, transactionId="2000000000000241", inAppOwnershipType="FAMILY_SHARED")
    return revocation(kit, "REVOKE", nested, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e08")


@token("notification-test.jws", "TEST: data with bundleId, environment and appAppleId, no nested token.",
       "notification", ok(), ok("the checks pass", expect_app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_test(kit: JWSKit) -> str:
    data = {"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "environment": "Sandbox"}
    return kit.token(notification("TEST", None, "data", data, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e03"))


@token("notification-summary.jws", "RENEWAL_EXTENSION / SUMMARY: summary (requestIdentifier, environment, "
       "appAppleId, bundleId, productId, storefrontCountryCodes, succeededCount, failedCount), no data.",
       "notification", ok(decoded={"summary.succeededCount": 1284}),
       ok("the checks read summary", expect_app_apple_id=APP_APPLE_ID, **CHECKS_PASS),
       fails("appIdentityMismatch", "another bundle id expected", expect_bundle_id=OTHER_BUNDLE))
def notification_summary(kit: JWSKit) -> str:
    return kit.token(notification("RENEWAL_EXTENSION", "SUMMARY", "summary", summary(),
                                  uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e04"))


@token("notification-external-purchase-token.jws", "EXTERNAL_PURCHASE_TOKEN / UNREPORTED: externalPurchaseToken "
       "(externalPurchaseId SANDBOX_..., tokenCreationDate, appAppleId, bundleId); it has no environment member.",
       "notification", ok(),
       ok("the checks read externalPurchaseToken", expect_bundle_id=BUNDLE_ID, expect_app_apple_id=APP_APPLE_ID),
       fails("appIdentityMismatch", "another App Apple ID expected", expect_app_apple_id=1234567891))
def notification_external(kit: JWSKit) -> str:
    return kit.token(notification("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED", "externalPurchaseToken",
                                  external_purchase_token(), uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e05"))


@token("notification-app-data.jws", "RESCIND_CONSENT: appData (appAppleId, bundleId, environment Production) with "
       "a signedAppTransactionInfo, verified at its receiptCreationDate.", "notification", ok(),
       ok("the checks read appData", expect_bundle_id=BUNDLE_ID, expect_environment="Production",
          expect_app_apple_id=APP_APPLE_ID))
def notification_app_data(kit: JWSKit) -> str:
    return kit.token(rescind_consent(kit))


@token("notification-no-signed-date.jws", "DID_RENEW without signedDate (like 2022 notifications); its nested "
       "tokens have theirs.", "notification",
       fails("missingSignedDate", "no date to judge the chain at"),
       ok("with an instant given, the nested tokens judged at it too", at=SIGNED_AT))
def notification_no_date(kit: JWSKit) -> str:
    return kit.token(edit(subscribed(kit, signed_date=None), notificationType="DID_RENEW", subtype=DROP,
                          notificationUUID="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e07"))


# --- what Apple may send tomorrow

@token("transaction-unknown-values.jws", "A transaction with unknown enum values (type, offerType 9, "
       "revocationReason 7, inAppOwnershipType, offerDiscountType, revocationType, billingPlanType, "
       "transactionReason) and unknown members at the top level and inside commitmentInfo: kept, not refused.",
       "transaction",
       ok(decoded={"type": "Future Product Type", "offerType": 9, "revocationReason": 7, "futureMember.list": [1, 2]}))
def transaction_unknown(kit: JWSKit) -> str:
    payload = transaction(type="Future Product Type", offerType=9, revocationReason=7,
                          inAppOwnershipType="SHARED_BY_SOMEONE", offerDiscountType="PAY_LATER",
                          revocationType="REFUND_FUTURE", billingPlanType="QUARTERLY", transactionReason="GIFT")
    payload["commitmentInfo"] = edit(payload["commitmentInfo"], futureCommitmentField="kept")
    return kit.token(edit(payload, futureMember={"list": [1, 2], "flag": True, "none": None},
                          futureNumber=Raw("1.5e3"), futureString="kept"))


@token("renewal-info-unknown-values.jws", "A renewal info with unknown enum values (expirationIntent 42, "
       "autoRenewStatus 2, priceIncreaseStatus 5, offerType 9, renewalBillingPlanType) and an unknown member.",
       "renewalInfo", ok(decoded={"expirationIntent": 42, "autoRenewStatus": 2}))
def renewal_unknown(kit: JWSKit) -> str:
    return kit.token(renewal_info(expirationIntent=42, autoRenewStatus=2, priceIncreaseStatus=5, offerType=9,
                                  renewalBillingPlanType="EVERY_FORTNIGHT", futureMember="kept"))


@token("notification-unknown-values.jws", "A notification of an unknown type and subtype, data.status 9, an "
       "unknown consumptionRequestReason, unknown members in data and at the top level; nested tokens as usual.",
       "notification", ok(decoded={"notificationType": "FUTURE_NOTIFICATION", "subtype": "FUTURE_SUBTYPE"}))
def notification_unknown(kit: JWSKit) -> str:
    payload = subscribed(kit, data={"status": 9, "consumptionRequestReason": "NEW_REASON", "futureData": "kept"},
                         version="2.9", futureMember={"kept": True})
    return kit.token(edit(payload, notificationType="FUTURE_NOTIFICATION", subtype="FUTURE_SUBTYPE",
                          notificationUUID="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e08"))


@token("transaction-nulls.jws", "A transaction whose bundleId, expiresDate, appAccountToken and offerType are "
       "JSON null: null counts as absent.", "transaction", ok(),
       fails("appIdentityMismatch", "a bundle id check fails: there is none", expect_bundle_id=BUNDLE_ID))
def transaction_nulls(kit: JWSKit) -> str:
    return kit.token(transaction(bundleId=None, expiresDate=None, appAccountToken=None, offerType=None))


@token("transaction-int64.jws", "A transaction with price 9223372036854775807 (Int64.max milliunits), quantity "
       "2147483647 (Int32.max), revocationPercentage 100000: integers read exactly, never through a Double.",
       "transaction", ok(decoded={"price": 9223372036854775807, "quantity": 2147483647}))
def transaction_int64(kit: JWSKit) -> str:
    return kit.token(transaction(price=9223372036854775807, quantity=2147483647, revocationPercentage=100000))


FRACTIONAL = Raw("1748779200123.485")


@token("transaction-fractional-ms.jws", "A transaction whose dates have fractional milliseconds, as Xcode "
       "writes them (signedDate 1748779200123.485, purchaseDate 1748779140000.25, expiresDate 1751371140000.0001); "
       "every fraction is below one half, so truncating and rounding agree.", "transaction",
       ok(decoded={"signedDate": "2025-06-01T12:00:00.123Z", "purchaseDate": "2025-06-01T11:59:00.000Z",
                   "expiresDate": "2025-07-01T11:59:00.000Z"}))
@probe(lambda d: b'"signedDate":1748779200123.485' in payload_text(d))
def transaction_fractional(kit: JWSKit) -> str:
    return kit.token(transaction(signedDate=FRACTIONAL, purchaseDate=Raw("1748779140000.25"),
                                 expiresDate=Raw("1751371140000.0001")))


@token("transaction-escaped-members.jws", "A transaction whose only bundle id key is written `\"\\u0062undleId\"` "
       "and whose productId is `\"com.example\\/pro.monthly\"` (JSON escapes, as Xcode writes `\\/`).",
       "transaction", ok("keys and values are compared after unescaping",
                         decoded={"productId": "com.example/pro.monthly"}, expect_bundle_id=BUNDLE_ID))
@probe(lambda d: b'"\\u0062undleId"' in payload_text(d) and b"\\/" in payload_text(d))
def transaction_escaped(kit: JWSKit) -> str:
    payload = Members((Raw('"\\u0062undleId"') if k == "bundleId" else k, v) for k, v in transaction().items())
    payload = Members((k, Raw('"com.example\\/pro.monthly"') if k == "productId" else v) for k, v in payload)
    return kit.token(payload)


@token("transaction-look-alike-keys.jws", "A transaction with two unknown members `café` (precomposed U+00E9) "
       "and `cafe\u0301` (e + U+0301): canonically equal, other bytes, so two keys, not a duplicate.", "transaction",
       ok("keys compare byte for byte"))
@probe(lambda d: "caf\u00e9" in json.loads(payload_text(d))
       and "cafe\u0301" in json.loads(payload_text(d)))
def transaction_look_alike_keys(kit: JWSKit) -> str:
    return kit.token(edit(transaction(), **{"caf\u00e9": "precomposed", "cafe\u0301": "decomposed"}))


@token("transaction-hybrid.jws", "A transaction payload that also carries renewal members (autoRenewStatus, "
       "renewalDate): transactionId decides, it is a transaction.", "transaction", ok(),
       fails("wrongKind", "asked for as renewal info", as_kind="renewalInfo"))
def transaction_hybrid(kit: JWSKit) -> str:
    return kit.token(edit(plain_transaction(), autoRenewStatus=1, renewalDate=ms("2025-07-01T11:59:00Z")))


# --- the form of the token

@token("pretty-json.jws", "Header and payload JSON indented with spaces and line breaks (inside the base64url): "
       "the signature covers the base64url text, whatever JSON it holds.", "transaction", ok())
@probe(lambda d: b"\n  " in payload_text(d) and b"\n  " in seg(d, 0))
def pretty_json(kit: JWSKit) -> str:
    return kit.token(encode(plain_transaction(), indent=2), encode(kit.header(), indent=2))


@token("header-extra-fields.jws", "A header with x5c first, then alg, and kid, typ, cty, x5t#S256 (a wrong "
       "thumbprint), jku and x5u (URLs), jwk (another key) and an unknown member: all ignored, nothing fetched.",
       "transaction", ok())
@probe(lambda d: {"kid", "jwk", "jku", "x5u", "x5t#S256"} <= set(header(d)))
def header_extra(kit: JWSKit) -> str:
    header = {"x5c": kit.x5c("jws-leaf", "jws-intermediate", "jws-root"), "alg": "ES256", "kid": "ABCDEF1234",
              "typ": "JWT", "cty": "json", "x5t#S256": b64url(hashlib.sha256(b"not the leaf").digest()),
              "jku": "https://attacker.example/jwks.json", "x5u": "https://attacker.example/chain.pem",
              "jwk": kit.jwk("jws-attacker-leaf"), "futureHeader": {"kept": False}}
    return kit.token(plain_transaction(), header)


@token("whitespace-around.jws", "A valid token with a line feed, spaces and a tab before it and spaces, CR LF and "
       "an empty line after it: whitespace around the whole token is not part of it.", "transaction", ok())
@probe(lambda d: d != d.strip() and d.strip().count(b".") == 2)
def whitespace_around(kit: JWSKit) -> bytes:
    return b"\n  \t" + kit.token(plain_transaction()).encode() + b"  \r\n\n"


DEPTH = 64  # DecodingLimits.maximumTokenJSONDepth; the payload object is level 1


@token("depth-64.jws", f"A transaction with an unknown member holding {DEPTH - 1} nested arrays: {DEPTH} levels "
       "with the payload object, the most accepted.", "transaction", ok())
@probe(lambda d: depth(json.loads(payload_text(d))) == 64)
def depth_64(kit: JWSKit) -> str:
    return kit.token(edit(plain_transaction(), deep=nested_arrays(DEPTH - 1)))


MIB = 1 << 20  # DecodingLimits.maximumTokenSize


def sized_token(kit: JWSKit, size: int) -> bytes:
    """A valid transaction token of exactly `size` bytes: a long unknown member fills it."""
    for pad in range(4):  # base64url lengths are never 1 mod 4: vary the header until one fits
        header = kit.header(**({"pad": "p" * pad} if pad else {}))
        room = size - len(b64url(kit.parts({}, header).header)) - 2 - 86  # two dots, 64-byte signature
        if room % 4 != 1:
            break
    payload_bytes = room * 3 // 4  # the payload length whose base64url is `room` characters long
    filler = payload_bytes - len(kit.parts(edit(plain_transaction(), padding="")).payload)
    text = kit.token(edit(plain_transaction(), padding="x" * filler), header).encode()
    assert len(text) == size, (len(text), size)
    return text


@token("size-at-limit.jws", "A valid transaction token of exactly 1 MiB (1048576 bytes, no newline in the file): "
       "the largest accepted.", "transaction", ok())
@probe(lambda d: len(d) == MAX_SIZE)
def size_at_limit(kit: JWSKit) -> bytes:
    return sized_token(kit, MIB)


# --- signatures that are valid in an unusual form

def high_s(raw: bytes) -> bytes:
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    s = s if s > P256_N // 2 else P256_N - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


@token("signature-high-s.jws", "A transaction whose signature is (r, n − s) with s above n/2: the other valid "
       "signature of the same bytes.", "transaction",
       ok("accepted: ECDSA verification (OpenSSL, CryptoKit) accepts both forms and JWS has no low-S rule; a "
          "second token string for the same payload is harmless, since tokens are told apart by their ids, not "
          "their bytes"))
@probe(s_is_high)
def signature_high_s(kit: JWSKit) -> str:
    parts = kit.signed(plain_transaction())
    return parts.with_signature(high_s(parts.signature)).text


def leading_zero(kit: JWSKit, half: int) -> str:
    """A valid token whose r (half 0) or s (half 1) has a zero first byte: found by trying
    unknown `attempt` members 0, 1, ... (deterministic signatures, so always the same one)."""
    for attempt in range(10_000):
        parts = kit.signed(edit(plain_transaction(), attempt=attempt))
        if parts.signature[32 * half] == 0:
            return parts.text
    raise AssertionError("no signature with a leading zero byte")


@token("signature-r-leading-zero.jws", "A transaction whose signature's r starts with a zero byte (r < 2^248): "
       "r ‖ s keeps it 32 bytes; a DER conversion must drop it.", "transaction", ok())
@probe(lambda d: sig(d)[0] == 0)
def signature_r_zero(kit: JWSKit) -> str:
    return leading_zero(kit, 0)


@token("signature-s-leading-zero.jws", "A transaction whose signature's s starts with a zero byte.", "transaction",
       ok())
@probe(lambda d: sig(d)[32] == 0)
def signature_s_zero(kit: JWSKit) -> str:
    return leading_zero(kit, 1)


# --- dates at the edge of jws-leaf's window (2024-01-01T00:00:00Z .. 2027-01-01T00:00:00Z)

@token("signed-at-leaf-not-after.jws", "A transaction signed at 2027-01-01T00:00:00.000Z, jws-leaf's notAfter: "
       "validity includes both ends (RFC 5280).", "transaction", ok())
def at_not_after(kit: JWSKit) -> str:
    return kit.token(plain_transaction(signedDate=ms("2027-01-01T00:00:00Z")))


@token("signed-at-leaf-not-before.jws", "A transaction signed at 2024-01-01T00:00:00.000Z, jws-leaf's notBefore.",
       "transaction", ok())
def at_not_before(kit: JWSKit) -> str:
    return kit.token(plain_transaction(signedDate=ms("2024-01-01T00:00:00Z")))


# --- StoreKit Testing in Xcode (opt-in, with the certificate; never without the signature)

XCODE_NOTE = "with the StoreKit Testing certificate configured"
XCODE_REFUSED = fails("untrustedChain", "under the test root: one certificate, not three")


def device_verification(label: str) -> Raw:
    """A base64 SHA-384 as Xcode writes it: `/` escaped as `\\/`."""
    text = b64std(hashlib.sha384(label.encode()).digest())
    return Raw('"' + text.replace("/", "\\/") + '"')


XCODE_SIGNED = Raw("1748779200056.485")


@token("xcode-transaction.jws", "A StoreKit Testing transaction as Xcode writes it: header x5c (one self-signed "
       "certificate, jws-storekit), alg, typ JWT, kid Apple_Xcode_Key; environment Xcode, transactionId \"0\", "
       "fractional-millisecond dates, device-only deviceVerification and deviceVerificationNonce, `\\/` escapes.",
       "transaction", ok(XCODE_NOTE, decoded={"signedDate": "2025-06-01T12:00:00.056Z", "environment": "Xcode"},
                         storekit_testing=True), XCODE_REFUSED)
def xcode_transaction(kit: JWSKit) -> str:
    return kit.xcode(xcode_transaction_payload())


def xcode_transaction_payload(**changes: object) -> dict:
    return edit({
        "inAppOwnershipType": "PURCHASED", "purchaseDate": Raw("1748779140049.2297"),
        "subscriptionGroupIdentifier": "6A1B2C3D", "signedDate": XCODE_SIGNED,
        "originalPurchaseDate": Raw("1748779140049.2297"), "isUpgraded": False,
        "deviceVerification": device_verification("xcode transaction"), "offerType": 1, "quantity": 1,
        "transactionId": "0", "type": "Auto-Renewable Subscription", "transactionReason": "PURCHASE",
        "productId": "com.example.pro.monthly", "expiresDate": Raw("1751371140049.2297"), "environment": "Xcode",
        "storefrontId": "143441", "originalTransactionId": "0", "bundleId": BUNDLE_ID,
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e11", "webOrderLineItemId": "0",
        "storefront": "USA"}, **changes)


@token("xcode-renewal-info.jws", "A StoreKit Testing renewal info as Xcode writes it.", "renewalInfo",
       ok(XCODE_NOTE, storekit_testing=True), XCODE_REFUSED)
def xcode_renewal(kit: JWSKit) -> str:
    return kit.xcode({
        "deviceVerification": device_verification("xcode renewal"), "productId": "com.example.pro.monthly",
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e12", "renewalDate": Raw("1751371140049.2297"),
        "originalTransactionId": "0", "recentSubscriptionStartDate": Raw("1748779140049.2297"), "autoRenewStatus": 1,
        "signedDate": Raw("1748779200711.0747"), "environment": "Xcode",
        "autoRenewProductId": "com.example.pro.monthly"})


@token("xcode-app-transaction.jws", "A StoreKit Testing AppTransaction as Xcode writes it: receiptType Xcode, "
       "fractional receiptCreationDate (the date it is judged at), requestDate (device-only), originalPurchaseDate "
       "-62135769600000 (year 1 in Foundation's calendar).", "appTransaction",
       ok(XCODE_NOTE, decoded={"receiptCreationDate": "2025-06-01T12:00:00.257Z"}, storekit_testing=True),
       XCODE_REFUSED)
def xcode_app_transaction(kit: JWSKit) -> str:
    return kit.xcode({
        "bundleId": BUNDLE_ID, "applicationVersion": "1",
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e13", "receiptType": "Xcode",
        "receiptCreationDate": Raw("1748779200257.447"), "deviceVerification": device_verification("xcode app"),
        "requestDate": Raw("1748779200257.447"), "originalApplicationVersion": "1",
        "originalPurchaseDate": -62135769600000})


# --- strings chosen to deceive a reader: verified, shown harmless

STRING_MEMBERS = ("transactionId", "originalTransactionId", "bundleId", "productId", "subscriptionGroupIdentifier",
                  "offerIdentifier", "storefront", "currency", "appTransactionId", "environment")


def strings_token(file: str, what: str, note: str, text: str) -> None:
    @token(file, f"A transaction whose strings ({', '.join(STRING_MEMBERS)}) and an unknown member's key and value "
           f"end in {what}.", "transaction",
           ok(note, decoded={"bundleId": BUNDLE_ID + text, "environment": "Sandbox" + text}),
           fails("appIdentityMismatch", "the reason quotes the bundle id, escaped", expect_bundle_id=BUNDLE_ID))
    def build(kit: JWSKit) -> str:
        payload = edit(transaction(), **{k: transaction()[k] + text for k in STRING_MEMBERS})
        return kit.token(edit(payload, **{"unknown" + text: "value" + text}))


for _row in (("strings-terminal-escapes.jws", "escape sequences (clear screen, cursor home, a green `Verdict: "
              "VERIFIED`, concealed text)", "every human-facing output shows the escapes as `\\u{1B}`, JSON keeps "
              "the exact value", ESCAPES),
             ("strings-bidi-controls.jws", "U+202E, U+2066/U+2069, U+200B, U+FEFF, U+2028 and U+0085",
              "shown escaped, never reordered", BIDI),
             ("strings-newline-tab.jws", "a newline, a fake `--format summary` line (tab-separated), CR, DEL and "
              "C1 CSI", "`--format summary` stays one line", FAKE_LINES)):
    strings_token(*_row)

DECOMPOSED = "com.example.cafe\u0301"


@token("decomposed-bundle-id.jws", "A transaction with bundle id `com.example.cafe` + U+0301 (decomposed é).",
       "transaction", ok(decoded={"bundleId": DECOMPOSED}),
       fails("appIdentityMismatch", "`com.example.café` (precomposed) expected: identifiers compare byte for byte",
             expect_bundle_id="com.example.caf\u00e9"))
def decomposed(kit: JWSKit) -> str:
    return kit.token(plain_transaction(bundleId=DECOMPOSED))


@token("environment-lowercase.jws", "A transaction with environment `sandbox` (lowercase).", "transaction", ok(),
       fails("environmentMismatch", "Sandbox expected: environments compare byte for byte",
             expect_environment="Sandbox"))
def environment_lowercase(kit: JWSKit) -> str:
    return kit.token(plain_transaction(environment="sandbox"))

