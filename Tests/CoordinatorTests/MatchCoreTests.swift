@testable import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging
import XCTest

/// The gather/match scope alone: each event, the whole next state and every effect.
final class MatchCoreTests: XCTestCase {
    private let clock = TestClock()
    private var store: SQLiteStore!
    private var core: MatchCore!
    private let ann = ConnectionID(1)

    override func setUpWithError() throws {
        store = try SQLiteStore.inMemory()
        core = try makeCore()
    }

    private func makeCore() throws -> MatchCore {
        try MatchCore(store: store, environment: CoordinatorHarness.environment(clock: clock, counter: Counter()),
                      logger: Logger(label: "test"))
    }

    private func command(_ id: String, base: Int, _ action: JSONValue) throws -> Command {
        let text = JSONWriter.string(["type": "command", "id": .string(id), "base": .int(base), "action": action])
        guard case .success(let envelope) = ClientMessageDecoder.decode(text), case .command(let command) = envelope.message
        else { throw XCTSkip("not a command: \(text)") }
        return command
    }

    func testStartPublishesTheLoadedStateOnce() {
        XCTAssertEqual(core.start(), [.publishSnapshot(version: 0, state: GatherState())])
        XCTAssertEqual(core.countdownWakes, [:])
    }

    func testAnOrganisersCommandIsCommittedPublishedThenAcknowledged() throws {
        let effects = core.handle(.commandReceived(try command("c1", base: 0, ["kind": "addPlayer", "name": "Ann"]),
                                                   from: ann, organiser: "ann"))
        var expected = GatherState()
        expected.players = [Player(id: 1, name: "Ann")]
        expected.nextPlayerID = 2
        XCTAssertEqual(effects, [.publishSnapshot(version: 1, state: expected), .send(ann, .ack(id: "c1", version: 1))])
        XCTAssertEqual(core.state, expected)
        XCTAssertEqual(core.version, 1)
        XCTAssertEqual(core.replies.reply(organiser: "ann", commandID: "c1"), .ack(version: 1))
        XCTAssertEqual(core.tally.commandsApplied, 1)
        XCTAssertEqual(try store.load().version, 1)
    }

    func testAResentIDIsAnsweredFromMemoryWithTheSameAnswer() throws {
        let add = try command("c1", base: 0, ["kind": "addPlayer", "name": "Ann"])
        _ = core.handle(.commandReceived(add, from: ann, organiser: "ann"))
        let state = core.state
        XCTAssertEqual(core.handle(.commandReceived(add, from: ann, organiser: "ann")),
                       [.send(ann, .ack(id: "c1", version: 1))])
        XCTAssertEqual(core.state, state)
        XCTAssertEqual(core.version, 1)
        XCTAssertEqual(core.tally.commandsApplied, 1, "a replayed answer is not a new decision")
    }

    func testACommandWithoutAnOrganiserIsForbiddenAndChangesNothing() throws {
        let effects = core.handle(.commandReceived(try command("c1", base: 0, ["kind": "addPlayer", "name": "Ann"]),
                                                   from: ann, organiser: nil))
        XCTAssertEqual(effects, [.send(ann, .rejected(id: "c1", rejection: Rejection(
            .forbidden, .logInFirst, "Only organisers can change the gather; log in first."), version: 0))])
        XCTAssertEqual(core.state, GatherState())
        XCTAssertEqual(core.replies, ReplyWindow(), "nothing kept for a stranger")
        XCTAssertEqual(core.tally.rejectionsByCode, ["forbidden": 1])
    }

    func testARejectedCommandIsKeptWithItsVersion() throws {
        let effects = core.handle(.commandReceived(try command("c1", base: 0, ["kind": "removePlayer", "playerId": 9]),
                                                   from: ann, organiser: "ann"))
        guard effects.count == 1, case .send(ann, .rejected("c1", let rejection, 0)) = effects[0] else {
            return XCTFail("\(effects)")
        }
        XCTAssertEqual(core.replies.reply(organiser: "ann", commandID: "c1"),
                       .rejected(code: rejection.code, message: rejection.message, version: 0, reason: rejection.reason))
        XCTAssertEqual(try store.keptReplies(), [KeptReply(organiser: "ann", commandID: "c1", reply: .rejected(
            code: rejection.code, message: rejection.message, version: 0, reason: rejection.reason))])
        XCTAssertEqual(core.version, 0)
    }

    func testARefusedCommandIsRejectedAtTheCurrentVersionAndCounted() {
        let rejection = Rejection(.forbidden, "This address is for watching; organisers use the organiser page.")
        XCTAssertEqual(core.handle(.commandRefused(id: "c9", from: ann, rejection)),
                       [.send(ann, .rejected(id: "c9", rejection: rejection, version: 0))])
        XCTAssertEqual(core.tally.rejectionsByCode, ["forbidden": 1])
        XCTAssertEqual(core.replies, ReplyWindow(), "a refusal is not an answer kept for the id")
    }

    func testAMessageArrivingWithNoTimerRunningDoesNothing() {
        XCTAssertEqual(core.handle(.messageArrived), [])
        XCTAssertEqual(core.version, 0)
    }

    func testTheKeptAnswersAreLoadedAtStartSoARestartAnswersTheSame() throws {
        _ = core.handle(.commandReceived(try command("c1", base: 0, ["kind": "addPlayer", "name": "Ann"]),
                                         from: ann, organiser: "ann"))
        let restarted = try makeCore()
        XCTAssertEqual(restarted.replies, core.replies)
        XCTAssertEqual(restarted.handle(.commandReceived(try command("c1", base: 0, ["kind": "addPlayer", "name": "Ann"]),
                                                         from: ann, organiser: "ann")),
                       [.send(ann, .ack(id: "c1", version: 1))])
        XCTAssertEqual(restarted.state.players.map(\.name), ["Ann"])
    }
}

/// The in-memory window of answers keeps what the Store's table keeps.
final class ReplyWindowTests: XCTestCase {
    func testItPrunesEachOrganisersOldestAnswersAsTheStoreDoes() throws {
        let store = try SQLiteStore.inMemory()
        var window = ReplyWindow()
        for index in 1...5 {
            try store.recordReply(.ack(version: index), organiser: "ann", commandID: "a\(index)")
            window.remember(.ack(version: index), organiser: "ann", commandID: "a\(index)")
        }
        try store.recordReply(.ack(version: 9), organiser: "bob", commandID: "b1")
        window.remember(.ack(version: 9), organiser: "bob", commandID: "b1")
        window.remember(.ack(version: 99), organiser: "ann", commandID: "a1")
        XCTAssertEqual(window.reply(organiser: "ann", commandID: "a1"), .ack(version: 1), "the first answer stays")

        try store.prune(journalKept: 10, repliesPerOrganiser: 3)
        window.prune(keeping: 3)
        XCTAssertEqual(window, ReplyWindow(try store.keptReplies()))
        XCTAssertNil(window.reply(organiser: "ann", commandID: "a2"))
        XCTAssertEqual(window.reply(organiser: "ann", commandID: "a3"), .ack(version: 3))
        XCTAssertEqual(window.reply(organiser: "bob", commandID: "b1"), .ack(version: 9))
        XCTAssertNil(window.reply(organiser: "Bob", commandID: "b1"), "organisers are told apart exactly, as in SQLite")
        XCTAssertEqual(window.count, 4)
    }
}
