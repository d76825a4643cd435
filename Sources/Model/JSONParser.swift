/// A strict RFC 8259 parser for client messages.
///
/// Hand-written so that the limits are ours: nesting depth is capped (a deeply nested array
/// cannot exhaust the stack), numbers that are not exact integers stay doubles, and every
/// failure is a value rather than an exception thrown across the transport.
public struct JSONParser {
    public struct Failure: Error, Equatable, Sendable {
        public let offset: Int
        public let reason: String
    }

    public static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    public static func parse(_ text: String) -> Result<JSONValue, Failure> {
        parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        var parser = JSONParser(bytes: bytes)
        do {
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
            return .success(value)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(offset: parser.index, reason: "\(error)"))
        }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: - Grammar

    private mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard let byte = peek() else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ parser: JSONParser, upTo end: Int) throws {
            guard runStart < end else { return }
            guard let run = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw parser.failure("invalid UTF-8 in a string")
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun(self, upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun(self, upTo: index)
                index += 1
                scalars.append(try parseEscape())
                runStart = index
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                index += 1
            }
        }
    }

    private mutating func parseEscape() throws -> Unicode.Scalar {
        guard let byte = peek() else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("unpaired surrogate") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("unpaired surrogate") }
            return scalar
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw failure("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw failure("invalid number") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw failure("invalid number") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw failure("number out of range") }
        return .double(value)
    }

    // MARK: - Helpers

    private mutating func expectLiteral(_ literal: String) throws {
        let expected = Array(literal.utf8)
        let count = expected.count
        guard index + count <= bytes.count else { throw failure("unexpected end of input") }
        guard bytes[index..<index + count].elementsEqual(expected) else { throw failure("unexpected literal") }
        index += count
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }
}
