import Foundation

/// Everything one mail says, gathered by the Coordinator from the database at send time.
public struct MailContent: Sendable {
    public var key: MailKey
    public var memberName: String
    public var memberAddress: String
    public var clubName: String
    public var fromAddress: String
    /// The host of `--public-url`, else `--host`: the Message-ID's right side.
    public var host: String
    public var language: Language
    public var title: String
    public var place: String
    public var startsAt: Millis
    public var confirmedSeats: Int
    public var capacity: Int
    public var waiting: Int
    public var offerExpiresAt: Millis?
    /// The member's absolute personal link (`…/club/m/TOKEN`).
    public var memberLink: String
    public var club: ClubTime
    /// The `Date:` header's instant (the club's clock when sending).
    public var sentAt: Millis

    public init(key: MailKey, memberName: String, memberAddress: String, clubName: String, fromAddress: String,
                host: String, language: Language, title: String, place: String, startsAt: Millis,
                confirmedSeats: Int, capacity: Int, waiting: Int, offerExpiresAt: Millis?, memberLink: String,
                club: ClubTime, sentAt: Millis) {
        self.key = key
        self.memberName = memberName
        self.memberAddress = memberAddress
        self.clubName = clubName
        self.fromAddress = fromAddress
        self.host = host
        self.language = language
        self.title = title
        self.place = place
        self.startsAt = startsAt
        self.confirmedSeats = confirmedSeats
        self.capacity = capacity
        self.waiting = waiting
        self.offerExpiresAt = offerExpiresAt
        self.memberLink = memberLink
        self.club = club
        self.sentAt = sentAt
    }
}

/// A mail ready for SMTP: the envelope's addresses and the RFC 5322 message (CRLF lines).
public struct MailMessage: Equatable, Sendable {
    public var messageId: String
    public var from: String
    public var to: String
    public var data: String
}

/// Writes a mail as RFC 5322 text: headers with names in RFC 2047 encoded words and nothing a CR
/// or LF could split, a plain-text UTF-8 body in base64 (no line-length or 8-bit worries on the way).
public enum MailText {
    public static func compose(_ content: MailContent) -> MailMessage {
        let words = MailWords.words(content.language)
        let values = fill(content)
        let kind = words.kinds[content.key.kind]!
        let subject = ClubMessages.render(kind.subject, values) ?? content.title
        var body = [ClubMessages.render(words.greeting, values)!, "", ClubMessages.render(kind.text, values)!, ""]
        for (label, link) in links(content) {
            body.append("\(words.links[label]!)\(words.colon)\(link)")
        }
        body += ["", "— \(content.clubName)", ""]
        let messageId = content.key.messageId(host: content.host)
        let headers = [
            "Date: \(rfc5322Date(content.sentAt))",
            "From: \(address(name: content.clubName, email: content.fromAddress))",
            "To: \(address(name: content.memberName, email: content.memberAddress))",
            "Subject: \(encodedPhrase(subject, always: false))",
            "Message-ID: \(messageId)",
            "X-Gather-Kind: \(content.key.kind.rawValue)",
            "X-Gather-Date: \(headerSafe(content.key.dateId))",
            "X-Gather-Member: \(headerSafe(content.key.memberId))",
            "Content-Language: \(content.language.rawValue)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: base64",
        ]
        let encoded = lines(Data(body.joined(separator: "\r\n").utf8).base64EncodedString(), width: 76)
        return MailMessage(messageId: messageId, from: headerSafe(content.fromAddress), to: headerSafe(content.memberAddress),
                           data: headers.joined(separator: "\r\n") + "\r\n\r\n" + encoded + "\r\n")
    }

    /// The one-tap links of a kind, labelled (answers confirm on the page: a GET changes nothing).
    static func links(_ content: MailContent) -> [(String, String)] {
        let date = "?date=\(percentEncoded(content.key.dateId))"
        let inLink = "\(content.memberLink)\(date)&answer=in"
        let outLink = "\(content.memberLink)\(date)&answer=out"
        switch content.key.kind {
        case .reminder: return [("in", inLink), ("out", outLink), ("page", content.memberLink)]
        case .offer: return [("claim", content.memberLink), ("out", outLink)]
        case .promoted: return [("out", outLink), ("page", content.memberLink)]
        case .cancelled: return [("page", content.memberLink)]
        }
    }

    static func fill(_ content: MailContent) -> [String: String] {
        let words = MailWords.words(content.language)
        let day = content.club.localDate(of: content.startsAt)
        var values = [
            "name": content.memberName, "title": content.title,
            "weekday": ClubMessages.weekdayName(day.isoWeekday, in: content.language),
            "date": day.description, "time": content.club.localTime(of: content.startsAt).description,
            "at": content.place.isEmpty ? "" : ClubMessages.render(words.at, ["place": content.place])!,
            "in": String(content.confirmedSeats), "capacity": String(content.capacity),
            "waiting": String(content.waiting), "expiry": "",
        ]
        if let expiry = content.offerExpiresAt {
            let expiryDay = content.club.localDate(of: expiry)
            values["expiry"] = "\(ClubMessages.weekdayName(expiryDay.isoWeekday, in: content.language)) "
                + content.club.localTime(of: expiry).description
        }
        return values
    }

    /// `text` cut into lines of `width` characters joined by CRLF (base64's 76 of RFC 2045).
    static func lines(_ text: String, width: Int) -> String {
        var result: [Substring] = []
        var rest = text[...]
        while !rest.isEmpty {
            result.append(rest.prefix(width))
            rest = rest.dropFirst(width)
        }
        return result.joined(separator: "\r\n")
    }

    // MARK: - Header syntax

    /// A header value with every control character (CR and LF first) removed: nothing a member's
    /// or organiser's text holds can start a new header.
    public static func headerSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !($0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029)
        }))
    }

    /// `Name <address>`, the name as it is when it is plain ASCII words, else RFC 2047 encoded.
    static func address(name: String, email: String) -> String {
        let cleaned = headerSafe(name).trimmingCharacters(in: .whitespaces)
        let box = "<\(headerSafe(email))>"
        return cleaned.isEmpty ? box : "\(encodedPhrase(cleaned, always: false)) \(box)"
    }

    static let atext = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-/=?^_`{|}~ ".unicodeScalars)

    /// RFC 2047 `=?UTF-8?B?…?=` words (each under 76 characters, a character never split between
    /// two), folded onto continuation lines; plain ASCII words are kept as they are unless `always`.
    public static func encodedPhrase(_ text: String, always: Bool) -> String {
        let safe = headerSafe(text)
        if !always, safe.unicodeScalars.allSatisfy(atext.contains), !safe.contains("=?") { return safe }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in safe {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk.removeAll()
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    /// RFC 5322's date in UTC ("Fri, 04 Dec 2026 09:00:00 +0000"), without the locale's say.
    static func rfc5322Date(_ instant: Millis) -> String {
        let seconds = instant >= 0 ? instant / 1_000 : (instant - 999) / 1_000
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let second = Int(seconds - Int64(days) * 86_400)
        let date = LocalDate(daysSinceEpoch: days)
        let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][date.isoWeekday - 1]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][date.month - 1]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(date.day)) \(month) \(date.year) \(two(second / 3_600)):\(two(second % 3_600 / 60)):\(two(second % 60)) +0000"
    }
}
