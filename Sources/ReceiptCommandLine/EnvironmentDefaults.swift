#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Environment variables that give a command's options their defaults: ``prefix`` followed by
/// the option's long name in capitals, dashes as underscores (`RECEIPT_SERVER_` and
/// `--storekit-testing`: `RECEIPT_SERVER_STOREKIT_TESTING`). A value on the command line wins.
public protocol EnvironmentDefaults {
    /// The variables' common prefix; nil when the command reads none.
    static var prefix: String? { get }
}

extension EnvironmentDefaults {
    /// The variable for the option `name` (`STOREKIT_TESTING`), if the command reads it and it is set.
    public static func value(_ name: String) -> String? {
        prefix.flatMap { ProcessInfo.processInfo.environment[$0 + name] }
    }

    /// What an option's help adds to name its variable: ` (RECEIPT_SERVER_ROOT)`, or
    /// ` (RECEIPT_SERVER_REQUIRE_SHA256=1)` for a flag; nothing when the command reads none.
    static func note(_ name: String, value: String? = nil) -> String {
        prefix.map { " (\($0)\(name)\(value.map { "=" + $0 } ?? ""))" } ?? ""
    }
}

/// No environment variable: every default is the option's own (receipt-dump).
public enum NoEnvironmentDefaults: EnvironmentDefaults {
    /// None: no variable is read.
    public static var prefix: String? { nil }
}
