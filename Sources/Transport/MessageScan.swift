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
    /// The top-level object's `"id"`, when it is a string without escapes of at most 256 bytes.
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
                        if let key, !stringHasEscape { take(key: key, value: text) }
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

    private mutating func take(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>) {
        if key.elementsEqual("type".utf8) {
            isCommand = value.elementsEqual("command".utf8)
        } else if key.elementsEqual("id".utf8) {
            id = value.isEmpty || value.count > 256 ? nil : String(decoding: value, as: UTF8.self)
        }
    }
}
