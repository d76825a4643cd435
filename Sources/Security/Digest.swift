import COpenSSL

public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256(bytes, bytes.count, &digest)
        return digest
    }

    /// Lowercase hex of SHA-256 over the UTF-8 bytes: how session tokens are stored.
    public static func sha256Hex(_ text: String) -> String { Hex.lowercase(sha256(Array(text.utf8))) }

    /// "AB:CD:…", the way browsers and phones show certificate fingerprints.
    public static func colonHex(_ bytes: [UInt8]) -> String {
        Hex.lowercase(bytes).uppercased().enumerated().reduce(into: "") { out, pair in
            if pair.offset > 0, pair.offset % 2 == 0 { out.append(":") }
            out.append(pair.element)
        }
    }
}
