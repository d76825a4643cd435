/// Reads the few top-level fields the bench needs (`type`, `version`, `id`) from a gather.v1
/// message without building the whole object.
///
/// Why not JSONSerialization everywhere: at 10,000 spectators each press delivers 10,000
/// snapshots to this one process; fully decoding them would make the bench, not the server,
/// the bottleneck and inflate every latency it reports.
struct WireSummary: Equatable {
    var type: String?
    var version: Int?
    var id: String?
}

enum WireScanner {
    /// Scans one JSON object's top level; nested values are skipped byte by byte.
    static func summarize(_ bytes: UnsafeRawBufferPointer) -> WireSummary {
        var summary = WireSummary()
        var cursor = Cursor(bytes: bytes)
        cursor.skipSpace()
        guard cursor.take(UInt8(ascii: "{")) else { return summary }
        while !cursor.atEnd {
            cursor.skipSpace()
            if cursor.take(UInt8(ascii: "}")) { break }
            _ = cursor.take(UInt8(ascii: ","))
            cursor.skipSpace()
            guard let key = cursor.readString() else { return summary }
            cursor.skipSpace()
            guard cursor.take(UInt8(ascii: ":")) else { return summary }
            cursor.skipSpace()
            switch key {
            case "type" where cursor.peek == UInt8(ascii: "\""): summary.type = cursor.readString()
            case "id" where cursor.peek == UInt8(ascii: "\""): summary.id = cursor.readString()
            case "version": summary.version = cursor.readInteger()
            default: cursor.skipValue()
            }
            if summary.type != nil, summary.version != nil, summary.id != nil { break }
        }
        return summary
    }
}

// MARK: - A forward-only reader

private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// Keys and the short values we read never need unescaping beyond `\"`; escapes are kept raw.
    mutating func readString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while let byte = peek {
            if byte == UInt8(ascii: "\\") { index += 2; continue }
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            index += 1
        }
        return nil
    }

    mutating func readInteger() -> Int? {
        var negative = false
        if take(UInt8(ascii: "-")) { negative = true }
        var value = 0
        var digits = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits > 0 else { skipValue(); return nil }
        return negative ? -value : value
    }

    /// Skips a string, number, literal, object or array, tracking depth and strings.
    mutating func skipValue() {
        if peek == UInt8(ascii: "\"") { _ = readString(); return }
        var depth = 0
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""): _ = readString(); continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 { index += 1; return }
            case UInt8(ascii: ","): if depth == 0 { return }
            default: break
            }
            index += 1
        }
    }
}
