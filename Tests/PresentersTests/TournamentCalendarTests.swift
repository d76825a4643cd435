import Foundation
import GatherModel
import GatherPresenters
import XCTest

/// `/api/tournament.ics`: RFC 5545 as a phone's calendar reads it — CRLF, lines folded at 75
/// octets between UTF-8 sequences, TEXT escaped, a stable `UID`, `SEQUENCE` up when a match
/// moves — and the same feed read by a real parser (Python's `icalendar`).
final class TournamentCalendarTests: XCTestCase {
    private let now: Int64 = 1_789_990_000_000

    private func lines(_ ics: String) -> [String] {
        // Split on CRLF only (a bare LF would be a bug the assertions below must see).
        var lines = ics.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.removeLast(), "", "the feed ends with CRLF")
        return lines
    }

    /// Lines unfolded as RFC 5545 3.1 says: CRLF followed by one space is removed.
    private func unfolded(_ ics: String) -> [String] {
        lines(ics.replacingOccurrences(of: "\r\n ", with: ""))
    }

    private func events(_ ics: String) -> [[String: String]] {
        var events: [[String: String]] = []
        for line in unfolded(ics) {
            if line == "BEGIN:VEVENT" { events.append([:]); continue }
            guard !events.isEmpty, line != "END:VEVENT", let colon = line.firstIndex(of: ":") else { continue }
            events[events.count - 1][String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return events
    }

    func testNoTournamentIsAnEmptyCalendar() {
        XCTAssertEqual(TournamentCalendar.ics(nil, pitchNames: [:], now: now),
                       "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Football Gather Live//Tournament//EN\r\n"
                       + "CALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\nEND:VCALENDAR\r\n")
    }

    func testOneEventPerMatchWithItsTimeLengthPlaceAndSummary() throws {
        var tournament = TournamentSample.eightTeams()
        try TournamentSample.play(&tournament, 1, 2, 1)
        let ics = TournamentCalendar.ics(tournament, pitchNames: [1: "Main pitch", 2: "Back pitch"], now: now)
        let all = events(ics)
        XCTAssertEqual(all.count, 16)
        XCTAssertEqual(all[0], [
            "UID": "cup-1-match-1@football-gather.local", "DTSTAMP": "20260921T112640Z", "SEQUENCE": "0",
            "DTSTART": "20260921T141320Z", "DURATION": "PT10M", "SUMMARY": "Reds v Pinks (Group A)",
            "LOCATION": "Main pitch", "DESCRIPTION": "Match 1 of Riverside Cup. Full time: Reds 2–1 Pinks.",
        ])
        XCTAssertEqual(all[12]["SUMMARY"], "Semi-final: A1 v B2")
        XCTAssertEqual(all[14]["SUMMARY"], "Third place: L13 v L14")
        XCTAssertEqual(all[15]["SUMMARY"], "Final: W13 v W14")
        XCTAssertEqual(all[1]["LOCATION"], "Back pitch")
        XCTAssertEqual(all[1]["DESCRIPTION"], "Match 2 of Riverside Cup.")
        XCTAssertTrue(unfolded(ics).contains("METHOD:PUBLISH"))
        XCTAssertTrue(unfolded(ics).contains("X-WR-CALNAME:Riverside Cup"))
    }

    func testTheUIDStaysAndTheSequenceGoesUpWhenAMatchMovesOrGetsItsTeams() throws {
        var tournament = TournamentSample.eightTeams()
        try tournament.startMatch(2, at: TournamentSample.start)  // pitch 2 on time
        let before = events(TournamentCalendar.ics(tournament, pitchNames: [:], now: now))
        try tournament.startMatch(1, at: TournamentSample.start + 7 * TournamentSample.minute)  // 7 minutes late
        let after = events(TournamentCalendar.ics(tournament, pitchNames: [:], now: now))
        XCTAssertEqual(after.map { $0["UID"] }, before.map { $0["UID"] })
        let pitchOne = tournament.matches.filter { $0.pitch == 1 }.map { $0.id - 1 }
        for index in pitchOne.prefix(6) {
            XCTAssertEqual(after[index]["SEQUENCE"], "1", "match \(index + 1) moved")
            XCTAssertNotEqual(after[index]["DTSTART"], before[index]["DTSTART"])
        }
        XCTAssertEqual(after[1]["SEQUENCE"], "0", "pitch 2 is on time")
        // The semi-final's teams become known: its SEQUENCE goes up again.
        for match in tournament.matches where match.stage == .group && match.status != .finished {
            if match.status == .scheduled { try tournament.startMatch(match.id, at: match.expectedAt) }
            try tournament.finishMatch(match.id, score: HomeAway(home: 1, away: 0), penalties: nil,
                                       endedAt: tournament.match(match.id)!.expectedAt + 10 * TournamentSample.minute,
                                       historyID: "h\(match.id)")
        }
        let known = events(TournamentCalendar.ics(tournament, pitchNames: [:], now: now))
        XCTAssertEqual(known[12]["SUMMARY"], "Semi-final: Reds v Whites")
        XCTAssertEqual(Int(known[12]["SEQUENCE"]!)!, Int(after[12]["SEQUENCE"]!)! + 1)
    }

    func testAFollowedTeamsFeedHasOnlyTheMatchesItIsKnownToPlay() throws {
        var tournament = TournamentSample.eightTeams()
        let reds = events(TournamentCalendar.ics(tournament, team: 1, pitchNames: [:], now: now))
        XCTAssertEqual(reds.count, 3, "its three group matches; the knockout once it is known to play there")
        XCTAssertTrue(reds.allSatisfy { $0["SUMMARY"]!.contains("Reds") })
        for match in tournament.matches where match.stage == .group { try TournamentSample.play(&tournament, match.id, 1, 0) }
        let through = events(TournamentCalendar.ics(tournament, team: 1, pitchNames: [:], now: now))
        XCTAssertEqual(through.map { $0["SUMMARY"] }.last, "Semi-final: Reds v Whites")
        XCTAssertTrue(unfolded(TournamentCalendar.ics(tournament, team: 1, pitchNames: [:], now: now))
            .contains("X-WR-CALNAME:Riverside Cup – Reds"))
    }

    func testTextIsEscapedAndLongLinesFoldedAtSeventyFiveOctetsBetweenCharacters() {
        let long = "Ünïcödé Wanderers of the Ŕíver Ꮪide and Ðistrict ⚽️"
        let tournament = TournamentSample.eightTeams(names: ["Smith, Jones; \\ Co", String(long.prefix(30)), "Greens", "Whites",
                                                             "Blacks", "Golds", "Pinks", "日本語のチーム名はとても長い"])
        let pitchName = "Pitch with a name that is long enough, and then some; 日本語 — to be folded twice over the limit"
        let ics = TournamentCalendar.ics(tournament, pitchNames: [1: pitchName, 2: pitchName], now: now)
        let raw = lines(ics)
        XCTAssertFalse(ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare LF")
        for line in raw {
            XCTAssertLessThanOrEqual(line.utf8.count, 75, line)
            XCTAssertNotNil(String(validatingUTF8: line), "each physical line is whole UTF-8")
        }
        XCTAssertTrue(raw.contains { $0.hasPrefix(" ") }, "something was folded")
        let all = events(ics)
        XCTAssertEqual(all[0]["SUMMARY"], "Smith\\, Jones\\; \\\\ Co v Pinks (Group A)")
        XCTAssertEqual(all[0]["LOCATION"], ICalendarText.escaped(pitchName))
        XCTAssertEqual(ICalendarText.escaped("two\nlines\r\nand\\"), "two\\nlines\\nand\\\\")
        XCTAssertEqual(all[1]["SUMMARY"], "\(long.prefix(30)) v 日本語のチーム名はとても長い (Group B)")
    }

    func testFoldingByHand() {
        let line = String(repeating: "a", count: 74) + "é" + "b"
        XCTAssertEqual(ICalendarText.folded(line), String(repeating: "a", count: 74) + "\r\n é" + "b\r\n",
                       "é (two octets) does not fit in the 75th octet, so it starts the next line")
        XCTAssertEqual(ICalendarText.folded(String(repeating: "x", count: 75)), String(repeating: "x", count: 75) + "\r\n")
        XCTAssertEqual(ICalendarText.folded(String(repeating: "x", count: 150)),
                       String(repeating: "x", count: 75) + "\r\n " + String(repeating: "x", count: 74) + "\r\n x\r\n")
    }

    /// The feed read by a real RFC 5545 parser: Python's `icalendar` (installed by `make deps-python`).
    func testARealParserReadsTheFeedAsWeMeantIt() throws {
        var tournament = TournamentSample.eightTeams(names: ["Smith, Jones; \\ Co", "Blues", "Greens", "Whites", "Blacks",
                                                             "Golds", "Pinks", "日本語のチーム名はとても長い名前です"])
        try TournamentSample.play(&tournament, 1, 3, 2)
        try tournament.startMatch(3, at: TournamentSample.start + 27 * TournamentSample.minute)
        let ics = TournamentCalendar.ics(tournament, pitchNames: [1: "Main pitch, by the river; north end — 日本語のピッチ", 2: "Back"],
                                         now: now)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tournament.ics")
        try Data(ics.utf8).write(to: file)
        let script = """
            import icalendar, json, sys
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            print(json.dumps({
                "method": str(calendar["METHOD"]),
                "events": [{"uid": str(e["UID"]), "sequence": int(e["SEQUENCE"]), "start": e["DTSTART"].dt.isoformat(),
                            "seconds": int(e["DURATION"].dt.total_seconds()), "summary": str(e["SUMMARY"]),
                            "location": str(e["LOCATION"]), "description": str(e["DESCRIPTION"])}
                           for e in calendar.walk("VEVENT")]}))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 with icalendar (make deps-python): \(failure)")
        let parsed = try JSONValue.parse(Array(data)).get()
        XCTAssertEqual(parsed["method"], "PUBLISH")
        guard case .array(let events)? = parsed["events"] else { return XCTFail("no events: \(failure)") }
        XCTAssertEqual(events.count, 16)
        XCTAssertEqual(events[0], [
            "uid": "cup-1-match-1@football-gather.local", "sequence": 0, "start": "2026-09-21T14:13:20+00:00", "seconds": 600,
            "summary": "Smith, Jones; \\ Co v Pinks (Group A)",
            "location": "Main pitch, by the river; north end — 日本語のピッチ",
            "description": "Match 1 of Riverside Cup. Full time: Smith, Jones; \\ Co 3–2 Pinks.",
        ])
        XCTAssertEqual(events[2]["sequence"], 1, "started 12 minutes after its planned time")
        XCTAssertEqual(events[2]["start"], "2026-09-21T14:40:20+00:00")
        XCTAssertEqual(events[1]["summary"], "Blues v 日本語のチーム名はとても長い名前です (Group B)")
        XCTAssertEqual(events[12]["summary"], "Semi-final: A1 v B2")
    }
}
