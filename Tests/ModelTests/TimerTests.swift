import GatherModel
import GatherModelTestSupport
import XCTest

/// The match countdown, ported from the Football Gather app's timer behaviours: 10:00 by
/// default, MM:SS, 0–59 for minutes and seconds, start/pause/resume, and 00:00 for good.
final class TimerTests: XCTestCase {
    private let start = GatherTestStore.start

    // MARK: - Defaults and display

    func testTheDefaultTimerIsTenMinutesStopped() {
        let timer = MatchTimer()
        XCTAssertEqual(timer, MatchTimer(status: .stopped, durationSeconds: 600, remainingMs: 600_000, endsAt: nil))
        XCTAssertEqual(MatchTimer.format(milliseconds: timer.remainingMs(at: start)), "10:00")
    }

    func testFormattingIsMinutesColonSecondsRoundedUpToTheSecond() {
        let cases: [(Int, String)] = [
            (600_000, "10:00"), (599_999, "10:00"), (599_000, "09:59"), (59_001, "01:00"), (60_000, "01:00"),
            (61_000, "01:01"), (9_000, "00:09"), (1, "00:01"), (999, "00:01"), (1000, "00:01"), (1001, "00:02"),
            (0, "00:00"), (-1, "00:00"), (-60_000, "00:00"), (3_599_000, "59:59"), (3_598_001, "59:59"),
        ]
        for (milliseconds, text) in cases {
            XCTAssertEqual(MatchTimer.format(milliseconds: milliseconds), text, "\(milliseconds) ms")
        }
    }

    // MARK: - Setting the time

    func testSettingTheTimeAcceptsZeroToFiftyNineForMinutesAndSeconds() {
        let store = GatherTestStore.setUpGather()
        store.send(json: ["kind": "setTimer", "minutes": 59, "seconds": 59]) { state in
            state.gather!.timer = MatchTimer(status: .stopped, durationSeconds: 3599, remainingMs: 3_599_000)
            state.gather!.events = [GatherEvent(seq: 1, kind: .timerSet, at: self.start, by: "ann")]
        }
        XCTAssertEqual(MatchTimer.format(milliseconds: store.state.gather!.timer.remainingMs), "59:59")
        store.advance(byMs: 1000)
        store.send(json: ["kind": "setTimer", "minutes": 0, "seconds": 1]) { state in
            state.gather!.timer = MatchTimer(durationSeconds: 1)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerSet, at: self.start + 1000, by: "ann"))
        }
        store.send(json: ["kind": "setTimer", "minutes": 1, "seconds": 0]) { state in
            state.gather!.timer = MatchTimer(durationSeconds: 60)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerSet, at: self.start + 1000, by: "ann"))
        }
    }

    func testSixtyNegativeAndFractionalTimesAreRejected() {
        let store = GatherTestStore.setUpGather()
        let bad: [(JSONValue, JSONValue)] = [(60, 0), (0, 60), (-1, 30), (10, -1), (.double(1.5), 0), ("10", 0),
                                             (nil, 0), (10, nil)]
        for (minutes, seconds) in bad {
            store.reject(json: ["kind": "setTimer", "minutes": minutes, "seconds": seconds], code: .invalid,
                         messageContains: "0 to 59")
        }
        store.reject(json: ["kind": "setTimer", "seconds": 30], code: .invalid)
    }

    func testZeroMinutesAndZeroSecondsIsNotATimeAndTheOldTimeStays() {
        let store = GatherTestStore.setUpGather()
        store.reject(json: ["kind": "setTimer", "minutes": 0, "seconds": 0], code: .invalid, messageContains: "second")
        XCTAssertEqual(store.state.gather!.timer.remainingMs, 600_000)
    }

    func testTheTimeCannotBeSetWhileRunningButCanWhilePaused() {
        let store = GatherTestStore.liveGather()
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, endsAt: self.start + 600_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 10_000)
        store.reject(.setTimer(minutes: 5, seconds: 0), code: .wrongPhase, messageContains: "Pause")
        store.send(.pauseTimer) { state in
            state.gather!.timer = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 590_000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerPaused, at: self.start + 10_000,
                                                    matchMs: 10_000, by: "ann"))
        }
        store.send(.setTimer(minutes: 5, seconds: 0)) { state in
            state.gather!.timer = MatchTimer(status: .stopped, durationSeconds: 300, remainingMs: 300_000)
            state.gather!.events.append(GatherEvent(seq: 4, kind: .timerSet, at: self.start + 10_000, by: "ann"))
        }
    }

    // MARK: - Start, pause, resume

    func testTheTimerStartsOnlyAfterKickOff() {
        let store = GatherTestStore.setUpGather()
        store.reject(.startTimer, code: .wrongPhase, messageContains: "Kick off")
        store.reject(.pauseTimer, code: .wrongPhase, messageContains: "not running")
    }

    func testStartPauseAndResumeCountOnlyTheTimeTheClockRan() {
        let store = GatherTestStore.liveGather()
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, remainingMs: 600_000,
                                             endsAt: self.start + 600_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 90_250)
        XCTAssertEqual(MatchTimer.format(milliseconds: store.state.gather!.timer.remainingMs(at: store.now)), "08:30")
        store.reject(.startTimer, code: .wrongPhase, messageContains: "already running")
        store.send(.pauseTimer) { state in
            state.gather!.timer = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 509_750)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerPaused, at: self.start + 90_250,
                                                    matchMs: 90_250, by: "ann"))
        }
        store.advance(byMs: 300_000) // a long break does not run the clock
        XCTAssertEqual(store.state.gather!.timer.remainingMs(at: store.now), 509_750)
        store.reject(.pauseTimer, code: .wrongPhase)
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, remainingMs: 509_750,
                                             endsAt: self.start + 390_250 + 509_750)
            state.gather!.events.append(GatherEvent(seq: 4, kind: .timerStarted, at: self.start + 390_250,
                                                    matchMs: 90_250, by: "ann"))
        }
    }

    // MARK: - Reaching zero

    func testAtZeroTheTimerFinishesWithFullTimeAndStaysAtZero() {
        let store = GatherTestStore.liveGather()
        store.send(.setTimer(minutes: 0, seconds: 3)) { state in
            state.gather!.timer = MatchTimer(durationSeconds: 3)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerSet, at: self.start, by: "ann"))
        }
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 3, endsAt: self.start + 3000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 2999)
        store.expectNoExpiry()
        XCTAssertEqual(MatchTimer.format(milliseconds: store.state.gather!.timer.remainingMs(at: store.now)), "00:01")
        store.advance(byMs: 1)
        store.expireTimer { state in
            state.gather!.timer = MatchTimer(status: .finished, durationSeconds: 3, remainingMs: 0, endsAt: nil)
            state.gather!.events.append(GatherEvent(seq: 4, kind: .fullTime, team: nil, at: self.start + 3000,
                                                    matchMs: 3000, by: nil))
        }
        store.advance(byMs: 3_600_000) // an hour later: still 00:00, still finished, no reset by itself
        store.expectNoExpiry()
        XCTAssertEqual(store.state.gather!.timer.status, .finished)
        XCTAssertEqual(store.state.gather!.timer.remainingMs(at: store.now), 0)
        XCTAssertEqual(MatchTimer.format(milliseconds: store.state.gather!.timer.remainingMs(at: store.now)), "00:00")
    }

    func testALateExpiryIsDatedWhenTimeRanOutAndNeverGoesNegative() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.timer = MatchTimer(status: .running, durationSeconds: 60, remainingMs: 60_000, endsAt: start + 60_000)
        let store = GatherTestStore(GatherState(players: [], gather: gather, nextPlayerID: 5), now: start + 64_000)
        XCTAssertEqual(store.state.gather!.timer.remainingMs(at: store.now), 0, "never negative")
        XCTAssertEqual(store.state.gather!.timer.playedMs(at: store.now), 60_000, "never more than the duration")
        store.expireTimer { state in
            state.gather!.timer = MatchTimer(status: .finished, durationSeconds: 60, remainingMs: 0)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .fullTime, at: self.start + 60_000, matchMs: 60_000))
        }
    }

    func testOnlyARunningTimerExpires() {
        let none = GatherTestStore(.roster("Ann"), now: start + 10_000_000)
        none.expectNoExpiry()
        var gather = GatherTestStore.liveGather().state.gather!
        gather.timer = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 1)
        let paused = GatherTestStore(GatherState(gather: gather), now: start + 10_000_000)
        paused.expectNoExpiry()
    }

    func testAFinishedTimerStartsAgainOnlyAfterAResetOrANewTime() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.timer = MatchTimer(status: .finished, durationSeconds: 300, remainingMs: 0)
        let store = GatherTestStore(GatherState(gather: gather))
        store.reject(.startTimer, code: .wrongPhase, messageContains: "reset")
        store.send(.resetTimer) { state in
            state.gather!.timer = MatchTimer(status: .stopped, durationSeconds: 300, remainingMs: 300_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerReset, at: self.start, by: "ann"))
        }
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 300, endsAt: self.start + 300_000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
    }

    func testATimerWithNoTimeLeftNeverStarts() {
        var gather = GatherTestStore.liveGather().state.gather!
        gather.timer = MatchTimer(status: .stopped, durationSeconds: 0)
        GatherTestStore(GatherState(gather: gather)).reject(.startTimer, code: .wrongPhase, messageContains: "no time")
        gather.timer = MatchTimer(status: .paused, durationSeconds: 600, remainingMs: 0)
        GatherTestStore(GatherState(gather: gather)).reject(.startTimer, code: .wrongPhase, messageContains: "no time")
    }

    func testPausingAfterTimeRanOutLeavesItToFinish() {
        let store = GatherTestStore.liveGather()
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, endsAt: self.start + 600_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        // The pause lands a few milliseconds after zero, before the countdown's wake-up runs.
        store.advance(byMs: 600_003)
        store.reject(.pauseTimer, code: .wrongPhase, messageContains: "Time is up")
        store.expireTimer { state in
            state.gather!.timer = MatchTimer(status: .finished, durationSeconds: 600, remainingMs: 0)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .fullTime, at: self.start + 600_000,
                                                    matchMs: 600_000))
        }
    }

    // MARK: - Reset

    func testResetStopsAtTheFullDurationEvenWhileRunning() {
        let store = GatherTestStore.liveGather()
        store.send(.startTimer) { state in
            state.gather!.timer = MatchTimer(status: .running, durationSeconds: 600, endsAt: self.start + 600_000)
            state.gather!.events.append(GatherEvent(seq: 2, kind: .timerStarted, at: self.start, matchMs: 0, by: "ann"))
        }
        store.advance(byMs: 42_000)
        store.send(.resetTimer) { state in
            state.gather!.timer = MatchTimer(status: .stopped, durationSeconds: 600, remainingMs: 600_000)
            state.gather!.events.append(GatherEvent(seq: 3, kind: .timerReset, at: self.start + 42_000, by: "ann"))
        }
        XCTAssertEqual(MatchTimer.format(milliseconds: store.state.gather!.timer.remainingMs(at: store.now)), "10:00")
    }

    func testTimerActionsNeedAGather() {
        let store = GatherTestStore(.roster("Ann"))
        store.reject(.setTimer(minutes: 1, seconds: 0), code: .wrongPhase)
        store.reject(.startTimer, code: .wrongPhase)
        store.reject(.pauseTimer, code: .wrongPhase)
        store.reject(.resetTimer, code: .wrongPhase)
    }
}
