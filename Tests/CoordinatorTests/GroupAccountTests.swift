import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// "Organisers of a real group" (docs/PROTOCOL.md): every message, every error, every effect.
final class GroupAccountTests: XCTestCase {
    private let start = CoordinatorHarness.start

    // MARK: - Roles and the list

    func testTheFirstAccountOwnsTheGroupAndTheListSaysWhoIsOnline() throws {
        let group = try Group()
        let h = group.harness
        h.send(.clientDisconnected(group.cid), expect: [.publishPresence(organisers: ["ann", "bob"], spectators: 1)])
        let now = h.clock.now
        group.account(group.bobPhone, ["type": "organisers", "id": "o1"], expect: [
            .send(group.bobPhone, .account(id: "o1", .organisers([
                OrganiserSummary(username: "ann", owner: true, createdAt: start, lastSeenAt: now, online: true, sessions: 1),
                OrganiserSummary(username: "bob", owner: false, createdAt: start + 1000, lastSeenAt: now, online: true,
                                 sessions: 2),
                OrganiserSummary(username: "cid", owner: false, createdAt: start + 1000, lastSeenAt: now, online: false,
                                 sessions: 1),
            ]))),
        ])
        h.clock.advance(byMs: 60_000)
        guard case .send(_, .account(_, .organisers(let later))) = group.account(group.ann, ["type": "organisers"]).first
        else { return XCTFail("no list") }
        XCTAssertEqual(later.map(\.lastSeenAt), [now + 60_000, now + 60_000, now], "cid was last seen when he left")
    }

    func testOnlyOrganisersOverTLSMayAskAndNothingChangesTheVersion() throws {
        let group = try Group()
        let h = group.harness
        let version = h.version
        for type in ["organisers", "rotateInvite", "removeOrganiser", "transferOwner", "changePassword",
                     "logoutEverywhere", "activity"] {
            group.refused(group.spectator, ["type": .string(type), "id": "x", "username": "bob"], .forbidden,
                          containing: "log in")
        }
        let door = ConnectionID(50)
        h.send(.clientConnected(door, address: "10.0.0.50", door: .spectator), exhaustivity: .off)
        group.refused(door, ["type": "organisers", "id": "d"], .tlsRequired)
        XCTAssertEqual(h.version, version)
    }

    // MARK: - The invite code

    func testRotatingTheInviteCodeStopsTheOldOneAtOnceAndTellsEveryOrganiser() throws {
        let group = try Group()
        let h = group.harness
        group.refused(group.bobPhone, ["type": "rotateInvite", "id": "r0"], .forbidden, containing: "owner")
        let effects = group.account(group.ann, ["type": "rotateInvite", "id": "r1"])
        guard case .send(group.ann, .account("r1", .inviteCode(let code))) = effects.first else {
            return XCTFail("\(effects)")
        }
        XCTAssertNotEqual(code, CoordinatorHarness.inviteCode)
        XCTAssertEqual(effects, [
            .send(group.ann, .account(id: "r1", .inviteCode(code))),
            group.grant(group.ann, "ann", owner: true, invite: code),
            group.grant(group.bobPhone, "bob", owner: false, invite: code),
            group.grant(group.bobTablet, "bob", owner: false, invite: code),
            group.grant(group.cid, "cid", owner: false, invite: code),
        ])
        XCTAssertEqual(try h.store.inviteCode(), code)
        let newcomer = h.connect(20, address: "10.0.0.20")
        group.refused(newcomer, ["type": "register", "id": "g1", "username": "dee", "password": "long enough",
                                 "inviteCode": .string(CoordinatorHarness.inviteCode)], .badInvite)
        let accepted = h.message(newcomer, ["type": "register", "id": "g2", "username": "dee", "password": "long enough",
                                            "inviteCode": .string(code)], exhaustivity: .off)
        guard case .hashPassword(let job) = accepted.first else { return XCTFail("the new code was refused: \(accepted)") }
        let granted = h.send(.passwordHashed(job, encodedHash: "kdf"), exhaustivity: .off)
        guard case .send(newcomer, .session(let grant?)) = granted.first else { return XCTFail("\(granted)") }
        XCTAssertEqual(grant.inviteCode, code)
        XCTAssertFalse(grant.owner)
        _ = try h.restart()
        XCTAssertEqual(try h.store.inviteCode(), code, "kept across a restart")
        let later = h.connect(21, address: "10.0.0.21")
        group.refused(later, ["type": "register", "id": "g3", "username": "eve", "password": "long enough",
                              "inviteCode": .string(CoordinatorHarness.inviteCode)], .badInvite)
    }

    // MARK: - Removing an organiser

    func testRemovingEndsEveryConnectionAtOnceAndTheNameStaysOnWhatTheyDid() throws {
        let group = try Group()
        let h = group.harness
        startGatherOfTwo(h, by: group.bobPhone)
        h.prepare(group.bobPhone, id: "s", ["kind": "score", "team": "A", "delta": 1, "playerId": 1])
        h.clock.advance(byMs: 5000)
        let state = h.state
        let version = h.version

        group.account(group.ann, ["type": "removeOrganiser", "id": "rm", "username": "BOB"], expect: [
            .send(group.ann, .account(id: "rm", .removed("bob"))),
            .send(group.bobPhone, .sessionEnded(reason: .removed)),
            .send(group.bobTablet, .sessionEnded(reason: .removed)),
            .publishPresence(organisers: ["ann", "cid"], spectators: 3),
        ])
        XCTAssertEqual(h.state, state, "the gather is untouched")
        XCTAssertEqual(h.version, version)
        XCTAssertEqual(h.state.gather?.events.last?.by, "bob", "his name stays on his goal")
        h.rejected(group.bobPhone, id: "after", ["kind": "score", "team": "A", "delta": 1], code: .forbidden)
        h.rejected(group.bobTablet, id: "after2", ["kind": "resetTimer"], code: .forbidden)
        group.refused(group.bobPhone, ["type": "resume", "id": "re", "token": .string(group.tokens[group.bobPhone]!)],
                      .unauthorized)
        let login = h.message(h.connect(30, address: "10.0.0.30"),
                              ["type": "login", "username": "bob", "password": "correct horse"], exhaustivity: .off)
        guard case .verifyPassword(let job, "decoy") = login.first else { return XCTFail("\(login)") }
        XCTAssertEqual(h.send(.passwordChecked(job, matches: true), exhaustivity: .off),
                       [.send(job.client, .error(code: .unauthorized, message: "Wrong username or password.", id: nil, reason: Sentence(.wrongCredentials)))])
        let again = h.message(h.connect(31, address: "10.0.0.31"), ["type": "register", "username": "bob",
                                                                     "password": "long enough",
                                                                     "inviteCode": .string(CoordinatorHarness.inviteCode)],
                              exhaustivity: .off)
        guard case .hashPassword(let registration) = again.first else { return XCTFail("\(again)") }
        guard case .send(_, .error(.usernameTaken, _, _, _)) = h.send(.passwordHashed(registration, encodedHash: "k"),
                                                                   exhaustivity: .off).first
        else { return XCTFail("a removed name must stay taken") }
        XCTAssertEqual(try h.store.organisers(sessionsUsedSince: 0).map(\.username), ["ann", "cid"])
    }

    func testRemovalIsTheOwnersAndNeverOfTheOwner() throws {
        let group = try Group()
        let h = group.harness
        group.refused(group.cid, ["type": "removeOrganiser", "id": "c", "username": "bob"], .forbidden, containing: "owner")
        group.refused(group.ann, ["type": "removeOrganiser", "id": "self", "username": "Ann"], .invalid,
                      containing: "yourself")
        group.refused(group.ann, ["type": "removeOrganiser", "id": "none", "username": "nobody"], .notFound,
                      containing: "nobody")
        group.refused(group.ann, ["type": "removeOrganiser", "id": "bad", "username": "b!"], .invalid)
        group.refused(group.ann, ["type": "removeOrganiser", "id": "missing"], .invalid)
        group.refused(group.ann, ["type": "removeOrganiser", "id": "num", "username": 7], .invalid)
        XCTAssertEqual(try h.store.organisers(sessionsUsedSince: 0).count, 3, "nothing changed")
        XCTAssertEqual(h.token(of: group.bobPhone), group.tokens[group.bobPhone])
    }

    // MARK: - Handing over the group

    func testTransferringOwnershipTellsBothAccountsPhonesAndMovesTheRights() throws {
        let group = try Group()
        let h = group.harness
        group.refused(group.bobPhone, ["type": "transferOwner", "id": "t0", "username": "bob"], .forbidden)
        group.refused(group.ann, ["type": "transferOwner", "id": "t1", "username": "ann"], .invalid)
        group.refused(group.ann, ["type": "transferOwner", "id": "t2", "username": "zed"], .notFound)
        group.account(group.ann, ["type": "transferOwner", "id": "t3", "username": "Bob"], expect: [
            .send(group.ann, .account(id: "t3", .owner("bob"))),
            group.grant(group.ann, "ann", owner: false),
            group.grant(group.bobPhone, "bob", owner: true),
            group.grant(group.bobTablet, "bob", owner: true),
            group.grant(group.cid, "cid", owner: false),
        ])
        group.refused(group.ann, ["type": "removeOrganiser", "id": "t4", "username": "cid"], .forbidden)
        group.refused(group.bobTablet, ["type": "removeOrganiser", "id": "t5", "username": "bob"], .invalid)
        group.account(group.bobTablet, ["type": "removeOrganiser", "id": "t6", "username": "ann"], expect: [
            .send(group.bobTablet, .account(id: "t6", .removed("ann"))),
            .send(group.ann, .sessionEnded(reason: .removed)),
            .publishPresence(organisers: ["bob", "cid"], spectators: 2),
        ])
        XCTAssertEqual(try h.store.organisers(sessionsUsedSince: 0).map(\.owner), [true, false])
    }

    // MARK: - Passwords

    func testChangingThePasswordChecksTheCurrentOneThenEndsEveryOtherSession() throws {
        let group = try Group()
        let h = group.harness
        group.refused(group.bobPhone, ["type": "changePassword", "id": "c0", "currentPassword": "correct horse",
                                       "newPassword": "short"], .invalid, containing: "8–128")
        let check = PasswordJob(client: group.bobPhone, purpose: .changePassword, username: "bob",
                                password: "correct horse", requestID: "c1", newPassword: "a new secret")
        group.account(group.bobPhone, ["type": "changePassword", "id": "c1", "currentPassword": "correct horse",
                                       "newPassword": "a new secret"],
                      expect: [.verifyPassword(check, against: "kdf(correct horse)")])
        XCTAssertFalse("\(check)".contains("a new secret"), "a job never prints a password")
        let hashing = PasswordJob(client: group.bobPhone, purpose: .changePassword, username: "bob",
                                  password: "a new secret", requestID: "c1")
        h.send(.passwordChecked(check, matches: true), expect: [.hashPassword(hashing)])
        h.send(.passwordHashed(hashing, encodedHash: "kdf(a new secret)"), expect: [
            .send(group.bobPhone, .account(id: "c1", .sessionsEnded(1))),
            .send(group.bobTablet, .sessionEnded(reason: .passwordChanged)),
            .publishPresence(organisers: ["ann", "bob", "cid"], spectators: 2),
        ])
        XCTAssertEqual(try h.store.organiser(username: "bob")?.passwordHash, "kdf(a new secret)")
        XCTAssertEqual(try h.store.organisers(sessionsUsedSince: 0).map(\.sessions), [1, 1, 1])
        h.prepare(group.bobPhone, id: "still", ["kind": "addPlayer", "name": "Still here"])
        h.rejected(group.bobTablet, id: "gone", ["kind": "addPlayer", "name": "Gone"], code: .forbidden)
    }

    func testAWrongCurrentPasswordIsAFailedAttemptAndFiveLockTheAddress() throws {
        let group = try Group()
        let h = group.harness
        for attempt in 0..<5 {
            let id = JSONValue.string("w\(attempt)")
            let effects = group.account(group.cid, ["type": "changePassword", "id": id, "currentPassword": "wrong one!",
                                                    "newPassword": "a new secret"])
            guard case .verifyPassword(let job, _) = effects.first else { return XCTFail("\(effects)") }
            h.send(.passwordChecked(job, matches: false), expect: [
                .send(group.cid, .error(code: .unauthorized, message: "That is not your current password.",
                                        id: "w\(attempt)", reason: Sentence(.wrongPassword))),
            ])
        }
        group.refused(group.cid, ["type": "changePassword", "id": "w5", "currentPassword": "correct horse",
                                  "newPassword": "a new secret"], .rateLimited)
        XCTAssertEqual(try h.store.organiser(username: "cid")?.passwordHash, "kdf(correct horse)")
        group.refused(group.cid, ["type": "changePassword", "id": "w6", "newPassword": "a new secret"], .rateLimited)
    }

    func testAPasswordChangeWhoseAccountWasRemovedMeanwhileChangesNothing() throws {
        let group = try Group()
        let h = group.harness
        let effects = group.account(group.cid, ["type": "changePassword", "id": "c", "currentPassword": "correct horse",
                                                "newPassword": "a new secret"])
        guard case .verifyPassword(let job, _) = effects.first else { return XCTFail("\(effects)") }
        group.account(group.ann, ["type": "removeOrganiser", "id": "rm", "username": "cid"])
        h.send(.passwordChecked(job, matches: true), expect: [])
        XCTAssertNil(try h.store.organiser(username: "cid"))
    }

    func testLogoutEverywhereEndsEverySessionOfTheAccountThisOneIncluded() throws {
        let group = try Group()
        let h = group.harness
        group.account(group.bobTablet, ["type": "logoutEverywhere", "id": "l"], expect: [
            .send(group.bobTablet, .account(id: "l", .sessionsEnded(2))),
            .send(group.bobPhone, .sessionEnded(reason: .loggedOut)),
            .send(group.bobTablet, .sessionEnded(reason: .loggedOut)),
            .publishPresence(organisers: ["ann", "cid"], spectators: 3),
        ])
        group.refused(group.bobPhone, ["type": "resume", "id": "r", "token": .string(group.tokens[group.bobPhone]!)],
                      .unauthorized)
        XCTAssertEqual(try h.store.organisers(sessionsUsedSince: 0).map(\.sessions), [1, 0, 1])
    }

    // MARK: - Who did what

    /// A goal brought back and a kit colour changed say so, in every language, instead of the
    /// generic "Changed the gather".
    func testARestoredGoalAndAKitColourHaveSentencesOfTheirOwn() throws {
        let group = try Group()
        let h = group.harness
        h.prepare(group.ann, id: "p1", ["kind": "addPlayer", "name": "Ann"])
        h.prepare(group.ann, id: "p2", ["kind": "addPlayer", "name": "Bob"])
        h.prepare(group.ann, id: "g", ["kind": "createGather", "playerIds": [1, 2]])
        h.prepare(group.ann, id: "a1", ["kind": "assign", "playerId": 1, "to": "A"])
        h.prepare(group.ann, id: "a2", ["kind": "assign", "playerId": 2, "to": "B"])
        h.prepare(group.ann, id: "k", ["kind": "startGather"])
        h.prepare(group.ann, id: "s", ["kind": "score", "team": "A", "delta": 1, "playerId": 1])
        let goal = h.state.gather?.events.last?.seq ?? 0
        h.prepare(group.ann, id: "c", ["kind": "cancelGoal", "seq": .int(goal)])
        h.prepare(group.cid, id: "r", ["kind": "restoreGoal", "seq": .int(goal)])
        h.prepare(group.cid, id: "kit", ["kind": "setTeamColour", "team": "B", "colour": "yellow"])
        guard case .send(_, .activity(_, let items)) = group.account(group.ann, ["type": "activity", "limit": 2]).first
        else { return XCTFail("no activity") }
        XCTAssertEqual(items.map(\.sentence), [Sentence(.changedKit, ["team": .text("Team B")]),
                                               Sentence(.restoredGoal, ["team": .text("Team A"), "scorer": .text("Ann")])])
        XCTAssertEqual(items.map(\.summary), ["Changed the kit colour of Team B", "Restored a goal for Team A (Ann)"])
    }

    func testActivityListsChangesNewestFirstWithWhoAndASentenceAndPagesBack() throws {
        let group = try Group()
        let h = group.harness
        h.prepare(group.ann, id: "p1", ["kind": "addPlayer", "name": "Ann"])
        h.prepare(group.ann, id: "p2", ["kind": "addPlayer", "name": "Bob"])
        h.prepare(group.cid, id: "p3", ["kind": "addPlayer", "name": "Cid"])
        h.prepare(group.ann, id: "g", ["kind": "createGather", "playerIds": [1, 2, 3]])
        h.prepare(group.ann, id: "a1", ["kind": "assign", "playerId": 1, "to": "A"])
        h.prepare(group.ann, id: "a2", ["kind": "assign", "playerId": 2, "to": "A"])
        h.prepare(group.ann, id: "a3", ["kind": "assign", "playerId": 3, "to": "B"])
        h.prepare(group.bobPhone, id: "n", ["kind": "renameTeam", "team": "A", "name": "Whites"])
        h.prepare(group.ann, id: "k", ["kind": "startGather"])
        let at = h.clock.now
        h.prepare(group.cid, id: "s", ["kind": "score", "team": "A", "delta": 1, "playerId": 1, "assistId": 2])
        group.account(group.bobPhone, ["type": "activity", "id": "act", "limit": 3], expect: [
            .send(group.bobPhone, .activity(id: "act", items: [
                ActivityItem(version: 10, at: at, organiser: "cid", kind: "score", pitch: 1,
                             summary: "Added a goal for Whites (Ann, assist Bob)",
                             sentence: Sentence(.addedGoal, ["team": .text("Whites"), "scorer": .text("Ann"),
                                                             "assist": .text("Bob")])),
                ActivityItem(version: 9, at: at, organiser: "ann", kind: "startGather", pitch: 1,
                             summary: "Kicked off: Whites v Team B",
                             sentence: Sentence(.kickedOff, ["teamA": .text("Whites"), "teamB": .text("Team B")])),
                ActivityItem(version: 8, at: at, organiser: "bob", kind: "renameTeam", pitch: 1,
                             summary: "Renamed Team A to Whites",
                             sentence: Sentence(.renamedTeam, ["team": .text("Team A"), "name": .text("Whites")])),
            ])),
        ])
        guard case .send(_, .activity(_, let page)) = group.account(group.ann, ["type": "activity", "before": 3]).first
        else { return XCTFail("no page") }
        XCTAssertEqual(page.map(\.summary), ["Added Bob to the roster", "Added Ann to the roster"])
        XCTAssertEqual(page.map(\.pitch), [nil, nil])
        guard case .send(_, .activity(_, let all)) = group.account(group.ann, ["type": "activity"]).first
        else { return XCTFail("no list") }
        XCTAssertEqual(all.count, 10, "default 50, here all ten")
        for bad in [0, 201, 10_000, "50", .double(1.5), -1] as [JSONValue] {
            group.refused(group.ann, ["type": "activity", "id": "bad", "limit": bad], .invalid, containing: "1 to 200")
        }
        for bad in [-1, "3", true] as [JSONValue] {
            group.refused(group.ann, ["type": "activity", "id": "bad", "before": bad], .invalid, containing: "before")
        }
        XCTAssertEqual(h.version, 10, "asking changes nothing")
    }

    func testTheTimerRunningOutIsTheServersChangeInTheActivity() throws {
        let group = try Group()
        let h = group.harness
        startGatherOfTwo(h, by: group.ann, beforeStart: [("t", ["kind": "setTimer", "minutes": 0, "seconds": 1])])
        h.prepare(group.ann, id: "go", ["kind": "startTimer"])
        h.clock.advance(byMs: 1000)
        h.send(.countdownWoke(pitch: 1), exhaustivity: .off)
        guard case .send(_, .activity(_, let items)) = group.account(group.ann, ["type": "activity", "limit": 2]).first
        else { return XCTFail("no list") }
        XCTAssertEqual(items.map(\.organiser), [nil, "ann"])
        XCTAssertEqual(items.map(\.summary), ["Full time on Pitch 1: the timer ran out", "Started the timer"])
        XCTAssertEqual(items.first?.kind, "timerExpired")
    }

    // MARK: - The laptop

    func testTheLaptopCanRemoveMakeAnOwnerAndResetAPasswordWithTheSameRules() throws {
        let group = try Group()
        let h = group.harness
        let core = h.coreForAdmin
        XCTAssertEqual(core.handleAdmin(.remove("ann")).0,
                       .failed("ann is the owner; make another organiser the owner first."))
        XCTAssertEqual(core.handleAdmin(.remove("zed")).0, .failed("There is no organiser called zed."))
        let (made, madeEffects) = core.handleAdmin(.makeOwner("CID"))
        XCTAssertEqual(made, .done("cid is the owner now."))
        XCTAssertEqual(madeEffects, [
            group.grant(group.ann, "ann", owner: false), group.grant(group.bobPhone, "bob", owner: false),
            group.grant(group.bobTablet, "bob", owner: false), group.grant(group.cid, "cid", owner: true),
        ])
        XCTAssertEqual(core.handleAdmin(.makeOwner("zed")).0, .failed("There is no organiser called zed."))
        let (reset, resetEffects) = core.handleAdmin(.resetPassword("bob", passwordHash: "kdf(fresh)"))
        XCTAssertEqual(reset, .done("The password of bob was reset; 2 session(s) ended."))
        XCTAssertEqual(resetEffects, [
            .send(group.bobPhone, .sessionEnded(reason: .passwordChanged)),
            .send(group.bobTablet, .sessionEnded(reason: .passwordChanged)),
            .publishPresence(organisers: ["ann", "cid"], spectators: 3),
        ])
        XCTAssertEqual(try h.store.organiser(username: "bob")?.passwordHash, "kdf(fresh)")
        h.clock.advance(byMs: 2000)
        let (removed, removedEffects) = core.handleAdmin(.remove("ann"))
        XCTAssertEqual(removed, .done("Removed ann; 1 session(s) ended."))
        XCTAssertEqual(removedEffects, [.send(group.ann, .sessionEnded(reason: .removed)),
                                        .publishPresence(organisers: ["cid"], spectators: 4)])
        guard case .organisers(let list) = core.handleAdmin(.list).0 else { return XCTFail("no list") }
        XCTAssertEqual(list.map(\.username), ["bob", "cid"])
        XCTAssertEqual(list.map(\.online), [false, true])
    }

    /// A reset names an organiser of the group: an unknown name, or one removed (whose account
    /// stays in the Store), is answered as no one, and no phone is told anything.
    func testTheLaptopCannotResetThePasswordOfNoOneOrOfARemovedOrganiser() throws {
        let group = try Group()
        let h = group.harness
        let core = h.coreForAdmin
        XCTAssertEqual(core.handleAdmin(.remove("cid")).0, .done("Removed cid; 1 session(s) ended."))
        for name in ["zed", "cid"] {
            let (reply, effects) = core.handleAdmin(.resetPassword(name, passwordHash: "kdf(fresh)"))
            XCTAssertEqual(reply, .failed("There is no organiser called \(name)."))
            XCTAssertEqual(effects, [])
        }
        XCTAssertNotEqual(try h.store.organiser(username: "cid")?.passwordHash, "kdf(fresh)")
    }

    // MARK: - Set-up

    /// Ann and Bob added, a gather of the two (Ann on A, Bob on B), `beforeStart` steps, then started.
    private func startGatherOfTwo(_ h: CoordinatorHarness, by organiser: ConnectionID,
                                  beforeStart: [(String, JSONValue)] = []) {
        h.prepare(organiser, id: "p1", ["kind": "addPlayer", "name": "Ann"])
        h.prepare(organiser, id: "p2", ["kind": "addPlayer", "name": "Bob"])
        h.prepare(organiser, id: "g", ["kind": "createGather", "playerIds": [1, 2]])
        h.prepare(organiser, id: "a1", ["kind": "assign", "playerId": 1, "to": "A"])
        h.prepare(organiser, id: "a2", ["kind": "assign", "playerId": 2, "to": "B"])
        for (id, action) in beforeStart {
            h.prepare(organiser, id: id, action)
        }
        h.prepare(organiser, id: "k", ["kind": "startGather"])
    }
}
