import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// Accounts through the core, every step's effects asserted in full.
final class AccountTests: XCTestCase {
    // MARK: - The answers, as the server words them

    private static let wrong = "Wrong username or password."
    private static let locked = "Too many failed attempts; wait a minute and try again."
    private static let busy = "The server is busy checking passwords; try again in a moment."
    private static let stillChecking = "Still checking your last attempt; wait a moment."
    private static let addressWaiting = "A password check from your address is already waiting; try again in a moment."
    private static let ended = "That session has ended; log in again."
    private static let invite = CoordinatorHarness.inviteCode

    /// The sentence key each of these messages is sent with (docs/PROTOCOL.md "Sentences as keys").
    private static let reasons: [String: Sentence] = [
        wrong: Sentence(.wrongCredentials), ended: Sentence(.sessionOver),
        "A username is 3–32 letters, digits, '_', '.' or '-'.": Sentence(.usernameRule),
        "A password is 8–128 characters.": Sentence(.passwordRule),
        "The username Ann is taken; choose another.": Sentence(.usernameTaken, ["username": .text("Ann")]),
    ]

    private func error(_ client: ConnectionID, _ code: ErrorCode, _ message: String, id: String? = nil) -> Effect {
        .send(client, .error(code: code, message: message, id: id, reason: Self.reasons[message]))
    }

    /// Each test's first account is ann, so ann owns the group (release 3's `session.owner`).
    private func session(_ client: ConnectionID, _ username: String, token: String) -> Effect {
        .send(client, .session(SessionGrant(username: username, token: token, inviteCode: Self.invite,
                                            owner: username == "ann")))
    }

    private func loginJob(_ client: ConnectionID, _ username: String, _ password: String, id: String? = nil) -> PasswordJob {
        PasswordJob(client: client, purpose: .login, username: username, password: password, requestID: id)
    }

    /// Sends a login that must start (or queue) a check against `hash`; returns its job.
    @discardableResult
    private func login(_ harness: CoordinatorHarness, _ client: ConnectionID, _ username: String, _ password: String,
                       against hash: String = "kdf(correct horse)", storedAs stored: String = "ann",
                       starts: Bool = true, also: [Effect] = [], file: StaticString = #filePath, line: UInt = #line)
        -> PasswordJob
    {
        let job = loginJob(client, stored, password)
        harness.message(client, ["type": "login", "username": .string(username), "password": .string(password)],
                        expect: (starts ? [.verifyPassword(job, against: hash)] : []) + also, file: file, line: line)
        return job
    }

    private func token(_ number: Int) -> String {
        "token-" + String(number).padding(toLength: 12, withPad: "0", startingAt: 0)
    }

    // MARK: - Register

    func testRegisterRunsTheKDFOffTheQueueThenGrantsASession() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        let job = PasswordJob(client: client, purpose: .register, username: "ann", password: "long enough",
                              requestID: "r1")
        harness.message(client, ["type": "register", "id": "r1", "username": "ann", "password": "long enough",
                                 "inviteCode": .string(CoordinatorHarness.inviteCode.lowercased())],
                        expect: [.hashPassword(job)])
        harness.clock.advance(byMs: 2000)
        harness.send(.passwordHashed(job, encodedHash: "kdf"), expect: [
            session(client, "ann", token: "token-100000000000"),
            .publishPresence(organisers: ["ann"], spectators: 0),
        ])
        XCTAssertEqual(try harness.store.organiser(username: "ANN")?.passwordHash, "kdf")
        XCTAssertFalse(String(describing: job).contains("long enough"), "a job never prints the password")
    }

    func testRegisterRejectsBadInviteInvalidFieldsAndTakenNames() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let client = harness.connect(2, address: "10.0.0.3")
        func register(_ username: JSONValue, _ password: JSONValue, _ invite: JSONValue, expect: [Effect],
                      line: UInt = #line) {
            harness.message(client, ["type": "register", "username": username, "password": password, "inviteCode": invite],
                            expect: expect, line: line)
        }
        register("bob", "long enough", "WRONG",
                 expect: [error(client, .badInvite, "That invite code is not right; ask an organiser for the current one.")])
        let badName = "A username is 3–32 letters, digits, '_', '.' or '-'."
        register("b", "long enough", .string(Self.invite), expect: [error(client, .invalid, badName)])
        register("bob!", "long enough", .string(Self.invite), expect: [error(client, .invalid, badName)])
        register("bob", "short", .string(Self.invite), expect: [error(client, .invalid, "A password is 8–128 characters.")])
        register("Ann", "long enough", .string(Self.invite),
                 expect: [error(client, .usernameTaken, "The username Ann is taken; choose another.")])
        // Five failures from this address: even a good registration is refused now.
        register("carl", "long enough", .string(Self.invite), expect: [error(client, .rateLimited, Self.locked)])
        harness.clock.advance(byMs: 60_000)
        register("carl", "long enough", .string(Self.invite), expect: [
            .hashPassword(PasswordJob(client: client, purpose: .register, username: "carl", password: "long enough",
                                      requestID: nil)),
            .publishPresence(organisers: ["ann"], spectators: 1),
        ])
        harness.skipInFlightEffects()
    }

    // MARK: - Login limits

    /// docs/PROTOCOL.md "Limits against abuse": five failures lock the ADDRESS they came from, the
    /// right password included, and never the same username from another phone.
    func testFiveWrongPasswordsLockTheirAddressForAMinuteButNotTheOrganiserElsewhere() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let stranger = harness.connect(10, address: "10.0.1.66")
        for _ in 0..<5 {
            let job = login(harness, stranger, "ann", "wrong password")
            harness.send(.passwordChecked(job, matches: false), expect: [error(stranger, .unauthorized, Self.wrong)])
        }
        let sameAddress = harness.connect(11, address: "10.0.1.66")
        harness.message(sameAddress, ["type": "login", "username": "ANN", "password": "correct horse"],
                        expect: [error(sameAddress, .rateLimited, Self.locked)])
        let owner = harness.connect(20, address: "10.0.2.1")
        let job = login(harness, owner, "ann", "correct horse")
        harness.send(.passwordChecked(job, matches: true), expect: [session(owner, "ann", token: token(2))])
        harness.clock.advance(byMs: 60_000)
        // The minute also let the presence held back since the owner signed in go out.
        let later = login(harness, sameAddress, "ann", "correct horse",
                          also: [.publishPresence(organisers: ["ann"], spectators: 2)])
        harness.send(.passwordChecked(later, matches: true), expect: [session(sameAddress, "ann", token: token(3))])
    }

    /// An attempt counts the moment it is admitted, so twelve sent at once cannot all be tried;
    /// one address has one check at a time, running or waiting, and a refusal for that counts as
    /// a failure. The refusal that locks the address out abandons its running check: answered
    /// at once, its thread lowered, its place free, and its result ignored when it comes (the
    /// lock-out holds for the right password too).
    func testAttemptsSentInParallelCountBeforeTheirPasswordsAreChecked() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var started: [PasswordJob] = []
        let first = ConnectionID(100)
        for number in 0..<12 {
            let client = harness.connect(UInt64(100 + number), address: "10.0.3.3")
            let password = "guess \(number)00"
            switch number {
            case 0: started.append(login(harness, client, "ann", password))
            case 1..<4:
                harness.message(client, ["type": "login", "username": "ann", "password": .string(password)],
                                expect: [error(client, .rateLimited, Self.addressWaiting)])
            case 4:
                harness.message(client, ["type": "login", "username": "ann", "password": .string(password)],
                                expect: [error(client, .rateLimited, Self.addressWaiting), error(first, .rateLimited, Self.locked),
                                         .lowerPasswordCheck(first)])
            default:
                harness.message(client, ["type": "login", "username": "ann", "password": .string(password)],
                                expect: [error(client, .rateLimited, Self.locked)])
            }
        }
        XCTAssertEqual(started.count, 1, "one password check from this address at a time")
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [0, 0])
        harness.send(.passwordChecked(started[0], matches: true), expect: [])
        harness.skipInFlightEffects()
    }

    /// Issue 20: a "busy" refusal is not free. Sixteen strangers' addresses wait; the seventeenth
    /// address that already failed is refused "busy", and that refusal is one of its five.
    func testABusyRefusalCountsAsAFailedAttemptOfItsAddress() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let prober = harness.connect(300, address: "10.2.0.99")
        for _ in 0..<4 {
            let job = login(harness, prober, "ann", "wrong password")
            harness.send(.passwordChecked(job, matches: false), expect: [error(prober, .unauthorized, Self.wrong)])
        }
        for number in 0..<18 {
            let client = harness.connect(UInt64(400 + number), address: "10.2.1.\(number)")
            login(harness, client, "ann", "correct horse", starts: number < 2)
        }
        harness.message(prober, ["type": "login", "username": "ann", "password": "wrong password"],
                        expect: [error(prober, .rateLimited, Self.busy)])
        // That refusal was its fifth: locked now, even once there is room again.
        harness.clock.advance(byMs: 1)
        harness.message(prober, ["type": "login", "username": "ann", "password": "correct horse"],
                        expect: [error(prober, .rateLimited, Self.locked)])
        harness.skipInFlightEffects()
    }

    /// Addresses that failed recently run one check at a time between them and cannot take the
    /// last waiting places: the organiser's clean address is checked at once, beside theirs, however
    /// many of theirs wait.
    func testACleanAddressIsCheckedAtOnceWhileStrangersThatFailedWait() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        // Thirty addresses fail once each (their first attempts were clean, so they ran).
        for number in 0..<30 {
            let client = harness.connect(UInt64(500 + number), address: "10.3.0.\(number)")
            let job = login(harness, client, "ann", "wrong password")
            harness.send(.passwordChecked(job, matches: false), expect: [error(client, .unauthorized, Self.wrong)])
        }
        // Now they try again all at once: one runs, fourteen wait, the rest are refused "busy".
        var running: [PasswordJob] = []
        for number in 0..<30 {
            let client = ConnectionID(UInt64(500 + number))
            switch number {
            case 0: running.append(login(harness, client, "ann", "wrong again"))
            case 1..<15: login(harness, client, "ann", "wrong again", starts: false)
            default:
                harness.message(client, ["type": "login", "username": "ann", "password": "wrong again"],
                                expect: [error(client, .rateLimited, Self.busy)])
            }
        }
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [1, 14])
        // The organiser, from a clean address, takes the place kept for it: checked at once, and the
        // running stranger's check makes way (a lower priority) from then on.
        let owner = harness.connect(600, address: "10.3.9.9")
        let ownerJob = login(harness, owner, "ann", "correct horse", also: [.lowerPasswordCheck(ConnectionID(500))])
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 14])
        harness.send(.passwordChecked(ownerJob, matches: true), expect: [session(owner, "ann", token: token(2))])
        harness.send(.passwordChecked(running[0], matches: false), expect: [
            error(ConnectionID(500), .unauthorized, Self.wrong),
            .verifyPassword(loginJob(ConnectionID(501), "ann", "wrong again"), against: "kdf(correct horse)"),
        ])
        harness.skipInFlightEffects()
    }

    /// The 50-address attack in small: every waiting place is taken by addresses whose second
    /// connection was refused (a failure, so they are no longer clean); the organiser's clean
    /// address pushes out the newest of them and is checked next.
    func testACleanAddressPushesOutTheNewestCheckOfAnAddressThatFailed() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var jobs: [PasswordJob] = []
        for number in 0..<18 {
            let first = harness.connect(UInt64(700 + number), address: "10.4.0.\(number)")
            jobs.append(login(harness, first, "ann", "wrong password", starts: number < 2))
            guard number >= 2 else { continue }
            let second = harness.connect(UInt64(800 + number), address: "10.4.0.\(number)")
            harness.message(second, ["type": "login", "username": "ann", "password": "wrong password"],
                            expect: [error(second, .rateLimited, Self.addressWaiting)])
        }
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 16])
        let owner = harness.connect(900, address: "10.4.9.9")
        let ownerJob = login(harness, owner, "ann", "correct horse", starts: false,
                             also: [error(ConnectionID(717), .rateLimited, Self.busy)])
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 16])
        harness.send(.passwordChecked(jobs[0], matches: false), expect: [
            error(ConnectionID(700), .unauthorized, Self.wrong), .verifyPassword(ownerJob, against: "kdf(correct horse)"),
        ])
        harness.send(.passwordChecked(ownerJob, matches: true), expect: [
            session(owner, "ann", token: token(2)), .verifyPassword(jobs[2], against: "kdf(correct horse)"),
        ])
        // Theirs run one at a time now: the place that frees stays kept for a clean address.
        harness.send(.passwordChecked(jobs[1], matches: false), expect: [error(ConnectionID(701), .unauthorized, Self.wrong)])
        harness.send(.passwordChecked(jobs[2], matches: false), expect: [
            error(ConnectionID(702), .unauthorized, Self.wrong), .verifyPassword(jobs[3], against: "kdf(correct horse)"),
        ])
        // The pushed-out phone's answer came; its check never will.
        XCTAssertFalse(harness.inFlightJobs.contains(jobs[17]))
        harness.skipInFlightEffects()
    }

    /// An address locked out while one of its checks waits loses that check unchecked, the moment
    /// the lock falls: a crowd's waiting guesses, refused from then on anyway, no longer keep a
    /// core on the KDF nor fill the queue until the next check ends.
    func testAWaitingCheckOfAnAddressLockedOutMeanwhileIsDroppedUnchecked() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let first = login(harness, harness.connect(1000, address: "10.5.0.1"), "ann", "wrong password")
        login(harness, harness.connect(1001, address: "10.5.0.2"), "ann", "wrong password")
        let guesser = harness.connect(1002, address: "10.5.0.9")
        let waiting = login(harness, guesser, "ann", "wrong password", starts: false)
        let other = harness.connect(1003, address: "10.5.0.9")
        for _ in 0..<3 {
            harness.message(other, ["type": "login", "username": "ann", "password": "wrong password"],
                            expect: [error(other, .rateLimited, Self.addressWaiting)])
        }
        harness.message(other, ["type": "login", "username": "ann", "password": "wrong password"],
                        expect: [error(other, .rateLimited, Self.addressWaiting), error(guesser, .rateLimited, Self.locked)])
        XCTAssertEqual(harness.tally.passwordChecksWaiting, 0)
        harness.message(other, ["type": "login", "username": "ann", "password": "wrong password"],
                        expect: [error(other, .rateLimited, Self.locked)])
        harness.send(.passwordChecked(first, matches: false), expect: [error(ConnectionID(1000), .unauthorized, Self.wrong)])
        XCTAssertFalse(harness.inFlightJobs.contains(waiting))
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [1, 0])
        harness.skipInFlightEffects()
    }

    /// A crowd's first two guesses start while their fresh addresses are still clean and hold both
    /// places; their second connections' guesses lock those addresses out within a fraction of a
    /// second. Their checks then give up their places, so a phone that opens the page afterwards,
    /// from an address never seen, is checked at once instead of waiting for the crowd's lowered
    /// runs to end (4–7 s on a busy laptop, and more).
    func testChecksOfAddressesLockedOutWhileRunningLeaveTheirPlacesToANewPhone() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var crowd: [PasswordJob] = []
        for host in 0..<2 {
            let first = harness.connect(UInt64(700 + 2 * host), address: "10.7.0.\(host)")
            let second = harness.connect(UInt64(701 + 2 * host), address: "10.7.0.\(host)")
            crowd.append(login(harness, first, "ann", "guess one"))
            for _ in 0..<3 {
                harness.message(second, ["type": "login", "username": "ann", "password": "another guess"],
                                expect: [error(second, .rateLimited, Self.addressWaiting)])
            }
            harness.message(second, ["type": "login", "username": "ann", "password": "another guess"],
                            expect: [error(second, .rateLimited, Self.addressWaiting), error(first, .rateLimited, Self.locked),
                                     .lowerPasswordCheck(first)])
        }
        XCTAssertEqual(harness.tally.passwordChecksRunning, 0, "both places are free again")
        let phone = harness.connect(800, address: "10.7.9.9")
        let job = login(harness, phone, "ann", "correct horse")
        harness.send(.passwordChecked(job, matches: true), expect: [session(phone, "ann", token: token(2))])
        // The crowd's runs end later; their results change nothing, and free no place twice.
        harness.send(.passwordChecked(crowd[0], matches: true), expect: [])
        harness.send(.passwordChecked(crowd[1], matches: false), expect: [])
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [0, 0])
        harness.skipInFlightEffects()
    }

    func testASuccessTakesItsAttemptBack() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let phone = harness.connect(30, address: "10.0.4.4")
        var tokens = 1
        for round in 0..<8 {
            let right = round.isMultiple(of: 2)
            let job = login(harness, phone, "ann", right ? "correct horse" : "wrong password")
            if right {
                tokens += 1
                harness.send(.passwordChecked(job, matches: true), expect: [session(phone, "ann", token: token(tokens))])
            } else {
                harness.send(.passwordChecked(job, matches: false), expect: [error(phone, .unauthorized, Self.wrong)])
            }
        }
        // Four failures and four successes: the successes did not count, so a fifth try is admitted.
        login(harness, phone, "ann", "correct horse")
        harness.skipInFlightEffects()
    }

    func testAtMostTwoPasswordChecksRunAndSixteenWaitInTheWholeServer() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        var jobs: [PasswordJob] = []
        for number in 0..<20 {
            let client = harness.connect(UInt64(200 + number), address: "10.1.0.\(number)")
            switch number {
            case 0..<18: jobs.append(login(harness, client, "ann", "correct horse", starts: number < 2))
            default:
                harness.message(client, ["type": "login", "username": "ann", "password": "correct horse"],
                                expect: [error(client, .rateLimited, Self.busy)])
            }
        }
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 16])
        // One finishes: the next waiting one (#202) starts, and the peak stays two.
        harness.send(.passwordChecked(jobs[0], matches: true), expect: [
            session(ConnectionID(200), "ann", token: token(2)),
            .verifyPassword(jobs[2], against: "kdf(correct horse)"),
        ])
        XCTAssertEqual(harness.tally.passwordChecksPeak, 2)
        XCTAssertEqual([harness.tally.passwordChecksRunning, harness.tally.passwordChecksWaiting], [2, 15])
        // A waiting phone that leaves (#203) is not checked at all: #204 is next.
        harness.send(.clientDisconnected(ConnectionID(203)))
        XCTAssertEqual(harness.tally.passwordChecksWaiting, 14, "a phone that left no longer waits")
        harness.send(.passwordChecked(jobs[1], matches: true), expect: [
            session(ConnectionID(201), "ann", token: token(3)),
            .verifyPassword(jobs[4], against: "kdf(correct horse)"),
        ])
        XCTAssertEqual(harness.skipInFlightEffects(), [jobs[2], jobs[4]])
    }

    func testAnUnknownUsernameStillRunsTheKDFAgainstTheDecoy() throws {
        let harness = try CoordinatorHarness()
        let client = harness.connect(1)
        let job = login(harness, client, "nobody", "whatever1", against: "decoy", storedAs: "nobody")
        harness.send(.passwordChecked(job, matches: true), expect: [error(client, .unauthorized, Self.wrong)])
    }

    // MARK: - Sessions

    func testResumeRestoresTheRoleAndLogoutRevokesTheTokenEverywhere() throws {
        let harness = try CoordinatorHarness()
        let phone = harness.connect(1)
        let job = PasswordJob(client: phone, purpose: .register, username: "ann", password: "long enough",
                              requestID: nil)
        harness.message(phone, ["type": "register", "username": "ann", "password": "long enough",
                                "inviteCode": .string(Self.invite)], expect: [.hashPassword(job)])
        harness.send(.passwordHashed(job, encodedHash: "kdf"), expect: [
            session(phone, "ann", token: token(1)), .schedulePresence(at: harness.clock.now + 1000),
        ])

        let tablet = harness.connect(2)
        harness.message(tablet, ["type": "resume", "id": "r", "token": .string(token(1))],
                        expect: [session(tablet, "ann", token: token(1))])
        harness.message(phone, ["type": "logout"], expect: [.send(phone, .session(nil)), .send(tablet, .session(nil))])
        let third = harness.connect(3)
        harness.message(third, ["type": "resume", "token": .string(token(1))], expect: [error(third, .unauthorized, Self.ended)])
        harness.rejected(tablet, id: "after", ["kind": "addPlayer", "name": "X"], code: .forbidden)
    }

    func testResumeExpiresAfterThirtyDaysUnused() throws {
        let harness = try CoordinatorHarness()
        let phone = harness.connect(1)
        let job = PasswordJob(client: phone, purpose: .register, username: "ann", password: "long enough",
                              requestID: nil)
        harness.message(phone, ["type": "register", "username": "ann", "password": "long enough",
                                "inviteCode": .string(Self.invite)], expect: [.hashPassword(job)])
        harness.send(.passwordHashed(job, encodedHash: "kdf"), expect: [
            session(phone, "ann", token: token(1)), .schedulePresence(at: harness.clock.now + 1000),
        ])
        harness.clock.advance(byMs: 29 * 24 * 3600 * 1000)
        let second = harness.connect(2)
        harness.message(second, ["type": "resume", "token": .string(token(1))], expect: [session(second, "ann", token: token(1))])
        harness.clock.advance(byMs: 30 * 24 * 3600 * 1000 + 1)
        let third = harness.connect(3)
        harness.message(third, ["type": "resume", "token": .string(token(1))], expect: [error(third, .unauthorized, Self.ended)])
    }

    func testOnlyOnePasswordCheckAtATimePerConnection() throws {
        let harness = try CoordinatorHarness()
        harness.organiser(1, "ann")
        let client = harness.connect(2)
        let job = login(harness, client, "ann", "correct horse")
        harness.message(client, ["type": "login", "username": "ann", "password": "correct horse"],
                        expect: [error(client, .rateLimited, Self.stillChecking)])
        harness.send(.passwordChecked(job, matches: true), expect: [session(client, "ann", token: token(2))])
    }
}
