import ReceiptParser

// The server's rules, as StoreKit 2 expectations: one set of options (--bundle-id,
// --environment, --app-apple-id) for receipts and tokens alike.

extension ServerConfiguration {
    /// What tokens are held to: the accepted bundle id when there is exactly one (the library
    /// checks it, and its check shows in the answer), the environment served and the App Apple ID.
    /// With several bundle ids the library cannot hold a token to one of them, so
    /// ``SignedDataOutcome`` applies ``accepts(bundleID:)`` after verification, as for receipts.
    ///
    /// A sandbox server accepts Xcode's StoreKit Testing data as it accepts Xcode receipts: with
    /// a StoreKit Testing certificate configured, the only tokens that can verify say `Xcode`, so
    /// sandbox stands for `Xcode` there.
    public var signedDataExpectations: SignedDataExpectations {
        var environment = expectedEnvironment
        if environment == .sandbox, signedDataVerifier.anchor.mode == .storeKitTesting { environment = .xcode }
        return SignedDataExpectations(bundleID: acceptedBundleIDs.count == 1 ? acceptedBundleIDs.first?.text : nil,
                                      environment: environment, appAppleID: appAppleID)
    }

    /// Makes ``signedDataVerifier`` again when its expectations are not this configuration's; a
    /// configuration is set up before the server starts, so no cached chain is lost in service.
    mutating func alignSignedDataExpectations() {
        let wanted = signedDataExpectations
        guard signedDataVerifier.expectations != wanted else { return }
        signedDataVerifier = SignedDataVerifier(anchor: signedDataVerifier.anchor, policy: signedDataVerifier.policy,
                                                expectations: wanted, verifiesNestedTokens: signedDataVerifier.verifiesNestedTokens)
    }
}
