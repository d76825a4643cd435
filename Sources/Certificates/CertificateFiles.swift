import Foundation

/// The certificate folder: private keys are created 0600 from the first byte (never readable by
/// others, even briefly) and every file is replaced atomically by a rename.
struct CertificateFiles {
    let directory: String

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func createDirectory() throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CertificateError("cannot create the certificate folder \(directory): \(Self.reason(error))")
        }
    }

    func writeSecret(_ data: Data, to name: String) throws { try write(data, to: name, mode: 0o600) }

    func writePublic(_ data: Data, to name: String) throws { try write(data, to: name, mode: 0o644) }

    /// Renames `name` to `name.old` (replacing an older one); a key stays readable by the owner only.
    func keepAsOld(_ name: String, secret: Bool) throws -> String {
        let old = path(name) + ".old"
        guard rename(path(name), old) == 0 else {
            throw CertificateError("cannot keep \(path(name)) as \(old): \(String(cString: strerror(errno)))")
        }
        if secret { chmod(old, 0o600) }
        return old
    }

    private func write(_ data: Data, to name: String, mode: mode_t) throws {
        let target = path(name)
        let temporary = target + ".partial"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw CertificateError("cannot write \(target): \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, mode)  // exactly `mode`, whatever the umask (the server runs with 077)
        let written = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CertificateError("cannot write \(target): \(String(cString: strerror(errno)))")
        }
    }

    static func read(_ path: String, what: String) throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CertificateError("cannot read the \(what) at \(path): no such file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CertificateError("cannot read the \(what) at \(path): permission denied")
        }
        return data
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
