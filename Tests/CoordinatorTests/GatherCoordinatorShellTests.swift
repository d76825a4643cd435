import Foundation
import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging
import Synchronization
import XCTest

/// The shell around the core, as the Transport drives it: events filed from another thread,
/// effects rendered into `Delivery`s on the Coordinator's queue and handed to the Transport in
/// order. The target is the test's own, recording each hand-off as a real Transport receives it.
final class GatherCoordinatorShellTests: XCTestCase {
    /// Records every hand-off (one `deliver` call) in order.
    final class RecordingTarget: Sendable {
        private let handoffs = Mutex<[[Delivery]]>([])

        func deliver(_ deliveries: [Delivery]) { handoffs.withLock { $0.append(deliveries) } }

        var recorded: [[Delivery]] { handoffs.withLock { $0 } }

        /// Waits (bounded) until the hand-off that ends with `.handled(client)` has arrived `count`
        /// times, and returns that hand-off.
        func handoff(handling client: ConnectionID, occurrence count: Int = 1,
                     file: StaticString = #filePath, line: UInt = #line) -> [Delivery] {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let matching = recorded.filter { $0.last == .handled(client) }
                // Presence rides in whichever hand-off its one-second wake-up lands in: not this test's point.
                if matching.count >= count {
                    return matching[count - 1].filter { if case .publishPresence = $0 { false } else { true } }
                }
                usleep(2_000)
            }
            XCTFail("no hand-off handled \(client) within 10 s: \(recorded)", file: file, line: line)
            return []
        }
    }

    private func makeShell(store: GatherStore) throws -> (GatherCoordinator, RecordingTarget) {
        let target = RecordingTarget()
        let counter = Counter()
        let environment = CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { "gather-\(counter.next())" }, newToken: { "token-\(counter.next())-0123456789" },
            hashToken: { "hashed:" + $0 }, inviteCode: "KICKOFF1", decoyPasswordHash: "kdf(decoy)")
        let passwords = PasswordService(hash: { "kdf(\($0))" }, verify: { "kdf(\($0))" == $1 })
        let shell = try GatherCoordinator(store: store, environment: environment, passwords: passwords,
                                          logger: Logger(label: "test"), deliver: { target.deliver($0) })
        shell.start()
        return (shell, target)
    }

    /// Registers an organiser on connection `number` and returns it once its session arrived.
    private func organiser(_ number: UInt64, on shell: GatherCoordinator, _ target: RecordingTarget) -> ConnectionID {
        let client = ConnectionID(number)
        shell.connectionOpened(client, remoteAddress: "10.0.0.\(number)", protocol: .v2, door: .tls)
        shell.received(#"{"type":"register","id":"r","username":"ann","password":"correct horse","inviteCode":"KICKOFF1"}"#,
                       from: client)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !target.recorded.joined().contains(where: { Self.isSession($0, to: client) }) {
            usleep(2_000)
        }
        XCTAssertTrue(target.recorded.joined().contains { Self.isSession($0, to: client) }, "registered")
        return client
    }

    private static func isSession(_ delivery: Delivery, to client: ConnectionID) -> Bool {
        guard case .send(client, let bytes) = delivery else { return false }
        return message(bytes)?["type"]?.stringValue == "session"
    }

    private static func message(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONValue.parse(String(decoding: bytes, as: UTF8.self)).get()
    }

    private func command(_ id: String, base: Int, name: String) -> String {
        #"{"type":"command","id":"\#(id)","base":\#(base),"action":{"kind":"addPlayer","name":"\#(name)"}}"#
    }

    func testAnAppliedCommandHandsOverItsSnapshotThenItsAckThenHandledInOneHandoff() throws {
        let (shell, target) = try makeShell(store: try SQLiteStore.inMemory())
        defer { shell.stop() }
        let ann = organiser(1, on: shell, target)
        shell.received(command("c1", base: 0, name: "Ann"), from: ann)
        let handoff = target.handoff(handling: ann, occurrence: 2)
        XCTAssertEqual(handoff.count, 3, "\(handoff)")
        guard handoff.count == 3, case .publishState(let frames) = handoff[0] else { return XCTFail("\(handoff)") }
        XCTAssertEqual(frames.version, 1)
        XCTAssertEqual(handoff[1], .send(ann, MessagePresenter.bytes(.ack(id: "c1", version: 1))))
        XCTAssertEqual(handoff[2], .handled(ann))
        XCTAssertEqual(shell.metrics.read().version, 1)
    }

    func testAMessageWithNoReplyStillHandsOverItsHandled() throws {
        let (shell, target) = try makeShell(store: try SQLiteStore.inMemory())
        defer { shell.stop() }
        let spectator = ConnectionID(7)
        shell.connectionOpened(spectator, remoteAddress: "10.0.0.7", protocol: .v1, door: .tls)
        shell.received(#"{"type":"logout"}"#, from: spectator)
        let handoff = target.handoff(handling: spectator)
        XCTAssertEqual(handoff, [.send(spectator, MessagePresenter.bytes(.session(nil))), .handled(spectator)])
    }

    func testACommitThatThrowsDeliversNoNewVersionToAnyoneAndIsNeverAcked() throws {
        let faults = FaultInjectingStore(try SQLiteStore.inMemory())
        let (shell, target) = try makeShell(store: faults)
        defer { shell.stop() }
        let ann = organiser(1, on: shell, target)
        let watcher = ConnectionID(2)
        shell.connectionOpened(watcher, remoteAddress: "10.0.0.2", protocol: .v2, door: .tls)
        faults.failWrites(with: StoreError("the disk went away"))
        let before = target.recorded.count

        shell.received(command("c1", base: 0, name: "Ann"), from: ann)
        let failed = target.handoff(handling: ann, occurrence: 2)
        XCTAssertEqual(failed, [.send(ann, MessagePresenter.bytes(.error(
            code: .internalError, message: "The server could not save this change; nothing was applied. Try again.",
            id: "c1", reason: Sentence(.saveFailed)))), .handled(ann)])
        let since = target.recorded.dropFirst(before).joined()
        XCTAssertFalse(since.contains { if case .publishState = $0 { true } else { false } }, "no new version: \(since)")
        XCTAssertFalse(since.contains { $0 == .send(ann, MessagePresenter.bytes(.ack(id: "c1", version: 1))) })
        XCTAssertEqual(shell.metrics.read().version, 0)

        // Healed: the same id is applied once, and a second resend only gets its ack again.
        faults.failWrites(with: nil)
        shell.received(command("c1", base: 0, name: "Ann"), from: ann)
        let applied = target.handoff(handling: ann, occurrence: 3)
        XCTAssertEqual(applied.dropFirst().map { $0 }, [.send(ann, MessagePresenter.bytes(.ack(id: "c1", version: 1))),
                                                        .handled(ann)])
        shell.received(command("c1", base: 0, name: "Ann"), from: ann)
        XCTAssertEqual(target.handoff(handling: ann, occurrence: 4),
                       [.send(ann, MessagePresenter.bytes(.ack(id: "c1", version: 1))), .handled(ann)])
        XCTAssertEqual(faults.committed, 1)
        XCTAssertEqual(shell.metrics.read().version, 1)
    }
}
