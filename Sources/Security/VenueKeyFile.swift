import Foundation

/// The venue's signing key in its data folder (`venue-key.pem`, PKCS#8, mode 0600): made at the
/// first start and kept across restarts and backups, so relays configured with its public key keep
/// believing the venue after a restart or a restored backup.
public enum VenueKeyFile {
    public static let fileName = "venue-key.pem"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The key in `folder`, made (and written with mode 0600) when there is none.
    public static func ensure(in folder: String) throws -> Ed25519PrivateKey {
        let path = (folder as NSString).appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: path) {
            guard let pem = FileManager.default.contents(atPath: path) else {
                throw Failure(description: "cannot read the venue's signing key \(path)")
            }
            guard let key = Ed25519PrivateKey.load(pem: pem) else {
                throw Failure(description: "\(path) is not an Ed25519 private key (PKCS#8 PEM); move it away to make a new one")
            }
            return key
        }
        let key = try Ed25519PrivateKey.generate()
        try write(try key.pem(), to: path)
        return key
    }

    /// Created exclusively with mode 0600 from the start: the key is never readable by others,
    /// not even for a moment, and an existing file is never overwritten.
    private static func write(_ pem: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot create the venue's signing key \(path): \(String(cString: strerror(errno)))")
        }
        let written = pem.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == pem.count, synced == 0 else {
            unlink(path)
            throw Failure(description: "cannot write the venue's signing key \(path)")
        }
    }
}
