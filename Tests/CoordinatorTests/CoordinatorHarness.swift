import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import GatherStore
import Logging
import XCTest

/// Whether a step must account for every effect it produces (TCA's exhaustivity). Off is the
/// explicit opt-out for steps that only set the scene, or whose effects the test inspects itself.
enum Exhaustivity { case on, off }

/// A TestStore for the Coordinator's core: a test clock, counters for ids and tokens, a real
/// in-memory SQLite store, and assertions on the whole next state and every effect. Exhaustive by
/// default: a step that produces an effect the test did not expect fails. Like TCA's `TestStore`
/// at deinit, a test also fails when it ends with work still in flight: a password check (KDF)
/// an effect started whose result the test never fed back (`passwordHashed`/`passwordChecked`),
/// unless it says so with `skipInFlightEffects()`.
final class CoordinatorHarness {
    let clock = TestClock()
    let store: SQLiteStore
    private(set) var core: CoordinatorCore
    private let counter = Counter()

    static let inviteCode = "KICKOFF1"
    static let start: Int64 = 1_763_800_000_000

    let limits: CoordinatorEnvironment.Limits
    /// KDF jobs started by an effect and not yet answered by their event, with where they started.
    private var inFlight: [(job: PasswordJob, file: StaticString, line: UInt)] = []

    /// The store the core writes to: `store` itself, or the fault-injecting wrapper around it.
    let coreStore: GatherStore

    init(store: SQLiteStore? = nil, faults: FaultInjectingStore? = nil, limits: CoordinatorEnvironment.Limits = .init(),
         file: StaticString = #filePath, line: UInt = #line) throws {
        self.store = try faults?.real ?? store ?? SQLiteStore.inMemory()
        self.coreStore = faults ?? self.store
        self.limits = limits
        core = try CoordinatorCore(store: coreStore,
                                   environment: Self.environment(clock: clock, counter: counter, limits: limits),
                                   logger: Logger(label: "test"))
    }

    deinit {
        for work in inFlight {
            XCTFail("""
                a password check was still in flight when the test ended: \(work.job) (feed back its \
                passwordHashed/passwordChecked, or call skipInFlightEffects())
                """, file: work.file, line: work.line)
        }
    }

    /// Says the test deliberately ends with these password checks unanswered (TCA's
    /// `skipInFlightEffects`); returns them.
    @discardableResult
    func skipInFlightEffects() -> [PasswordJob] {
        defer { inFlight = [] }
        return inFlight.map(\.job)
    }

    /// Password checks started and not answered yet.
    var inFlightJobs: [PasswordJob] { inFlight.map(\.job) }

    /// A new core on the same store, as after a restart without `--invite-code` (the kept code stays).
    func restart() throws -> [Effect] {
        core = try CoordinatorCore(store: coreStore, environment: Self.environment(clock: clock, counter: counter, limits: limits,
                                                                               inviteCode: nil),
                                   logger: Logger(label: "test"))
        return core.start()
    }

    static func environment(clock: TestClock, counter: Counter, limits: CoordinatorEnvironment.Limits = .init(),
                            inviteCode: String? = inviteCode) -> CoordinatorEnvironment
    {
        CoordinatorEnvironment(
            now: { clock.now },
            newGatherID: { "gather-\(counter.next())" },
            newToken: { "token-\(String(counter.next()).padding(toLength: 12, withPad: "0", startingAt: 0))" },
            hashToken: { "hashed:" + $0 },
            inviteCode: inviteCode,
            decoyPasswordHash: "decoy",
            newRefereeCode: { "code" + String(counter.next()).leftPadded(to: 18) },
            limits: limits)
    }

    // MARK: - Sending

    /// Sends an event and asserts every effect it produced, in order. With exhaustivity on (the
    /// default) a step without `expect` must produce no effect at all.
    @discardableResult
    func send(_ event: CoordinatorEvent, expect expected: [Effect]? = nil, exhaustivity: Exhaustivity = .on,
              file: StaticString = #filePath, line: UInt = #line) -> [Effect] {
        let effects = core.handle(event)
        track(event, effects, file: file, line: line)
        if let expected {
            XCTAssertEqual(effects, expected, file: file, line: line)
        } else if exhaustivity == .on, !effects.isEmpty {
            XCTFail("unasserted effects: \(effects) (pass expect:, or exhaustivity: .off to inspect them yourself)",
                    file: file, line: line)
        }
        return effects
    }

    /// Keeps the in-flight list: a KDF effect starts a job, its event ends it.
    private func track(_ event: CoordinatorEvent, _ effects: [Effect], file: StaticString, line: UInt) {
        switch event {
        case .passwordHashed(let job, _), .passwordChecked(let job, _):
            guard let index = inFlight.firstIndex(where: { $0.job == job }) else {
                return XCTFail("\(job) was answered but never started", file: file, line: line)
            }
            inFlight.remove(at: index)
        default: break
        }
        for effect in effects {
            switch effect {
            case .hashPassword(let job), .verifyPassword(let job, _): inFlight.append((job, file, line))
            default: break
            }
        }
    }

    @discardableResult
    func message(_ client: ConnectionID, _ json: JSONValue, expect expected: [Effect]? = nil,
                 exhaustivity: Exhaustivity = .on, file: StaticString = #filePath, line: UInt = #line) -> [Effect] {
        send(.messageReceived(client, text: JSONWriter.string(json)), expect: expected, exhaustivity: exhaustivity,
             file: file, line: line)
    }

    /// Sends a command and asserts the WHOLE next state: `update` turns the old state into the
    /// expected one. Expects exactly a snapshot, then `also` (e.g. the countdown's scheduling), then
    /// the ack — and nothing else.
    @discardableResult
    func command(_ client: ConnectionID, id: String, base: Int? = nil, _ action: JSONValue, also: [Effect] = [],
                 update: (inout GatherState) -> Void, file: StaticString = #filePath, line: UInt = #line)
        -> [Effect]
    {
        var expected = core.state
        update(&expected)
        let version = core.version + 1
        let effects = message(client, ["type": "command", "id": .string(id), "base": .int(base ?? core.version),
                                       "action": action],
                              expect: [.publishSnapshot(version: version, state: expected),
                                       .send(client, .ack(id: id, version: version))] + also,
                              file: file, line: line)
        XCTAssertEqual(core.state, expected, "whole state", file: file, line: line)
        XCTAssertEqual(core.version, version, file: file, line: line)
        return effects
    }

    /// Sends a command that must be rejected: the state and version stay exactly as they were.
    func rejected(_ client: ConnectionID, id: String, base: Int? = nil, _ action: JSONValue, code: RejectionCode,
                  messageContains: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let before = core.state
        let version = core.version
        let effects = message(client, ["type": "command", "id": .string(id), "base": .int(base ?? core.version),
                                       "action": action], exhaustivity: .off, file: file, line: line)
        XCTAssertEqual(core.state, before, "state unchanged", file: file, line: line)
        XCTAssertEqual(core.version, version, file: file, line: line)
        guard effects.count == 1, case .send(client, .rejected(id, let rejection, version)) = effects[0] else {
            return XCTFail("expected one rejection, got \(effects)", file: file, line: line)
        }
        XCTAssertEqual(rejection.code, code, rejection.message, file: file, line: line)
        if let messageContains {
            XCTAssertTrue(rejection.message.contains(messageContains), "“\(rejection.message)”", file: file, line: line)
        }
    }

    // MARK: - Setting the scene

    /// Applies a command while setting the scene: it must be acknowledged, its effects are not asserted.
    func prepare(_ client: ConnectionID, id: String, _ action: JSONValue, file: StaticString = #filePath,
                 line: UInt = #line) {
        let effects = message(client, ["type": "command", "id": .string(id), "base": .int(core.version), "action": action],
                              exhaustivity: .off, file: file, line: line)
        XCTAssertTrue(effects.contains { if case .send(client, .ack(id, _)) = $0 { true } else { false } },
                      "setting the scene: \(id) was not applied: \(effects)", file: file, line: line)
    }

    /// Connects a client and consumes its welcome (and whatever presence it causes).
    func connect(_ number: UInt64, address: String = "10.0.0.9") -> ConnectionID {
        let client = ConnectionID(number)
        let effects = send(.clientConnected(client, address: address), exhaustivity: .off)
        XCTAssertEqual(effects.first, .greet(client, .welcome(serverTime: clock.now)))
        XCTAssertTrue(effects.dropFirst().allSatisfy { effect in
            switch effect {
            case .publishPresence, .schedulePresence: true
            default: false
            }
        }, "a connection causes its welcome and presence only: \(effects)")
        return client
    }

    /// Registers `username` on `client` through the real path (KDF effect, then its result).
    @discardableResult
    func organiser(_ number: UInt64, _ username: String) -> ConnectionID {
        let client = connect(number)
        message(client, ["type": "register", "id": "reg", "username": .string(username),
                         "password": "correct horse", "inviteCode": .string(Self.inviteCode)],
                expect: [.hashPassword(PasswordJob(client: client, purpose: .register, username: username,
                                                   password: "correct horse", requestID: "reg"))])
        let granted = send(.passwordHashed(PasswordJob(client: client, purpose: .register, username: username,
                                                       password: "correct horse", requestID: "reg"),
                                           encodedHash: "kdf(correct horse)"), exhaustivity: .off)
        XCTAssertTrue(granted.contains { if case .send(client, .session(let grant?)) = $0 { grant.username == username } else { false } })
        return client
    }

    var state: GatherState { core.state }
    /// The core itself, for the laptop's requests (which return their reply with the effects).
    var coreForAdmin: CoordinatorCore { core }
    var version: Int { core.version }
    var tally: DecisionTally { core.tally }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
