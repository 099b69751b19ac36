import Foundation

/// Applies the `LedgerSchema` migrations a database lacks, with their bookkeeping, in the caller's
/// one transaction: two processes opening one new database cannot both apply a step.
enum LedgerMigrator {
    /// `lock` is the driver's `migrationLock`, taken before anything is read.
    static func apply(on connection: any LedgerConnection, lockedBy lock: LedgerStatement?) throws {
        if let lock { try connection.run(lock) }
        try connection.run(LedgerSQL.createMigrationsTable)
        let applied = Set(try connection.rows(LedgerSQL.appliedMigrations).map { try $0.requiredText(0) })
        for (migration, appliedAtMs) in LedgerSchema.pending(applied: applied, at: Date()) {
            for statement in migration.statements { try connection.run(statement) }
            try connection.run(LedgerSQL.insertMigration, .text(migration.identifier), .integer(appliedAtMs))
        }
    }
}
