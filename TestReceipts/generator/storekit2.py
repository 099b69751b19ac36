"""StoreKit 2 payloads, as ordered dicts in Apple's member order: a transaction and a renewal info
with every field documented today, an AppTransaction, and the notification payload in each of
its four forms (data, summary, externalPurchaseToken, appData). Values are invented; dates are
milliseconds since 1970 inside jws-leaf's window.
"""

from __future__ import annotations

import datetime as dt

from .payload import BUNDLE_ID

DROP = object()  # edit(): remove the member


def ms(iso: str) -> int:
    """Milliseconds since 1970 of an RFC 3339 instant with Z."""
    return int(dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def iso(milliseconds: int) -> str:
    """The RFC 3339 form with milliseconds, as the library writes dates."""
    t = dt.datetime.fromtimestamp(milliseconds // 1000, dt.timezone.utc)
    return f"{t:%Y-%m-%dT%H:%M:%S}.{milliseconds % 1000:03d}Z"


SIGNED_AT = "2025-06-01T12:00:00Z"
SIGNED = ms(SIGNED_AT)  # every token's signedDate unless it says otherwise
APP_APPLE_ID = 1234567890
BUNDLE_VERSION = "142"
ORIGINAL_TRANSACTION_ID = "2000000000000100"
APP_TRANSACTION_ID = "705000000000000001"
APP_ACCOUNT_TOKEN = "7e3fb20b-4cdb-47cc-936d-99d65f608138"


def edit(payload: dict, **changes: object) -> dict:
    """A copy with members replaced where they are, added at the end otherwise, or dropped."""
    out = dict(payload)
    for key, value in changes.items():
        if value is DROP:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def subscription_purchase(transaction_id: str, web_order_line_item_id: str) -> dict:
    """The members every transaction of the sample subscription starts with, in Apple's order."""
    return {
        "transactionId": transaction_id,
        "originalTransactionId": ORIGINAL_TRANSACTION_ID,
        "webOrderLineItemId": web_order_line_item_id,
        "bundleId": BUNDLE_ID,
        "productId": "com.example.pro.monthly",
        "subscriptionGroupIdentifier": "21000001",
        "purchaseDate": ms("2025-06-01T11:59:00Z"),
        "originalPurchaseDate": ms("2025-04-01T09:30:00Z"),
        "expiresDate": ms("2025-07-01T11:59:00Z"),
        "quantity": 1,
        "type": "Auto-Renewable Subscription",
    }


def transaction(**changes: object) -> dict:
    """JWSTransactionDecodedPayload with every documented field: a refunded monthly subscription
    bought with an offer code, billed monthly under a 12-month commitment, Sandbox."""
    return edit({
        **subscription_purchase("2000000000000101", "2000000000000102"),
        "appAccountToken": APP_ACCOUNT_TOKEN,
        "inAppOwnershipType": "PURCHASED",
        "signedDate": SIGNED,
        "revocationReason": 1,
        "revocationDate": ms("2025-06-01T11:59:30Z"),
        "isUpgraded": False,
        "offerType": 3,
        "offerIdentifier": "com.example.pro.code",
        "environment": "Sandbox",
        "storefront": "USA",
        "storefrontId": "143441",
        "transactionReason": "PURCHASE",
        "currency": "USD",
        "price": 9990,
        "offerDiscountType": "PAY_UP_FRONT",
        "appTransactionId": APP_TRANSACTION_ID,
        "offerPeriod": "P1M",
        "revocationType": "REFUND_PRORATED",
        "revocationPercentage": 50000,
        "advancedCommerceInfo": {
            "descriptors": {"description": "Pro features, monthly", "displayName": "Pro"},
            "estimatedTax": 874,
            "items": [{
                "SKU": "com.example.pro.item",
                "description": "Pro item",
                "displayName": "Pro item",
                "offer": {"period": "P1M", "periodCount": 1, "price": 4990, "reason": "ACQUISITION"},
                "price": 9990,
                "refunds": [{"refundAmount": 4995, "refundDate": ms("2025-06-01T11:59:30Z"),
                             "refundReason": "UNSATISFIED_WITH_PURCHASE", "refundType": "PRORATED"}],
                "revocationDate": ms("2025-06-01T11:59:30Z"),
            }],
            "period": "P1M",
            "requestReferenceId": "9f1f5c0e-6a4e-4a56-bc8b-3d1c6c0b7a01",
            "taxCode": "C003-00-2",
            "taxExclusivePrice": 9116,
            "taxRate": "0.0875",
        },
        "billingPlanType": "MONTHLY",
        "commitmentInfo": {
            "billingPeriodNumber": 3,
            "commitmentExpiresDate": ms("2026-04-01T09:30:00Z"),
            "commitmentPrice": 119880,
            "totalBillingPeriods": 12,
        },
    }, **changes)


def plain_transaction(**changes: object) -> dict:
    """A transaction with the fields real Sandbox ones carry today (what notifications nest)."""
    return edit({
        **subscription_purchase("2000000000000201", "2000000000000202"),
        "inAppOwnershipType": "PURCHASED",
        "signedDate": SIGNED,
        "environment": "Sandbox",
        "transactionReason": "PURCHASE",
        "storefront": "USA",
        "storefrontId": "143441",
        "price": 9990,
        "currency": "USD",
        "appTransactionId": APP_TRANSACTION_ID,
    }, **changes)


def renewal_info(**changes: object) -> dict:
    """JWSRenewalInfoDecodedPayload with every documented field (it has no bundleId)."""
    return edit({
        "expirationIntent": 2,
        "originalTransactionId": ORIGINAL_TRANSACTION_ID,
        "autoRenewProductId": "com.example.pro.yearly",
        "productId": "com.example.pro.monthly",
        "autoRenewStatus": 1,
        "isInBillingRetryPeriod": True,
        "priceIncreaseStatus": 1,
        "gracePeriodExpiresDate": ms("2025-06-17T11:59:00Z"),
        "offerType": 4,
        "offerIdentifier": "com.example.pro.winback",
        "signedDate": SIGNED,
        "environment": "Sandbox",
        "recentSubscriptionStartDate": ms("2025-04-01T09:30:00Z"),
        "renewalDate": ms("2025-07-01T11:59:00Z"),
        "currency": "USD",
        "renewalPrice": 99990,
        "offerDiscountType": "FREE_TRIAL",
        "eligibleWinBackOfferIds": ["com.example.pro.winback", "com.example.pro.winback2"],
        "appAccountToken": APP_ACCOUNT_TOKEN,
        "appTransactionId": APP_TRANSACTION_ID,
        "offerPeriod": "P1W",
        "advancedCommerceInfo": {
            "consistencyToken": "c29tZS1jb25zaXN0ZW5jeS10b2tlbg",
            "descriptors": {"description": "Pro features, yearly", "displayName": "Pro"},
            "items": [{"SKU": "com.example.pro.item", "description": "Pro item", "displayName": "Pro item",
                       "offer": {"period": "P1Y", "periodCount": 1, "price": 79990, "reason": "RETENTION"},
                       "price": 99990}],
            "period": "P1Y",
            "requestReferenceId": "9f1f5c0e-6a4e-4a56-bc8b-3d1c6c0b7a02",
            "taxCode": "C003-00-2",
        },
        "commitmentInfo": {
            "commitmentAutoRenewProductId": "com.example.pro.monthly",
            "commitmentAutoRenewStatus": 1,
            "commitmentRenewalBillingPlanType": "MONTHLY",
            "commitmentRenewalDate": ms("2026-04-01T09:30:00Z"),
            "commitmentRenewalPrice": 119880,
        },
        "renewalBillingPlanType": "BILLED_UPFRONT",
    }, **changes)


def plain_renewal_info(**changes: object) -> dict:
    """A renewal info with the fields real Sandbox ones carry today."""
    return edit({
        "originalTransactionId": ORIGINAL_TRANSACTION_ID,
        "autoRenewProductId": "com.example.pro.monthly",
        "productId": "com.example.pro.monthly",
        "autoRenewStatus": 1,
        "renewalPrice": 9990,
        "currency": "USD",
        "signedDate": SIGNED,
        "environment": "Sandbox",
        "recentSubscriptionStartDate": ms("2025-04-01T09:30:00Z"),
        "renewalDate": ms("2025-07-01T11:59:00Z"),
        "appTransactionId": APP_TRANSACTION_ID,
    }, **changes)


RECEIPT_CREATED = ms("2025-06-01T11:58:00Z")


def app_transaction(**changes: object) -> dict:
    """AppTransaction with every documented field, Production. It has no signedDate: the chain is
    judged at receiptCreationDate."""
    return edit({
        "receiptType": "Production",
        "appAppleId": APP_APPLE_ID,
        "bundleId": BUNDLE_ID,
        "applicationVersion": BUNDLE_VERSION,
        "versionExternalIdentifier": 874563210,
        "receiptCreationDate": RECEIPT_CREATED,
        "originalPurchaseDate": ms("2024-03-15T08:00:00Z"),
        "originalApplicationVersion": "100",
        "deviceVerification": "cYUsXc53EbYc0pOeXG5d6/31LGHeVGf84sqSN0OrJi5u/j2H89WWKgS8N0hMsMlf",
        "deviceVerificationNonce": "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92",
        "preorderDate": ms("2024-03-01T08:00:00Z"),
        "appTransactionId": APP_TRANSACTION_ID,
        "originalPlatform": "iOS",
    }, **changes)


def notification_data(environment: str = "Sandbox", **changes: object) -> dict:
    """NotificationData without its tokens (add signedTransactionInfo / signedRenewalInfo)."""
    return edit({"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "bundleVersion": BUNDLE_VERSION,
                 "environment": environment}, **changes)


def notification(notification_type: str, subtype: str | None, body_key: str, body: dict,
                 uuid: str = "2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e01", signed_date: int | None = SIGNED,
                 **changes: object) -> dict:
    """ResponseBodyV2DecodedPayload with one of data, summary, externalPurchaseToken, appData."""
    payload: dict = {"notificationType": notification_type}
    if subtype is not None:
        payload["subtype"] = subtype
    payload |= {"notificationUUID": uuid, body_key: body, "version": "2.0"}
    if signed_date is not None:
        payload["signedDate"] = signed_date
    return edit(payload, **changes)


def summary(**changes: object) -> dict:
    return edit({"requestIdentifier": "b0a7c3a2-2f7e-4d7e-9a3c-0c9e5f0d1a11", "environment": "Sandbox",
                 "appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "productId": "com.example.pro.monthly",
                 "storefrontCountryCodes": ["USA", "CAN", "FRA"], "succeededCount": 1284, "failedCount": 3},
                **changes)


def external_purchase_token(**changes: object) -> dict:
    return edit({"externalPurchaseId": "SANDBOX_9f2b7c1e-2a44-4e0c-8d5a-3b1f0c9e6d21",
                 "tokenCreationDate": ms("2025-05-31T08:00:00Z"), "appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID},
                **changes)


def app_data(signed_app_transaction: str, **changes: object) -> dict:
    return edit({"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "environment": "Production",
                 "signedAppTransactionInfo": signed_app_transaction}, **changes)
