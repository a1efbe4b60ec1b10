/// An error raised by the `Store` module: a stable machine-readable ``code`` and a message
/// written for the operator who reads the log.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier for the kind of failure, for code that branches on it.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text, e.g. `invalid_database_url`.
        public let rawValue: String

        /// Creates a code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's text.
        public var description: String { rawValue }

        /// `DATABASE_URL` could not be parsed.
        public static let invalidDatabaseURL = Code(rawValue: "invalid_database_url")
        /// A migration file is not named `NNNN_name.sql`, or two migrations share a version.
        public static let invalidMigration = Code(rawValue: "invalid_migration")
        /// A migration already applied to the database was edited afterwards.
        public static let migrationChecksumMismatch = Code(rawValue: "migration_checksum_mismatch")
        /// A migration's SQL failed; nothing of it was applied.
        public static let migrationFailed = Code(rawValue: "migration_failed")
        /// A schema or table name is not a plain lower-case SQL identifier.
        public static let invalidIdentifier = Code(rawValue: "invalid_identifier")
        /// An argument is out of range (a non-positive limit, a negative lease, ...).
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// A job was completed or failed by a worker that no longer holds it (its lease expired
        /// and another worker reclaimed it, or it was already finished).
        public static let jobLeaseLost = Code(rawValue: "job_lease_lost")
        /// The connection to PostgreSQL closed under the caller (the server crashed, restarted or
        /// ended it); what was not committed is gone. It passes once PostgreSQL is back.
        public static let connectionLost = Code(rawValue: "connection_lost")
        /// The database answered something this module does not expect.
        public static let unexpectedResult = Code(rawValue: "unexpected_result")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation that names what is wrong.
    public let message: String

    /// Creates an error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
