import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherModelTestSupport
import GatherPresenters
import XCTest

/// Several pitches through the Coordinator: arbitration per pitch and per goal, and one countdown
/// per running timer that ticks each second and ends at its own instant, through a restart too.
final class PitchCoordinatorTests: XCTestCase {
    private var harness: CoordinatorHarness!
    private var ann: ConnectionID!
    private var bob: ConnectionID!

    override func setUpWithError() throws {
        harness = try CoordinatorHarness()
        ann = harness.organiser(1, "ann")
        bob = harness.organiser(2, "bob")
        harness.clock.advance(byMs: 1000)
        harness.send(.presenceWoke, expect: [.publishPresence(organisers: ["ann", "bob"], spectators: 0)])
    }

    /// `pitches` pitches, each with a live gather of two players: 2p−1 on Team A, 2p on Team B.
    private func liveGathers(on pitches: Int) {
        for id in 1...(2 * pitches) {
            harness.prepare(ann, id: "add-\(id)", ["kind": "addPlayer", "name": .string("P\(id)")])
        }
        for pitch in 1...pitches {
            if pitch > 1 { harness.prepare(ann, id: "pitch-\(pitch)", ["kind": "addPitch", "name": .string("Pitch \(pitch)")]) }
            let p = JSONValue.int(pitch)
            for (id, action) in [("g", ["kind": "createGather", "playerIds": [.int(2 * pitch - 1), .int(2 * pitch)], "pitch": p] as JSONValue),
                                 ("a", ["kind": "assign", "playerId": .int(2 * pitch - 1), "to": "A", "pitch": p]),
                                 ("b", ["kind": "assign", "playerId": .int(2 * pitch), "to": "B", "pitch": p]),
                                 ("k", ["kind": "startGather", "pitch": p])] {
                harness.prepare(ann, id: "\(id)-\(pitch)", action)
            }
        }
    }

    // MARK: - Arbitration per pitch

    func testTheSamePlusOneOnTwoPitchesAppliesTwiceButTwiceOnOnePitchConflicts() throws {
        liveGathers(on: 2)
        let base = harness.version
        let start = harness.clock.now
        harness.command(ann, id: "ann+1", base: base, ["kind": "score", "team": "A", "delta": 1]) { state in
            state.pitches[0].gather!.score.A = 1
            state.pitches[0].gather!.events.append(.goal(seq: 2, team: .A, at: start, matchMs: 0, by: "ann"))
        }
        harness.command(bob, id: "bob+1", base: base, ["kind": "score", "team": "A", "delta": 1, "pitch": 2]) { state in
            state.pitches[1].gather!.score.A = 1
            state.pitches[1].gather!.events.append(.goal(seq: 2, team: .A, at: start, matchMs: 0, by: "bob"))
        }
        harness.clock.advance(byMs: 5000)
        harness.rejected(bob, id: "bob+1 on 1", base: base, ["kind": "score", "team": "A", "delta": 1], code: .conflict,
                         messageContains: "ann changed Team A's score on Pitch 1 5 s ago")
        harness.rejected(ann, id: "ann+1 on 2", base: base, ["kind": "score", "team": "A", "delta": 1, "pitch": 2],
                         code: .conflict, messageContains: "bob changed Team A's score on Pitch 2 5 s ago")
        XCTAssertEqual(harness.state.pitches.map { $0.gather?.score }, [Score(A: 1, B: 0), Score(A: 1, B: 0)])
    }

    func testAStaleScorerConflictsOnTheSameGoalOnlyAndNeverLandsOnTheNextGather() throws {
        liveGathers(on: 2)
        harness.prepare(ann, id: "goal-2", ["kind": "score", "team": "A", "delta": 1])
        harness.prepare(ann, id: "goal-3", ["kind": "score", "team": "A", "delta": 1])
        harness.prepare(ann, id: "cage-goal-2", ["kind": "score", "team": "B", "delta": 1, "pitch": 2])
        let base = harness.version
        harness.command(ann, id: "name-2", base: base, ["kind": "setScorer", "seq": 2, "playerId": 1]) { state in
            state.pitches[0].gather!.events[1].playerId = 1
        }
        harness.rejected(bob, id: "bob-name-2", base: base, ["kind": "setScorer", "seq": 2, "playerId": nil],
                         code: .conflict, messageContains: "ann changed goal #2 on Pitch 1 just now")
        harness.rejected(bob, id: "bob-cancel-2", base: base, ["kind": "cancelGoal", "seq": 2], code: .conflict,
                         messageContains: "goal #2")
        harness.command(bob, id: "bob-name-3", base: base, ["kind": "setScorer", "seq": 3, "playerId": 1]) { state in
            state.pitches[0].gather!.events[2].playerId = 1
        }
        // Goal #2 of pitch 2 is another goal altogether.
        harness.command(bob, id: "bob-cage-2", base: base, ["kind": "setScorer", "seq": 2, "playerId": 4, "pitch": 2]) { state in
            state.pitches[1].gather!.events[1].playerId = 4
        }

        // Pitch 1's gather ends and the next one has its own goal #2: a setScorer meant for the old
        // goal #2 must not name the new one's scorer.
        let beforeTheEnd = harness.version
        for (id, action) in [("end", ["kind": "endGather"] as JSONValue),
                             ("again", ["kind": "createGather", "playerIds": [1, 2]]),
                             ("a", ["kind": "assign", "playerId": 1, "to": "A"]),
                             ("b", ["kind": "assign", "playerId": 2, "to": "B"]),
                             ("k", ["kind": "startGather"]),
                             ("new-goal-2", ["kind": "score", "team": "A", "delta": 1])] {
            harness.prepare(ann, id: id, action)
        }
        harness.rejected(bob, id: "stale-name", base: beforeTheEnd, ["kind": "setScorer", "seq": 2, "playerId": 1],
                         code: .conflict, messageContains: "ann changed goal #2 on Pitch 1")
        XCTAssertNil(harness.state.pitches[0].gather!.events[1].playerId)
    }

    // MARK: - Countdowns

    /// Plays the runtime's part: one pending wake-up per pitch, as the core's `.scheduleCountdown`
    /// effects ask, fired earliest first (ties by pitch) at exactly its instant.
    private struct Scheduler {
        var pending: [Pitch.ID: Int64] = [:]

        mutating func follow(_ effects: [Effect], now: Int64, file: StaticString = #filePath, line: UInt = #line) {
            for case .scheduleCountdown(let pitch, let at) in effects {
                if let at { XCTAssertGreaterThan(at, now, "a wake-up in the past", file: file, line: line) }
                pending[pitch] = at
            }
        }

        var earliest: (pitch: Pitch.ID, at: Int64)? {
            pending.min { ($0.value, $0.key) < ($1.value, $1.key) }.map { (pitch: $0.key, at: $0.value) }
        }
    }

    /// What the phones saw: each pitch's ticks, and the instant each one's finish was published.
    private struct Observed {
        var ticks: [Pitch.ID: [Int64]] = [:]
        var finished: [Pitch.ID: Int64] = [:]
    }

    /// Runs wake-ups (and `startTimer` commands due at `starts`) until nothing is pending; a
    /// wake-up due at the same instant as a command goes first.
    private func run(_ scheduler: inout Scheduler, starts: [(pitch: Pitch.ID, at: Int64, seconds: Int)] = [],
                     into observed: inout Observed, file: StaticString = #filePath, line: UInt = #line) {
        var starts = starts.sorted { $0.at < $1.at }
        for _ in 0..<1000 {
            let wake = scheduler.earliest
            if let next = starts.first, wake.map({ $0.at > next.at }) ?? true {
                starts.removeFirst()
                harness.clock.set(next.at)
                let index = harness.state.pitches.firstIndex { $0.id == next.pitch }!
                let seq = harness.state.pitches[index].gather!.events.count + 1
                let effects = harness.command(ann, id: "go-\(next.pitch)", ["kind": "startTimer", "pitch": .int(next.pitch)],
                                              also: [.scheduleCountdown(pitch: next.pitch, at: next.at + 1000)]) { state in
                    state.pitches[index].gather!.timer = MatchTimer(status: .running, durationSeconds: next.seconds,
                                                                    endsAt: next.at + Int64(next.seconds) * 1000)
                    state.pitches[index].gather!.events.append(GatherEvent(seq: seq, kind: .timerStarted, at: next.at,
                                                                           matchMs: 0, by: "ann"))
                }
                scheduler.follow(effects, now: next.at, file: file, line: line)
                continue
            }
            guard let wake else { return }
            harness.clock.set(wake.at)
            scheduler.pending[wake.pitch] = nil
            let before = harness.state
            let effects = harness.send(.countdownWoke(pitch: wake.pitch), exhaustivity: .off, file: file, line: line)
            for effect in effects {
                switch effect {
                case .publishTick(let pitch, let timer):
                    observed.ticks[pitch, default: []].append(wake.at)
                    XCTAssertEqual(timer.status, .running, file: file, line: line)
                    XCTAssertEqual(timer, harness.state.pitch(pitch)?.gather?.timer, file: file, line: line)
                case .publishSnapshot(let version, let state):
                    XCTAssertEqual(version, harness.version, file: file, line: line)
                    XCTAssertEqual(state, harness.state, file: file, line: line)
                    for pitch in state.pitches where pitch.gather?.timer.status == .finished
                        && before.pitch(pitch.id)?.gather?.timer.status == .running {
                        XCTAssertNil(observed.finished[pitch.id], "finished twice", file: file, line: line)
                        observed.finished[pitch.id] = wake.at
                    }
                case .scheduleCountdown: break
                default: XCTFail("unexpected effect of a wake-up: \(effect)", file: file, line: line)
                }
            }
            scheduler.follow(effects, now: wake.at, file: file, line: line)
        }
        XCTFail("the countdowns never settled", file: file, line: line)
    }

    /// The timer of `pitch` once finished at `endsAt`: zero left and one `fullTime` dated then.
    private func assertFinished(_ pitch: Pitch.ID, seconds: Int, at endsAt: Int64, fullTimeSeq seq: Int,
                                file: StaticString = #filePath, line: UInt = #line) {
        let gather = harness.state.pitch(pitch)!.gather!
        XCTAssertEqual(gather.timer, MatchTimer(status: .finished, durationSeconds: seconds, remainingMs: 0),
                       "pitch \(pitch)", file: file, line: line)
        XCTAssertEqual(gather.events.filter { $0.kind == .fullTime },
                       [GatherEvent(seq: seq, kind: .fullTime, at: endsAt, matchMs: seconds * 1000)],
                       "pitch \(pitch)", file: file, line: line)
    }

    func testEightTimersTickEverySecondAndEachEndsAtItsOwnInstant() throws {
        liveGathers(on: 8)
        // Pitch p starts p − 1 seconds after the first, for d seconds; it ends (p − 1 + d) s after
        // the first start: 10, 4, 8, 5, 13, 9, 14 and 12 s, eight different instants. Ticks of the
        // pitches still running fall on the same whole seconds as others' full times.
        let durations = [10, 3, 6, 2, 9, 4, 8, 5]
        for (index, seconds) in durations.enumerated() {
            harness.prepare(ann, id: "time-\(index + 1)", ["kind": "setTimer", "minutes": 0, "seconds": .int(seconds),
                                                           "pitch": .int(index + 1)])
        }
        harness.clock.advance(byMs: 5000)  // the command bucket refills; nothing is running yet
        let first = harness.clock.now
        let starts = durations.enumerated().map { (pitch: $0.offset + 1, at: first + Int64($0.offset) * 1000, seconds: $0.element) }
        let versionBefore = harness.version
        var scheduler = Scheduler()
        var observed = Observed()
        run(&scheduler, starts: starts, into: &observed)

        for start in starts {
            let endsAt = start.at + Int64(start.seconds) * 1000
            XCTAssertEqual(observed.ticks[start.pitch] ?? [], (1..<start.seconds).map { start.at + Int64($0) * 1000 },
                           "pitch \(start.pitch) ticks once a second until its end")
            XCTAssertEqual(observed.finished[start.pitch], endsAt, "pitch \(start.pitch) is published finished at its end")
            // Events: kick-off 1, timerSet 2, timerStarted 3, fullTime 4.
            assertFinished(start.pitch, seconds: start.seconds, at: endsAt, fullTimeSeq: 4)
        }
        XCTAssertEqual(harness.version, versionBefore + 8 + 8, "eight starts and eight full times, one change each")
        XCTAssertEqual(scheduler.pending, [:], "no wake-up left behind")
        // A stray wake-up after the end changes nothing and schedules nothing.
        harness.clock.advance(byMs: 3000)
        harness.send(.countdownWoke(pitch: 5), expect: [])
    }

    func testACommandHandledWhileAnotherPitchsWakeUpIsDueLeavesThatTickInPlace() throws {
        liveGathers(on: 2)
        harness.prepare(ann, id: "time", ["kind": "setTimer", "minutes": 0, "seconds": 10, "pitch": 2])
        let started = harness.clock.now
        harness.command(ann, id: "go", ["kind": "startTimer", "pitch": 2],
                        also: [.scheduleCountdown(pitch: 2, at: started + 1000)]) { state in
            state.pitches[1].gather!.timer = MatchTimer(status: .running, durationSeconds: 10, endsAt: started + 10_000)
            state.pitches[1].gather!.events.append(GatherEvent(seq: 3, kind: .timerStarted, at: started, matchMs: 0,
                                                               by: "ann"))
        }
        // Pitch 2's wake-up came due at T + 1000, but a goal on pitch 1 is handled first, 5 ms later.
        harness.clock.set(started + 1005)
        harness.command(bob, id: "goal", ["kind": "score", "team": "A", "delta": 1]) { state in
            state.pitches[0].gather!.score.A = 1
            state.pitches[0].gather!.events.append(.goal(seq: 2, team: .A, at: started + 1005, matchMs: 0, by: "bob"))
        }
        // 10 000 − 1005 = 8995 ms left: the next whole second is 995 ms away.
        harness.send(.countdownWoke(pitch: 2), expect: [.publishTick(pitch: 2, timer: harness.state.pitches[1].gather!.timer),
                                                        .scheduleCountdown(pitch: 2, at: started + 2000)])
    }

    func testARestartKeepsEveryRunningTimerRightAndFinishesOneThatRanOutWhileDown() throws {
        liveGathers(on: 3)
        let first = harness.clock.now
        // Pitch 1: 5 s from T; pitch 2: 20 s from T + 300 ms; pitch 3: 2 s from T + 600 ms.
        let plan = [(pitch: 1, at: first, seconds: 5), (pitch: 2, at: first + 300, seconds: 20),
                    (pitch: 3, at: first + 600, seconds: 2)]
        for start in plan {
            harness.prepare(ann, id: "time-\(start.pitch)", ["kind": "setTimer", "minutes": 0, "seconds": .int(start.seconds),
                                                             "pitch": .int(start.pitch)])
        }
        var scheduler = Scheduler()
        var observed = Observed()
        // Only the starts: the first wake-up (T + 1000) is later than the last start.
        for start in plan {
            harness.clock.set(start.at)
            let effects = harness.message(ann, ["type": "command", "id": .string("go-\(start.pitch)"), "base": .int(harness.version),
                                                "action": ["kind": "startTimer", "pitch": .int(start.pitch)]], exhaustivity: .off)
            XCTAssertEqual(effects.last, .scheduleCountdown(pitch: start.pitch, at: start.at + 1000))
            scheduler.follow(effects, now: start.at)
        }
        XCTAssertEqual(scheduler.pending, [1: first + 1000, 2: first + 1300, 3: first + 1600])

        // Down from T + 600 ms to T + 3400 ms: no wake-up ran. Pitch 3 ended at T + 2600.
        let staleBase = harness.version
        var expected = harness.state
        expected.pitches[2].gather!.timer = MatchTimer(status: .finished, durationSeconds: 2, remainingMs: 0)
        expected.pitches[2].gather!.events.append(GatherEvent(seq: 4, kind: .fullTime, at: first + 2600, matchMs: 2000))
        harness.clock.set(first + 3400)
        let effects = try harness.restart()
        // Pitch 1 ends at T + 5000, 1600 ms away: its next whole second is 600 ms away, T + 4000.
        // Pitch 2 ends at T + 20 300, 16 900 ms away: next whole second in 900 ms, T + 4300.
        XCTAssertEqual(effects, [.publishSnapshot(version: staleBase + 1, state: expected),
                                 .scheduleCountdown(pitch: 1, at: first + 4000),
                                 .scheduleCountdown(pitch: 2, at: first + 4300)])
        XCTAssertEqual(harness.state, expected)
        assertFinished(3, seconds: 2, at: first + 2600, fullTimeSeq: 4)

        scheduler = Scheduler()  // the old process's wake-ups died with it
        scheduler.follow(effects, now: harness.clock.now)
        run(&scheduler, into: &observed)
        XCTAssertEqual(observed.ticks[1], [first + 4000])
        XCTAssertEqual(observed.ticks[2], (0...15).map { first + 4300 + Int64($0) * 1000 })
        XCTAssertNil(observed.ticks[3])
        XCTAssertEqual(observed.finished, [1: first + 5000, 2: first + 20_300])
        assertFinished(1, seconds: 5, at: first + 5000, fullTimeSeq: 4)
        assertFinished(2, seconds: 20, at: first + 20_300, fullTimeSeq: 4)
        XCTAssertEqual(scheduler.pending, [:])

        // A timer command on pitch 3 from before the restart meets that full time, journalled when
        // the server came back (T + 3400), 16.9 s before now.
        let cyd = harness.organiser(9, "cyd")
        harness.rejected(cyd, id: "late-reset", base: staleBase, ["kind": "resetTimer", "pitch": 3], code: .conflict,
                         messageContains: "The timer ran out 16 s ago, which changed the timer on Pitch 3")
    }
}
