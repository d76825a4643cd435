// Our own RFC 5545 writer: neither Foundation nor the offline Swift packages write iCalendar.

/// The text rules of RFC 5545 a feed needs: content lines ending in CRLF, folded at 75 octets
/// without splitting a UTF-8 sequence (3.1), TEXT values escaped (3.3.11), UTC date-times (3.3.5)
/// and durations (3.3.6).
public struct ICalendarText {
    private(set) var lines: [String] = []

    public init() {}

    /// A property whose value is already in its type's form (a date-time, a number, a duration).
    public mutating func property(_ name: String, _ value: String) {
        lines.append(name + ":" + value)
    }

    /// A TEXT property: its value escaped.
    public mutating func text(_ name: String, _ value: String) {
        property(name, Self.escaped(value))
    }

    /// The folded lines, each ending in CRLF.
    public var document: String {
        lines.map { Self.folded($0) }.joined()
    }

    /// `\` `;` `,` and newlines escaped; other control characters (never in a valid name) dropped.
    public static func escaped(_ value: String) -> String {
        var result = ""
        var scalars = value.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\r":
                if pending == "\n" { pending = scalars.next() }
                result += "\\n"
            case "\n": result += "\\n"
            default:
                if scalar.properties.generalCategory == .control { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One content line folded: at most 75 octets a line (the leading space of a continuation
    /// counts), breaking only between UTF-8 sequences, each line ending in CRLF.
    public static func folded(_ line: String) -> String {
        var output = ""
        var current: [UInt8] = []
        for scalar in line.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if current.count + bytes.count > 75 {
                output += String(decoding: current, as: UTF8.self) + "\r\n"
                current = [UInt8(ascii: " ")]
            }
            current += bytes
        }
        return output + String(decoding: current, as: UTF8.self) + "\r\n"
    }

    /// `20261126T130000Z`: a UTC date-time.
    public static func dateTime(epochMilliseconds: Int64) -> String {
        HistoryExport.iso8601(epochMilliseconds: epochMilliseconds).filter { $0 != "-" && $0 != ":" }
    }

    /// `PT12M`.
    public static func duration(minutes: Int) -> String { "PT\(minutes)M" }
}
