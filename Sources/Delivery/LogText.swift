/// Client-supplied text made safe for a log line: a terminal shows the log, and a stranger's
/// `Origin` header must not be able to clear it or paint a fake invite code on it.
///
/// Every control character (C0, DEL, C1) and the backslash are escaped as `\xNN`, and the result
/// is cut to `limit` UTF-8 bytes (on a character boundary, with `…` when something was cut).
public enum LogText {
    public static let limit = 200

    public static func escaped(_ text: some StringProtocol, limit: Int = LogText.limit) -> String {
        var out = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x5C:
                piece = "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default:
                piece = String(scalar)
            }
            let size = piece.utf8.count
            guard bytes + size <= limit else { return out + "…" }
            out += piece
            bytes += size
        }
        return out
    }

    /// `escaped`, for optional values ("-" for none).
    public static func escaped(_ text: (some StringProtocol)?) -> String {
        text.map { escaped($0) } ?? "-"
    }
}
