extension StrictJSON.KnownKeys {
    /// The member names of Apple's signed payloads that are too long for a small String (more
    /// than 15 bytes): read as these Strings, a transaction's payload makes 16 fewer allocations.
    /// A name missing here is still read, only allocated; a test checks that every long member
    /// name the models read is listed.
    static let storeKitMembers = StrictJSON.KnownKeys([
        "advancedCommerceInfo", "appTransactionId", "applicationVersion", "autoRenewProductId",
        "billingPeriodNumber", "commitmentAutoRenewProductId", "commitmentAutoRenewStatus",
        "commitmentExpiresDate", "commitmentRenewalBillingPlanType", "commitmentRenewalDate",
        "commitmentRenewalPrice", "consistencyToken", "consumptionRequestReason", "deviceVerification",
        "deviceVerificationNonce", "eligibleWinBackOfferIds", "expirationIntent", "externalPurchaseId",
        "externalPurchaseToken", "gracePeriodExpiresDate", "inAppOwnershipType", "isInBillingRetryPeriod",
        "notificationType", "notificationUUID", "offerDiscountType", "originalApplicationVersion",
        "originalPlatform", "originalPurchaseDate", "originalTransactionId", "priceIncreaseStatus",
        "receiptCreationDate", "recentSubscriptionStartDate", "renewalBillingPlanType", "requestIdentifier",
        "requestReferenceId", "revocationPercentage", "revocationReason", "signedAppTransactionInfo",
        "signedRenewalInfo", "signedTransactionInfo", "storefrontCountryCodes", "subscriptionGroupIdentifier",
        "taxExclusivePrice", "tokenCreationDate", "totalBillingPeriods", "transactionReason",
        "versionExternalIdentifier", "webOrderLineItemId",
    ])

    /// Whether `name` is listed.
    func contains(_ name: String) -> Bool {
        Array(name.utf8).withUnsafeBufferPointer { key(spelt: $0) != nil }
    }
}
