import GatherDelivery
import GatherModel
import GatherPresenters
import GatherSecurity
import XCTest

@testable import GatherStream

/// One message as it arrives: its body and its `Gather-Signature` header, if any.
private struct Signed {
    var bytes: [UInt8]
    var signature: String?

    init(_ bytes: [UInt8], _ signature: String?) {
        self.bytes = bytes
        self.signature = signature
    }
}

/// What a venue publishes, signed with a real Ed25519 key, in one epoch at a time.
private struct TestVenue {
    let key: Ed25519PrivateKey
    var epoch: StreamEpoch
    /// The last `seq` on the ticks subject in this epoch.
    var seq = 0

    init(key: Ed25519PrivateKey? = nil, epoch: String = "epoch-one", startedAt: Int64 = 1_000) {
        self.key = key ?? (try! Ed25519PrivateKey.generate())
        self.epoch = StreamEpoch(id: epoch, startedAt: startedAt)!
    }

    var publicKey: Ed25519PublicKey { Ed25519PublicKey(rawBytes: try! key.publicKeyBytes())! }

    func signed(_ bytes: [UInt8], in epoch: String? = nil) -> Signed {
        Signed(bytes, try! StreamSignature.sign(bytes, epoch: epoch ?? self.epoch.id, key: key))
    }

    func snapshot(_ version: Int, score: Int) -> Signed {
        signed(JSONWriter.bytes(MessagePresenter.snapshot(version: version, state: ["score": .int(score)], epoch: epoch)))
    }

    func patch(from: Int, score: Int) -> Signed {
        signed(JSONWriter.bytes(["type": "patch", "from": .int(from), "version": .int(from + 1),
                                 "ops": [["op": "replace", "path": "/score", "value": .int(score)]]]))
    }

    /// The next heartbeat of this run (numbered after every ticks message before it).
    mutating func heartbeat(_ version: Int?) -> Signed {
        seq += 1
        return signed(VenuePublisher.heartbeat(version: version, epoch: epoch, at: 1_000_000 + Int64(seq), seq: seq))
    }

    /// A tick or presence as the venue publishes it: numbered, signed.
    mutating func numbered(_ bytes: [UInt8]) -> Signed {
        seq += 1
        return signed(StreamEnvelope.numbered(bytes, seq: seq))
    }

    func frames(_ version: Int, score: Int, patch: [UInt8]? = nil) -> StateFrames {
        StreamFollower.frames(version: version, state: ["score": .int(score)], patch: patch, epoch: epoch)
    }
}

/// The relay's follower on a test clock: every event, the whole set of actions.
final class StreamFollowerTests: XCTestCase {
    private var venue = TestVenue()

    /// Connected, replaying, and having heard the venue's run live (a heartbeat naming no version),
    /// so what the stream gives is served at once.
    private func connected() -> StreamFollower {
        var follower = StreamFollower(venueKey: venue.publicKey)
        XCTAssertEqual(follower.natsChanged(connected: true, now: 0), [.replay(reason: "connected to NATS")])
        follower.replayStarted()
        XCTAssertEqual(tick(&follower, venue.heartbeat(nil)), [.linkRestored])
        return follower
    }

    private func state(_ follower: inout StreamFollower, _ message: Signed, now: Int64 = 0)
        -> [StreamFollower.Action]
    {
        follower.receivedState(message.bytes, signature: message.signature, now: now)
    }

    private func tick(_ follower: inout StreamFollower, _ message: Signed, now: Int64 = 0)
        -> [StreamFollower.Action]
    {
        follower.receivedTick(message.bytes, signature: message.signature, now: now)
    }

    // MARK: - Following

    func testTheSnapshotThenEachPatchIsAnnouncedWithTheVenuesBytesAndItsEpoch() {
        var follower = connected()
        XCTAssertEqual(state(&follower, venue.snapshot(5, score: 0), now: 1_000), [.announce(venue.frames(5, score: 0))])
        let six = venue.patch(from: 5, score: 1)
        XCTAssertEqual(state(&follower, six, now: 2_000), [.announce(venue.frames(6, score: 1, patch: six.bytes))])
        XCTAssertEqual(follower.held?.version, 6)
        XCTAssertEqual(follower.held?.state, ["score": 1])
        XCTAssertEqual(follower.announced?.epoch, venue.epoch)
        XCTAssertEqual(follower.lastHeardMs, 0, "what the stream holds is not the venue heard live")
        XCTAssertEqual(follower.dropped, 0)
        let snapshot = try! JSONValue.parse(venue.frames(6, score: 1).v2Snapshot).get()
        XCTAssertEqual(snapshot["epoch"], "epoch-one")
        XCTAssertEqual(snapshot["epochStartedAt"], 1_000)
        XCTAssertEqual(venue.frames(6, score: 1).epoch, "epoch-one")
    }

    func testAGapAsksForAReplayAndAnnouncesNothing() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        XCTAssertEqual(state(&follower, venue.patch(from: 6, score: 2)),
                       [.replay(reason: "a gap: holding 5, the stream went on from 6")])
        follower.replayStarted()
        // While the replay has not brought its snapshot, patches are not gaps and not applied.
        XCTAssertEqual(state(&follower, venue.patch(from: 7, score: 3)), [])
        XCTAssertEqual(follower.held?.version, 5)
    }

    func testAReplayFromAnOlderSnapshotCatchesUpSilentlyAndNeverGoesBack() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        _ = state(&follower, venue.patch(from: 5, score: 1))
        _ = state(&follower, venue.patch(from: 7, score: 3))  // gap
        follower.replayStarted()
        XCTAssertEqual(state(&follower, venue.snapshot(5, score: 0)), [])
        XCTAssertEqual(state(&follower, venue.patch(from: 5, score: 1)), [])
        XCTAssertEqual(follower.announced?.version, 6)
        let seven = venue.patch(from: 6, score: 2)
        XCTAssertEqual(state(&follower, seven), [.announce(venue.frames(7, score: 2, patch: seven.bytes))])
        // A replay that jumps past the announced version: the spectators get a snapshot.
        _ = state(&follower, venue.patch(from: 9, score: 9))
        follower.replayStarted()
        XCTAssertEqual(state(&follower, venue.snapshot(8, score: 5)), [.announce(venue.frames(8, score: 5))])
    }

    func testAnOlderSnapshotOfTheEpochOutsideAReplayChangesNothing() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        _ = state(&follower, venue.patch(from: 5, score: 1))
        XCTAssertEqual(state(&follower, venue.snapshot(3, score: 7)), [])
        XCTAssertEqual(follower.held?.version, 6)
        XCTAssertEqual(state(&follower, venue.snapshot(6, score: 1)), [])
        XCTAssertEqual(state(&follower, venue.patch(from: 4, score: 0)), [])  // a duplicate
    }

    func testAPatchThatDoesNotApplyIsReplayedThenSkippedWhenTheStreamHoldsIt() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        let bad = venue.signed(JSONWriter.bytes(["type": "patch", "from": 5, "version": 6,
                                                 "ops": [["op": "remove", "path": "/missing"]]]))
        let actions = state(&follower, bad)
        XCTAssertEqual(actions.count, 1)
        guard case .replay(let reason) = actions[0], reason.hasPrefix("a patch that does not apply") else {
            return XCTFail("\(actions)")
        }
        follower.replayStarted()
        _ = state(&follower, venue.snapshot(5, score: 0))
        XCTAssertEqual(state(&follower, bad), [.dropped(reason: "the stream itself holds a message that does not follow version 5")])
        let six = venue.patch(from: 5, score: 1)
        XCTAssertEqual(state(&follower, six), [.announce(venue.frames(6, score: 1, patch: six.bytes))])
    }

    // MARK: - Signatures

    func testForgedStateIsDroppedCountedAndChangesNothing() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        let impostor = TestVenue(epoch: "epoch-one", startedAt: 1_000)
        let later = TestVenue(key: impostor.key, epoch: "epoch-later", startedAt: 9_000)
        let unsigned = venue.snapshot(1_000_000, score: 99).bytes
        let forgeries: [Signed] = [
            Signed(unsigned, nil),                                    // no signature
            Signed(unsigned, "not base64"),                           // garbage
            Signed(unsigned, venue.snapshot(5, score: 0).signature),  // another message's signature
            impostor.snapshot(1_000_000, score: 99),            // far ahead, another key
            impostor.snapshot(1, score: 99),                    // behind, another key
            later.snapshot(1, score: 99),                       // a "new epoch", another key
            impostor.patch(from: 5, score: 99),                 // the next patch, first, another key
            venue.signed(venue.patch(from: 5, score: 99).bytes, in: "epoch-other"),  // the venue's key, another epoch
        ]
        for (index, forged) in forgeries.enumerated() {
            let actions = follower.receivedState(forged.bytes, signature: forged.signature, now: 10)
            XCTAssertEqual(actions.count, 1, "forgery \(index)")
            guard case .dropped = actions.first else { return XCTFail("forgery \(index): \(actions)") }
        }
        XCTAssertEqual(follower.dropped, forgeries.count)
        XCTAssertEqual(follower.held?.version, 5)
        XCTAssertEqual(follower.held?.state, ["score": 0])
        XCTAssertEqual(follower.announced?.version, 5)
        XCTAssertEqual(follower.lastHeardMs, 0, "a forgery is not the venue being heard")
        // The genuine patch, after the forged one, still chains.
        let six = venue.patch(from: 5, score: 1)
        XCTAssertEqual(state(&follower, six), [.announce(venue.frames(6, score: 1, patch: six.bytes))])
    }

    func testTicksAndPresenceAreVerifiedAgainstTheEpochHeldAndForwardedRebuilt() {
        let tickBytes = Array(#"{"type":"tick","pitch":2,"timer":{"status":"running","durationSeconds":600,"remainingMs":5000,"endsAt":99,"extra":"x"}}"#.utf8)
        // Before any state or heartbeat: nothing to check it against, nothing forwarded or counted.
        var fresh = StreamFollower(venueKey: venue.publicKey)
        XCTAssertEqual(tick(&fresh, venue.numbered(tickBytes)), [])
        XCTAssertEqual(fresh.dropped, 0)
        var follower = connected()
        // Heard (the run is known) but not forwarded: no state to go with it yet.
        XCTAssertEqual(tick(&follower, venue.numbered(tickBytes)), [])
        _ = state(&follower, venue.snapshot(1, score: 0))
        let rebuilt = StreamMessage.Tick(pitch: 2, status: .running, durationSeconds: 600, remainingMs: 5_000, endsAt: 99).bytes
        let running = venue.numbered(tickBytes)
        XCTAssertEqual(tick(&follower, running), [.forwardTick(pitch: 2, bytes: rebuilt)])
        XCTAssertFalse(String(decoding: rebuilt, as: UTF8.self).contains("seq"), "the relay's own bytes, not the venue's")
        XCTAssertFalse(String(decoding: rebuilt, as: UTF8.self).contains("extra"))

        let presence = Array(#"{"type":"presence","organisers":["ann","bob"],"spectators":3,"remote":4}"#.utf8)
        let counts = StreamMessage.Presence(spectators: 3, remote: 4, organisersOnline: 2).bytes
        XCTAssertEqual(try JSONValue.parse(counts).get(), ["type": "presence", "spectators": 3, "remote": 4, "organisersOnline": 2])
        XCTAssertEqual(tick(&follower, venue.numbered(presence)), [.forwardPresence(counts)])

        // Signed in another epoch, or not at all: dropped.
        XCTAssertEqual(tick(&follower, venue.signed(StreamEnvelope.numbered(presence, seq: 99), in: "epoch-other")),
                       [.dropped(reason: "a presence the venue did not sign")])
        XCTAssertEqual(follower.receivedTick(StreamEnvelope.numbered(tickBytes, seq: 99), signature: nil, now: 0),
                       [.dropped(reason: "a tick the venue did not sign")])
        // The venue's own tick, replayed: its seq is not above the last acted on.
        XCTAssertEqual(tick(&follower, running), [.dropped(reason: "a tick replayed (seq 4, the last acted on 5)")])
        // Without a seq it is not a ticks message of this release.
        XCTAssertEqual(tick(&follower, venue.signed(tickBytes)), [.dropped(reason: "ticks subject: a tick without its seq")])
        XCTAssertEqual(follower.dropped, 4)
    }

    func testOversizedUnknownAndStrayTicksMessagesAreDropped() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(1, score: 0))
        XCTAssertEqual(follower.receivedTick([], signature: nil, oversized: true, now: 0),
                       [.dropped(reason: "a ticks message over 65536 bytes")])
        let huge = Array(#"{"type":"presence","spectators":1,"organisers":[""#.utf8) + [UInt8](repeating: 0x61, count: 70_000)
            + Array(#""]}"#.utf8)
        XCTAssertEqual(tick(&follower, venue.signed(huge)), [.dropped(reason: "a ticks message over 65536 bytes")])
        XCTAssertEqual(tick(&follower, venue.signed(Array(#"{"type":"chat","text":"hi"}"#.utf8))),
                       [.dropped(reason: "ticks subject: not a gather.v2 stream message")])
        XCTAssertEqual(tick(&follower, venue.snapshot(2, score: 0)), [.dropped(reason: "ticks subject: a state message")])
        XCTAssertEqual(follower.dropped, 4)
        XCTAssertEqual(follower.held?.version, 1)
    }

    // MARK: - Epochs

    func testALaterEpochReplacesTheStateAtOnceEvenWithLowerVersions() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(50, score: 7))
        let restored = TestVenue(key: venue.key, epoch: "epoch-two", startedAt: 2_000)
        // Later than the run the venue confirmed live: followed at once.
        XCTAssertEqual(state(&follower, restored.snapshot(3, score: 1)), [.announce(restored.frames(3, score: 1))])
        XCTAssertEqual(follower.announced?.epoch, restored.epoch)
        let four = restored.patch(from: 3, score: 2)
        XCTAssertEqual(state(&follower, four), [.announce(restored.frames(4, score: 2, patch: four.bytes))])

        // The old epoch's messages, replayed, change nothing: its snapshots are older, its
        // patches do not verify in the epoch held, its heartbeats are ignored.
        XCTAssertEqual(state(&follower, venue.snapshot(51, score: 9)), [])
        XCTAssertEqual(state(&follower, venue.patch(from: 4, score: 9)), [.dropped(reason: "a patch the venue did not sign in the epoch held")])
        XCTAssertEqual(tick(&follower, venue.heartbeat(60)), [])
        XCTAssertEqual(follower.held?.version, 4)
        XCTAssertEqual(follower.held?.state, ["score": 2])
    }

    func testAHeartbeatAheadOrOfALaterEpochAsksForAReplay() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(3, score: 0))
        XCTAssertEqual(tick(&follower, venue.heartbeat(3)), [])
        XCTAssertEqual(tick(&follower, venue.heartbeat(4)), [.replay(reason: "the venue is at 4, the stream gave 3")])
        follower.replayStarted()
        _ = state(&follower, venue.snapshot(4, score: 0))
        var restarted = TestVenue(key: venue.key, epoch: "epoch-two", startedAt: 2_000)
        XCTAssertEqual(tick(&follower, restarted.heartbeat(1)),
                       [.replay(reason: "the venue runs a newer epoch than the state held")])
        XCTAssertTrue(follower.behind)
        XCTAssertEqual(follower.venueVersion, 1)
    }

    func testAReplayedSnapshotOfAnOlderRunIsNotServedAndTheFollowerIsBehindUntilTheCurrentRun() {
        var old = TestVenue(key: venue.key, epoch: "epoch-old", startedAt: 500)
        var follower = StreamFollower(venueKey: venue.publicKey)
        _ = follower.natsChanged(connected: true, now: 0)
        follower.replayStarted()
        // The stream holds only the old run's snapshot: held, not served before the venue speaks.
        XCTAssertEqual(state(&follower, old.snapshot(9, score: 9), now: 100), [])
        XCTAssertNil(follower.announced)
        // The venue's heartbeat names its current run: behind, replay, still nothing served.
        XCTAssertEqual(tick(&follower, venue.heartbeat(4), now: 200),
                       [.linkRestored, .replay(reason: "the venue runs a newer epoch than the state held")])
        XCTAssertTrue(follower.behind)
        XCTAssertEqual(follower.venueVersion, 4)
        follower.replayStarted()
        XCTAssertEqual(state(&follower, old.snapshot(9, score: 9), now: 300), [])
        // The old run's own heartbeats and ticks, replayed, change nothing.
        XCTAssertEqual(tick(&follower, old.heartbeat(9), now: 400), [])
        XCTAssertEqual(follower.clock(now: 20_000).contains(where: { if case .announce = $0 { return true } else { return false } }),
                       false, "the grace never serves an older run than the venue's")
        // The current run's snapshot arrives: served.
        XCTAssertEqual(state(&follower, venue.snapshot(4, score: 1), now: 20_100), [.announce(venue.frames(4, score: 1))])
        XCTAssertFalse(follower.behind)
    }

    func testAStateNobodyConfirmsIsServedAfterTheGraceAsAGoneVenuesLast() {
        var follower = StreamFollower(venueKey: venue.publicKey)
        _ = follower.natsChanged(connected: true, now: 0)
        follower.replayStarted()
        XCTAssertEqual(state(&follower, venue.snapshot(2, score: 1), now: 1_000), [])
        XCTAssertEqual(follower.clock(now: 1_000 + StreamFollower.confirmationGraceMs - 1), [])
        XCTAssertEqual(follower.clock(now: 1_000 + StreamFollower.confirmationGraceMs), [.announce(venue.frames(2, score: 1))])
    }

    func testAStateMoreThanAHundredVersionsBehindTheVenueIsNotServed() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        XCTAssertEqual(tick(&follower, venue.heartbeat(107)), [.replay(reason: "the venue is at 107, the stream gave 5")])
        XCTAssertTrue(follower.behind)
        follower.replayStarted()
        XCTAssertEqual(state(&follower, venue.snapshot(5, score: 0)), [])
        XCTAssertEqual(state(&follower, venue.patch(from: 5, score: 1)), [], "101 behind: not served")
        // 100 behind: served again, as a snapshot (the followers hold 5, not 6).
        XCTAssertEqual(state(&follower, venue.patch(from: 6, score: 2)), [.announce(venue.frames(7, score: 2))])
        XCTAssertFalse(follower.behind)
    }

    func testTheLinkIsLostAfterTenSecondsOfSilenceOrWithNATSAndBackWhenHeard() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(1, score: 0))
        XCTAssertEqual(follower.clock(now: 10_000), [])
        let heartbeat = venue.heartbeat(1)
        XCTAssertEqual(tick(&follower, heartbeat, now: 5_000), [])
        // Anything unsigned is not the venue: it keeps nothing alive; nor does its own heartbeat replayed.
        _ = follower.receivedTick(VenuePublisher.heartbeat(version: 1, epoch: venue.epoch, at: 1, seq: 50), signature: nil,
                                  now: 14_000)
        XCTAssertEqual(tick(&follower, heartbeat, now: 14_500), [.dropped(reason: "a heartbeat replayed (seq 2, the last acted on 2)")])
        XCTAssertEqual(follower.clock(now: 15_000), [])
        XCTAssertEqual(follower.clock(now: 15_001), [.linkLost(sinceMs: 5_000)])
        XCTAssertEqual(follower.clock(now: 20_000), [])
        let tickBytes = Array(#"{"type":"tick","pitch":2,"timer":{"status":"paused","durationSeconds":60,"remainingMs":1}}"#.utf8)
        let rebuilt = StreamMessage.Tick(pitch: 2, status: .paused, durationSeconds: 60, remainingMs: 1, endsAt: nil).bytes
        XCTAssertEqual(tick(&follower, venue.numbered(tickBytes), now: 21_000), [.linkRestored, .forwardTick(pitch: 2, bytes: rebuilt)])
        XCTAssertEqual(follower.natsChanged(connected: false, now: 22_000), [.linkLost(sinceMs: 21_000)])
        XCTAssertEqual(follower.natsChanged(connected: false, now: 22_000), [])
        XCTAssertEqual(follower.natsChanged(connected: true, now: 23_000), [.replay(reason: "connected to NATS")])
        follower.replayStarted()
        XCTAssertEqual(state(&follower, venue.snapshot(1, score: 0), now: 23_500), [], "the stream is not the venue heard live")
        XCTAssertEqual(tick(&follower, venue.heartbeat(1), now: 24_000), [.linkRestored])
    }

    func testJunkOnTheStateSubjectIsDroppedWithoutStoppingTheFollower() {
        var follower = connected()
        _ = state(&follower, venue.snapshot(5, score: 0))
        XCTAssertEqual(follower.receivedState(Array("not json".utf8), signature: nil, now: 1).count, 1)
        let noEpoch = JSONWriter.bytes(["type": "snapshot", "version": 9, "state": ["score": 9]])
        XCTAssertEqual(state(&follower, venue.signed(noEpoch)), [.dropped(reason: "state subject: a snapshot without its epoch")])
        let six = venue.patch(from: 5, score: 1)
        XCTAssertEqual(state(&follower, six), [.announce(venue.frames(6, score: 1, patch: six.bytes))])
        XCTAssertEqual(follower.dropped, 2)
    }

    // MARK: - Rendering

    func testAnnouncingAVersionRendersNoSnapshotUntilAFollowerReadsIt() {
        var follower = connected()
        var announced: [StateFrames] = []
        for action in state(&follower, venue.snapshot(5, score: 0)) {
            if case .announce(let frames) = action { announced.append(frames) }
        }
        for version in 6...40 {
            for action in state(&follower, venue.patch(from: version - 1, score: version)) {
                if case .announce(let frames) = action { announced.append(frames) }
            }
        }
        XCTAssertEqual(announced.map(\.version), Array(5...40))
        XCTAssertEqual(announced.filter { $0.v2SnapshotSource.isRendered }.count, 0, "36 versions announced, none rendered")
        XCTAssertEqual(announced.dropFirst().filter { $0.v2Patch == nil }.count, 0, "each carries the venue's patch")
        let last = announced[announced.count - 1]
        let snapshot = try! JSONValue.parse(last.v2Snapshot).get()
        XCTAssertTrue(last.v2SnapshotSource.isRendered)
        XCTAssertEqual(snapshot["version"], 40)
        XCTAssertEqual(snapshot["state"], ["score": 40])
        XCTAssertEqual(snapshot["epoch"], "epoch-one")
    }
}
