/// Reads the few top-level fields the bench needs (`type`, `version`, `id`) from a gather.v1 or
/// gather.v2 message without building the whole object.
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
    /// The server writes keys sorted, so a snapshot ends `…},"type":"snapshot","version":N}` (a
    /// patch `…],"type":"patch","version":N}`):
    /// reading only what follows the last nested value avoids walking the whole state. Anything
    /// that does not end like that is read from the start.
    static func summarize(_ bytes: UnsafeRawBufferPointer) -> WireSummary {
        if bytes.count > 256, let tail = tailSummary(bytes), tail.type == "snapshot" || tail.type == "patch", tail.version != nil {
            return tail
        }
        return summarizeFromStart(bytes)
    }

    private static func tailSummary(_ bytes: UnsafeRawBufferPointer) -> WireSummary? {
        var end = bytes.count - 1
        while end > 0, bytes[end] != UInt8(ascii: "}") { end -= 1 }
        var start = end - 1
        while start > 0, bytes[start] != UInt8(ascii: "}"), bytes[start] != UInt8(ascii: "]") { start -= 1 }
        guard start > 0, end - start < 200 else { return nil }
        var synthetic: [UInt8] = [UInt8(ascii: "{")]
        synthetic.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(start + 1)...end]))
        return synthetic.withUnsafeBytes { summarizeFromStart($0) }
    }

    /// Scans one JSON object's top level; nested values are skipped byte by byte.
    static func summarizeFromStart(_ bytes: UnsafeRawBufferPointer) -> WireSummary {
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

    mutating func skipString() {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") { index += 2; continue }
            index += 1
            if byte == UInt8(ascii: "\"") { return }
        }
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
        if peek == UInt8(ascii: "\"") { skipString(); return }
        var depth = 0
        while let byte = peek {
            switch byte {
            case UInt8(ascii: "\""): skipString(); continue
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
