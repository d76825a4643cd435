import Foundation
import GatherSecurity
import GatherTransport

/// `/api/shell-version.json`: a digest of the pages folder, so a phone's service worker fetches
/// its copy of the pages again only when they changed (an upgrade, or a file edited in place
/// while the server runs), instead of all of them (660 KB) on every page open.
///
/// It digests each file's path, size, inode and modification time, not its bytes: a file written
/// again changes at least its modification time, and the answer costs a `stat` per file (no
/// read), at most `mostFiles` of them, whoever asks and however often.
struct ShellVersion: Sendable {
    let root: String

    /// Where the server and a relay answer it (and `sw.js` asks).
    static let path = "/api/shell-version.json"

    /// More files than the pages will ever have; past it the rest are not looked at.
    static let mostFiles = 1_000

    /// `{"version":"<64 hex>"}`, or nil when the folder cannot be read.
    func response() -> HTTPResponse? {
        guard let version = current() else { return nil }
        return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8",
                            body: Array("{\"version\":\"\(version)\"}".utf8))
    }

    /// Lowercase hex SHA-256 of one line per regular file, in path order.
    func current() -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue,
              let walker = FileManager.default.enumerator(atPath: root)
        else { return nil }
        var lines: [String] = []
        while lines.count < Self.mostFiles, let relative = walker.nextObject() as? String {
            var info = stat()
            guard lstat(root + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            lines.append("\(relative)\t\(info.st_size)\t\(info.st_ino)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
        }
        return Digest.sha256Hex(lines.sorted().joined(separator: "\n"))
    }
}
