import ClubModel
import XCTest

/// Six catalogues, the language picked from `Accept-Language`, and the group-chat text.
final class ClubMessagesTests: XCTestCase {
    func testTheLanguageFollowsAcceptLanguage() {
        XCTAssertEqual(Language.pick(acceptLanguage: nil), .en)
        XCTAssertEqual(Language.pick(acceptLanguage: ""), .en)
        XCTAssertEqual(Language.pick(acceptLanguage: "es-ES,es;q=0.9,en;q=0.8"), .es)
        XCTAssertEqual(Language.pick(acceptLanguage: "nl-NL, de;q=0.7, fr;q=0.8"), .fr)
        XCTAssertEqual(Language.pick(acceptLanguage: "pt-BR"), .pt)
        XCTAssertEqual(Language.pick(acceptLanguage: "IT"), .it)
        XCTAssertEqual(Language.pick(acceptLanguage: "de;q=0, es;q=0.1"), .es)
        XCTAssertEqual(Language.pick(acceptLanguage: "nl, ja"), .en)
        XCTAssertEqual(Language.pick(acceptLanguage: "fr;q=abc, de;q=0.5"), .de)
        XCTAssertEqual(Language.pick(acceptLanguage: "fr;q=2, it"), .it)
        XCTAssertEqual(Language.pick(acceptLanguage: "de, fr"), .de)  // equal q: the header's order
        XCTAssertEqual(Language.pick(acceptLanguage: "*"), .en)
        XCTAssertEqual(Language.pick(acceptLanguage: String(repeating: "nl,", count: 1_000) + "es"), .en)
    }

    func testEveryCodeHasAMessageInEveryLanguageWithItsParams() {
        for language in Language.allCases {
            var seen = Set<String>()
            for code in RefusalCode.allCases {
                let plain = ClubMessages.refusal(Refusal(code), in: language)
                XCTAssertFalse(plain.isEmpty || plain.contains("{"), "\(language) \(code): \(plain)")
                XCTAssertTrue(seen.insert(plain).inserted, "\(language) \(code) repeats another code's message")
            }
            let invalid = ClubMessages.refusal(.invalid("capacity"), in: language)
            XCTAssertTrue(invalid.contains("capacity"), invalid)
            let guests = ClubMessages.refusal(Refusal(.noRoomForGuests, ["capacity": "14"]), in: language)
            XCTAssertTrue(guests.contains("14"), guests)
        }
        XCTAssertEqual(ClubMessages.refusal(Refusal(.closed), in: .es), "Las respuestas para esta fecha están cerradas.")
        XCTAssertEqual(ClubMessages.refusal(.invalid("guests"), in: .en), "This is not valid: guests.")
    }

    func testTheGroupChatMessageInTheClubsTimeAndLanguage() {
        let madrid = zone("Europe/Madrid")
        let start = utc("2026-12-06T09:00:00Z")  // Sunday 10:00 in Madrid
        func chat(_ language: Language, place: String = "Riverside", club: ClubTime? = nil) -> String {
            ClubMessages.groupChat(title: "7-a-side", place: place, startsAt: start, confirmedSeats: 9, capacity: 14,
                                   waiting: 2, link: "https://club.example.org/club/", club: club ?? madrid,
                                   language: language)
        }
        XCTAssertEqual(chat(.en), "Sunday 7-a-side, 10:00 at Riverside: 9 of 14 in, 2 waiting. Answer here: https://club.example.org/club/")
        XCTAssertEqual(chat(.es), "Domingo 7-a-side, 10:00 en Riverside: 9 de 14 apuntados, 2 en espera. Responde aquí: https://club.example.org/club/")
        XCTAssertEqual(chat(.fr), "Dimanche 7-a-side, 10:00 à Riverside : 9 sur 14 inscrits, 2 en attente. Répondez ici : https://club.example.org/club/")
        XCTAssertEqual(chat(.de), "Sonntag 7-a-side, 10:00 in Riverside: 9 von 14 dabei, 2 auf der Warteliste. Hier antworten: https://club.example.org/club/")
        XCTAssertEqual(chat(.it), "Domenica 7-a-side, 10:00 a Riverside: 9 su 14 presenti, 2 in attesa. Rispondi qui: https://club.example.org/club/")
        XCTAssertEqual(chat(.pt), "Domingo 7-a-side, 10:00 em Riverside: 9 de 14 confirmados, 2 em espera. Responda aqui: https://club.example.org/club/")
        XCTAssertEqual(chat(.en, place: ""), "Sunday 7-a-side, 10:00: 9 of 14 in, 2 waiting. Answer here: https://club.example.org/club/")
        // The same instant in Tokyo is Sunday 18:00; in Honolulu Saturday 23:00.
        XCTAssertTrue(chat(.en, club: zone("Asia/Tokyo")).hasPrefix("Sunday 7-a-side, 18:00 at"))
        XCTAssertTrue(chat(.en, club: zone("Pacific/Honolulu")).hasPrefix("Saturday 7-a-side, 23:00 at"))
        // A title holding a placeholder stays as written.
        let odd = ClubMessages.groupChat(title: "{link}", place: "{place}", startsAt: start, confirmedSeats: 0,
                                         capacity: 2, waiting: 0, link: "L", club: madrid, language: .en)
        XCTAssertEqual(odd, "Sunday {link}, 10:00 at {place}: 0 of 2 in, 0 waiting. Answer here: L")
    }

    func testStatusesFollowPrecisionOne() {
        XCTAssertEqual(RefusalCode.allCases.map(\.httpStatus), [400, 401, 403, 404, 409, 409, 409, 409, 409, 409, 429])
        XCTAssertEqual(RefusalCode.allCases.map(\.rawValue), ["invalid", "unauthorized", "forbidden", "not_found", "conflict",
                                                             "closed", "not_open_yet", "full", "no_room_for_guests",
                                                             "no_offer", "rate_limited"])
    }
}
