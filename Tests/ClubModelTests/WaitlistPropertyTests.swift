import ClubModel
import XCTest

/// The waitlist's invariants over 2,000 seeded random sequences of answers, guests, claims,
/// passes, expiries, capacity changes, deletions, cancellations and clock moves (40 steps each).
final class WaitlistPropertyTests: XCTestCase {
    /// SplitMix64: small, seeded, the same numbers on every machine.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    enum Step: Equatable {
        case answer(AnswerChoice, member: String, guests: Int, actor: Actor)
        case claim(String), pass(String), remove(String)
        case capacity(Int), cancel
        case clock(Millis)
    }

    /// What one step did: its events, or its refusal.
    enum Outcome: Equatable {
        case done([WaitlistEvent])
        case refused(Refusal)
    }

    static let members = (0..<10).map { "M\($0)" }

    func randomDate(_ random: inout Random) -> ClubDate {
        let fixture = Fixture(id: "F", title: "Match", weekday: 7, time: LocalTime(hour: 10, minute: 0),
                              durationMinutes: random.int(10...120), place: "", capacity: random.int(2...6),
                              opensHoursBefore: random.int(24...144), closesMinutesBefore: random.int(0...1_440),
                              claimHours: random.int(1...24), lastMinuteHours: random.int(0...48))
        return Schedule.date(of: fixture, on: LocalDate("2026-12-06")!, in: zone("Europe/Madrid"))
    }

    /// A random step; claims and passes mostly go to an open offer, so they are not all refused.
    func randomStep(_ random: inout Random, answers: [Answer]) -> Step {
        var member = Self.members[random.int(0...Self.members.count - 1)]
        let offered = answers.filter { $0.state == .offered }
        if !offered.isEmpty, random.chance(70) { member = offered[random.int(0...offered.count - 1)].memberId }
        switch random.int(0...99) {
        case 0..<40: return .answer(.in, member: member, guests: random.chance(5) ? 4 : random.int(0...3),
                                    actor: random.chance(20) ? .organiser : .member)
        case 40..<55: return .answer(.out, member: member, guests: 0, actor: random.chance(20) ? .organiser : .member)
        case 55..<65: return .claim(member)
        case 65..<70: return .pass(member)
        case 70..<73: return .remove(member)
        case 73..<80: return .capacity(random.int(1...12))
        case 80: return .cancel
        default: return .clock(random.chance(50) ? Millis(random.int(0...120)) * minute : Millis(random.int(0...14)) * hour)
        }
    }

    func apply(_ step: Step, date: ClubDate, answers: [Answer], now: Millis) throws(Refusal) -> WaitlistResult {
        switch step {
        case let .answer(choice, member, guests, actor):
            return try Waitlist.answer(choice, guests: guests, memberId: member, by: actor, date: date,
                                       answers: answers, now: now)
        case let .claim(member): return try Waitlist.claim(memberId: member, date: date, answers: answers, now: now)
        case let .pass(member): return try Waitlist.pass(memberId: member, date: date, answers: answers, now: now)
        case let .remove(member): return Waitlist.removeMember(memberId: member, date: date, answers: answers, now: now)
        case let .capacity(seats):
            return try Waitlist.patchDate(date, startsAt: nil, capacity: seats, answers: answers, now: now)
        case .cancel: return try Waitlist.cancel(date: date, answers: answers, now: now)
        case .clock: return Waitlist.expire(date: date, answers: answers, now: now)
        }
    }

    /// Runs one seeded sequence, checking every invariant after each step; returns the trace.
    func run(seed: UInt64) -> (trace: [Outcome], date: ClubDate, answers: [Answer]) {
        var random = Random(state: seed)
        var date = randomDate(&random)
        var answers: [Answer] = []
        // Anywhere from just before the opening to half-way to the match.
        var now = date.opensAt - 2 * hour + Millis(random.int(0...Int((date.startsAt - date.opensAt) / 2 / minute))) * minute
        var trace: [Outcome] = []
        for _ in 0..<40 {
            let step = randomStep(&random, answers: answers)
            if case let .clock(advance) = step { now += advance }
            let before = (date: date, answers: answers)
            do {
                let result = try apply(step, date: date, answers: answers, now: now)
                check(step, before: before, after: result, now: now, seed: seed)
                date = result.date
                answers = result.answers
                trace.append(.done(result.events))
            } catch {
                // The rule threw: it returned no new state, and the inputs are values it cannot touch.
                XCTAssertEqual(date, before.date)
                XCTAssertEqual(answers, before.answers)
                trace.append(.refused(error))
            }
        }
        return (trace, date, answers)
    }

    func check(_ step: Step, before: (date: ClubDate, answers: [Answer]), after: WaitlistResult, now: Millis,
               seed: UInt64) {
        let context = "seed \(seed), \(step)"
        let answers = after.answers
        let date = after.date
        // One answer per member; `out` ⇔ state out; an expiry only on an offer, never past closing.
        XCTAssertEqual(Set(answers.map(\.memberId)).count, answers.count, context)
        for a in answers {
            XCTAssertEqual(a.answer == .out, a.state == .out, context)
            XCTAssertEqual(a.offerExpiresAt != nil, a.state == .offered, context)
            XCTAssertTrue(ClubInput.guestRange.contains(a.guests), context)
            if a.state == .out { XCTAssertEqual(a.guests, 0, context) }
            if let expiry = a.offerExpiresAt { XCTAssertLessThanOrEqual(expiry, date.closesAt, context) }
        }
        // Never more held seats than the capacity — unless it was lowered below them: then no new seat.
        let held = Waitlist.heldSeats(answers)
        let heldBefore = Set(before.answers.filter { $0.state == .confirmed || $0.state == .offered }.map(\.memberId))
        if held > date.capacity {
            XCTAssertLessThanOrEqual(held, Waitlist.heldSeats(before.answers), context)
            let newlyHeld = answers.filter { ($0.state == .confirmed || $0.state == .offered)
                && !heldBefore.contains($0.memberId) }
            XCTAssertEqual(newlyHeld, [], context)
        }
        // A member is never split from their guests: seats change only by that member's own answer.
        let own: String? = switch step {
        case let .answer(_, member, _, _), let .pass(member), let .remove(member): member
        default: nil
        }
        for a in answers {
            if let old = before.answers.first(where: { $0.memberId == a.memberId }), a.memberId != own,
               a.state != .out {
                XCTAssertEqual(a.guests, old.guests, context)
            }
        }
        // A confirmed place is never taken away but by the member (or their deletion).
        for old in before.answers where old.state == .confirmed && old.memberId != own {
            XCTAssertEqual(answers.first { $0.memberId == old.memberId }?.state, .confirmed, context)
        }
        // The waitlist order is kept: those still waiting keep their relative order, newcomers at the
        // end, and positions follow answeredAt.
        let order = Waitlist.waitlistOrder(answers).map { answers[$0].memberId }
        let oldOrder = Waitlist.waitlistOrder(before.answers).map { before.answers[$0].memberId }
        XCTAssertEqual(order.filter(oldOrder.contains), oldOrder.filter(order.contains), context)
        XCTAssertEqual(order.filter { !oldOrder.contains($0) }, Array(order.suffix(order.count - order.filter(oldOrder.contains).count)), context)
        let times = Waitlist.waitlistOrder(answers).map { answers[$0].answeredAt }
        XCTAssertEqual(times, times.sorted(), context)
        XCTAssertEqual(Waitlist.positions(answers).count, order.count, context)
        // The walk is complete: on a live date no waiting entry fits in the free seats.
        if date.status == .scheduled, now < date.endsAt {
            let free = date.capacity - held
            XCTAssertFalse(answers.contains { $0.state == .waiting && $0.seats <= free }, context)
        }
        // In the last hours nothing new is offered: a freed place is given.
        if now >= date.lastHoursFrom {
            XCTAssertFalse(after.events.contains { if case .offered = $0 { true } else { false } }, context)
        }
    }

    func testInvariantsHoldOverTwoThousandRandomSequences() {
        var refusalCodes: [RefusalCode: Int] = [:]
        var refusals = 0, offers = 0, promotions = 0, missed = 0, overCapacity = 0
        for seed in 0..<UInt64(2_000) {
            let (trace, date, answers) = run(seed: seed)
            for outcome in trace {
                switch outcome {
                case let .refused(refusal):
                    refusals += 1
                    refusalCodes[refusal.code, default: 0] += 1
                case let .done(events):
                    for event in events {
                        switch event {
                        case .offered: offers += 1
                        case .promoted: promotions += 1
                        case .missed: missed += 1
                        default: break
                        }
                    }
                }
            }
            if Waitlist.heldSeats(answers) > date.capacity { overCapacity += 1 }
        }
        // The generator reaches every path often enough for the checks above to mean something.
        XCTAssertGreaterThan(refusals, 1_000)
        XCTAssertGreaterThan(offers, 1_000)
        XCTAssertGreaterThan(promotions, 200)
        XCTAssertGreaterThan(missed, 200)
        XCTAssertGreaterThan(overCapacity, 20)
        print("property run: \(refusals) refusals, \(offers) offers, \(promotions) promotions, \(missed) missed, "
              + "\(overCapacity) sequences ending over a lowered capacity; refusals by code: "
              + refusalCodes.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
              .joined(separator: ", "))
    }

    func testTheSameSequenceGivesTheSameResult() {
        for seed in stride(from: UInt64(0), to: 2_000, by: 7) {
            let first = run(seed: seed)
            let second = run(seed: seed)
            XCTAssertEqual(first.trace, second.trace, "seed \(seed)")
            XCTAssertEqual(first.answers, second.answers, "seed \(seed)")
            XCTAssertEqual(first.date, second.date, "seed \(seed)")
        }
    }
}
