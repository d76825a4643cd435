import Foundation
import GatherStore

/// One writer per data folder: an exclusive `flock` on the database file itself
/// (`<data-dir>/gather.sqlite`), held by `gather serve` for its whole life and by the CLI only while
/// it writes the database directly. Two servers on one folder would each keep their own idea of the
/// gather (the second's commits make the first fail every command), and a CLI writing round a
/// running server changes the database behind the server's back (a removed organiser's phone keeps
/// getting acks).
///
/// The lock is on the database, not on a file beside it: deleting a lock file (or the admin
/// socket) by mistake or on purpose must not let a second server or the CLI in, and nobody can
/// delete the database without losing it. A `flock` and SQLite's own POSIX byte-range locks are
/// separate on Linux, so holding one never blocks SQLite, and `gather backup` (which takes no
/// `flock`) still reads the database while the server runs. The holder's PID is read from
/// /proc/locks, which the kernel writes, so no file can lie about it. The kernel drops the lock
/// when the process ends, however it ends, so a crash leaves nothing stale.
final class DataFolderLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Why the folder could not be taken.
    enum Refusal: Error, Equatable {
        /// Another process holds it; its PID as /proc/locks names it (nil when it cannot be found).
        case held(byPID: Int32?)
        /// The database file cannot be made or opened (no such folder, read-only, a folder in the way).
        case unusable(String)
    }

    /// The file the lock is taken on: the database itself.
    static func path(inDataFolder folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + SQLiteStore.fileName
    }

    /// Takes the folder without waiting. Creates an empty database file when there is none (SQLite
    /// takes an empty file for an empty database), mode 0600, never through a symbolic link; an
    /// existing database may be one (moved to another disk), and its file is what gets locked, as
    /// SQLite opens it. The lock lasts until `release` or the process's end.
    static func take(dataFolder: String) -> Result<DataFolderLock, Refusal> {
        let path = path(inDataFolder: dataFolder)
        var descriptor = open(path, O_RDWR | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor < 0, errno == EEXIST { descriptor = open(path, O_RDWR | O_CLOEXEC) }  // made meanwhile
        }
        guard descriptor >= 0 else { return .failure(.unusable(String(cString: strerror(errno)))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = code == EWOULDBLOCK ? LockHolder.pid(of: descriptor) : nil
            close(descriptor)
            return .failure(code == EWOULDBLOCK ? .held(byPID: holder) : .unusable(String(cString: strerror(code))))
        }
        return .success(DataFolderLock(descriptor: descriptor))
    }

    /// The PID holding the folder, as /proc/locks says, without taking or touching the lock; nil
    /// when there is no database, nobody holds it, or the kernel's table does not name the file.
    static func holder(dataFolder: String) -> Int32? {
        let descriptor = open(path(inDataFolder: dataFolder), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return LockHolder.pid(of: descriptor)
    }

    /// Lets the folder go (closing the descriptor drops the `flock`). Only once this process has
    /// closed its SQLite connections to the file: closing any descriptor of a file also drops the
    /// POSIX locks the process holds on it, SQLite's included. Servers and the CLI never call it
    /// (their lock ends with the process); tests do.
    func release() {
        close(descriptor)
    }
}

/// Who holds the `flock` on an open file, from /proc/locks: lines such as
/// `3: FLOCK  ADVISORY  WRITE 10146 fe:00:16220940 0 EOF` (major:minor in hex, then the inode).
enum LockHolder {
    /// The /proc/locks file is a few lines per lock held on the machine; more is not read.
    static let readLimit = 1 << 20

    static func pid(of descriptor: Int32) -> Int32? {
        var info = stat()
        guard fstat(descriptor, &info) == 0,
              let text = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/locks")).read(upToCount: readLimit)
        else { return nil }
        return pid(in: String(decoding: text, as: UTF8.self), device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The PID of the exclusive `flock` on the file `device`/`inode` in the text of /proc/locks.
    static func pid(in text: String, device: UInt64, inode: UInt64) -> Int32? {
        // Linux's encoding of dev_t, as glibc's gnu_dev_major / gnu_dev_minor decode it.
        let major = ((device & 0x0000_0000_000f_ff00) >> 8) | ((device & 0xffff_f000_0000_0000) >> 32)
        let minor = (device & 0x0000_0000_0000_00ff) | ((device & 0x0000_0fff_fff0_0000) >> 12)
        let file = String(format: "%02llx:%02llx:%llu", major, minor, inode)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // "N:" "FLOCK" "ADVISORY" "WRITE" PID FILE START END; a waiter's line starts "N: ->".
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file else { continue }
            return Int32(fields[4])
        }
        return nil
    }
}

extension DataFolderLock.Refusal {
    /// One sentence for the operator, naming the folder.
    func sentence(dataFolder: String) -> String {
        switch self {
        case .held(let pid):
            "the data folder \(dataFolder) is already served by PID \(pid.map(String.init) ?? "unknown"); stop that server first"
        case .unusable(let reason):
            "cannot lock the data folder \(dataFolder) (\(DataFolderLock.path(inDataFolder: dataFolder)): \(reason))"
        }
    }
}
