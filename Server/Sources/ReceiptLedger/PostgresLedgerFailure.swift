import PostgresNIO

/// What a server admin reads when PostgreSQL fails the ledger: postgres-nio's errors describe
/// themselves only generically (to keep queries out of logs), so the useful part is picked out here.
enum PostgresLedgerFailure {
    /// What went wrong and where.
    static func describe(_ error: any Error, at location: PostgresLedgerURL) -> String {
        "PostgreSQL (\(location.displayName)): \(describe(error))"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            if let server = error.serverInfo, let message = server[.message] {
                // The SQLSTATE tells disk full (53100) from out of connections (53300) from the rest.
                return "the server refused: \(message) (SQLSTATE \(server[.sqlState] ?? "unknown"))"
            }
            switch error.code {
            case .connectionError:
                return "cannot connect: \(error.underlying.map { String(describing: $0) } ?? "no reason given")"
            case .serverClosedConnection, .uncleanShutdown:
                return "the server closed the connection"
            case .poolClosed:
                return "the store is closed"
            case .queryCancelled:
                return "the request was cancelled"
            default:
                return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
            }
        case let error as DeadlineExceeded:
            return "\(error) (the database is down, unreachable or overloaded)"
        case is NIOThreadPoolError.ThreadPoolInactive:
            return "the store is closed"
        default:
            return String(describing: error)
        }
    }
}
