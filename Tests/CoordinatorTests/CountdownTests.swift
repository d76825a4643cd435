import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// The countdown on a test clock: ticks each second, finished at zero, right through a restart.
final class CountdownTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        harness.clock.advance(byMs: 1000)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: ["ann"], spectators: 0)])
        for (id, action) in [("p1", ["kind": "addPlayer", "name": "Ann"] as JSONValue),
                             ("p2", ["kind": "addPlayer", "name": "Bob"]),
                             ("g", ["kind": "createGather", "playerIds": [1, 2]]),
                             ("a", ["kind": "assign", "playerId": 1, "to": "A"]),
                             ("b", ["kind": "assign", "playerId": 2, "to": "B"]),
                             ("k", ["kind": "startGather"]),
                             ("t", ["kind": "setTimer", "minutes": 0, "seconds": 3])] {
            harness.prepare(ann, id: id, action)
        }
    }

    func testTicksEverySecondThenFinishesAtZeroWithFullTime() throws {
        let start = harness.clock.now
        harness.command(ann, id: "go", ["kind": "startTimer"], also: [.scheduleCountdown(pitch: 1, at: start + 1000)]) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 3, remainingMs: 3000, endsAt: start + 3000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerStarted, at: start, matchMs: 0, by: "ann"))
        }
        let running = harness.state.gather!.timer
        for second in 1...2 {
            harness.clock.set(start + Int64(second) * 1000)
            harness.send(.countdownWoke(pitch: 1), expect: [.publishTick(pitch: 1, timer: running),
                                                  .scheduleCountdown(pitch: 1, at: start + Int64(second + 1) * 1000)])
        }
        harness.clock.set(start + 3004) // the wake-up ran 4 ms late
        var expected = harness.state
        expected.gather!.timer = MatchTimer(status: .finished, durationSeconds: 3, remainingMs: 0)
        expected.gather!.events.append(GatherEvent(seq: 4, kind: .fullTime, at: start + 3000, matchMs: 3000, by: nil))
        let version = harness.version + 1
        // The one-shot wake-up has fired; there is nothing left to cancel.
        harness.send(.countdownWoke(pitch: 1), expect: [.publishSnapshot(version: version, state: expected)])
        XCTAssertEqual(MatchTimer.format(milliseconds: harness.state.gather!.timer.remainingMs(at: start + 9000)), "00:00")
        harness.rejected(ann, id: "again", ["kind": "startTimer"], code: .wrongPhase, messageContains: "reset")
    }

    func testPausingFreezesTheRemainingTimeAndCancelsTheWakeUp() throws {
        let start = harness.clock.now
        harness.command(ann, id: "go", ["kind": "startTimer"], also: [.scheduleCountdown(pitch: 1, at: start + 1000)]) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 3, remainingMs: 3000, endsAt: start + 3000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerStarted, at: start, matchMs: 0, by: "ann"))
        }
        harness.clock.advance(byMs: 1250)
        harness.command(ann, id: "pause", ["kind": "pauseTimer"], also: [.scheduleCountdown(pitch: 1, at: nil)]) { state in
            state.gather!.timer = MatchTimer(status: .paused, durationSeconds: 3, remainingMs: 1750)
            state.gather!.events.append(GatherEvent(seq: 4, kind: .timerPaused, at: start + 1250, matchMs: 1250,
                                                    by: "ann"))
        }
        harness.clock.advance(byMs: 10_000)
        harness.command(ann, id: "resume", ["kind": "startTimer"],
                        also: [.scheduleCountdown(pitch: 1, at: start + 11_250 + 750)]) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 3, remainingMs: 1750,
                                             endsAt: start + 11_250 + 1750)
            state.gather!.events.append(GatherEvent(seq: 5, kind: .timerStarted, at: start + 11_250, matchMs: 1250,
                                                    by: "ann"))
        }
    }

    func testARunningTimerKeepsRunningThroughARestart() throws {
        let start = harness.clock.now
        harness.prepare(ann, id: "go", ["kind": "startTimer"])
        harness.clock.advance(byMs: 1400)
        let effects = try harness.restart()
        XCTAssertEqual(effects, [.publishSnapshot(version: harness.version, state: harness.state),
                                 .scheduleCountdown(pitch: 1, at: start + 2000)])
        XCTAssertEqual(harness.state.gather!.timer.remainingMs(at: harness.clock.now), 1600)
    }

    func testATimerThatRanOutWhileDownFinishesAtTheRightInstant() throws {
        let start = harness.clock.now
        harness.prepare(ann, id: "go", ["kind": "startTimer"])
        let version = harness.version
        harness.clock.advance(byMs: 60_000)
        let effects = try harness.restart()
        XCTAssertEqual(harness.version, version + 1)
        XCTAssertEqual(harness.state.gather!.timer.status, .finished)
        XCTAssertEqual(harness.state.gather!.events.last,
                       GatherEvent(seq: 4, kind: .fullTime, at: start + 3000, matchMs: 3000, by: nil))
        XCTAssertEqual(effects, [.publishSnapshot(version: version + 1, state: harness.state)])
        // A stale timer command from before the expiry is a conflict naming the timer.
        let bob = harness.organiser(9, "bob")
        harness.rejected(bob, id: "late-pause", base: version, ["kind": "pauseTimer"], code: .conflict,
                         messageContains: "The timer ran out")
    }
}
