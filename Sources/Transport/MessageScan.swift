/// One pass over a message's bytes, before any JSON parser sees it: how deep it nests, and its
/// top-level `"type"` and `"id"` when they are plain strings. Our own (not a JSON library) because
/// it must stop at the first byte past the depth limit and cost no allocation: a parser that
/// builds the tree first is exactly the work an attacker wants the server to do.
///
/// It is not a validator: a message that passes may still be `bad_json` for the source's parser.
struct MessageScan: Equatable {
    /// Deeper than this many levels is `bad_json` without being parsed (the protocol's limit).
    static let maximumDepth = 64

    /// Deeper than `maximumDepth`; the scan stopped there.
    var tooDeep = false
    /// The top-level object's `"type"` is `"command"`.
    var isCommand = false
    /// The top-level object's `"id"`, when it is a string of 1–64 characters and at most 256 bytes.
    var id: String?

    /// For tests: a scan's expected outcome.
    init(tooDeep: Bool = false, isCommand: Bool, id: String?) {
        self.tooDeep = tooDeep
        self.isCommand = isCommand
        self.id = id
    }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let openers: Set<UInt8> = [UInt8(ascii: "{"), UInt8(ascii: "[")]
    private static let closers: Set<UInt8> = [UInt8(ascii: "}"), UInt8(ascii: "]")]

    init(_ bytes: [UInt8], maximumDepth: Int = MessageScan.maximumDepth) {
        var depth = 0
        var inString = false, escaped = false, stringHasEscape = false
        var stringStart = 0
        // Inside the top-level object: whether the next string is a key, or a value after `:`.
        var expectKey = false, expectValue = false
        var key: ArraySlice<UInt8>?
        for index in bytes.indices {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == Self.backslash {
                    escaped = true
                    stringHasEscape = true
                } else if byte == Self.quote {
                    inString = false
                    guard depth == 1 else { continue }
                    let text = bytes[stringStart..<index]
                    if expectKey {
                        key = stringHasEscape ? nil : text
                        expectKey = false
                    } else if expectValue {
                        expectValue = false
                        if let key { take(key: key, value: text, escaped: stringHasEscape) }
                    }
                }
                continue
            }
            switch byte {
            case Self.quote:
                inString = true
                stringHasEscape = false
                stringStart = index + 1
            case _ where Self.openers.contains(byte):
                depth += 1
                if depth > maximumDepth {
                    tooDeep = true
                    return
                }
                if depth == 1 { expectKey = byte == UInt8(ascii: "{") }
                if depth == 2 { expectValue = false }
            case _ where Self.closers.contains(byte):
                depth -= 1
            case UInt8(ascii: ":") where depth == 1:
                expectValue = true
            case UInt8(ascii: ",") where depth == 1:
                expectKey = true
                expectValue = false
                key = nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            default:
                // A number or literal value at the top level: not a string.
                if depth == 1 { expectValue = false }
            }
        }
    }

    private mutating func take(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>, escaped: Bool) {
        if key.elementsEqual("type".utf8) {
            isCommand = !escaped && value.elementsEqual("command".utf8)
        } else if key.elementsEqual("id".utf8) {
            let text = escaped ? Self.unescaped(value) : String(decoding: value, as: UTF8.self)
            id = text.flatMap { $0.isEmpty || $0.count > 64 || $0.utf8.count > 256 ? nil : $0 }
        }
    }

    /// A JSON string's escapes decoded (an id may be written `\ud83d\ude00`); nil when one is
    /// malformed. Only ever run on one short value, for an answer that must carry it.
    static func unescaped(_ raw: ArraySlice<UInt8>) -> String? {
        guard raw.count <= 1_536 else { return nil }
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        var index = raw.startIndex
        func flush() -> Bool {
            guard !bytes.isEmpty else { return true }
            guard let text = String(validating: bytes, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            bytes.removeAll()
            return true
        }
        func hex4(at start: Int) -> UInt32? {
            guard start + 4 <= raw.endIndex, let text = String(validating: raw[start..<start + 4], as: UTF8.self) else {
                return nil
            }
            return UInt32(text, radix: 16)
        }
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            guard flush(), index + 1 < raw.endIndex else { return nil }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                guard var code = hex4(at: index) else { return nil }
                index += 4
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 6 <= raw.endIndex, raw[index] == UInt8(ascii: "\\"), raw[index + 1] == UInt8(ascii: "u"),
                          let low = hex4(at: index + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    index += 6
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { return nil }
                scalars.append(scalar)
            default:
                return nil
            }
        }
        guard flush() else { return nil }
        return String(scalars)
    }
}
