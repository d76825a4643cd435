import GatherDelivery
import GatherModel
import GatherPresenters
import GatherSecurity
import XCTest

@testable import GatherStream

/// What the venue hands NATS, recorded as a broker would receive it (subject, headers, body, stored
/// or not), from the Coordinator's own rendering of real states; then the relay's follower reads
/// that record, so the publishing side and the believing side are checked against each other.
final class StreamEnvelopeTests: XCTestCase {
    private let key = try! Ed25519PrivateKey.generate()
    private let venue = VenueName("riverside")!
    private let epoch = StreamEpoch(id: "Ab-_0123456789xyz", startedAt: 1_795_000_000_000)!

    private var publicKey: Ed25519PublicKey { Ed25519PublicKey(rawBytes: try! key.publicKeyBytes())! }

    /// Versions 1…`count` rendered as the Coordinator renders them (a roster growing by one).
    private func renderedVersions(_ count: Int) -> [StateFrames] {
        var previous: StateRendering?
        var state = GatherState()
        return (1...count).map { version in
            state.players.append(Player(id: version, name: "P\(version)"))
            let rendered = StateRenderer.render(version: version, state: state, now: 1_000, after: previous, epoch: epoch)
            previous = rendered.rendering
            return rendered.frames
        }
    }

    /// Everything the queue publishes when each delivery is drained as it comes (NATS keeping up),
    /// as envelopes: what the broker records.
    private func published(_ deliveries: [Delivery]) throws -> [StreamEnvelope] {
        var queue = PublishQueue()
        var out: [StreamEnvelope] = []
        for delivery in deliveries {
            queue.add(delivery)
            while let next = queue.next(), out.count < 1_000 {
                out.append(try StreamEnvelope.make(next, venue: venue, epoch: epoch, key: key))
            }
        }
        return out
    }

    func testEveryMessageIsSignedInItsEpochWithTheRollupOrTheMessageIdItNeeds() throws {
        let versions = renderedVersions(3)
        let record = try published(versions.map { .publishState($0) } + [.publishTick(pitch: 1, bytes: Array("{\"type\":\"tick\"}".utf8))])
        XCTAssertEqual(record.map(\.subject), ["gather.riverside.state", "gather.riverside.state", "gather.riverside.state",
                                               "gather.riverside.ticks"])
        XCTAssertEqual(record.map(\.stored), [true, true, true, false])
        guard record.count == 4 else { return }
        XCTAssertEqual(record[0].header("Nats-Rollup"), "sub")
        XCTAssertNil(record[0].header("Nats-Msg-Id"))
        XCTAssertEqual(record[1].header("Nats-Msg-Id"), "riverside.Ab-_0123456789xyz.2")
        XCTAssertEqual(record[2].header("Nats-Msg-Id"), "riverside.Ab-_0123456789xyz.3")
        XCTAssertNil(record[1].header("Nats-Rollup"))
        for envelope in record {
            XCTAssertTrue(StreamSignature.verify(envelope.body, epoch: epoch.id, signature: envelope.header("Gather-Signature"),
                                                 key: publicKey))
            XCTAssertFalse(StreamSignature.verify(envelope.body, epoch: "another-epoch", signature: envelope.header("Gather-Signature"),
                                                  key: publicKey))
        }
        let snapshot = try JSONValue.parse(record[0].body).get()
        XCTAssertEqual(snapshot["epoch"], .string(epoch.id))
        XCTAssertEqual(snapshot["epochStartedAt"], .int(Int(epoch.startedAt)))
        XCTAssertEqual(versions.map(\.epoch), [epoch.id, epoch.id, epoch.id])

        let heartbeat = try StreamEnvelope.heartbeat(version: 3, venue: venue, epoch: epoch, key: key, at: 77, seq: 4)
        XCTAssertEqual(heartbeat.subject, "gather.riverside.ticks")
        XCTAssertEqual(try JSONValue.parse(heartbeat.body).get(),
                       ["type": "heartbeat", "version": 3, "epoch": .string(epoch.id), "epochStartedAt": .int(Int(epoch.startedAt)),
                        "at": 77, "seq": 4])
        // A tick is numbered inside what is signed.
        let tick = try StreamEnvelope.make(.tick(bytes: Array(#"{"type":"tick","pitch":1}"#.utf8)), venue: venue, epoch: epoch,
                                           key: key, seq: 7)
        XCTAssertEqual(String(decoding: tick.body, as: UTF8.self), #"{"seq":7,"type":"tick","pitch":1}"#)
        XCTAssertTrue(StreamSignature.verify(tick.body, epoch: epoch.id, signature: tick.header("Gather-Signature"), key: publicKey))
    }

    func testARelaysFollowerReadingTheRecordHoldsTheVenuesStateAtEveryVersion() throws {
        let versions = renderedVersions(5)
        let record = try published(versions.map { .publishState($0) })
        var follower = StreamFollower(venueKey: publicKey)
        _ = follower.natsChanged(connected: true, now: 0)
        follower.replayStarted()
        // The venue heard live (its heartbeat names its run), so what the stream holds is served.
        let heartbeat = try StreamEnvelope.heartbeat(version: nil, venue: venue, epoch: epoch, key: key, at: 1, seq: 1)
        _ = follower.receivedTick(heartbeat.body, signature: heartbeat.header("Gather-Signature"), now: 1)
        var announced: [StateFrames] = []
        for envelope in record {
            for case .announce(let frames) in follower.receivedState(envelope.body, signature: envelope.header("Gather-Signature"),
                                                                     now: 1) {
                announced.append(frames)
            }
        }
        XCTAssertEqual(follower.dropped, 0)
        XCTAssertEqual(announced.map(\.version), [1, 2, 3, 4, 5])
        guard announced.count == 5 else { return }
        // The relay's followers get the venue's own bytes: its snapshot, then its patches.
        XCTAssertEqual(announced[0].v2Snapshot, versions[0].v2Snapshot)
        XCTAssertEqual(announced.dropFirst().map(\.v2Patch), versions.dropFirst().map(\.v2Patch))
        XCTAssertEqual(announced.last?.v2Snapshot, versions.last?.v2Snapshot)
    }
}
