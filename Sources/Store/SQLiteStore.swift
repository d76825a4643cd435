import Foundation
import GRDB
import GatherModel

/// The GRDB-backed store. On disk it is a `DatabasePool` in WAL mode, so that exports and backups read
/// a consistent snapshot on other threads while the coordinator keeps writing; `synchronous = FULL`
/// makes every commit reach the disk before `commit` returns, which is what lets an `ack` be a promise.
public final class SQLiteStore: GatherStore, @unchecked Sendable {
    public static let fileName = "gather.sqlite"

    let writer: any DatabaseWriter
    /// The database file, or nil for an in-memory store.
    public let path: String?
    /// Sentences for the operator at start: who else can read the data folder or its files.
    public private(set) var warnings: [String] = []

    // MARK: - Opening

    /// Opens or creates `<directory>/gather.sqlite` (creating the directory), WAL, synchronous=FULL,
    /// foreign keys on, migrations applied. Throws a `StoreError` with one clear sentence when the folder
    /// cannot be created, is read-only, holds a file that is not a database, or holds a database from a
    /// newer schema — never resetting anything.
    public init(directory: String) throws {
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + Self.fileName
        try StoreOpening.prepareDirectory(directory)
        try StoreOpening.checkWritableFile(path)
        // Before SQLite opens it (a `-wal` it creates takes the database's mode) and again after (a
        // new database is made with the process's umask).
        var warnings = [StoreOpening.folderExposure(directory)].compactMap { $0 }
            + StoreOpening.restrictDatabaseFiles(path)
        do {
            try StoreOpening.inspectExisting(path)
            let pool = try DatabasePool(path: path, configuration: Self.configuration(label: "gather.store"))
            // GRDB sets `synchronous = NORMAL` when it turns WAL on; NORMAL may lose the last commits on
            // a power cut, so the writer connection is put back to FULL and checked.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                guard try Int.fetchOne(db, sql: "PRAGMA synchronous") == 2 else {
                    throw StoreError("SQLite refused synchronous=FULL for \(path); acknowledged changes would not be safe.")
                }
            }
            try Schema.migrator.migrate(pool)
            warnings += StoreOpening.restrictDatabaseFiles(path).filter { !warnings.contains($0) }
            self.writer = pool
        } catch {
            throw StoreOpening.explain(error, path: path)
        }
        self.path = path
        self.warnings = warnings
    }

    private init(writer: any DatabaseWriter) {
        self.writer = writer
        self.path = nil
    }

    /// Real SQLite without a file, for unit tests of the coordinator.
    public static func inMemory() throws -> SQLiteStore {
        let queue = try DatabaseQueue(configuration: configuration(label: "gather.store.memory"))
        try Schema.migrator.migrate(queue)
        return SQLiteStore(writer: queue)
    }

    private static func configuration(label: String) -> Configuration {
        var configuration = Configuration()
        configuration.label = label
        configuration.foreignKeysEnabled = true
        // `gather backup` may open the same file from another process while the server writes.
        configuration.busyMode = .timeout(5)
        return configuration
    }

    // MARK: - Backup

    /// Copies through SQLite's online backup into `<path>.partial`, checks the copy, then renames it,
    /// so that `path` only ever appears complete. Refuses to overwrite an existing file.
    public func backup(toPath path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw StoreError("\(path) already exists; choose a new file name for the backup.")
        }
        let partial = path + ".partial"
        removeDatabaseFiles(at: partial)
        do {
            let destination = try DatabaseQueue(path: partial)
            try writer.backup(to: destination)
            let check = try destination.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            try destination.close()
            guard check == "ok" else { throw StoreError("the copy failed SQLite's check (\(check ?? "no answer"))") }
            guard rename(partial, path) == 0 else {
                throw StoreError("the copy could not be renamed (\(String(cString: strerror(errno))))")
            }
        } catch {
            removeDatabaseFiles(at: partial)
            let reason = (error as? DatabaseError).map { $0.message ?? "\($0)" } ?? "\(error)"
            throw StoreError("The backup to \(path) failed: \(reason).")
        }
    }

    private func removeDatabaseFiles(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
