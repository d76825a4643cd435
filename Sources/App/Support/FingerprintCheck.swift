/// The short form of a certificate fingerprint that a person compares at a glance: the first and
/// last 8 hex characters in groups of four ("A1B2 C3D4 … 9F8E 7D6C"). A forged certificate would
/// have to match 64 bits of SHA-256 at both ends to pass it; the full fingerprint stays beside it.
enum FingerprintCheck {
    static func short(_ fingerprint: String) -> String {
        let hex = fingerprint.filter(\.isHexDigit).uppercased()
        guard hex.count >= 16 else { return grouped(hex) }
        return grouped(String(hex.prefix(8))) + " … " + grouped(String(hex.suffix(8)))
    }

    /// "A1B2C3D4" → "A1B2 C3D4".
    static func grouped(_ hex: String) -> String {
        var groups: [String] = []
        var rest = Substring(hex)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(4)))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: " ")
    }
}
