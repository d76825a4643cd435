import ClubModel
import Foundation
import XCTest

/// A mail as written: the contract's headers, names encoded, nothing splitting a header, the
/// body in the member's language with their link and the one-tap answers.
final class MailTextTests: XCTestCase {
    func content(kind: MailKind = .reminder, name: String = "Çelik", language: Language = .fr,
                 title: String = "Sunday 7-a-side") -> MailContent {
        MailContent(key: MailKey(memberId: "m7", dateId: "d3", kind: kind, slot: kind == .reminder ? 48 : 1),
                    memberName: name, memberAddress: "celik@example.org", clubName: "Riverside FC",
                    fromAddress: "club@example.org", host: "club.example.org", language: language, title: title,
                    place: "Riverside", startsAt: utc("2026-12-06T09:00:00Z"), confirmedSeats: 9, capacity: 14, waiting: 2,
                    offerExpiresAt: utc("2026-12-05T17:00:00Z"), memberLink: "https://club.example.org/club/m/TOKEN",
                    club: zone("Europe/Madrid"), sentAt: utc("2026-12-04T09:00:30Z"))
    }

    func parts(_ message: MailMessage) -> (headers: [String], body: String) {
        let split = message.data.components(separatedBy: "\r\n\r\n")
        let body = String(decoding: Data(base64Encoded: split[1].replacingOccurrences(of: "\r\n", with: ""))!, as: UTF8.self)
        return (split[0].components(separatedBy: "\r\n"), body)
    }

    func testTheContractsHeadersAndAnEncodedName() {
        let message = MailText.compose(content())
        let (headers, body) = parts(message)
        XCTAssertEqual(message.messageId, "<reminder.48.d3.m7@club.example.org>")
        XCTAssertTrue(headers.contains("Message-ID: <reminder.48.d3.m7@club.example.org>"))
        XCTAssertTrue(headers.contains("X-Gather-Kind: reminder"))
        XCTAssertTrue(headers.contains("X-Gather-Date: d3"))
        XCTAssertTrue(headers.contains("X-Gather-Member: m7"))
        XCTAssertTrue(headers.contains("Date: Fri, 04 Dec 2026 09:00:30 +0000"))
        XCTAssertTrue(headers.contains("To: =?UTF-8?B?w4dlbGlr?= <celik@example.org>"), "\(headers)")
        XCTAssertTrue(headers.contains("From: Riverside FC <club@example.org>"))
        XCTAssertTrue(headers.allSatisfy { $0.utf8.allSatisfy { $0 < 128 } }, "headers are ASCII")
        XCTAssertTrue(body.hasPrefix("Bonjour Çelik,"), body)
        XCTAssertTrue(body.contains("Dimanche 2026-12-06, Sunday 7-a-side, 10:00 à Riverside"), body)
        XCTAssertTrue(body.contains("Je viens : https://club.example.org/club/m/TOKEN?date=d3&answer=in"), body)
        XCTAssertTrue(body.contains("https://club.example.org/club/m/TOKEN?date=d3&answer=out"), body)
        XCTAssertTrue(body.contains("9 sur 14 inscrits, 2 en attente"), body)
    }

    func testACarriageReturnOrLineFeedNeverReachesAHeader() {
        let message = MailText.compose(content(kind: .offer, name: "Eve\r\nBcc: x@evil.example", language: .en,
                                               title: "Match\r\nX-Injected: 1"))
        let (headers, body) = parts(message)
        XCTAssertFalse(headers.contains { $0.hasPrefix("Bcc:") || $0.hasPrefix("X-Injected:") }, "\(headers)")
        // Folded encoded words continue with a space; no other line starts a header of its own.
        let names = headers.filter { !$0.hasPrefix(" ") }.map { $0.split(separator: ":")[0] }
        XCTAssertEqual(names, ["Date", "From", "To", "Subject", "Message-ID", "X-Gather-Kind", "X-Gather-Date",
                               "X-Gather-Member", "Content-Language", "MIME-Version", "Content-Type",
                               "Content-Transfer-Encoding"])
        XCTAssertTrue(body.contains("It is yours until Saturday 18:00"), body)
    }

    func testEncodedWordsStayShortAndNeverSplitACharacter() {
        let long = String(repeating: "Ñandú ", count: 20)
        let encoded = MailText.encodedPhrase(long, always: false)
        let words = encoded.components(separatedBy: "\r\n ")
        XCTAssertGreaterThan(words.count, 1)
        var decoded = ""
        for word in words {
            XCTAssertLessThanOrEqual(word.count, 75)
            XCTAssertTrue(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = String(word.dropFirst(10).dropLast(2))
            let text = String(data: Data(base64Encoded: payload)!, encoding: .utf8)
            XCTAssertNotNil(text, "each word is whole UTF-8")
            decoded += text ?? ""
        }
        XCTAssertEqual(decoded, long)
        XCTAssertEqual(MailText.encodedPhrase("Ana", always: false), "Ana")
    }

    func testEveryKindReadsInEveryLanguage() {
        for language in Language.allCases {
            for kind in MailKind.allCases {
                let (headers, body) = parts(MailText.compose(content(kind: kind, language: language)))
                XCTAssertTrue(headers.contains { $0.hasPrefix("Subject: ") }, "\(language) \(kind)")
                XCTAssertFalse(body.contains("{"), "\(language) \(kind): \(body)")
                XCTAssertTrue(body.contains("https://club.example.org/club/m/TOKEN"), "\(language) \(kind)")
            }
        }
    }
}
