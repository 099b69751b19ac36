/// Where a receipt was issued.
///
/// What a verifyReceipt server answers for each environment is decided in one place,
/// ``VerifyReceiptResponse/environmentCheck(_:expecting:)``.
public enum Environment: String, Sendable, Codable, CaseIterable {
    /// The App Store (`Production`, or `ProductionVPP` for the volume purchase program).
    case production
    /// The App Store sandbox (`ProductionSandbox`, or `ProductionVPPSandbox`).
    case sandbox
    /// Xcode's StoreKit Testing (`Xcode`).
    case xcode
    /// A receipt type not listed above (`production`, `Sandbox`, a look-alike in other
    /// Unicode), or none: a receipt that cannot be placed.
    case unknown

    /// Maps the receipt type attribute to an environment. The type must match one of Apple's
    /// byte for byte: no case folding, no Unicode normalisation.
    public init(receiptType: String?) {
        switch receiptType.map(ExactIdentifier.init) {
        case "Production", "ProductionVPP": self = .production
        case "ProductionSandbox", "ProductionVPPSandbox": self = .sandbox
        case "Xcode": self = .xcode
        default: self = .unknown
        }
    }
}

extension Environment {
    /// The environment as StoreKit 2 and verifyReceipt spell it (`Production`, `Sandbox`, `Xcode`); nil when unknown.
    public var storeKitName: String? {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .unknown: nil
        }
    }
}
