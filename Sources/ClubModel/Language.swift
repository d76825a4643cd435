/// The six languages of the club's pages, messages and mail.
public enum Language: String, CaseIterable, Hashable, Sendable {
    case en, es, fr, de, it, pt

    /// Caps on what is read of an `Accept-Language` header: a longer one is read up to here.
    public static let maxHeaderBytes = 1_024
    public static let maxHeaderEntries = 32

    /// The best of the six for an `Accept-Language` value (RFC 9110: q-values, `es-AR` matches
    /// `es`, `q=0` refuses, ties keep the header's order); English when none of the six is asked
    /// for, or the header is absent or malformed.
    public static func pick(acceptLanguage header: String?) -> Language {
        guard let header else { return .en }
        var best: (language: Language, q: Double)?
        for entry in header.utf8.prefix(maxHeaderBytes).split(separator: UInt8(ascii: ","))
            .prefix(maxHeaderEntries) {
            let parts = (String(decoding: entry, as: UTF8.self)).split(separator: ";")
            guard let rawTag = parts.first else { continue }
            let tag = rawTag.trimmingSpaces.lowercased()
            let primary = tag.split(separator: "-", maxSplits: 1).first.map(String.init) ?? tag
            guard let language = Language(rawValue: primary) else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" else { continue }
                let value = pair[1].trimmingSpaces
                guard value.count <= 5, let parsed = Double(value), (0...1).contains(parsed) else { q = -1; break }
                q = parsed
            }
            guard q > 0 else { continue }
            if best == nil || q > best!.q { best = (language, q) }
        }
        return best?.language ?? .en
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
