import GatherSecurity

/// A member's personal link: 128 bits derived from a per-link seed under the club's secret
/// (HMAC-SHA-256, cut to 16 bytes), so the server can rebuild the link for a mail while the
/// database keeps only the token's SHA-256. "New link" draws a new seed: the old token then
/// matches no hash, at once.
public enum MemberLinks {
    public static let tokenLength = 22
    public static let seedBytes = 16

    /// 128 random bits as base64url text (how the store keeps a seed).
    public static func newSeed() -> String { Base64.urlEncoded(SecureRandom.bytes(seedBytes)) }

    /// A club secret: 256 random bits as base64url text, drawn at the club's first start.
    public static func newSecret() -> String { Base64.urlEncoded(SecureRandom.bytes(32)) }

    public static func token(seed: String, secret: String) -> String {
        Base64.urlEncoded(Array(Digest.hmacSHA256(key: Array(secret.utf8), Array(seed.utf8)).prefix(16)))
    }

    /// What the database keeps of a token: lowercase hex SHA-256.
    public static func hash(token: String) -> String { Digest.sha256Hex(token) }

    static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x5F
    }
}
