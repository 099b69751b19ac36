import Foundation
import PostgresNIO

/// Where a PostgreSQL ledger lives, read from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or
/// `postgresql://`), with an optional `?sslmode=disable|prefer|require`:
/// - `prefer`, the default as in psql: TLS when the server offers it, without checking its
///   certificate (libpq's `prefer`), so a loopback server or Debian's self-signed one just works;
/// - `require`: TLS with the certificate and host name checked against the system's trust store
///   (libpq's `verify-full`): use it whenever the database is across a network you do not own;
/// - `disable`: no TLS.
struct PostgresLedgerURL: Sendable {
    enum SSLMode: String, Sendable {
        case disable, prefer, require
    }

    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String
    let sslMode: SSLMode

    /// Throws `storageUnavailable` saying what is wrong and what is expected; the password never
    /// appears in the message.
    init(_ text: String) throws(LedgerError) {
        func malformed(_ reason: String) -> LedgerError {
            .storageUnavailable(
                "the ledger URL \(Self.redacted(text)) is not usable (\(reason)); expected "
                    + "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]")
        }
        guard let components = URLComponents(string: text) else { throw malformed("not a URL") }
        guard let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw malformed("the scheme must be postgres or postgresql")
        }
        guard let host = components.host, !host.isEmpty else { throw malformed("no host") }
        guard let username = components.user, !username.isEmpty else { throw malformed("no user") }
        let database = String(components.path.dropFirst())
        guard !database.isEmpty, !database.contains("/") else { throw malformed("no database, or more than one path segment") }
        if let port = components.port, !(1...65535).contains(port) { throw malformed("the port is out of range") }

        var sslMode = SSLMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else { throw malformed("unknown parameter \(item.name)") }
            guard let mode = item.value.flatMap(SSLMode.init(rawValue:)) else {
                throw malformed("sslmode must be disable, prefer or require")
            }
            sslMode = mode
        }
        // URLComponents keeps the brackets of an IPv6 literal; the socket address has none.
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        self.username = username
        self.password = components.password
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL with its password replaced, for messages and logs.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(unreadable URL)"
    }

    /// Where to connect, for messages: never the password.
    var displayName: String { "\(username)@\(host):\(port)/\(database)" }

    func clientConfiguration(connectTimeout: Duration) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }

    func connectionConfiguration(connectTimeout: Duration) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: Self.unverifiedTLS))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .nanoseconds(Int64(connectTimeout / .nanoseconds(1)))
        return configuration
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(Self.unverifiedTLS)
        case .require: .require(.makeClientConfiguration())
        }
    }

    private static var unverifiedTLS: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }
}
