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

extension Digest {
    /// HMAC-SHA-256 (OpenSSL's one-shot `HMAC`): the club's member links are rebuilt from a seed
    /// and the club's secret, so only their hash is stored and a mail can still carry the link.
    public static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress, messageBytes.count,
                     &output, &length)
            }
        }
        // HMAC fails only when OpenSSL cannot allocate its context: nothing safe can go on then.
        guard result != nil, length == 32 else { fatalError("OpenSSL's HMAC-SHA-256 failed") }
        return Array(output.prefix(32))
    }
}
