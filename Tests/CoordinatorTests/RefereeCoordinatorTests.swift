import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// Referee links through the Coordinator (docs/PROTOCOL.md §20): made and revoked by organisers, a
/// phone signed in on one pitch scoring under the link's label, refused everything else, ended at
/// once on revoke, expiry or its pitch's removal, counted like a login when its code is wrong.
final class RefereeCoordinatorTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!
    private var bob: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        bob = harness.organiser(2, "bob")
        harness.clock.advance(byMs: 1000)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: ["ann", "bob"], spectators: 0)])
        // Pitch 2, "Back pitch", with a live gather: player 1 on Team A, player 2 on Team B.
        harness.prepare(ann, id: "p1", ["kind": "addPlayer", "name": "Ann"])
        harness.prepare(ann, id: "p2", ["kind": "addPlayer", "name": "Ben"])
        harness.prepare(ann, id: "pitch", ["kind": "addPitch", "name": "Back pitch"])
        for (id, action) in [("g", ["kind": "createGather", "playerIds": [1, 2], "pitch": 2] as JSONValue),
                             ("a", ["kind": "assign", "playerId": 1, "to": "A", "pitch": 2]),
                             ("b", ["kind": "assign", "playerId": 2, "to": "B", "pitch": 2]),
                             ("k", ["kind": "startGather", "pitch": 2])] {
            harness.prepare(ann, id: id, action)
        }
    }

    // MARK: - Helpers

    /// Makes a link as `ann`; returns its id, its code, and every effect.
    @discardableResult
    private func link(pitch: Int = 2, label: String? = nil, hours: Int? = nil, id: String = "link",
                      file: StaticString = #filePath, line: UInt = #line) -> (id: Int, code: String, effects: [Effect]) {
        var action: [String: JSONValue] = ["kind": "createRefereeLink", "pitch": .int(pitch)]
        if let label { action["label"] = .string(label) }
        if let hours { action["hours"] = .int(hours) }
        let effects = harness.message(ann, ["type": "command", "id": .string(id), "action": .object(action)],
                                      exhaustivity: .off, file: file, line: line)
        guard case .send(ann, .ackWithResult(id, harness.version, let result))? = effects.first,
              let linkID = result["id"]?.intValue, let url = result["url"]?.stringValue,
              url.hasPrefix("/organiser.html#referee=")
        else {
            XCTFail("no link made: \(effects)", file: file, line: line)
            return (0, "", effects)
        }
        return (linkID, String(url.dropFirst("/organiser.html#referee=".count)), effects)
    }

    /// A new connection signed in on `code`; returns it, its token, and every effect.
    private func phone(_ number: UInt64, code: String, address: String = "10.0.0.9",
                       file: StaticString = #filePath, line: UInt = #line) -> (ConnectionID, String, [Effect]) {
        let client = harness.connect(number, address: address)
        let effects = harness.message(client, ["type": "referee", "id": "hello", "code": .string(code)],
                                      exhaustivity: .off, file: file, line: line)
        guard case .send(client, .refereeSession(let grant))? = effects.first else {
            XCTFail("not signed in: \(effects)", file: file, line: line)
            return (client, "", effects)
        }
        return (client, grant.token, effects)
    }

    private func referees(_ effects: [Effect], to client: ConnectionID) -> [(links: [RefereeLink], connected: [Int])] {
        effects.compactMap { if case .send(client, .referees(let links, let connected)) = $0 { (links, connected) } else { nil } }
    }

    /// A command's effects, without the presence line it may also publish (phones came and went).
    private func command(_ client: ConnectionID, _ id: String, _ action: JSONValue) -> [Effect] {
        withoutPresence(harness.message(client, ["type": "command", "id": .string(id), "base": .int(harness.version),
                                                 "action": action], exhaustivity: .off))
    }

    private func withoutPresence(_ effects: [Effect]) -> [Effect] {
        effects.filter {
            switch $0 {
            case .publishPresence, .schedulePresence: false
            default: true
            }
        }
    }

    // MARK: - Links

    func testOnlyAnOrganiserMakesALinkAndOnlyOrganisersHearOfIt() throws {
        let spectator = harness.connect(9)
        harness.message(spectator, ["type": "command", "id": "s", "action": ["kind": "createRefereeLink", "pitch": 2]],
                        expect: [.send(spectator, .rejected(id: "s", rejection: Rejection(
                            .forbidden, .logInFirst, "Only organisers can change the gather; log in first."),
                                                            version: harness.version))])
        let version = harness.version
        let made = link()
        XCTAssertEqual(harness.version, version, "a link is not a gather change")
        let expected = RefereeLink(id: made.id, pitch: 2, label: "Back pitch referee",
                                   expiresAt: harness.clock.now + 12 * 3_600_000, createdAt: harness.clock.now, createdBy: "ann")
        XCTAssertEqual(Array(made.effects.dropFirst()), [
            .send(ann, .referees(links: [expected], connected: [])),
            .send(bob, .referees(links: [expected], connected: [])),
            .scheduleRefereeExpiry(at: expected.expiresAt),
        ])
        XCTAssertEqual(made.code.count, 22)
        let kept = try harness.store.refereeLinks()
        XCTAssertEqual(kept.map(\.link), [expected])
        XCTAssertEqual(kept.first?.codeHash, "hashed:" + made.code, "only the code's hash is kept")

        // A resent id is the same link, with its address again; nothing new is made.
        let again = harness.message(ann, ["type": "command", "id": "link", "action": ["kind": "createRefereeLink", "pitch": 2]],
                                    exhaustivity: .off)
        XCTAssertEqual(again, [.send(ann, .ackWithResult(id: "link", version: version, result: [
            "id": .int(made.id), "url": .string("/organiser.html#referee=" + made.code)]))])
        XCTAssertEqual(try harness.store.refereeLinks().count, 1)
    }

    func testBadLinkRequestsAreRefusedAndKept() {
        harness.rejected(ann, id: "h", ["kind": "createRefereeLink", "pitch": 2, "hours": 0], code: .invalid)
        harness.rejected(ann, id: "p", ["kind": "createRefereeLink", "pitch": 7], code: .notFound)
        harness.rejected(ann, id: "l", ["kind": "createRefereeLink", "pitch": 2, "label": "bob"], code: .invalid,
                         messageContains: "organiser's name")
        harness.rejected(ann, id: "r", ["kind": "revokeRefereeLink", "id": 99], code: .notFound)
        harness.rejected(ann, id: "h", ["kind": "createRefereeLink", "pitch": 2], code: .invalid)  // the kept answer
    }

    func testAtMost64LinksExistAtOnce() {
        for number in 1...RefereeLink.maximumCount { link(id: "link-\(number)") }
        harness.rejected(ann, id: "one-more", ["kind": "createRefereeLink", "pitch": 2], code: .outOfRange,
                         messageContains: "At most 64")
    }

    // MARK: - The referee's phone

    func testAPhoneScoresItsPitchUnderTheLabelAndOrganisersSeeItConnected() throws {
        let made = link(label: "Ref Ana")
        let (referee, _, signIn) = phone(5, code: made.code)
        XCTAssertEqual(referees(signIn, to: ann).map(\.connected), [[made.id]])
        XCTAssertEqual(referees(signIn, to: bob).map(\.connected), [[made.id]])
        XCTAssertEqual(referees(signIn, to: referee).count, 0, "a referee is not told about links")

        let scored = command(referee, "goal", ["kind": "score", "team": "A", "delta": 1])
        XCTAssertEqual(scored.last, .send(referee, .ack(id: "goal", version: harness.version)))
        let gather = try XCTUnwrap(harness.state.pitch(2)?.gather)
        XCTAssertEqual(gather.score, Score(A: 1, B: 0))
        XCTAssertEqual(gather.events.last?.by, "Ref Ana")
        XCTAssertEqual(try harness.store.activity(before: nil, limit: 1).first?.organiser, "Ref Ana")
        // The same id again: the same answer, not a second goal.
        XCTAssertEqual(command(referee, "goal", ["kind": "score", "team": "A", "delta": 1]),
                       [.send(referee, .ack(id: "goal", version: harness.version))])
        XCTAssertEqual(harness.state.pitch(2)?.gather?.score, Score(A: 1, B: 0))
    }

    func testEverythingButItsPitchsScoringIsForbiddenAndChangesNothing() {
        let (referee, _, _) = phone(5, code: link().code)
        for (id, action) in [("other pitch", ["kind": "score", "team": "A", "delta": 1, "pitch": 1] as JSONValue),
                             ("remove", ["kind": "removePlayer", "playerId": 1]),
                             ("cancel", ["kind": "cancelGather", "pitch": 2]),
                             ("cancel cup", ["kind": "cancelTournament"]),
                             ("scorer", ["kind": "setScorer", "seq": 1, "playerId": 1]),
                             ("rename", ["kind": "renamePitch", "pitch": 2, "name": "Mine"])] {
            harness.rejected(referee, id: id, action, code: .forbidden, messageContains: "Back pitch only")
        }
        let refused = command(referee, "link", ["kind": "createRefereeLink", "pitch": 2])
        guard case .send(referee, .rejected("link", let rejection, _))? = refused.first else { return XCTFail("\(refused)") }
        XCTAssertEqual(rejection.code, .forbidden)
        // Account messages are an organiser's.
        let organisers = harness.message(referee, ["type": "organisers", "id": "o"], exhaustivity: .off)
        guard case .send(referee, .error(.forbidden, _, "o", _))? = organisers.first else { return XCTFail("\(organisers)") }
    }

    func testTheWatchingDoorReadsNoCodeAndMakesNoLink() {
        let code = link().code
        let door = ConnectionID(30)
        harness.send(.clientConnected(door, address: "10.0.0.30", door: .spectator), exhaustivity: .off)
        let hello = harness.message(door, ["type": "referee", "id": "r", "code": .string(code)], exhaustivity: .off)
        guard case .send(door, .error(.tlsRequired, _, "r", _))? = hello.first else { return XCTFail("\(hello)") }
        let made = harness.message(door, ["type": "command", "id": "c", "action": ["kind": "createRefereeLink", "pitch": 2]],
                                   exhaustivity: .off)
        guard case .send(door, .rejected("c", let rejection, _))? = made.first else { return XCTFail("\(made)") }
        XCTAssertEqual(rejection.reason.key, .watchingAddress)
        XCTAssertEqual(try harness.store.refereeLinks().count, 1)
        XCTAssertEqual(try harness.store.refereeSessions().count, 0)
    }

    func testTwoPhonesOfOneLinkAreOnePersonForTheDuplicateQuestion() {
        let code = link().code
        let (first, _, _) = phone(5, code: code)
        let (second, _, _) = phone(6, code: code)
        XCTAssertEqual(command(first, "one", ["kind": "score", "team": "A", "delta": 1]).last,
                       .send(first, .ack(id: "one", version: harness.version)))
        harness.clock.advance(byMs: 3000)
        XCTAssertEqual(command(second, "two", ["kind": "score", "team": "A", "delta": 1]).last,
                       .send(second, .ack(id: "two", version: harness.version)), "the same referee's second goal")
        harness.clock.advance(byMs: 3000)
        harness.rejected(ann, id: "ann", ["kind": "score", "team": "A", "delta": 1, "pitch": 2], code: .possibleDuplicate)
    }

    func testAFourthPhoneIsInUseUntilOneLogsOut() {
        let code = link().code
        let phones = (5...7).map { phone(UInt64($0), code: code).0 }
        let fourth = harness.connect(8)
        let refused = harness.message(fourth, ["type": "referee", "id": "r", "code": .string(code)], exhaustivity: .off)
        guard case .send(fourth, .error(.inUse, _, "r", let reason))? = refused.first else { return XCTFail("\(refused)") }
        XCTAssertEqual(reason?.key, .refereeSessionsFull)
        let out = harness.message(phones[0], ["type": "logout", "id": "bye"], exhaustivity: .off)
        XCTAssertEqual(out.first, .send(phones[0], .session(nil)))
        let again = harness.message(fourth, ["type": "referee", "id": "r2", "code": .string(code)], exhaustivity: .off)
        guard case .send(fourth, .refereeSession)? = again.first else { return XCTFail("\(again)") }
    }

    func testAWrongCodeCountsAsAWrongPassword() {
        let code = link().code
        let stranger = harness.connect(9, address: "10.0.0.66")
        for attempt in 0..<5 {
            let refused = harness.message(stranger, ["type": "referee", "id": .string("w\(attempt)"),
                                                     "code": .string(attempt == 0 ? "x" : String(repeating: "A", count: 22))],
                                          exhaustivity: .off)
            guard case .send(stranger, .error(.unauthorized, _, _, let reason))? = refused.first else {
                return XCTFail("\(refused)")
            }
            XCTAssertEqual(reason?.key, .refereeCodeWrong)
        }
        for message: JSONValue in [["type": "referee", "id": "right", "code": .string(code)],
                                   ["type": "login", "id": "pw", "username": "ann", "password": "correct horse"]] {
            let refused = harness.message(stranger, message, exhaustivity: .off)
            guard case .send(stranger, .error(.rateLimited, _, _, _))? = refused.first else { return XCTFail("\(refused)") }
        }
        // Another address is not affected.
        _ = phone(10, code: code, address: "10.0.0.67")
    }

    // MARK: - Ending links

    func testRevokingEndsEveryPhoneAtOnce() {
        let made = link()
        let (first, token, _) = phone(5, code: made.code)
        let (second, _, _) = phone(6, code: made.code)
        let effects = command(ann, "revoke", ["kind": "revokeRefereeLink", "id": .int(made.id)])
        XCTAssertEqual(effects, [
            .send(first, .sessionEnded(reason: .revoked)),
            .send(second, .sessionEnded(reason: .revoked)),
            .send(ann, .ackWithResult(id: "revoke", version: harness.version, result: .object([:]))),
            .send(ann, .referees(links: [], connected: [])),
            .send(bob, .referees(links: [], connected: [])),
            .scheduleRefereeExpiry(at: nil),
        ])
        harness.rejected(first, id: "late", ["kind": "score", "team": "A", "delta": 1], code: .forbidden)
        let resumed = harness.message(first, ["type": "resume", "id": "again", "token": .string(token)], exhaustivity: .off)
        guard case .send(first, .error(.unauthorized, _, _, _))? = resumed.first else { return XCTFail("\(resumed)") }
        XCTAssertEqual(try harness.store.refereeSessions().count, 0)
    }

    func testALinkExpiresAtItsTimeAndItsPhonesAreToldAtOnce() {
        let made = link(hours: 1)
        XCTAssertEqual(made.effects.last, .scheduleRefereeExpiry(at: harness.clock.now + 3_600_000))
        let (referee, _, _) = phone(5, code: made.code)
        harness.clock.advance(byMs: 3_600_000)
        XCTAssertEqual(withoutPresence(harness.send(.refereeExpiryWoke, exhaustivity: .off)), [
            .send(referee, .sessionEnded(reason: .expired)),
            .send(ann, .referees(links: [], connected: [])),
            .send(bob, .referees(links: [], connected: [])),
        ])
        let late = harness.connect(6)
        let refused = harness.message(late, ["type": "referee", "id": "r", "code": .string(made.code)], exhaustivity: .off)
        guard case .send(late, .error(.unauthorized, _, _, _))? = refused.first else { return XCTFail("\(refused)") }
    }

    func testRemovingThePitchEndsItsLinks() {
        let made = link()
        let (referee, _, _) = phone(5, code: made.code)
        harness.prepare(ann, id: "end", ["kind": "cancelGather", "pitch": 2])
        let effects = command(ann, "remove", ["kind": "removePitch", "pitch": 2])
        XCTAssertTrue(effects.contains(.send(referee, .sessionEnded(reason: .revoked))), "\(effects)")
        XCTAssertEqual(try harness.store.refereeLinks().count, 0)
    }

    func testARestartKeepsTheLinkAndItsPhonesTokens() throws {
        let made = link()
        let (_, token, _) = phone(5, code: made.code)
        _ = try harness.restart()
        let back = harness.connect(20)
        let resumed = harness.message(back, ["type": "resume", "id": "again", "token": .string(token)], exhaustivity: .off)
        guard case .send(back, .refereeSession(let grant))? = resumed.first else { return XCTFail("\(resumed)") }
        XCTAssertEqual(grant.link.id, made.id)
        XCTAssertEqual(grant.link.pitch, 2)
        XCTAssertEqual(command(back, "after", ["kind": "score", "team": "B", "delta": 1]).last,
                       .send(back, .ack(id: "after", version: harness.version)))
    }
}
