import Foundation
import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherPresenters
import GatherStore
import Logging
import Synchronization
import XCTest

/// The club's lists in the organisers' state (docs/PROTOCOL.md §21.3), as the shell renders them
/// for the Transport: organisers' frames carry `clubDates` (gather.v1 and gather.v2 snapshots,
/// and the gather.v2 patch), the shared frames (spectators, relays, the stream) never do, and a
/// new list is a new version whose shared patch is empty.
final class ClubDatesFramesTests: XCTestCase {
    private final class Recorder: Sendable {
        private let handoffs = Mutex<[Delivery]>([])
        func deliver(_ deliveries: [Delivery]) { handoffs.withLock { $0 += deliveries } }

        /// Waits (bounded) for the shared and the organisers' frames of `version`.
        func frames(of version: Int, file: StaticString = #filePath, line: UInt = #line)
            -> (shared: StateFrames, organisers: StateFrames)?
        {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let recorded = handoffs.withLock { $0 }
                let shared = recorded.lazy.compactMap { if case .publishState(let f) = $0, f.version == version { f } else { nil } }.first
                let organisers = recorded.lazy.compactMap {
                    if case .publishOrganiserState(let f) = $0, f.version == version { f } else { nil }
                }.first
                if let shared, let organisers { return (shared, organisers) }
                usleep(2_000)
            }
            XCTFail("no frames of version \(version) within 10 s", file: file, line: line)
            return nil
        }

        /// Waits (bounded) until some hand-off after the first `after` deliveries satisfies `found`.
        func wait<T>(after: Int = 0, what: String, file: StaticString = #filePath, line: UInt = #line,
                     _ found: (Delivery) -> T?) -> T? {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let hit = handoffs.withLock({ $0 }).dropFirst(after).lazy.compactMap(found).first { return hit }
                usleep(2_000)
            }
            XCTFail("no \(what) within 10 s", file: file, line: line)
            return nil
        }

        var count: Int { handoffs.withLock { $0.count } }
        var recorded: [Delivery] { handoffs.withLock { $0 } }
    }

    private func list(seq: Int64, startsAt: Int64) -> ClubDateList {
        ClubDateList(club: "riverside-fc", date: "41", startsAt: startsAt, durationMinutes: 60, title: "Sunday",
                     place: "Riverside", status: "scheduled", seq: seq,
                     confirmed: [.init(memberId: "m1", name: "Ann", guests: 1)])
    }

    private func json(_ bytes: [UInt8]) -> JSONValue? { try? JSONValue.parse(String(decoding: bytes, as: UTF8.self)).get() }

    private static var now: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A shell over a store that holds one list (version 1).
    private func makeShell(store: SQLiteStore) throws -> (GatherCoordinator, Recorder) {
        try store.keepClubList(list(seq: 1, startsAt: Self.now + 3_600_000), version: 1)
        let recorder = Recorder()
        let counter = Counter()
        let environment = CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { "gather-\(counter.next())" }, newToken: { "token-\(counter.next())-0123456789" },
            hashToken: { "hashed:" + $0 }, inviteCode: "KICKOFF1", decoyPasswordHash: "kdf(decoy)")
        let shell = try GatherCoordinator(store: store, environment: environment,
                                          passwords: PasswordService(hash: { "kdf(\($0))" }, verify: { "kdf(\($0))" == $1 }),
                                          logger: Logger(label: "test"), deliver: { recorder.deliver($0) })
        shell.start()
        return (shell, recorder)
    }

    func testOrganisersFramesCarryTheListsAndANewListIsANewVersionWithAnEmptySharedPatch() throws {
        let now = Self.now
        let store = try SQLiteStore.inMemory()
        let (shell, recorder) = try makeShell(store: store)
        defer { shell.stop() }

        // At start, the held list is in organisers' v1 and v2 snapshots, in neither shared one.
        guard let first = recorder.frames(of: 1) else { return }
        for snapshot in [first.organisers.v1Snapshot, first.organisers.v2Snapshot] {
            guard case .array(let dates)? = json(snapshot)?["state"]?["clubDates"] else { return XCTFail("no clubDates") }
            XCTAssertEqual(dates.first?["date"], "41")
            XCTAssertEqual(dates.first?["seq"], 1)
            XCTAssertEqual(dates.first?["linked"], [:])
        }
        for snapshot in [first.shared.v1Snapshot, first.shared.v2Snapshot] {
            XCTAssertNotNil(json(snapshot)?["state"])
            XCTAssertNil(json(snapshot)?["state"]?["clubDates"], "spectators never see the lists")
        }

        // A newer list: version 2; the shared patch changes nothing, the organisers' replaces the list.
        shell.clubListVerified(list(seq: 2, startsAt: now + 3_600_000))
        guard let second = recorder.frames(of: 2), let sharedPatch = second.shared.v2Patch.flatMap(json),
              let organisersPatch = second.organisers.v2Patch.flatMap(json)
        else { return XCTFail("both audiences get a patch to version 2") }
        XCTAssertEqual(sharedPatch["from"], 1)
        XCTAssertEqual(sharedPatch["ops"], [], "the spectators' patch is empty of it")
        guard case .array(let operations)? = organisersPatch["ops"] else { return XCTFail("ops in \(organisersPatch)") }
        XCTAssertTrue(operations.contains { ($0["path"]?.stringValue ?? "").hasPrefix("/clubDates") }, "\(operations)")
        guard case .array(let v1Dates)? = json(second.organisers.v1Snapshot)?["state"]?["clubDates"] else {
            return XCTFail("v1 organisers see clubDates")
        }
        XCTAssertEqual(v1Dates.first?["seq"], 2)
        XCTAssertEqual(try store.load().version, 2)
    }

    /// The last referee link ending leaves organisers on their own frames while a list is held:
    /// the same version again with `clubDates` and without `referees`, never `clearOrganiserView`.
    func testOrganisersKeepTheListsWhenTheLastRefereeLinkEnds() throws {
        let (shell, recorder) = try makeShell(store: try SQLiteStore.inMemory())
        defer { shell.stop() }
        let ann = ConnectionID(1)
        shell.connectionOpened(ann, remoteAddress: "10.0.0.1", protocol: .v2, door: .tls)
        shell.received(#"{"type":"register","id":"r","username":"ann","password":"correct horse","inviteCode":"KICKOFF1"}"#,
                       from: ann)
        _ = recorder.wait(what: "ann's session") { delivery -> Bool? in
            if case .send(ann, let bytes) = delivery, self.json(bytes)?["type"] == "session" { return true }
            return nil
        }
        let organiserState = { (delivery: Delivery) -> JSONValue? in
            if case .publishOrganiserState(let frames) = delivery { return self.json(frames.v2Snapshot)?["state"] }
            return nil
        }
        shell.received(#"{"type":"command","id":"l","base":1,"action":{"kind":"createRefereeLink","pitch":1}}"#, from: ann)
        guard let linkID = recorder.wait(what: "the link's ack", { delivery -> Int? in
            guard case .send(ann, let bytes) = delivery, let reply = self.json(bytes), reply["type"] == "ack" else { return nil }
            return reply["result"]?["id"]?.intValue
        }) else { return }
        let withLink = recorder.wait(what: "organisers' state with the link") { delivery -> JSONValue? in
            guard let state = organiserState(delivery), state["referees"] != nil else { return nil }
            return state
        }
        XCTAssertNotNil(withLink?["clubDates"], "the lists beside the links")

        let before = recorder.count
        shell.received(#"{"type":"command","id":"v","base":1,"action":{"kind":"revokeRefereeLink","id":\#(linkID)}}"#,
                       from: ann)
        let after = recorder.wait(after: before, what: "organisers' state without the link") { delivery -> JSONValue? in
            guard let state = organiserState(delivery), state["referees"] == nil else { return nil }
            return state
        }
        guard case .array(let dates)? = after?["clubDates"] else { return XCTFail("the lists stay: \(String(describing: after))") }
        XCTAssertEqual(dates.first?["date"], "41")
        XCTAssertFalse(recorder.recorded.contains(.clearOrganiserView), "organisers keep their frames")
    }
}
