/// Whose and where signed data is, as its payload says: the members the expectations and the
/// nested-token agreement compare. A notification says it in whichever of `data`, `summary`,
/// `externalPurchaseToken` and `appData` it has.
struct SignedDataIdentity {
    /// nil: the kind has no such member; `.some(nil)`: it has, but this payload leaves it out.
    var bundleID: String??
    var environment: String??
    var appAppleID: Int64??

    init(_ payload: StrictJSON.Value, kind: SignedDataKind) {
        var source = payload
        var sourceName = ""
        if kind == .notification {
            sourceName = ["data", "summary", "externalPurchaseToken", "appData"].first { payload[$0] != nil } ?? ""
            source = payload[sourceName] ?? .null
        }
        func text(_ key: String) -> String? {
            if case .string(let value)? = source[key] { return value }
            return nil
        }
        func integer(_ key: String) -> Int64? {
            if case .number(let value)? = source[key] { return Int64(value) }
            return nil
        }
        switch kind {
        case .transaction:
            bundleID = .some(text("bundleId"))
            environment = .some(text("environment"))
            appAppleID = nil
        case .renewalInfo:
            bundleID = nil
            environment = .some(text("environment"))
            appAppleID = nil
        case .appTransaction:
            bundleID = .some(text("bundleId"))
            environment = .some(text("receiptType"))
            appAppleID = .some(integer("appAppleId"))
        case .notification:
            bundleID = .some(text("bundleId"))
            // An external purchase token says its environment only by an id prefix.
            environment = sourceName == "externalPurchaseToken" ? nil : .some(text("environment"))
            appAppleID = .some(integer("appAppleId"))
        }
    }

    /// The expectations' checks, in the order bundle id, environment, App Apple ID.
    func checks(against expected: SignedDataExpectations) -> [SignedDataCheck] {
        var checks: [SignedDataCheck] = []
        if let wanted = expected.bundleID {
            checks.append(Self.compare("bundle-id", wanted: wanted, found: bundleID) { $0.map(ExactIdentifier.init) == ExactIdentifier(wanted) })
        }
        if let wanted = expected.environment {
            checks.append(Self.compare("environment", wanted: Self.name(of: wanted), found: environment) {
                Environment(signedDataEnvironment: $0) == wanted && wanted != .unknown
            })
        }
        if let wanted = expected.appAppleID {
            // Apple assigns the App Apple ID in production only; sandbox data may lack it.
            let production = Environment(signedDataEnvironment: environment ?? nil) == .production
            if case .some(nil) = appAppleID, !production {
                checks.append(SignedDataCheck(name: "app-apple-id", outcome: .notApplicable,
                                              detail: "expected \(wanted); not production data, which need not carry it"))
            } else {
                checks.append(Self.compare("app-apple-id", wanted: String(wanted), found: appAppleID.map { $0.map(String.init) }) {
                    $0 == String(wanted)
                })
            }
        }
        return checks
    }

    private static func compare(_ name: String, wanted: String, found: String??, _ matches: (String?) -> Bool) -> SignedDataCheck {
        guard let found else {
            return SignedDataCheck(name: name, outcome: .notApplicable, detail: "expected \(wanted); this kind of data has none")
        }
        let shown = found.map { "\"\(DisplayText.escape($0, limit: 200))\"" } ?? "none"
        return SignedDataCheck(name: name, outcome: matches(found) ? .passed : .failed, detail: "expected \(wanted), the data has \(shown)")
    }

    private static func name(of environment: Environment) -> String {
        switch environment {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .unknown: "an unknown environment"
        }
    }

    /// Where a nested token disagrees with its notification, for members both carry.
    func disagreement(with nested: SignedDataIdentity) -> ReceiptError? {
        if case .some(.some(let outer)) = bundleID, case .some(.some(let inner)) = nested.bundleID,
           ExactIdentifier(outer) != ExactIdentifier(inner) {
            return ReceiptError(.appIdentityMismatch, "its bundle id \"\(DisplayText.escape(inner, limit: 200))\" is not the notification's \"\(DisplayText.escape(outer, limit: 200))\"")
        }
        if case .some(.some(let outer)) = environment, case .some(.some(let inner)) = nested.environment,
           ExactIdentifier(outer) != ExactIdentifier(inner) {
            return ReceiptError(.environmentMismatch, "its environment \"\(DisplayText.escape(inner, limit: 200))\" is not the notification's \"\(DisplayText.escape(outer, limit: 200))\"")
        }
        if case .some(.some(let outer)) = appAppleID, case .some(.some(let inner)) = nested.appAppleID, outer != inner {
            return ReceiptError(.appIdentityMismatch, "its App Apple ID \(inner) is not the notification's \(outer)")
        }
        return nil
    }
}
