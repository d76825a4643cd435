/// Serialises `JSONValue` to compact UTF-8 with object keys in sorted order, so that the same
/// state always produces the same bytes (snapshots are encoded once and shared by everyone).
public enum JSONWriter {
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number): output.append(contentsOf: String(number).utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, key) in members.keys.sorted().enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(members[key]!, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
