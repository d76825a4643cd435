import Dispatch
import Foundation
import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

// MARK: - Temporary folders

/// A fresh folder under the system temp dir, removed (read-only marks cleared first) by `tearDown`.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "gather-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func child(_ name: String) -> String { path + "/" + name }

    func remove() {
        _ = try? Shell.run("/usr/bin/chattr", ["-R", "-i", path])
        _ = try? Shell.run("/bin/chmod", ["-R", "u+w", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

enum Shell {
    /// Runs a tool and returns its exit status; output is discarded.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return 127 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

// MARK: - A minimal single writer

/// Plays the coordinator's part: applies actions through the real Model rules and commits each change
/// with the journal entry the coordinator would write, so the Store is tested with real state shapes.
final class Writer {
    let store: GatherStore
    private(set) var state: GatherState
    private(set) var version: Int
    var now: Int64 = 1_763_800_000_000
    /// How long the last `store.commit` took, for the latency measurement.
    private(set) var lastCommitNanoseconds: UInt64 = 0

    init(store: GatherStore) throws {
        self.store = store
        let loaded = try store.load()
        state = loaded.state
        version = loaded.version
    }

    @discardableResult
    func apply(_ action: Action, by organiser: String = "ann", id: String? = nil) throws -> JournalEntry {
        now += 1000
        var next = state
        let context = ActionContext(now: now, by: organiser, newGatherID: "gather-\(version + 1)")
        if case .failure(let rejection) = GatherRules.apply(action, to: &next, context: context) { throw rejection }
        let entry = JournalEntry(version: version + 1, organiser: organiser, commandID: id ?? "cmd-\(version + 1)",
                                 kind: action.kind, subjects: GatherRules.subjects(of: action, in: state), at: now)
        let started = DispatchTime.now().uptimeNanoseconds
        try store.commit(before: state, after: next, entry: entry)
        lastCommitNanoseconds = DispatchTime.now().uptimeNanoseconds - started
        state = next
        version = entry.version
        return entry
    }

    /// Adds a player and returns its id.
    @discardableResult
    func addPlayer(_ name: String, age: Int? = nil, skill: Skill? = nil, position: Position? = nil,
                   team: String? = nil) throws -> Player.ID {
        let id = state.nextPlayerID
        var changes = PlayerChanges(name: name)
        if let age { changes.age = .set(age) }
        if let skill { changes.skill = .set(skill) }
        if let position { changes.position = .set(position) }
        if let team { changes.favouriteTeam = .set(team) }
        try apply(.addPlayer(changes))
        return id
    }

    /// Plays a whole gather from creation to history with the given score.
    func playGather(teamA: [Player.ID], teamB: [Player.ID], goalsA: Int, goalsB: Int) throws {
        try apply(.createGather(playerIDs: teamA + teamB))
        for id in teamA { try apply(.assign(id, to: .A)) }
        for id in teamB { try apply(.assign(id, to: .B)) }
        try apply(.startGather)
        for _ in 0..<goalsA { try apply(.score(.A, delta: 1)) }
        for _ in 0..<goalsB { try apply(.score(.B, delta: 1)) }
        try apply(.endGather)
    }
}

extension XCTestCase {
    /// Asserts that `body` throws a `StoreError` whose sentence contains every fragment.
    func assertStoreError(_ fragments: [String], file: StaticString = #filePath, line: UInt = #line,
                          _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected a StoreError containing \(fragments)", file: file, line: line)
        } catch let error as StoreError {
            for fragment in fragments {
                XCTAssertTrue(error.description.contains(fragment), "\"\(error.description)\" lacks \"\(fragment)\"",
                              file: file, line: line)
            }
            XCTAssertFalse(error.description.contains("\n"), "one sentence, one line", file: file, line: line)
        } catch {
            XCTFail("expected a StoreError, got \(error)", file: file, line: line)
        }
    }
}

// MARK: - The journal's tail

extension SQLiteStore {
    /// How many entries `recentJournal()` reads: the window `load()` used to read on every start,
    /// which only tests looked at.
    static let recentJournalLimit = 1024

    /// The last `limit` journal entries, oldest first, read through the Store's own query.
    func recentJournal(limit: Int = recentJournalLimit) throws -> [JournalEntry] {
        try journal(after: max(0, load().version - limit))
    }
}
