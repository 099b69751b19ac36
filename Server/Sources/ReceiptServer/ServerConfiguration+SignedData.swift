import ReceiptParser

extension ServerConfiguration {
    /// What receipts and tokens are held to: the accepted bundle ids, the environment served and
    /// the App Apple ID, as the library applies them (receipt-dump's options of the same names
    /// mean the same).
    public var acceptance: AcceptanceExpectations {
        AcceptanceExpectations(bundleIDs: acceptedBundleIDs, environment: expectedEnvironment, appAppleID: appAppleID)
    }

    /// Makes ``signedDataVerifier`` again when its expectations are not this configuration's; a
    /// configuration is set up before the server starts, so no cached chain is lost in service.
    mutating func alignSignedDataExpectations() {
        let wanted = acceptance
        guard signedDataVerifier.expectations != wanted else { return }
        signedDataVerifier = SignedDataVerifier(anchor: signedDataVerifier.anchor, policy: signedDataVerifier.policy,
                                                expectations: wanted, verifiesNestedTokens: signedDataVerifier.verifiesNestedTokens)
    }
}
