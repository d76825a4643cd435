import GatherModel
import GatherModelTestSupport
import XCTest

/// A TestStore for the pure rules, in the spirit of swift-composable-architecture's: every
/// `send` applies one action at the store's test time and asserts the WHOLE next state against
/// one the test builds by hand; every `reject` asserts the code, a readable message, and that
/// nothing at all changed. There is no clock: tests move `now` themselves.
final class GatherTestStore {
    /// 2025-11-22 08:26:40 UTC, an arbitrary but realistic epoch-ms start.
    static let start: Int64 = 1_763_800_000_000

    private(set) var state: GatherState
    private(set) var now: Int64
    /// The organiser who acts; `nil` would be the server.
    var organiser: String? = "ann"
    /// Whether the actions sent carry `confirmed: true` (the answer to a possible duplicate).
    var confirmed = false
    private var gathersCreated = 0

    init(_ state: GatherState = GatherState(), now: Int64 = GatherTestStore.start) {
        self.state = state
        self.now = now
    }

    /// The id the next `createGather` will receive.
    var nextGatherID: String { "gather-\(gathersCreated + 1)" }

    // MARK: - Time

    func advance(byMs milliseconds: Int64) { now += milliseconds }

    // MARK: - Sending actions

    /// Applies `action` and asserts the whole next state: `update` turns the current state into
    /// the expected one.
    func send(_ action: Action, file: StaticString = #filePath, line: UInt = #line,
              _ update: (inout GatherState) -> Void)
    {
        var expected = state
        update(&expected)
        var next = state
        let context = ActionContext(now: now, by: organiser, newGatherID: gatherID(for: action), confirmed: confirmed)
        switch GatherRules.apply(action, to: &next, context: context) {
        case .success:
            if action.createsGather { gathersCreated += 1 }
            XCTAssertEqual(next, expected, "whole state after \(action.kind)", file: file, line: line)
        case .failure(let rejection):
            XCTFail("\(action.kind) was rejected: \(rejection.code.rawValue) \(rejection.message)", file: file,
                    line: line)
        }
        state = next
    }

    /// Asserts that `action` is rejected with `code` and leaves the state exactly as it was.
    func reject(_ action: Action, code: RejectionCode, messageContains fragment: String? = nil,
                file: StaticString = #filePath, line: UInt = #line)
    {
        let before = state
        var next = state
        let context = ActionContext(now: now, by: organiser, newGatherID: gatherID(for: action), confirmed: confirmed)
        switch GatherRules.apply(action, to: &next, context: context) {
        case .success:
            XCTFail("\(action.kind) was applied but should be rejected with \(code.rawValue)", file: file, line: line)
        case .failure(let rejection):
            assert(rejection, code: code, contains: fragment, file: file, line: line)
        }
        XCTAssertEqual(next, before, "a rejected \(action.kind) changed the state", file: file, line: line)
        state = before
    }

    // MARK: - Sending wire JSON (decoder, then rules, as the Coordinator does)

    /// Decodes `json` like `command.action` from the wire, then applies it like `send`.
    func send(json: JSONValue, file: StaticString = #filePath, line: UInt = #line,
              _ update: (inout GatherState) -> Void)
    {
        switch ActionDecoder.decode(json) {
        case .success(let action): send(action, file: file, line: line, update)
        case .failure(let rejection):
            XCTFail("the decoder refused \(json): \(rejection.message)", file: file, line: line)
        }
    }

    /// Asserts that `json` is refused, by the decoder or by the rules, with `code`, and that
    /// the state is unchanged.
    func reject(json: JSONValue, code: RejectionCode, messageContains fragment: String? = nil,
                file: StaticString = #filePath, line: UInt = #line)
    {
        switch ActionDecoder.decode(json) {
        case .success(let action):
            reject(action, code: code, messageContains: fragment, file: file, line: line)
        case .failure(let rejection):
            assert(rejection, code: code, contains: fragment, file: file, line: line)
        }
    }

    // MARK: - The countdown

    /// Lets the rules finish a due countdown at the store's time and asserts the whole result.
    func expireTimer(file: StaticString = #filePath, line: UInt = #line, _ update: (inout GatherState) -> Void) {
        var expected = state
        update(&expected)
        XCTAssertTrue(GatherRules.expireTimer(&state, now: now), "the timer should have expired", file: file,
                      line: line)
        XCTAssertEqual(state, expected, "whole state after the timer expired", file: file, line: line)
    }

    /// Asserts that the countdown is not due yet: nothing changes.
    func expectNoExpiry(file: StaticString = #filePath, line: UInt = #line) {
        let before = state
        XCTAssertFalse(GatherRules.expireTimer(&state, now: now), "the timer expired early", file: file, line: line)
        XCTAssertEqual(state, before, file: file, line: line)
    }

    // MARK: - Helpers

    private func gatherID(for action: Action) -> String {
        if action.createsGather { return nextGatherID }
        return ""
    }

    private func assert(_ rejection: Rejection, code: RejectionCode, contains fragment: String?,
                        file: StaticString, line: UInt)
    {
        XCTAssertEqual(rejection.code, code, "rejected for: \(rejection.message)", file: file, line: line)
        XCTAssertTrue(rejection.message.contains { !$0.isWhitespace },
                       "a rejection needs a sentence a person can act on", file: file, line: line)
        if let fragment {
            XCTAssertTrue(rejection.message.contains(fragment), "\"\(rejection.message)\" should mention \(fragment)",
                          file: file, line: line)
        }
    }
}

// MARK: - Fixtures

extension GatherState {
    /// A roster of players with ids 1, 2, 3… in order and nothing else.
    static func roster(_ names: String...) -> GatherState {
        GatherState(players: names.enumerated().map { Player(id: $0.offset + 1, name: $0.element) },
                    nextPlayerID: names.count + 1)
    }
}

extension GatherTestStore {
    /// Ann (1), Bob (2), Cid (3) and Dan (4); a gather of all four in `setup` with Ann in
    /// Team A, Bob in Team B and Cid and Dan on the bench.
    static func setUpGather() -> GatherTestStore {
        var gather = ActiveGather(id: "gather-1", bench: [3, 4])
        gather.teamA.players = [1]
        gather.teamB.players = [2]
        var state = GatherState.roster("Ann", "Bob", "Cid", "Dan")
        state.gather = gather
        let store = GatherTestStore(state)
        store.gathersCreated = 1
        return store
    }

    /// The same line-up after kick-off: phase `live`, a kick-off event at `start`, timer at 10:00.
    static func liveGather() -> GatherTestStore {
        let store = setUpGather()
        store.state.gather!.phase = .live
        store.state.gather!.events = [GatherEvent(seq: 1, kind: .kickoff, at: start, by: "ann")]
        return store
    }
}
