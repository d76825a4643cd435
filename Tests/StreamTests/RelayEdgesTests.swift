import GatherModel
import GatherPresenters
import XCTest

@testable import GatherStream

/// The small pure edges: venue names, the relays' watcher reports, the relay's refusals.
final class RelayEdgesTests: XCTestCase {
    func testVenueNames() {
        XCTAssertEqual(VenueName("riverside-2")?.stateSubject, "gather.riverside-2.state")
        XCTAssertEqual(VenueName("riverside")?.streamName, "GATHER_riverside")
        for bad in ["", "Riverside", "a.b", "a*", "a>", "a b", String(repeating: "a", count: 33), "é"] {
            XCTAssertNil(VenueName(bad), bad)
        }
        XCTAssertEqual(VenueName.fromHostName("Club-Laptop.local")?.rawValue, "club-laptop")
        XCTAssertNil(VenueName.fromHostName("..."))
    }

    func testWatchersAreSummedOverRelaysHeardInTheLastFifteenSeconds() {
        var tally = WatcherTally()
        XCTAssertTrue(tally.record(Array("{\"relay\":\"a\",\"spectators\":200}".utf8), now: 0))
        XCTAssertTrue(tally.record(Array("{\"relay\":\"b\",\"spectators\":90}".utf8), now: 5_000))
        XCTAssertFalse(tally.record(Array("{\"relay\":\"b\",\"spectators\":90}".utf8), now: 6_000))
        XCTAssertEqual(tally.total, 290)
        XCTAssertFalse(tally.record(Array("{\"relay\":\"c\",\"spectators\":-1}".utf8), now: 6_000))
        XCTAssertFalse(tally.record(Array("junk".utf8), now: 6_000))
        XCTAssertFalse(tally.expire(now: 15_000))
        XCTAssertTrue(tally.expire(now: 15_001))
        XCTAssertEqual(tally.total, 90)
    }

    func testARelayRefusesLoginsAndCommandsAndSaysWhere() throws {
        func reply(_ text: String) throws -> JSONValue {
            try JSONValue.parse(XCTUnwrap(RelayReplies.reply(to: text, version: 7))).get()
        }
        let login = try reply("{\"type\":\"login\",\"id\":\"r1\",\"username\":\"a\",\"password\":\"b\"}")
        XCTAssertEqual(login["code"], "tls_required")
        XCTAssertEqual(login["id"], "r1")
        XCTAssertEqual(login["message"]?.stringValue, RelayReplies.readOnly)
        let command = try reply("{\"type\":\"command\",\"id\":\"c1\",\"action\":{\"kind\":\"score\"}}")
        XCTAssertEqual(command, ["type": "rejected", "id": "c1", "code": "forbidden",
                                 "message": .string(RelayReplies.readOnly), "version": 7,
                                 "reason": "relay_read_only", "params": [:]])
        XCTAssertEqual(try reply("nope")["code"], "bad_json")
    }

    func testLinkMessages() throws {
        XCTAssertEqual(try JSONValue.parse(RelayReplies.link(live: false, sinceMs: 1_700_000_000_123)).get(),
                       ["type": "link", "live": false, "since": "2023-11-14T22:13:20.123Z", "reason": "link_lost"])
        XCTAssertEqual(try JSONValue.parse(RelayReplies.link(live: true, sinceMs: nil)).get(), ["type": "link", "live": true,
                                                                                               "reason": "link_restored"])
    }

    func testARelaysWelcomeCarriesTheEpochItHoldsAndNoneBeforeIt() throws {
        let before = try JSONValue.parse(RelayReplies.welcome(serverTime: 5)).get()
        XCTAssertNil(before["epoch"])
        XCTAssertNil(before["epochStartedAt"])
        let epoch = try XCTUnwrap(StreamEpoch(id: "abcdEFGH-_12", startedAt: 1_700_000_000_000))
        let after = try JSONValue.parse(RelayReplies.welcome(serverTime: 5, epoch: epoch)).get()
        XCTAssertEqual(after, ["type": "welcome", "role": "spectator", "protocol": "gather.v2", "relay": true, "serverTime": 5,
                               "epoch": "abcdEFGH-_12", "epochStartedAt": 1_700_000_000_000])
    }

    func testAnEpochIsEightToSixtyFourOfItsAlphabetAndALaterStartWins() {
        XCTAssertNil(StreamEpoch(id: "short", startedAt: 1))
        XCTAssertNil(StreamEpoch(id: String(repeating: "a", count: 65), startedAt: 1))
        XCTAssertNil(StreamEpoch(id: "has space", startedAt: 1))
        XCTAssertNil(StreamEpoch(id: "dots.are.out", startedAt: 1))
        XCTAssertNotNil(StreamEpoch(id: String(repeating: "Z", count: 64), startedAt: 1))
        let first = StreamEpoch(id: "first-epoch", startedAt: 1_000)!
        let later = StreamEpoch(id: "later-epoch", startedAt: 2_000)!
        XCTAssertTrue(first.admits(later))
        XCTAssertFalse(later.admits(first))
        XCTAssertTrue(later.admits(later))
    }
}
