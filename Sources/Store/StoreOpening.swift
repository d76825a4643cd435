import Foundation
import GRDB

/// The checks made before and while opening the data folder. Each failure becomes one sentence a
/// person can act on, because the alternative — a stack of SQLite codes at start-up, or worse a
/// silently recreated empty database — is how pitch-side laptops lose a day of games.
enum StoreOpening {
    // MARK: - The folder

    /// Creates `directory` (and its parents) when missing, then proves it can be written to: SQLite
    /// needs to create `-wal` and `-shm` files next to the database, not just to write the file itself.
    static func prepareDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError("The data folder \(directory) cannot be created: a file with that name is in the way.")
            }
        } else if let failure = makeDirectories(directory) {
            throw StoreError("The data folder \(directory) cannot be created: \(failure).")
        }
        try probeWritable(directory)
    }

    /// `mkdir -p`, reporting the first failure in words (FileManager's errors on Linux say less).
    /// The data folder itself is the owner's only: it holds password hashes and every result.
    private static func makeDirectories(_ directory: String) -> String? {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        let components = directory.split(separator: "/").filter { !$0.isEmpty }
        for (index, component) in components.enumerated() {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            let isDataFolder = index == components.count - 1
            if mkdir(prefix, isDataFolder ? 0o700 : 0o755) != 0 {
                let code = errno
                var isDirectory: ObjCBool = false
                if code == EEXIST, FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory),
                   isDirectory.boolValue
                {
                    continue
                }
                if code == EEXIST || code == ENOTDIR { return "\(prefix) is a file, not a folder" }
                return "\(prefix): \(reason(code))"
            }
        }
        return nil
    }

    private static func probeWritable(_ directory: String) throws {
        let probe = directory + "/.gather-write-check"
        let descriptor = open(probe, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw StoreError("The data folder \(directory) is read-only (\(reason(code))); the server must be able to write there.")
        }
        close(descriptor)
        unlink(probe)
    }

    // MARK: - The file

    /// An existing database must be writable too: opening it read-only would let the server start
    /// and then fail every command.
    static func checkWritableFile(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let descriptor = open(path, O_RDWR)
        guard descriptor >= 0 else {
            let code = errno
            if code == EISDIR { throw StoreError("\(path) is a folder, not a database file; move it away.") }
            throw StoreError("The database file \(path) is read-only (\(reason(code))); the server must be able to write it.")
        }
        close(descriptor)
    }

    // MARK: - Who else may read it

    /// The database and its `-wal`/`-shm` become the owner's only, also when an older release or
    /// a copy left them readable; SQLite gives a `-wal`/`-shm` it creates the database file's mode.
    static func restrictDatabaseFiles(_ path: String) -> [String] {
        var warnings: [String] = []
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            if chmod(file, 0o600) != 0 {
                warnings.append("\(file) can be read by other users of this computer and could not be made private "
                    + "(\(reason(errno))); run `chmod 600 \(file)`.")
            }
        }
        return warnings
    }

    /// A folder the user chose is never changed behind their back (it may be shared on purpose),
    /// but one others can look into is worth a sentence at start.
    static func folderExposure(_ directory: String) -> String? {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        return "the data folder \(directory) can be looked into by other users of this computer (mode \(mode)); "
            + "run `chmod 700 \(directory)` to keep it to yourself."
    }

    // MARK: - The schema

    /// Looks at an existing database through a read-only connection before anything writes to it
    /// (opening the pool already switches the journal mode and may create a table), and refuses one that
    /// is not ours or that a newer build has migrated: old code could misread or damage what it does
    /// not understand, and "refused, nothing changed" is the only safe answer.
    static func inspectExisting(_ path: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size > 0 else { return }
        var configuration = Configuration()
        configuration.readonly = true
        let reader = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? reader.close() }
        try reader.read { db in try refuseUnknownSchema(db, path: path) }
    }

    private static func refuseUnknownSchema(_ db: Database, path: String) throws {
        let applied = try Schema.migrator.appliedIdentifiers(db)
        let userTables = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        guard !applied.isEmpty || userTables == 0 else {
            throw StoreError("""
                \(path) is an SQLite database of another program (it has tables but no gather schema); move it \
                away or choose another data folder — nothing was changed.
                """)
        }
        let unknown = applied.subtracting(Schema.knownMigrations).sorted()
        guard unknown.isEmpty else {
            throw StoreError("""
                The database \(path) was written by a newer version of gather (schema steps \
                \(unknown.joined(separator: ", ")) are unknown to this build); run the newer gather or choose \
                another data folder — nothing was changed.
                """)
        }
    }

    // MARK: - SQLite's errors in words

    static func explain(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else {
            return StoreError("The database \(path) could not be opened: \(error).")
        }
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return StoreError("\(path) is not a gather database (not an SQLite file); move it away or choose another data folder.")
        case .SQLITE_CORRUPT:
            return StoreError("The database \(path) is damaged; restore it from a backup (gather backup) or move it away.")
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError("The database \(path) is read-only; the server must be able to write it.")
        case .SQLITE_CANTOPEN:
            return StoreError("The database \(path) cannot be opened; check that its folder exists and can be written.")
        case .SQLITE_FULL:
            return StoreError("The disk holding \(path) is full; free some space and start again.")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError("The database \(path) is locked by another program; stop it and start again.")
        default:
            return StoreError("The database \(path) could not be opened: \(error.message ?? "SQLite error \(error.resultCode.rawValue)").")
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
