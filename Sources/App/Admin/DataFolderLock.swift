import Foundation

/// One writer per data folder: an exclusive `flock` on `<data-dir>/gather.lock`, held by
/// `gather serve` for its whole life and by the CLI only while it writes the database directly.
/// Two servers on one folder would each keep their own idea of the gather (the second's commits
/// make the first fail every command), and a CLI writing round a running server changes the
/// database behind the server's back (a removed organiser's phone keeps getting acks). The
/// kernel drops the lock when the process ends, however it ends, so a crash leaves nothing stale.
final class DataFolderLock: Sendable {
    static let fileName = "gather.lock"

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Why the folder could not be taken.
    enum Refusal: Error, Equatable {
        /// Another process holds it; its PID as it wrote it (nil when unreadable).
        case held(byPID: Int32?)
        /// The lock file cannot be made or opened (no such folder, read-only, a file in the way).
        case unusable(String)
    }

    static func path(inDataFolder folder: String) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + fileName
    }

    /// Takes the folder without waiting, and writes this process's PID into the lock file for the
    /// next one to name. The lock lasts until `release` or the process's end.
    static func take(dataFolder: String) -> Result<DataFolderLock, Refusal> {
        let path = path(inDataFolder: dataFolder)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return .failure(.unusable(String(cString: strerror(errno)))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = code == EWOULDBLOCK ? heldBy(descriptor) : nil
            close(descriptor)
            return .failure(code == EWOULDBLOCK ? .held(byPID: holder) : .unusable(String(cString: strerror(code))))
        }
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(descriptor, 0) == 0,
              pid.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == pid.count
        else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            return .failure(.unusable(reason))
        }
        return .success(DataFolderLock(descriptor: descriptor))
    }

    /// Lets the folder go (closing the descriptor drops the `flock`).
    func release() {
        close(descriptor)
    }

    /// The PID the holder wrote; nil while it is still writing it, or when the file says nothing.
    private static func heldBy(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
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
