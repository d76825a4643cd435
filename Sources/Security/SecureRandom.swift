import COpenSSL

/// Randomness for everything an attacker must not guess: tokens, salts, ids, invite codes.
/// OpenSSL's CSPRNG, seeded by the kernel.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        // RAND_bytes fails only when the kernel cannot seed OpenSSL; nothing safe can go on then.
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { fatalError("OpenSSL's random generator failed") }
        return bytes
    }

    /// 256 random bits as base64url without padding (43 characters): a session token.
    public static func token() -> String { Base64.urlEncoded(bytes(32)) }

    /// A random (version 4) UUID in lowercase.
    public static func uuidString() -> String {
        var raw = bytes(16)
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        let hex = Hex.lowercase(raw)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// Letters and digits a person reads aloud or types on a phone without confusing any two.
    public static let inviteAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    /// Eight characters of `inviteAlphabet` (about 39 bits), without modulo bias.
    public static func inviteCode(length: Int = 8) -> String {
        var code = ""
        while code.count < length {
            for byte in bytes(length * 2) where code.count < length {
                // 248 = 8 × 31: bytes above it would favour the first letters.
                guard byte < 248 else { continue }
                code.append(inviteAlphabet[Int(byte) % inviteAlphabet.count])
            }
        }
        return code
    }
}

// MARK: - Encodings

enum Hex {
    static func lowercase(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encoded(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let b0 = chunk[chunk.startIndex]
            let b1 = chunk.count > 1 ? chunk[chunk.startIndex + 1] : 0
            let b2 = chunk.count > 2 ? chunk[chunk.startIndex + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(chunk.count > 1 ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(chunk.count > 2 ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func urlEncoded(_ bytes: [UInt8]) -> String {
        String(encoded(bytes).compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }

    /// nil for anything that is not canonical padded base64.
    public static func decoded(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var lookup = [Int](repeating: -1, count: 256)
        for (value, symbol) in alphabet.enumerated() { lookup[Int(symbol)] = value }
        var out = [UInt8]()
        var index = 0
        while index < input.count {
            let quad = input[index..<index + 4]
            let padding = quad.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard padding <= 2, index + 4 == input.count || padding == 0 else { return nil }
            var values = [Int]()
            for symbol in quad.prefix(4 - padding) {
                let value = lookup[Int(symbol)]
                guard value >= 0 else { return nil }
                values.append(value)
            }
            while values.count < 4 { values.append(0) }
            let triple = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            out.append(UInt8(triple >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(triple >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(triple & 0xFF)) }
            index += 4
        }
        return out
    }
}
