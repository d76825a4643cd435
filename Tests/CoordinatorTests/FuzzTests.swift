import Foundation
import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// Issue 5: random JSON values and byte strings through the real decoder, validation and rules.
/// Every message is answered, nothing crashes, and nothing a spectator or garbage sends changes state.
final class FuzzTests: XCTestCase {
    /// The Model's seeded SplitMix64, so a failure can be replayed from the printed seed.
    private typealias SplitMix = SplitMix64

    /// A fixed seed, so every run tries the same cases and a failure is never a fluke of the day;
    /// `GATHER_FUZZ_SEED=<n>` replays a printed seed or explores another.
    private static func seed(default fixed: UInt64) -> UInt64 {
        let chosen = ProcessInfo.processInfo.environment["GATHER_FUZZ_SEED"].flatMap { UInt64($0) } ?? fixed
        print("fuzz seed \(chosen) (set GATHER_FUZZ_SEED to choose another)")
        return chosen
    }

    private static let keys = ["type", "id", "base", "action", "kind", "name", "age", "skill", "position",
                               "favouriteTeam", "playerId", "playerIds", "to", "team", "delta", "minutes", "seconds",
                               "username", "password", "inviteCode", "token"]
    private static let words = ["command", "register", "login", "resume", "logout", "addPlayer", "editPlayer",
                                "removePlayer", "createGather", "assign", "renameTeam", "startGather", "score",
                                "setTimer", "startTimer", "pauseTimer", "resetTimer", "endGather", "cancelGather", "A",
                                "B", "bench", "out", "amateur", "striker", "", "ann", "\u{0}", "🏆", "\"", "\\"]

    private func value(_ rng: inout SplitMix, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 9), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int([0, 1, -1, 2, 59, 60, 99, 100, Int.max, Int.min, Int.random(in: -5...5000, using: &rng)]
            .randomElement(using: &rng)!)
        case 3: return .double(Double.random(in: -1e6...1e6, using: &rng))
        case 4, 5: return .string(Self.words.randomElement(using: &rng)!
            + String(repeating: "x", count: Int.random(in: 0...3, using: &rng) == 0 ? Int.random(in: 0...80, using: &rng) : 0))
        case 6: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                members[Self.keys.randomElement(using: &rng)!] = value(&rng, depth: depth + 1)
            }
            if Bool.random(using: &rng) { members["type"] = .string(Self.words.randomElement(using: &rng)!) }
            if depth == 0, Bool.random(using: &rng) {
                members["type"] = "command"
                members["action"] = value(&rng, depth: 1)
            }
            return .object(members)
        }
    }

    /// Actions with the right fields most of the time and a wrong value now and then, so the
    /// rules themselves are exercised, not only the validation in front of them.
    private func plausibleAction(_ rng: inout SplitMix) -> JSONValue {
        func pick(_ choices: [JSONValue]) -> JSONValue {
            Int.random(in: 0..<10, using: &rng) == 0 ? value(&rng, depth: 2) : choices.randomElement(using: &rng)!
        }
        let kind = ["addPlayer", "addPlayer", "editPlayer", "removePlayer", "createGather", "assign", "assign",
                    "assign", "renameTeam", "startGather", "score", "score", "score", "setTimer", "startTimer",
                    "pauseTimer", "resetTimer", "endGather", "cancelGather"].randomElement(using: &rng)!
        var members: [String: JSONValue] = ["kind": .string(kind)]
        let fields: [String: [JSONValue]] = [
            "name": ["Ann", "Bob", " Cid ", "", .string(String(repeating: "n", count: 51)), "Reds"],
            "age": [1, 31, 99, 0, 100, nil], "skill": ["beginner", "professional", "legend", nil],
            "position": ["goalkeeper", "striker", nil], "favouriteTeam": ["Arsenal", "", nil],
            "playerId": [1, 2, 3, 4, 5, 6, 99], "to": ["A", "B", "bench", "out", "C"], "team": ["A", "B", "C"],
            "delta": [1, 1, -1, 2], "minutes": [0, 1, 10, 59, 60], "seconds": [0, 1, 30, 59, -1],
            "playerIds": [[1, 2], [1, 2, 3], [2, 3, 4, 5], [1], [1, 1], [7, 8]],
        ]
        for (field, choices) in fields where Int.random(in: 0..<3, using: &rng) > 0 {
            members[field] = pick(choices)
        }
        return .object(members)
    }

    private func bytes(_ rng: inout SplitMix) -> String {
        let count = Int.random(in: 0...200, using: &rng)
        let raw = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
        // The Transport only delivers valid UTF-8 text; invalid bytes are closed with 1007 before us.
        return String(decoding: raw, as: UTF8.self)
    }

    private func answers(_ effects: [Effect], to client: ConnectionID) -> Int {
        effects.filter {
            switch $0 {
            case .send(client, _), .hashPassword, .verifyPassword: return true
            default: return false
            }
        }.count
    }

    func testSpectatorsAndGarbageNeverChangeStateAndAlwaysGetAnAnswer() throws {
        var rng = SplitMix(seed: Self.seed(default: 0x5EED_0019_0001))
        let harness = try CoordinatorHarness()
        let spectator = harness.connect(1)
        let before = harness.state
        var cases = 0
        for round in 0..<60_000 {
            let text = round % 3 == 0 ? bytes(&rng) : JSONWriter.string(value(&rng))
            let effects = harness.send(.messageReceived(spectator, text: text), exhaustivity: .off)
            XCTAssertEqual(answers(effects, to: spectator), 1, "no single answer to \(text)")
            // Finish any password check so the connection can try again.
            for effect in effects {
                if case .hashPassword(let job) = effect {
                    harness.send(.passwordHashed(job, encodedHash: "kdf"), exhaustivity: .off)
                    harness.send(.clientDisconnected(spectator), exhaustivity: .off)
                    harness.send(.clientConnected(spectator, address: "10.9.\(round % 250).1"), exhaustivity: .off)
                } else if case .verifyPassword(let job, _) = effect {
                    harness.send(.passwordChecked(job, matches: false), exhaustivity: .off)
                }
            }
            harness.clock.advance(byMs: 1)
            cases += 1
        }
        XCTAssertEqual(harness.state, before)
        XCTAssertEqual(harness.version, 0)
        print("fuzz: \(cases) spectator messages")
    }

    func testRandomCommandsFromAnOrganiserKeepEveryInvariant() throws {
        var rng = SplitMix(seed: Self.seed(default: 0x5EED_0019_0002))
        let harness = try CoordinatorHarness()
        let ann = harness.organiser(1, "ann")
        var applied = 0
        for round in 0..<50_000 {
            let action = plausibleAction(&rng)
            let base = Int.random(in: 0..<5, using: &rng) == 0 ? Int.random(in: -2...(harness.version + 2), using: &rng)
                : harness.version
            let versionBefore = harness.version
            let stateBefore = harness.state
            let effects = harness.message(ann, ["type": "command", "id": .string("f\(round)"), "base": .int(base),
                                                "action": action], exhaustivity: .off)
            XCTAssertEqual(answers(effects, to: ann), 1)
            if effects.contains(where: { if case .send(_, .ack) = $0 { true } else { false } }) {
                applied += 1
                XCTAssertEqual(harness.version, versionBefore + 1)
            } else {
                XCTAssertEqual(harness.state, stateBefore, "a rejected command changed the state")
                XCTAssertEqual(harness.version, versionBefore)
            }
            if let gather = harness.state.gather {
                XCTAssertTrue(Score.range.contains(gather.score.A) && Score.range.contains(gather.score.B))
                XCTAssertEqual(Set(gather.memberIDs).count, gather.memberIDs.count, "a player in two places")
                XCTAssertTrue(gather.memberIDs.allSatisfy { harness.state.player($0) != nil })
                XCTAssertGreaterThanOrEqual(gather.timer.remainingMs, 0)
            }
            XCTAssertEqual(harness.state.players.map(\.id), harness.state.players.map(\.id).sorted())
            harness.clock.advance(byMs: 60) // stay under the command rate limit
        }
        print("fuzz: 50000 organiser commands, \(applied) applied")
        XCTAssertGreaterThan(applied, 100, "the generator should reach the rules, not only validation")
    }
}
