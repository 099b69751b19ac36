"""The jws/ tokens that verify: every kind with every documented field, each form of notification,
unknown fields and enum values, and the checks a caller can ask for (which fail where the value
differs); the forms and limits at their edge are in jws_valid_edges."""

from __future__ import annotations

import json

from .jsontext import Members, Raw
from .jws_fixture import JWSKit, TokenList, probe
from .jws_outcome import fails, ok
from .jws_reading import payload_text
from .payload import BUNDLE_ID
from .storekit2 import APP_ACCOUNT_TOKEN, APP_APPLE_ID, DROP, SIGNED, SIGNED_AT, app_data, app_transaction, edit, \
    external_purchase_token, ms, notification, notification_data, plain_renewal_info, plain_transaction, \
    renewal_info, summary, transaction

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

CHECKS_PASS = {"bundle_id": BUNDLE_ID, "environment": "sandbox"}


@token("transaction.jws", "A transaction with every documented field (price, currency, offerDiscountType, "
       "appTransactionId, offerPeriod, revocationType, revocationPercentage, advancedCommerceInfo, billingPlanType, "
       "commitmentInfo, ...), Sandbox, signed 2025-06-01T12:00:00Z.", "transaction",
       ok(decoded={"signedDate": SIGNED_AT.replace("Z", ".000Z"), "price": 9990, "currency": "USD",
                   "revocationPercentage": 50000, "commitmentInfo.commitmentPrice": 119880}),
       ok("the checks pass", **CHECKS_PASS),
       fails("appIdentityMismatch", "another bundle id expected", bundle_id=OTHER_BUNDLE),
       fails("environmentMismatch", "Production expected", environment="production"),
       ok("not applicable: a transaction has no appAppleId", app_apple_id=APP_APPLE_ID),
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
       ok("the checks pass", app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def transaction_app_account_token(kit: JWSKit) -> str:
    return nested_transaction(kit, transactionId="2000000000000401", appAccountToken=APP_ACCOUNT_TOKEN)


@token("transaction-minimal.jws", "A transaction with only transactionId and signedDate: every field is optional.",
       "transaction", ok(),
       fails("appIdentityMismatch", "a bundle id check fails when the token has none", bundle_id=BUNDLE_ID),
       fails("environmentMismatch", "an environment check fails when the token has none",
             environment="sandbox"))
def transaction_minimal(kit: JWSKit) -> str:
    return kit.token({"transactionId": "2000000000000301", "signedDate": SIGNED})


@token("renewal-info.jws", "A renewal info with every documented field (renewalPrice, eligibleWinBackOfferIds, "
       "advancedCommerceInfo, commitmentInfo, renewalBillingPlanType, ...), Sandbox.", "renewalInfo",
       ok(decoded={"renewalPrice": 99990, "expirationIntent": 2}),
       ok("not applicable: renewal info has no bundleId (shown as such)", bundle_id=OTHER_BUNDLE),
       ok("not applicable: renewal info has no appAppleId", app_apple_id=1),
       ok("the environment check passes", environment="sandbox"),
       fails("environmentMismatch", "Production expected", environment="production"),
       fails("wrongKind", "a renewal info given as a transaction", as_kind="transaction"))
def renewal_full(kit: JWSKit) -> str:
    return kit.token(renewal_info())


@token("app-transaction.jws", "An AppTransaction with every documented field, Production; no signedDate: the "
       "chain is judged at receiptCreationDate (2025-06-01T11:58:00Z).", "appTransaction",
       ok(decoded={"receiptCreationDate": "2025-06-01T11:58:00.000Z", "appAppleId": APP_APPLE_ID}),
       ok("the checks pass; receiptType is its environment", bundle_id=BUNDLE_ID,
          environment="production", app_apple_id=APP_APPLE_ID),
       fails("appIdentityMismatch", "another App Apple ID expected", app_apple_id=1234567891),
       fails("environmentMismatch", "Sandbox expected", environment="sandbox"),
       fails("wrongKind", "an AppTransaction given as a transaction", as_kind="transaction"))
def app_transaction_full(kit: JWSKit) -> str:
    return kit.token(app_transaction())


@token("notification-subscribed.jws", "SUBSCRIBED / INITIAL_BUY: data (appAppleId, bundleId, bundleVersion, "
       "environment Sandbox, status 1) with a signedTransactionInfo and a signedRenewalInfo, both verified.",
       "notification",
       ok(decoded={"notificationType": "SUBSCRIBED", "data.status": 1}),
       ok("the checks pass (data's values; the nested tokens agree)", app_apple_id=APP_APPLE_ID,
          **CHECKS_PASS),
       fails("environmentMismatch", "Production expected", environment="production"),
       fails("appIdentityMismatch", "another bundle id expected", bundle_id=OTHER_BUNDLE),
       fails("appIdentityMismatch", "another App Apple ID expected", app_apple_id=1234567891),
       fails("wrongKind", "a notification given as a transaction", as_kind="transaction"))
def notification_subscribed(kit: JWSKit) -> str:
    return kit.token(subscribed(kit))


@token("notification-consumption-request.jws", "CONSUMPTION_REQUEST, Production: data with "
       "consumptionRequestReason and a signedTransactionInfo (Consumable) only, no renewal info.", "notification",
       ok(), ok("the checks pass", bundle_id=BUNDLE_ID, environment="production",
                app_apple_id=APP_APPLE_ID))
def notification_consumption(kit: JWSKit) -> str:
    nested = nested_transaction(kit, productId="com.example.coins.100", type="Consumable", environment="Production",
                                subscriptionGroupIdentifier=DROP, expiresDate=DROP, webOrderLineItemId=DROP,
                                transactionId="2000000000000211", originalTransactionId="2000000000000211",
                                price=990)
    data = edit(notification_data("Production"), signedTransactionInfo=nested,
                consumptionRequestReason="UNINTENDED_PURCHASE")
    return kit.token(notification("CONSUMPTION_REQUEST", None, "data", data,
                                  uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e02"))


def revocation(kit: JWSKit, notification_type: str, transaction_token: str, uuid: str, **changes: object) -> str:
    """A REFUND, REVOKE or REFUND_REVERSED notification (Sandbox) whose data nests only the
    transaction concerned."""
    data = edit(notification_data(), signedTransactionInfo=transaction_token)
    return kit.token(notification(notification_type, None, "data", data, uuid=uuid, **changes))


REFUNDED_AT = "2025-06-02T08:00:00Z"
REFUND_SIGNED = ms("2025-06-02T08:00:30Z")  # as Apple does, signed after the refund it reports
REVERSAL_SIGNED = ms("2025-06-02T12:00:30Z")  # four hours later


def refunded_purchase(kit: JWSKit, **changes: object) -> str:
    """sample.receipt's subscription purchase (2000000000000002) as a REFUND or its reversal carries it."""
    return nested_transaction(kit, transactionId="2000000000000002", originalTransactionId="2000000000000002",
                              purchaseDate=ms("2025-05-20T09:30:00.250Z"), originalPurchaseDate=ms("2025-05-20T09:30:00Z"),
                              expiresDate=ms("2025-06-20T09:30:00Z"), **changes)


@token("notification-refund.jws", "REFUND: data (Sandbox) with a signedTransactionInfo of sample.receipt's "
       "subscription purchase (2000000000000002), revoked 2025-06-02T08:00:00Z for revocationReason 1; no renewal "
       "info. The credit ledger marks the transaction refunded.", "notification",
       ok(decoded={"notificationType": "REFUND"}),
       ok("the checks pass", app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_refund(kit: JWSKit) -> str:
    nested = refunded_purchase(kit, revocationDate=ms(REFUNDED_AT), revocationReason=1, signedDate=REFUND_SIGNED)
    return revocation(kit, "REFUND", nested, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e07", signed_date=REFUND_SIGNED)


@token("notification-refund-reversed.jws", "REFUND_REVERSED: data (Sandbox) with a signedTransactionInfo of "
       "the refunded purchase (2000000000000002) no longer revoked, signed four hours after notification-refund.jws. "
       "The credit ledger clears the revocation, and a late retry of the REFUND does not bring it back.",
       "notification",
       ok(decoded={"notificationType": "REFUND_REVERSED"}),
       ok("the checks pass", app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_refund_reversed(kit: JWSKit) -> str:
    nested = refunded_purchase(kit, signedDate=REVERSAL_SIGNED)
    return revocation(kit, "REFUND_REVERSED", nested, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e09",
                      signed_date=REVERSAL_SIGNED)


@token("notification-revoke.jws", "REVOKE: data (Sandbox) with a signedTransactionInfo (2000000000000241, family "
       "shared) that has no revocationDate, so the credit ledger takes the notification's signedDate; no renewal "
       "info.", "notification",
       ok(decoded={"notificationType": "REVOKE"}),
       ok("the checks pass", app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_revoke(kit: JWSKit) -> str:
    nested = nested_transaction(kit, transactionId="2000000000000241", inAppOwnershipType="FAMILY_SHARED")
    return revocation(kit, "REVOKE", nested, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e08")


@token("notification-test.jws", "TEST: data with bundleId, environment and appAppleId, no nested token.",
       "notification", ok(), ok("the checks pass", app_apple_id=APP_APPLE_ID, **CHECKS_PASS))
def notification_test(kit: JWSKit) -> str:
    data = {"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "environment": "Sandbox"}
    return kit.token(notification("TEST", None, "data", data, uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e03"))


@token("notification-summary.jws", "RENEWAL_EXTENSION / SUMMARY: summary (requestIdentifier, environment, "
       "appAppleId, bundleId, productId, storefrontCountryCodes, succeededCount, failedCount), no data.",
       "notification", ok(decoded={"summary.succeededCount": 1284}),
       ok("the checks read summary", app_apple_id=APP_APPLE_ID, **CHECKS_PASS),
       fails("appIdentityMismatch", "another bundle id expected", bundle_id=OTHER_BUNDLE))
def notification_summary(kit: JWSKit) -> str:
    return kit.token(notification("RENEWAL_EXTENSION", "SUMMARY", "summary", summary(),
                                  uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e04"))


@token("notification-external-purchase-token.jws", "EXTERNAL_PURCHASE_TOKEN / UNREPORTED: externalPurchaseToken "
       "(externalPurchaseId SANDBOX_..., tokenCreationDate, appAppleId, bundleId); it has no environment member.",
       "notification", ok(),
       ok("the checks read externalPurchaseToken", bundle_id=BUNDLE_ID, app_apple_id=APP_APPLE_ID),
       fails("appIdentityMismatch", "another App Apple ID expected", app_apple_id=1234567891))
def notification_external(kit: JWSKit) -> str:
    return kit.token(notification("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED", "externalPurchaseToken",
                                  external_purchase_token(), uuid="2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e05"))


@token("notification-app-data.jws", "RESCIND_CONSENT: appData (appAppleId, bundleId, environment Production) with "
       "a signedAppTransactionInfo, verified at its receiptCreationDate.", "notification", ok(),
       ok("the checks read appData", bundle_id=BUNDLE_ID, environment="production",
          app_apple_id=APP_APPLE_ID))
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
       fails("appIdentityMismatch", "a bundle id check fails: there is none", bundle_id=BUNDLE_ID))
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
                         decoded={"productId": "com.example/pro.monthly"}, bundle_id=BUNDLE_ID))
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
