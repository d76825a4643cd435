@testable import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import XCTest

/// A group of three on the harness: ann (owner, connection 1), bob (connections 2 and 3: his
/// phone and his tablet), cid (connection 4), and a spectator (connection 9). The clock then
/// moves on 5 s, so presence is due again and the next step's effects are its own.
struct Group {
    let harness: CoordinatorHarness
    let ann: ConnectionID
    let bobPhone: ConnectionID
    let bobTablet: ConnectionID
    let cid: ConnectionID
    let spectator: ConnectionID
    /// The token of each organiser connection, from its `session`.
    var tokens: [ConnectionID: String] = [:]

    init(file: StaticString = #filePath, line: UInt = #line) throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        harness.clock.advance(byMs: 1000)
        bobPhone = harness.organiser(2, "bob")
        bobTablet = harness.connect(3, address: "10.0.0.3")
        cid = harness.organiser(4, "cid")
        spectator = harness.connect(9, address: "10.0.0.99")
        let tablet = bobTablet
        let effects = harness.message(bobTablet, ["type": "login", "username": "bob", "password": "correct horse"],
                                      exhaustivity: .off)
        guard case .verifyPassword(let job, _) = effects.first else {
            XCTFail("no password check: \(effects)", file: file, line: line)
            return
        }
        let granted = harness.send(.passwordChecked(job, matches: true), exhaustivity: .off)
        XCTAssertTrue(granted.contains { if case .send(tablet, .session(_?)) = $0 { true } else { false } },
                      file: file, line: line)
        // The spectator's arrival is published now, so each test's first change of presence is its own.
        harness.clock.advance(byMs: 5000)
        harness.send(.presenceWoke, exhaustivity: .off)
        harness.clock.advance(byMs: 5000)
        for client in [ann, bobPhone, bobTablet, cid] { tokens[client] = harness.token(of: client) }
    }

    func grant(_ client: ConnectionID, _ username: String, owner: Bool, invite: String = CoordinatorHarness.inviteCode)
        -> Effect
    {
        .send(client, .session(SessionGrant(username: username, token: tokens[client]!, inviteCode: invite, owner: owner)))
    }

    /// Sends an account message and returns its effects, unasserted.
    @discardableResult
    func account(_ client: ConnectionID, _ json: JSONValue, expect: [Effect]? = nil, file: StaticString = #filePath,
                 line: UInt = #line) -> [Effect] {
        harness.message(client, json, expect: expect, exhaustivity: expect == nil ? .off : .on, file: file, line: line)
    }

    /// Asserts that the message is answered with exactly one `error` of `code` (and changes nothing).
    func refused(_ client: ConnectionID, _ json: JSONValue, _ code: ErrorCode, containing fragment: String? = nil,
                 file: StaticString = #filePath, line: UInt = #line) {
        let effects = harness.message(client, json, exhaustivity: .off, file: file, line: line)
        guard effects.count == 1, case .send(client, .error(code, let message, let id, _)) = effects[0] else {
            return XCTFail("expected one \(code) error, got \(effects)", file: file, line: line)
        }
        XCTAssertEqual(id, json["id"]?.stringValue, file: file, line: line)
        if let fragment { XCTAssertTrue(message.contains(fragment), "“\(message)”", file: file, line: line) }
    }
}

extension CoordinatorHarness {
    /// The token the core holds for an organiser connection (read from the core, as a `session` pushed to it must carry it).
    func token(of client: ConnectionID) -> String? { core.accounts.clients[client]?.token }
}
