extension VerifyReceiptResponse {
    /// How a verifyReceipt server places a genuine receipt: its `status` and, when the status is
    /// 0, the `environment` field of the answer. Both come from
    /// ``VerifyReceiptResponse/environmentCheck(_:expecting:)``, so they cannot disagree.
    public struct EnvironmentCheck: Sendable, Hashable {
        /// 0, or why the receipt is refused: 21007, 21008 or 21003.
        public let status: Status
        /// `Production`, `Sandbox`, `Xcode` or `Unknown`; nil unless `status` is 0 (Apple's
        /// refusals carry the status alone).
        public let environmentField: String?
    }

    /// The one rule for a genuine receipt's environment, used by every verifyReceipt answer
    /// (``write(for:expecting:requestDate:to:)``, so receipt-dump and receipt-server too).
    ///
    /// | receipt \ expected | production | sandbox | none |
    /// | --- | --- | --- | --- |
    /// | production (`Production`, `ProductionVPP`) | 0 | 21008 | 0, `Production` |
    /// | sandbox (`ProductionSandbox`, `ProductionVPPSandbox`) | 21007 | 0, `Sandbox` | 0, `Sandbox` |
    /// | xcode (`Xcode`) | 21007 | 0, `Xcode` | 0, `Xcode` |
    /// | unknown (any other type, or none) | 21003 | 21003 | 0, `Unknown` |
    ///
    /// A receipt that cannot be placed is never 0 for a server that expects an environment, and
    /// not 21007 either: clients retry a 21007 in the sandbox. StoreKit Testing counts as a test
    /// environment; verifying such a receipt needs an explicit StoreKit Testing anchor anyway.
    /// Expecting `.xcode` accepts Xcode receipts only, and expecting `.unknown` accepts none.
    public static func environmentCheck(_ environment: Environment, expecting expected: Environment?) -> EnvironmentCheck {
        // The rule is AcceptanceExpectations' (`--environment` means the same for tokens).
        if expected.map(environment.isAccepted(by:)) ?? true { return EnvironmentCheck(status: .valid, environmentField: fieldName(of: environment)) }
        switch environment {
        case .production: return EnvironmentCheck(status: .productionReceiptInSandbox, environmentField: nil)
        case .sandbox, .xcode: return EnvironmentCheck(status: .sandboxReceiptInProduction, environmentField: nil)
        case .unknown: return EnvironmentCheck(status: .notAuthenticated, environmentField: nil)
        }
    }

    /// Apple's spelling in the `environment` field; `Unknown` is ours, for a receipt that says
    /// nothing we recognise (calling it `Sandbox` would invent an answer).
    private static func fieldName(of environment: Environment) -> String {
        environment.storeKitName ?? "Unknown"
    }
}
