import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

final class AccountTests: XCTestCase {
    private func errorCode(_ effects: [Effect]) -> ErrorCode? {
        for effect in effects { if case .send(_, .error(let code, _, _)) = effect { return code } }
        return nil
    }

    private func grant(_ effects: [Effect]) -> SessionGrant? {
        for effect in effects { if case .send(_, .session(let grant?)) = effect { return grant } }
        return nil
    }

    func testRegisterRunsTheKDFOffTheQueueThenGrantsASession() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        let job = PasswordJob(client: client, purpose: .register, username: "ann", password: "long enough",
                              requestID: "r1")
        harness.message(client, ["type": "register", "id": "r1", "username": "ann", "password": "long enough",
                                 "inviteCode": .string(CoordinatorHarness.inviteCode.lowercased())],
                        expect: [.hashPassword(job)])
        harness.clock.advance(byMs: 2000)
        let effects = harness.send(.passwordHashed(job, encodedHash: "kdf"), exhaustivity: .off)
        XCTAssertEqual(effects, [
            .send(client, .session(SessionGrant(username: "ann", token: "token-100000000000",
                                                inviteCode: CoordinatorHarness.inviteCode, owner: true))),
            .publishPresence(organisers: ["ann"], spectators: 0),
        ])
        XCTAssertEqual(try harness.store.organiser(username: "ANN")?.passwordHash, "kdf")
        XCTAssertFalse(String(describing: job).contains("long enough"), "a job never prints the password")
    }

    func testRegisterRejectsBadInviteInvalidFieldsAndTakenNames() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let client = harness.connect(2, address: "10.0.0.3")
        func register(_ username: JSONValue, _ password: JSONValue, _ invite: JSONValue) -> ErrorCode? {
            errorCode(harness.message(client, ["type": "register", "username": username, "password": password,
                                               "inviteCode": invite], exhaustivity: .off))
        }
        XCTAssertEqual(register("bob", "long enough", "WRONG"), .badInvite)
        XCTAssertEqual(register("b", "long enough", .string(CoordinatorHarness.inviteCode)), .invalid)
        XCTAssertEqual(register("bob!", "long enough", .string(CoordinatorHarness.inviteCode)), .invalid)
        XCTAssertEqual(register("bob", "short", .string(CoordinatorHarness.inviteCode)), .invalid)
        XCTAssertEqual(register("Ann", "long enough", .string(CoordinatorHarness.inviteCode)), .usernameTaken)
        // Five failures from this address: even a good registration is refused now.
        XCTAssertEqual(register("carl", "long enough", .string(CoordinatorHarness.inviteCode)), .rateLimited)
        harness.clock.advance(byMs: 60_000)
        XCTAssertNil(register("carl", "long enough", .string(CoordinatorHarness.inviteCode)))
    }

    /// docs/PROTOCOL.md "Limits against abuse": five failures lock the ADDRESS they came from, the
    /// right password included, and never the same username from another phone.
    func testFiveWrongPasswordsLockTheirAddressForAMinuteButNotTheOrganiserElsewhere() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let stranger = harness.connect(10, address: "10.0.1.66")
        for _ in 0..<5 {
            let effects = harness.message(stranger, ["type": "login", "username": "ann", "password": "wrong password"],
                                          exhaustivity: .off)
            guard case .verifyPassword(let job, "kdf(correct horse)") = effects.first else { return XCTFail("\(effects)") }
            XCTAssertEqual(errorCode(harness.send(.passwordChecked(job, matches: false), exhaustivity: .off)), .unauthorized)
        }
        let sameAddress = harness.connect(11, address: "10.0.1.66")
        XCTAssertEqual(errorCode(harness.message(sameAddress, ["type": "login", "username": "ANN", "password": "correct horse"],
                                                 exhaustivity: .off)), .rateLimited)
        let owner = harness.connect(20, address: "10.0.2.1")
        let effects = harness.message(owner, ["type": "login", "username": "ann", "password": "correct horse"], exhaustivity: .off)
        guard case .verifyPassword(let job, _) = effects.first else { return XCTFail("the owner was locked out: \(effects)") }
        XCTAssertEqual(grant(harness.send(.passwordChecked(job, matches: true), exhaustivity: .off))?.username, "ann")
        harness.clock.advance(byMs: 60_000)
        let later = harness.message(sameAddress, ["type": "login", "username": "ann", "password": "correct horse"],
                                    exhaustivity: .off)
        guard case .verifyPassword = later.first else { return XCTFail("still locked after a minute: \(later)") }
    }

    /// An attempt counts the moment it is admitted, so twelve sent at once cannot all be tried.
    func testAttemptsSentInParallelCountBeforeTheirPasswordsAreChecked() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var answers: [ErrorCode?] = []
        var started = 0
        for number in 0..<12 {
            let client = harness.connect(UInt64(100 + number), address: "10.0.3.3")
            let effects = harness.message(client, ["type": "login", "username": "ann", "password": .string("guess \(number)00")],
                                          exhaustivity: .off)
            started += effects.filter { if case .verifyPassword = $0 { true } else { false } }.count
            answers.append(errorCode(effects))
        }
        XCTAssertEqual(answers.filter { $0 == .rateLimited }.count, 7, "only five of twelve are admitted")
        XCTAssertEqual(started, 2, "two password checks run at once; the other admitted ones wait")
    }

    func testASuccessTakesItsAttemptBack() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let phone = harness.connect(30, address: "10.0.4.4")
        for round in 0..<8 {
            let right = round.isMultiple(of: 2)
            let effects = harness.message(phone, ["type": "login", "username": "ann",
                                                  "password": right ? "correct horse" : "wrong password"],
                                          exhaustivity: .off)
            guard case .verifyPassword(let job, _) = effects.first else { return XCTFail("round \(round): \(effects)") }
            harness.send(.passwordChecked(job, matches: right), exhaustivity: .off)
        }
        // Four failures and four successes: the successes did not count, so a fifth try is admitted.
        let effects = harness.message(phone, ["type": "login", "username": "ann", "password": "correct horse"],
                                      exhaustivity: .off)
        guard case .verifyPassword = effects.first else { return XCTFail("\(effects)") }
    }

    func testAtMostTwoPasswordChecksRunAndSixteenWaitInTheWholeServer() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var jobs: [PasswordJob] = []
        var refused = 0
        for number in 0..<20 {
            let client = harness.connect(UInt64(200 + number), address: "10.1.0.\(number)")
            let effects = harness.message(client, ["type": "login", "username": "ann", "password": "correct horse"],
                                          exhaustivity: .off)
            for effect in effects { if case .verifyPassword(let job, _) = effect { jobs.append(job) } }
            if errorCode(effects) == .rateLimited { refused += 1 }
        }
        XCTAssertEqual(jobs.count, 2)
        XCTAssertEqual(refused, 2, "2 running + 16 waiting; the last two are refused at once")
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 16])
        // One finishes: the next waiting one (#202) starts, and the peak stays two.
        let next = harness.send(.passwordChecked(jobs[0], matches: true), exhaustivity: .off)
        XCTAssertEqual(next.compactMap(\.passwordClient), [ConnectionID(202)])
        XCTAssertEqual(harness.tally.passwordChecksPeak, 2)
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 15])
        // A waiting phone that leaves (#203) is not checked at all: #204 is next.
        harness.send(.clientDisconnected(ConnectionID(203)), exhaustivity: .off)
        XCTAssertEqual(harness.tally.passwordChecksWaiting, 14, "a phone that left no longer waits")
        let after = harness.send(.passwordChecked(jobs[1], matches: true), exhaustivity: .off)
        XCTAssertEqual(after.compactMap(\.passwordClient), [ConnectionID(204)])
    }

    func testAnUnknownUsernameStillRunsTheKDFAgainstTheDecoy() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        let effects = harness.message(client, ["type": "login", "username": "nobody", "password": "whatever1"], exhaustivity: .off)
        guard case .verifyPassword(let job, "decoy") = effects.first else { return XCTFail("\(effects)") }
        XCTAssertEqual(errorCode(harness.send(.passwordChecked(job, matches: true), exhaustivity: .off)), .unauthorized)
    }

    func testResumeRestoresTheRoleAndLogoutRevokesTheTokenEverywhere() throws {
        let harness = try CoordinatorHarness()
        let phone = harness.connect(1)
        let job = PasswordJob(client: phone, purpose: .register, username: "ann", password: "long enough",
                              requestID: nil)
        _ = harness.message(phone, ["type": "register", "username": "ann", "password": "long enough",
                                    "inviteCode": .string(CoordinatorHarness.inviteCode)], exhaustivity: .off)
        let token = try XCTUnwrap(grant(harness.send(.passwordHashed(job, encodedHash: "kdf"), exhaustivity: .off))?.token)

        let tablet = harness.connect(2)
        XCTAssertEqual(grant(harness.message(tablet, ["type": "resume", "id": "r", "token": .string(token)], exhaustivity: .off))?.username,
                       "ann")
        harness.message(phone, ["type": "logout"], expect: [.send(phone, .session(nil)), .send(tablet, .session(nil))])
        let third = harness.connect(3)
        XCTAssertEqual(errorCode(harness.message(third, ["type": "resume", "token": .string(token)], exhaustivity: .off)), .unauthorized)
        harness.rejected(tablet, id: "after", ["kind": "addPlayer", "name": "X"], code: .forbidden)
    }

    func testResumeExpiresAfterThirtyDaysUnused() throws {
        let harness = try CoordinatorHarness()
        let phone = harness.connect(1)
        let job = PasswordJob(client: phone, purpose: .register, username: "ann", password: "long enough",
                              requestID: nil)
        _ = harness.message(phone, ["type": "register", "username": "ann", "password": "long enough",
                                    "inviteCode": .string(CoordinatorHarness.inviteCode)], exhaustivity: .off)
        let token = try XCTUnwrap(grant(harness.send(.passwordHashed(job, encodedHash: "kdf"), exhaustivity: .off))?.token)
        harness.clock.advance(byMs: 29 * 24 * 3600 * 1000)
        XCTAssertNotNil(grant(harness.message(harness.connect(2), ["type": "resume", "token": .string(token)], exhaustivity: .off)))
        harness.clock.advance(byMs: 30 * 24 * 3600 * 1000 + 1)
        XCTAssertEqual(errorCode(harness.message(harness.connect(3), ["type": "resume", "token": .string(token)], exhaustivity: .off)),
                       .unauthorized)
    }

    func testOnlyOnePasswordCheckAtATimePerConnection() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let client = harness.connect(2)
        _ = harness.message(client, ["type": "login", "username": "ann", "password": "correct horse"], exhaustivity: .off)
        XCTAssertEqual(errorCode(harness.message(client, ["type": "login", "username": "ann",
                                                          "password": "correct horse"], exhaustivity: .off)), .rateLimited)
    }
}
