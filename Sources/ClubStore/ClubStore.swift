// PostgreSQL client: Debian's libpq (C target `CPostgres`), synchronous calls on the Store's own
// pool and LISTEN on a thread of its own — no NIO event loop beside lws, and no minutes more of build.
import ClubModel
import Dispatch
import Logging

/// The club's memory, shared by every `gather club serve` instance on one database. Every
/// change is one transaction (`change`) in which the caller locks the date's row, reads the
/// clock after the lock, applies the model's rules, writes, keeps its reply and NOTIFYs; the
/// answer to the client is sent only after `change` returned (after COMMIT).
public final class ClubStore: @unchecked Sendable {
    /// The NOTIFY channel of changes: the payload is date ids joined by ",", or `*` for
    /// "the club changed" (members, fixtures, settings).
    public static let changesChannel = "club_changes"

    let pool: PostgresPool
    private let url: String
    private let logger: Logger

    /// Connects (lazily, `poolSize` connections at most) and creates or migrates the schema
    /// under an advisory lock. The URL is never logged (it may hold a password).
    public init(url: String, poolSize: Int = 4, logger: Logger) throws {
        self.url = url
        self.logger = logger
        pool = PostgresPool(url: url, size: poolSize, logger: logger)
        try ClubSchema.migrate(pool, logger: logger)
    }

    /// The schema version this program writes.
    public static var schemaVersion: Int { ClubSchema.currentVersion }

    public func close() { pool.close() }

    /// One change: `body` runs in one READ COMMITTED transaction, the date's row locked by
    /// `lockDate`; a deadlock or serialisation failure runs it again (so `body` must do nothing
    /// outside the transaction). A member's name or an organiser's username taken ignoring case by a
    /// racing instance is `Refusal(.conflict, ["field": "name" | "username"])`.
    @discardableResult
    public func change<T>(_ body: (ClubTransaction) throws -> T) throws -> T {
        do {
            return try pool.transaction(isolation: .readCommitted) { session in
                try body(ClubTransaction(session: session))
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            // Two instances racing past the rule's check: the unique index settles it.
            switch error.constraint {
            case "club_members_name": throw Refusal(.conflict, ["field": "name"])
            case "club_organisers_username": throw Refusal(.conflict, ["field": "username"])
            default: throw error
            }
        }
    }

    /// A read of several things that agree with each other (one REPEATABLE READ snapshot).
    @discardableResult
    public func read<T>(_ body: (ClubTransaction) throws -> T) throws -> T {
        try pool.transaction(isolation: .repeatableRead) { session in try body(ClubTransaction(session: session)) }
    }

    /// The club's clock: the database's time plus the test clock's offset, so every instance agrees.
    public func now() throws -> Millis {
        try read { try $0.now() }
    }

    /// Moves the club's clock forward by `ms` (the test clock, 0…366 days) for every instance;
    /// returns the new `now`.
    @discardableResult
    public func advanceClock(ms: Millis) throws -> Millis {
        guard (0...366 * 86_400_000).contains(ms) else { throw ClubStoreError("advanceMs out of range") }
        return try change { transaction in
            let updated = try transaction.session.execute(
                "UPDATE club SET clock_offset_ms = clock_offset_ms + $1 WHERE singleton", [ms])
            guard updated == 1 else { throw ClubStoreError("the club is not set up") }
            return try transaction.now()
        }
    }

    /// Stores `defaults` as the club's settings if none are stored yet (the first start; two
    /// instances starting together store one), then returns what is stored.
    public func ensureClub(_ defaults: ClubSettings) throws -> ClubSettings {
        try change { transaction in
            try transaction.session.execute("""
                INSERT INTO club (singleton, name, time_zone, language, invite_code, link_secret,
                                  signing_key_pem, clock_offset_ms, created_at)
                VALUES (true, $1, $2, $3, $4, $5, $6, $7, (extract(epoch from clock_timestamp()) * 1000)::bigint)
                ON CONFLICT (singleton) DO NOTHING
                """, [defaults.name, defaults.timeZone, defaults.language, defaults.inviteCode,
                      defaults.linkSecret, defaults.signingKeyPEM, defaults.clockOffsetMs])
            guard let settings = try transaction.club() else { throw ClubStoreError("the club row vanished") }
            return settings
        }
    }

    /// Starts a listener on `changesChannel` (its own connection and thread); each event is
    /// handed to `queue`. Call `stop()` on it before closing the store.
    public func listen(queue: DispatchQueue,
                       events: @escaping @Sendable (PostgresListener.Event) -> Void) throws -> PostgresListener {
        let listener = try PostgresListener(url: url, channels: [ClubStore.changesChannel], queue: queue,
                                            logger: logger, events: events)
        listener.start()
        return listener
    }
}
