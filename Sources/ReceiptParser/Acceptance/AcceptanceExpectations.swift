/// What a server requires of genuine data beyond its signature: that it is for one of its apps,
/// in its environment. One value for receipts and StoreKit 2 tokens alike, applied by
/// ``checks(of:)``: receipt-dump's `--bundle-id`, `--environment` and `--app-apple-id` and
/// receipt-server's options of the same names mean the same through it.
///
/// ```swift
/// let expectations = AcceptanceExpectations(bundleIDs: ["com.example.app"], environment: .production)
/// if let refusal = expectations.refusal(of: AcceptanceSubject(verified.receipt)) { throw refusal }
/// ```
///
/// Each requirement left empty is not checked. A requirement the data cannot say anything about
/// (renewal info carries no bundle id) is not applicable and does not fail.
public struct AcceptanceExpectations: Sendable, Hashable {
    /// The apps served: the data's bundle id must be one of them, byte for byte (no case
    /// folding, no Unicode normalisation). Empty: any app.
    public var bundleIDs: Set<ExactIdentifier>
    /// The environment served. `production` accepts production data only; `sandbox` accepts the
    /// sandbox and Xcode's StoreKit Testing (which Apple never signs, so only a StoreKit Testing
    /// certificate can make it verify); `xcode` accepts Xcode's only. Data whose environment
    /// cannot be placed (`LocalTesting`, a look-alike, none) is accepted by none.
    public var environment: Environment?
    /// The app's App Apple ID (a receipt's app item id). Apple assigns it in production only:
    /// data that is not production and carries none (or 0) is not held to it.
    public var appAppleID: Int64?

    public init(bundleIDs: Set<ExactIdentifier> = [], environment: Environment? = nil, appAppleID: Int64? = nil) {
        self.bundleIDs = bundleIDs
        self.environment = environment
        self.appAppleID = appAppleID
    }

    /// Whether nothing is required.
    public var isEmpty: Bool { bundleIDs.isEmpty && environment == nil && appAppleID == nil }

    /// The expectations' checks of one verified receipt or token, in the order bundle id,
    /// environment, App Apple ID; one for each requirement set. The one rule both tools apply.
    public func checks(of subject: AcceptanceSubject) -> [AcceptanceCheck] {
        var checks: [AcceptanceCheck] = []
        if !bundleIDs.isEmpty {
            checks.append(bundleIDCheck(subject.bundleID))
        }
        if let wanted = environment {
            checks.append(Self.check("environment", wanted: Self.name(of: wanted), found: subject.environment.map { $0.map(\.text) }) { _ in
                subject.environment??.value.isAccepted(by: wanted) == true
            })
        }
        if let wanted = appAppleID {
            let production = subject.environment??.value == .production
            if case .some(let found) = subject.appAppleID, found == nil || found == 0, !production {
                checks.append(AcceptanceCheck(name: "app-apple-id", outcome: .notApplicable,
                                              detail: "expected \(wanted); not production data, which need not carry it"))
            } else {
                checks.append(Self.check("app-apple-id", wanted: String(wanted), found: subject.appAppleID.map { $0.map(String.init) },
                                         quoted: false) { $0 == String(wanted) })
            }
        }
        return checks
    }

    /// The first failed check's refusal (``ReceiptError/Code/appIdentityMismatch`` or
    /// ``ReceiptError/Code/environmentMismatch``), nil when the data is accepted.
    public func refusal(of subject: AcceptanceSubject) -> ReceiptError? {
        checks(of: subject).lazy.compactMap(\.error).first
    }

    private func bundleIDCheck(_ found: String??) -> AcceptanceCheck {
        let sorted = bundleIDs.sorted()
        let wanted = sorted.count == 1 ? DisplayText.escape(sorted[0].text, limit: 200)
            : "one of " + sorted.map { DisplayText.escape($0.text, limit: 200) }.joined(separator: ", ")
        var check = Self.check("bundle-id", wanted: wanted, found: found) { text in
            text.map { bundleIDs.contains(ExactIdentifier($0)) } == true
        }
        // Printed, a look-alike (canonically equal, other bytes) is the same text: show the bytes.
        if check.outcome == .failed, case .some(.some(let text)) = found,
           let lookAlike = sorted.first(where: { $0.text == text }) {
            check = AcceptanceCheck(name: check.name, outcome: .failed, detail: check.detail
                + " (same text, other bytes: expected UTF-8 \(ByteString(Array(lookAlike.text.utf8)).hex), the data has \(ByteString(Array(text.utf8)).hex))")
        }
        return check
    }

    private static func check(_ name: String, wanted: String, found: String??, quoted: Bool = true,
                              _ matches: (String?) -> Bool) -> AcceptanceCheck {
        guard let found else {
            return AcceptanceCheck(name: name, outcome: .notApplicable, detail: "expected \(wanted); this kind of data has none")
        }
        let shown = found.map { quoted ? "\"\(DisplayText.escape($0, limit: 200))\"" : DisplayText.escape($0, limit: 200) } ?? "none"
        return AcceptanceCheck(name: name, outcome: matches(found) ? .passed : .failed, detail: "expected \(wanted), the data has \(shown)")
    }

    private static func name(of environment: Environment) -> String {
        environment.storeKitName ?? "an unknown environment"
    }
}

/// Whose and where verified data is, as its typed model says: the members
/// ``AcceptanceExpectations`` and the body-agreement rule compare. Made from a receipt or from a
/// token's ``SignedPayload``, never from the raw payload again.
public struct AcceptanceSubject: Sendable, Hashable {
    /// An environment as the data spells it, and where that places it.
    struct Placed: Sendable, Hashable {
        var text: String
        var value: Environment
    }

    // nil: this kind of data has no such member; `.some(nil)`: it has, but this data leaves it out.
    var bundleID: String??
    var environment: Placed??
    var appAppleID: Int64??

    /// A receipt: its bundle id, its receipt type and its app item id.
    public init(_ receipt: Receipt) {
        bundleID = .some(receipt.bundleID)
        environment = .some(receipt.receiptType.map { Placed(text: $0, value: Environment(receiptType: $0)) })
        appAppleID = .some(receipt.appItemID)
    }

    /// A token's payload. Renewal info has no bundle id; transactions and renewal info no App
    /// Apple ID; a notification about an external purchase token says no environment.
    public init(_ payload: SignedPayload) {
        let environment = payload.environment.map { Placed(text: $0, value: Environment(signedDataEnvironment: $0)) }
        switch payload {
        case .transaction(let transaction):
            bundleID = .some(transaction.bundleId)
            self.environment = .some(environment)
            appAppleID = nil
        case .renewalInfo:
            bundleID = nil
            self.environment = .some(environment)
            appAppleID = nil
        case .appTransaction(let appTransaction):
            bundleID = .some(appTransaction.bundleId)
            self.environment = .some(environment)
            appAppleID = .some(appTransaction.appAppleId)
        case .notification(let notification):
            bundleID = .some(notification.bundleId)
            // An external purchase token says its environment only by an id prefix.
            let external = notification.data == nil && notification.summary == nil && notification.appData == nil
                && notification.externalPurchaseToken != nil
            self.environment = external ? nil : .some(environment)
            appAppleID = .some(notification.appAppleId)
        }
    }
}

extension Environment {
    /// The environment a StoreKit 2 payload names (`environment`, or an app transaction's
    /// `receiptType`), byte for byte.
    init(signedDataEnvironment name: String?) {
        switch name.map(ExactIdentifier.init) {
        case "Production": self = .production
        case "Sandbox": self = .sandbox
        case "Xcode": self = .xcode
        default: self = .unknown
        }
    }

    /// Whether data from this environment is served where `expected` is: the one environment
    /// rule, for receipts and tokens, the verifyReceipt statuses included.
    func isAccepted(by expected: Environment) -> Bool {
        switch expected {
        case .sandbox: self == .sandbox || self == .xcode
        case .production, .xcode: self == expected
        case .unknown: false
        }
    }
}
