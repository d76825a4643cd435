import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// 1000 durable commits on disk, as a live gather makes them (goals, timer changes, edits). The
/// assertion is about what survives; the latency is printed for the record, never asserted.
final class CommitLatencyTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    func testAThousandDurableCommitsAllSurviveAndTheirLatencyIsReported() throws {
        let store = try SQLiteStore(directory: folder.child("data"))
        let writer = try Writer(store: store)
        let ids = try (1...12).map { try writer.addPlayer("Player \($0)", age: 20 + $0, skill: .amateur) }
        // A gather's timeline holds at most 500 events, so a new one is played every 200 rounds.
        func playNewGather() throws {
            if writer.state.gather != nil { try writer.apply(.endGather) }
            try writer.apply(.createGather(playerIDs: ids))
            for (index, id) in ids.enumerated() { try writer.apply(.assign(id, to: index.isMultiple(of: 2) ? .A : .B)) }
            try writer.apply(.startGather)
        }
        try playNewGather()

        var samples: [UInt64] = []
        let actions: [Action] = [
            .score(.A, delta: 1), .score(.B, delta: 1), .startTimer, .score(.A, delta: -1), .pauseTimer,
            .score(.B, delta: -1), .editPlayer(ids[0], PlayerChanges(age: .set(30))),
            .editPlayer(ids[0], PlayerChanges(age: .set(31))),
        ]
        for round in 0..<1000 {
            if round > 0, round.isMultiple(of: 200) { try playNewGather() }
            try writer.apply(actions[round % actions.count])
            samples.append(writer.lastCommitNanoseconds)
        }

        let loaded = try SQLiteStore(directory: folder.child("data")).load()
        XCTAssertEqual(loaded.version, writer.version)
        XCTAssertEqual(loaded.state, writer.state)

        samples.sort()
        func milliseconds(_ quantile: Double) -> String {
            let nanos = samples[min(samples.count - 1, Int(Double(samples.count) * quantile))]
            return String(format: "%.2f ms", Double(nanos) / 1_000_000)
        }
        print("store.commit latency over \(samples.count) durable commits (WAL, synchronous=FULL):",
              "p50 \(milliseconds(0.5)), p90 \(milliseconds(0.9)), p99 \(milliseconds(0.99)),",
              "max \(milliseconds(1.0))")
    }
}
