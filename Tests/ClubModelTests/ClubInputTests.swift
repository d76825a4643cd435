import ClubModel
import Foundation
import XCTest

/// Input checks: every bad input is `invalid` naming its field (or `conflict`), nothing guessed.
final class ClubInputTests: XCTestCase {
    func refused<T>(_ expected: Refusal, file: StaticString = #filePath, line: UInt = #line,
                    _ body: () throws(Refusal) -> T) {
        do {
            let value = try body()
            XCTFail("accepted: \(value)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }

    func testMemberNames() throws {
        XCTAssertEqual(try ClubInput.memberName("  Ana María \n"), "Ana María")
        XCTAssertEqual(try ClubInput.memberName(String(repeating: "é", count: 40)).count, 40)
        refused(.invalid("name", "empty")) { () throws(Refusal) in try ClubInput.memberName("   ") }
        refused(.invalid("name", "too_long")) { () throws(Refusal) in try ClubInput.memberName(String(repeating: "a", count: 41)) }
        refused(.invalid("name", "control")) { () throws(Refusal) in try ClubInput.memberName("Ana\u{0}Bel") }
        refused(.invalid("name", "control")) { () throws(Refusal) in try ClubInput.memberName("Ana\nBel") }
        refused(.invalid("name", "control")) { () throws(Refusal) in try ClubInput.memberName("Ana\u{202E}leB") }
        refused(.invalid("name", "empty")) { () throws(Refusal) in try ClubInput.memberName("\u{200B}\u{34F}") }
        refused(.invalid("name", "too_long")) { () throws(Refusal) in try ClubInput.memberName(String(repeating: " ", count: 10_000)) }
    }

    func testNamesAreUniqueIgnoringCaseAndWidth() throws {
        let members = [Member(id: "1", name: "Ana"), Member(id: "2", name: "Straße")]
        XCTAssertTrue(ClubInput.isNameTaken("ANA", in: members))
        XCTAssertTrue(ClubInput.isNameTaken("ＡＮＡ", in: members))
        XCTAssertTrue(ClubInput.isNameTaken("A\u{200B}na", in: members))
        XCTAssertTrue(ClubInput.isNameTaken("STRASSE", in: members))
        XCTAssertFalse(ClubInput.isNameTaken("Ana", in: members, except: "1"))
        XCTAssertFalse(ClubInput.isNameTaken("Anabel", in: members))
        refused(Refusal(.conflict, ["field": "name"])) { () throws(Refusal) in
            try ClubInput.newMember(id: "3", draft: MemberDraft(name: " ana "), existing: members)
        }
        refused(Refusal(.conflict, ["field": "name"])) { () throws(Refusal) in
            try ClubInput.patchedMember(members[1], draft: MemberDraft(name: "ANA"), existing: members)
        }
        let many = (0..<500).map { Member(id: "\($0)", name: "P\($0)") }
        refused(Refusal(.conflict, ["reason": "too_many_members"])) { () throws(Refusal) in
            try ClubInput.newMember(id: "x", draft: MemberDraft(name: "New"), existing: many)
        }
        let added = try ClubInput.newMember(id: "3", draft: MemberDraft(name: "Bea", email: " bea@example.org ",
                                                                        language: "es"), existing: members)
        XCTAssertEqual(added, Member(id: "3", name: "Bea", email: "bea@example.org", language: "es", active: true))
        let cleared = try ClubInput.patchedMember(added, draft: MemberDraft(email: "", active: false), existing: members)
        XCTAssertEqual(cleared, Member(id: "3", name: "Bea", email: nil, language: "es", active: false))
    }

    func testEmailsLanguagesGuestsIdsAndTimeZones() throws {
        XCTAssertEqual(try ClubInput.email("a.b+c@mail.example.org"), "a.b+c@mail.example.org")
        XCTAssertNil(try ClubInput.email("  "))
        for bad in ["a@b", "@b.org", "a@@b.org", "a b@c.org", "a@b.org\r\nBcc: x@y.org", "<a@b.org>", "a@.org",
                    String(repeating: "a", count: 250) + "@b.org"] {
            refused(.invalid("email")) { () throws(Refusal) in try ClubInput.email(bad) }
        }
        XCTAssertEqual(try ClubInput.language("pt"), "pt")
        refused(.invalid("language")) { () throws(Refusal) in try ClubInput.language("nl") }
        XCTAssertEqual(try ClubInput.guests(3), 3)
        refused(.invalid("guests")) { () throws(Refusal) in try ClubInput.guests(4) }
        refused(.invalid("guests")) { () throws(Refusal) in try ClubInput.guests(-1) }
        XCTAssertEqual(try ClubInput.clientId("a-Z_09"), "a-Z_09")
        XCTAssertEqual(try ClubInput.clientId(String(repeating: "x", count: 64)).count, 64)
        for bad in ["", String(repeating: "x", count: 65), "a b", "a.b", "é", "a/b"] {
            refused(.invalid("id")) { () throws(Refusal) in try ClubInput.clientId(bad) }
        }
        XCTAssertEqual(try ClubInput.timeZone("Europe/Madrid").identifier, "Europe/Madrid")
        XCTAssertEqual(try ClubInput.timeZone("America/Sao_Paulo").identifier, "America/Sao_Paulo")
        for bad in ["Mars/Olympus", "CET", "GMT+1", "", "../../etc/passwd", "Europe/Madrid\n"] {
            refused(.invalid("timeZone")) { () throws(Refusal) in try ClubInput.timeZone(bad) }
        }
        XCTAssertEqual(try ClubInput.clubName("  Riverside FC "), "Riverside FC")
        refused(.invalid("name", "empty")) { () throws(Refusal) in try ClubInput.clubName("") }
        XCTAssertEqual(try ClubInput.answerChoice("in"), .in)
        refused(.invalid("answer")) { () throws(Refusal) in try ClubInput.answerChoice("maybe") }
    }

    func testFixturesTakeTheContractsDefaultsAndRanges() throws {
        let draft = FixtureDraft(title: " 7-a-side ", weekday: 7, time: "10:00", durationMinutes: 90,
                                 place: "Riverside", capacity: 14)
        let fixture = try ClubInput.newFixture(id: "F1", draft: draft)
        XCTAssertEqual(fixture, Fixture(id: "F1", title: "7-a-side", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                                        durationMinutes: 90, place: "Riverside", capacity: 14, opensHoursBefore: 144,
                                        closesMinutesBefore: 60, claimHours: 12, lastMinuteHours: 3,
                                        reminderHoursBefore: [48, 4], active: true))
        let cases: [(FixtureDraft, String)] = [
            (FixtureDraft(weekday: 0), "weekday"), (FixtureDraft(weekday: 8), "weekday"),
            (FixtureDraft(time: "24:00"), "time"), (FixtureDraft(time: "9:00"), "time"),
            (FixtureDraft(durationMinutes: 9), "durationMinutes"), (FixtureDraft(durationMinutes: 241), "durationMinutes"),
            (FixtureDraft(capacity: 1), "capacity"), (FixtureDraft(capacity: 61), "capacity"),
            (FixtureDraft(opensHoursBefore: 0), "opensHoursBefore"), (FixtureDraft(opensHoursBefore: 337), "opensHoursBefore"),
            (FixtureDraft(closesMinutesBefore: -1), "closesMinutesBefore"),
            (FixtureDraft(closesMinutesBefore: 1_441), "closesMinutesBefore"),
            (FixtureDraft(claimHours: 0), "claimHours"), (FixtureDraft(claimHours: 73), "claimHours"),
            (FixtureDraft(lastMinuteHours: -1), "lastMinuteHours"), (FixtureDraft(lastMinuteHours: 49), "lastMinuteHours"),
            (FixtureDraft(reminderHoursBefore: [1, 2, 3, 4]), "reminderHoursBefore"),
            (FixtureDraft(reminderHoursBefore: [0]), "reminderHoursBefore"),
            (FixtureDraft(reminderHoursBefore: [5, 5]), "reminderHoursBefore"),
        ]
        for (patch, field) in cases {
            do {
                _ = try ClubInput.patchedFixture(fixture, draft: patch)
                XCTFail("accepted \(patch)")
            } catch {
                XCTAssertEqual(error.code, .invalid, "\(patch)")
                XCTAssertEqual(error.params["field"], field, "\(patch)")
            }
        }
        refused(.invalid("title", "empty")) { () throws(Refusal) in try ClubInput.patchedFixture(fixture, draft: FixtureDraft(title: " ")) }
        refused(.invalid("place", "too_long")) { () throws(Refusal) in
            try ClubInput.patchedFixture(fixture, draft: FixtureDraft(place: String(repeating: "p", count: 81)))
        }
        // Opening must come before closing: 1 h before vs 60 min before is the same instant.
        refused(.invalid("opensHoursBefore", "not_before_closing")) { () throws(Refusal) in
            try ClubInput.patchedFixture(fixture, draft: FixtureDraft(opensHoursBefore: 1, closesMinutesBefore: 60))
        }
        XCTAssertNoThrow(try ClubInput.patchedFixture(fixture, draft: FixtureDraft(opensHoursBefore: 1, closesMinutesBefore: 59)))
        refused(.invalid("capacity", "missing")) { () throws(Refusal) in
            try ClubInput.newFixture(id: "F2", draft: FixtureDraft(title: "x", weekday: 1, time: "10:00", durationMinutes: 60))
        }
    }

    func testBodiesAreDecodedWithTheBadFieldNamed() throws {
        let body = Data(#"{"id":"c1","title":"Sunday","weekday":7,"time":"10:00","durationMinutes":90,"capacity":14,"x":[1]}"#.utf8)
        let draft = try ClubInput.decode(FixtureDraft.self, from: body)
        XCTAssertEqual(draft.title, "Sunday")
        XCTAssertEqual(try ClubInput.decode(ChangeIdDraft.self, from: body).id, "c1")
        refused(.invalid("capacity")) { () throws(Refusal) in
            try ClubInput.decode(FixtureDraft.self, from: Data(#"{"capacity":"14"}"#.utf8))
        }
        refused(.invalid("reminderHoursBefore")) { () throws(Refusal) in
            try ClubInput.decode(FixtureDraft.self, from: Data(#"{"reminderHoursBefore":[1,"x"]}"#.utf8))
        }
        refused(.invalid("answer", "missing")) { () throws(Refusal) in
            try ClubInput.decode(AnswerDraft.self, from: Data(#"{"guests":1}"#.utf8))
        }
        refused(.invalid("body")) { () throws(Refusal) in try ClubInput.decode(AnswerDraft.self, from: Data("[1]".utf8)) }
        refused(.invalid("body")) { () throws(Refusal) in try ClubInput.decode(AnswerDraft.self, from: Data("{".utf8)) }
        refused(.invalid("body", "too_large")) { () throws(Refusal) in
            try ClubInput.decode(AnswerDraft.self, from: Data(repeating: 0x20, count: ClubInput.maxBodyBytes + 1))
        }
    }
}
