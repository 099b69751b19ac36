import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The team's In-App Purchase key, as `receipt-dump api` and `receipt-dump sign` take it:
/// `--key-file`, `--key-id`, `--issuer-id` and `--bundle-id`, each else from its `APP_STORE_*`
/// variable (which keeps them out of the process list and the shell history).
public struct AppStoreCredentialOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The In-App Purchase key (.p8) from App Store Connect (APP_STORE_KEY_FILE).", valueName: "PATH"))
    var keyFile: String?
    @Option(name: .customLong("key-id"), help: ArgumentHelp("The key's id (APP_STORE_KEY_ID).", valueName: "ID"))
    var keyID: String?
    @Option(name: .customLong("issuer-id"), help: ArgumentHelp("Your team's issuer id (APP_STORE_ISSUER_ID).", valueName: "ID"))
    var issuerID: String?
    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app's bundle id (APP_STORE_BUNDLE_ID).", valueName: "ID"))
    var bundleID: String?

    public init() {}

    /// The credentials, the key read and checked; a usage error (exit 64) names what is missing.
    /// - Parameter requiresIssuer: false for signatures that carry no issuer (promotional offers v1).
    public func credentials(requiresIssuer: Bool = true) throws -> AppStoreCredentials {
        let path = try Self.value(keyFile, "APP_STORE_KEY_FILE", "--key-file")
        let issuer = requiresIssuer ? try Self.value(issuerID, "APP_STORE_ISSUER_ID", "--issuer-id")
                                    : issuerID ?? Self.variable("APP_STORE_ISSUER_ID") ?? ""
        return AppStoreCredentials(key: try ES256SigningKey.read(path: path), keyID: try Self.value(keyID, "APP_STORE_KEY_ID", "--key-id"),
                                   issuerID: issuer, bundleID: try Self.value(bundleID, "APP_STORE_BUNDLE_ID", "--bundle-id"))
    }

    private static func variable(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func value(_ given: String?, _ variable: String, _ option: String) throws -> String {
        guard let value = given ?? Self.variable(variable) else { throw ValidationError("Give \(option) or set \(variable).") }
        return value
    }
}

extension ES256SigningKey {
    /// The key in the `.p8` file at `path`; a usage error when it cannot be read or used.
    public static func read(path: String) throws -> ES256SigningKey {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read the key file \(path)") }
        do {
            return try ES256SigningKey(pkcs8: [UInt8](bytes))
        } catch {
            throw ValidationError("the key file \(path) is not an App Store Connect key: \(DisplayText.escape(error.reason, limit: DisplayText.reasonLimit))")
        }
    }
}
