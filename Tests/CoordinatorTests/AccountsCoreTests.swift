@testable import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging
import XCTest

/// The accounts/group scope alone: each event, the whole next state and every effect.
final class AccountsCoreTests: XCTestCase {
    private let clock = TestClock()
    private var store: SQLiteStore!
    private let phone = ConnectionID(1)

    override func setUpWithError() throws {
        store = try SQLiteStore.inMemory()
    }

    private func makeCore(inviteCode: String? = CoordinatorHarness.inviteCode) throws -> AccountsCore {
        var environment = CoordinatorHarness.environment(clock: clock, counter: Counter(), inviteCode: inviteCode)
        environment.newInviteCode = { "DRAWN12345" }
        return try AccountsCore(store: store, environment: environment, logger: Logger(label: "test"))
    }

    private func job(_ purpose: PasswordJob.Purpose = .register, _ username: String = "ann") -> PasswordJob {
        PasswordJob(client: phone, purpose: purpose, username: username, password: "correct horse", requestID: "r1")
    }

    // MARK: - The invite code has one writer

    func testTheFirstStartDrawsAnInviteCodeAndKeepsIt() throws {
        let core = try makeCore(inviteCode: nil)
        XCTAssertEqual(core.inviteCode, "DRAWN12345")
        XCTAssertEqual(try store.inviteCode(), "DRAWN12345")
        XCTAssertEqual(try makeCore(inviteCode: nil).inviteCode, "DRAWN12345", "kept across a restart")
    }

    func testTheOperatorsCodeReplacesTheKeptOne() throws {
        _ = try makeCore(inviteCode: nil)
        XCTAssertEqual(try makeCore(inviteCode: "FROMFLAG99").inviteCode, "FROMFLAG99")
        XCTAssertEqual(try store.inviteCode(), "FROMFLAG99")
        XCTAssertEqual(try makeCore(inviteCode: nil).inviteCode, "FROMFLAG99")
    }

    // MARK: - Connections and registration

    func testAConnectionIsASpectatorWithNothingToSay() throws {
        let core = try makeCore()
        XCTAssertEqual(core.handle(.clientConnected(phone, address: "10.0.0.1")), [])
        XCTAssertEqual(core.clients.sessions.keys.sorted(), [phone])
        XCTAssertEqual(core.clients[phone]?.role, .spectator)
        XCTAssertNil(core.organiser(phone))
        XCTAssertEqual(core.tally, DecisionTally())
    }

    func testRegisteringRunsTheKDFThenGrantsASession() throws {
        let core = try makeCore()
        _ = core.handle(.clientConnected(phone, address: "10.0.0.1"))
        let credentials = Credentials(username: "ann", password: "correct horse")
        XCTAssertEqual(core.handle(.registrationReceived(credentials, inviteCode: "kickoff1", id: "r1", from: phone)),
                       [.hashPassword(job())])
        XCTAssertEqual(core.clients[phone]?.awaitingPassword, true)
        XCTAssertEqual(core.tally.passwordChecksRunning, 1)

        let token = "token-100000000000"
        XCTAssertEqual(core.handle(.passwordHashed(job(), encodedHash: "kdf(correct horse)")), [
            .send(phone, .session(SessionGrant(username: "ann", token: token, inviteCode: CoordinatorHarness.inviteCode,
                                               owner: true))),
        ])
        XCTAssertEqual(core.organiser(phone), "ann")
        XCTAssertEqual(core.clients[phone]?.tokenHash, "hashed:" + token)
        XCTAssertEqual(core.clients[phone]?.awaitingPassword, false)
        XCTAssertEqual(core.tally.passwordChecksRunning, 0)
        XCTAssertEqual(try store.organiser(username: "ann")?.owner, true)
    }

    func testAWrongInviteCodeIsAnErrorAndStartsNoKDF() throws {
        let core = try makeCore()
        _ = core.handle(.clientConnected(phone, address: "10.0.0.1"))
        XCTAssertEqual(core.handle(.registrationReceived(Credentials(username: "ann", password: "correct horse"),
                                                         inviteCode: "WRONG", id: "r1", from: phone)), [
            .send(phone, .error(code: .badInvite,
                                message: "That invite code is not right; ask an organiser for the current one.", id: "r1")),
        ])
        XCTAssertEqual(core.tally.errorsByCode, ["bad_invite": 1])
        XCTAssertEqual(core.tally.passwordChecksRunning, 0)
        XCTAssertNil(try store.organiser(username: "ann"))
    }

    func testASpectatorLoggingOutIsToldItHasNoSession() throws {
        let core = try makeCore()
        _ = core.handle(.clientConnected(phone, address: "10.0.0.1"))
        XCTAssertEqual(core.handle(.logoutReceived(id: nil, from: phone)), [.send(phone, .session(nil))])
    }

    func testALeavingPhoneIsForgotten() throws {
        let core = try makeCore()
        _ = core.handle(.clientConnected(phone, address: "10.0.0.1"))
        XCTAssertEqual(core.handle(.clientDisconnected(phone)), [])
        XCTAssertTrue(core.clients.sessions.isEmpty)
    }

    func testItClaimsEveryMessageButCommands() throws {
        let core = try makeCore()
        let command = Arrival(client: phone, id: "c", message: .command(Command(id: "c", base: 0, action: .failure(
            Rejection(.invalid, "x")))), organiser: "ann")
        XCTAssertNil(core.event(for: command))
        XCTAssertEqual(core.event(for: Arrival(client: phone, id: "l", message: .logout, organiser: nil)),
                       .logoutReceived(id: "l", from: phone))
    }
}
