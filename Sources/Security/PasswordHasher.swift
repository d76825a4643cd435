import COpenSSL

/// Passwords are stored as scrypt hashes with a per-user salt, in a self-describing string:
/// `$scrypt$ln=15,r=8,p=3$<salt base64>$<hash base64>`. At the defaults one hash costs about
/// 32 MiB and a few hundred milliseconds, so a stolen database cannot be guessed through quickly.
public struct PasswordHasher: Sendable {
    public let logN: UInt8
    public let r: UInt32
    public let p: UInt32

    static let saltBytes = 16
    static let hashBytes = 32

    public init(logN: UInt8 = 15, r: UInt32 = 8, p: UInt32 = 3) {
        precondition(Self.acceptable(logN: Int(logN), r: Int(r), p: Int(p)), "scrypt parameters out of range")
        self.logN = logN
        self.r = r
        self.p = p
    }

    public func hash(_ password: String) -> String {
        let salt = SecureRandom.bytes(Self.saltBytes)
        // The parameters passed `acceptable` in init, so only a failed allocation can stop scrypt.
        guard let derived = Self.scrypt(password, salt: salt, logN: Int(logN), r: Int(r), p: Int(p)) else {
            fatalError("scrypt could not allocate its memory")
        }
        return encoding(salt: salt, hash: derived)
    }

    /// What a login for an unknown username is checked against, so that it costs what a wrong
    /// password costs (no answer time tells who has an account). Its salt and its "hash" are
    /// random bytes in the same encoding: checking any password against it runs one scrypt with
    /// these parameters, and none matches. Made without running scrypt, so a server's start does
    /// not spend a hash's CPU (~0.4 s of the debug build's ~0.55 s) on it.
    public func decoy() -> String {
        encoding(salt: SecureRandom.bytes(Self.saltBytes), hash: SecureRandom.bytes(Self.hashBytes))
    }

    /// The one writer of the encoding `parse` reads, with these parameters.
    private func encoding(salt: [UInt8], hash: [UInt8]) -> String {
        "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Base64.encoded(salt))$\(Base64.encoded(hash))"
    }

    /// False for a wrong password and for anything that is not one of our encodings; never traps.
    public func verify(_ password: String, against encoded: String) -> Bool {
        guard let stored = Self.parse(encoded),
              let derived = Self.scrypt(password, salt: stored.salt, logN: stored.logN, r: stored.r, p: stored.p),
              derived.count == stored.hash.count
        else { return false }
        return CRYPTO_memcmp(derived, stored.hash, derived.count) == 0
    }

    // MARK: - Encoding

    struct Encoded {
        var logN: Int, r: Int, p: Int
        var salt: [UInt8], hash: [UInt8]
    }

    static func parse(_ encoded: String) -> Encoded? {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        var parameters: [String: Int] = [:]
        for pair in fields[2].split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]), parameters[String(parts[0])] == nil else { return nil }
            parameters[String(parts[0])] = value
        }
        guard parameters.count == 3, let logN = parameters["ln"], let r = parameters["r"], let p = parameters["p"],
              acceptable(logN: logN, r: r, p: p),
              let salt = Base64.decoded(String(fields[3])), salt.count >= 8, salt.count <= 64,
              let hash = Base64.decoded(String(fields[4])), hash.count == hashBytes
        else { return nil }
        return Encoded(logN: logN, r: r, p: p, salt: salt, hash: hash)
    }

    /// A tampered row must not make the server spend minutes or gigabytes on one login.
    static func acceptable(logN: Int, r: Int, p: Int) -> Bool {
        guard (10...20).contains(logN), (1...16).contains(r), (1...16).contains(p) else { return false }
        // OpenSSL also wants N < 2^(16·r).
        return logN < 16 * r && memoryNeeded(logN: logN, r: r, p: p) <= memoryLimit
    }

    /// What OpenSSL's scrypt allocates (its own formula); above `memoryLimit` it refuses to run.
    static func memoryNeeded(logN: Int, r: Int, p: Int) -> UInt64 {
        128 * UInt64(r) * ((UInt64(1) << UInt64(logN)) + 2) + 128 * UInt64(r) * UInt64(p)
    }

    /// 256 MiB: sixteen times what the defaults need (32 MiB).
    static let memoryLimit: UInt64 = 256 * 1024 * 1024

    // MARK: - OpenSSL

    static func scrypt(_ password: String, salt: [UInt8], logN: Int, r: Int, p: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: hashBytes)
        // An empty array has no base address; OpenSSL still wants a pointer.
        let secret = Array(password.utf8) + [0]
        let secretLength = secret.count - 1
        let status = secret.withUnsafeBufferPointer { passwordBytes in
            salt.withUnsafeBufferPointer { saltBytes in
                passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                    EVP_PBE_scrypt(passwordChars.baseAddress, secretLength, saltBytes.baseAddress, salt.count,
                                   UInt64(1) << UInt64(logN), UInt64(r), UInt64(p), memoryLimit,
                                   &output, output.count)
                }
            }
        }
        return status == 1 ? output : nil
    }
}
