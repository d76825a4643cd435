import GatherModel
import XCTest

/// The schedule's properties (docs/PROTOCOL.md "The schedule") for EVERY tournament size the
/// contract allows: 2…64 teams × 1, 2, 4, 8, 16 groups (each group at least two teams) × 1…16
/// pitches, and the bound on the group stage's slots. Not a sample: all of them. The checks
/// inside the loops collect what is wrong and assert once, so thousands of schedules stay fast.
final class TournamentScheduleTests: XCTestCase {
    static let start: Int64 = 1_790_000_000_000

    private var problems: [String] = []

    private func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
        if !condition, problems.count < 20 { problems.append(what()) }
    }

    func testEveryGroupStageFromTwoToSixtyFourTeamsOnOneToSixteenPitchesKeepsTheRulesAndTheBound() {
        var configurations = 0
        var tightest = (slack: Int.max, label: "")
        var summary: [String] = []
        for teams in 2...64 {
            for groupCount in TournamentSetup.groupCounts where teams >= groupCount * 2 {
                let groups = TournamentSchedule.groupTeams(teamCount: teams, groups: groupCount)
                for pitches in 1...16 {
                    configurations += 1
                    let slots = TournamentSchedule.groupSlots(groups: groups, pitchCount: pitches)
                    let bound = TournamentSchedule.groupSlotBound(groups: groups, pitchCount: pitches)
                    let label = "\(teams) teams, \(groupCount) groups, \(pitches) pitches"
                    expect(slots.count <= bound, "\(label): \(slots.count) slots, bound \(bound)")
                    if bound - slots.count < tightest.slack { tightest = (bound - slots.count, label + ": \(slots.count) of \(bound)") }
                    checkGroupStage(slots, groups: groups, pitches: pitches, label: label)
                    if [(16, 4, 4), (32, 8, 8), (24, 4, 6), (64, 16, 16), (64, 1, 16), (64, 1, 1), (10, 2, 3)].contains(where: {
                        $0 == (teams, groupCount, pitches)
                    }) {
                        summary.append("\(label): \(slots.count) slots, bound \(bound)")
                    }
                }
            }
        }
        XCTAssertEqual(problems, [])
        XCTAssertEqual(configurations, 263 * 16)
        print("group stage: \(configurations) configurations; tightest \(tightest.label) (slack \(tightest.slack))")
        for line in summary { print("group stage: " + line) }
    }

    private func checkGroupStage(_ slots: [[TournamentSchedule.Pairing]], groups: [[Int]], pitches: Int, label: String) {
        var met: [Int: Int] = [:]
        var groupOf = [Int](repeating: -1, count: 65)
        for (index, group) in groups.enumerated() { for team in group { groupOf[team] = index } }
        for slot in slots {
            expect(!slot.isEmpty && slot.count <= pitches, "\(label): a slot of \(slot.count) matches")
            var playing = Set<Int>()
            for pairing in slot {
                expect(playing.insert(pairing.home).inserted && playing.insert(pairing.away).inserted,
                       "\(label): a team twice in one slot")
                expect(pairing.home < pairing.away, "\(label): the higher seed is home")
                expect(groupOf[pairing.home] == pairing.group && groupOf[pairing.away] == pairing.group,
                       "\(label): a pairing across groups")
                met[pairing.home * 100 + pairing.away, default: 0] += 1
            }
        }
        let expected = groups.reduce(0) { $0 + $1.count * ($1.count - 1) / 2 }
        expect(met.count == expected, "\(label): every pair of a group meets")
        expect(met.values.allSatisfy { $0 == 1 }, "\(label): exactly once")
    }

    /// Whole schedules (what `Tournament.init` is made of): for every size, groups and pitches,
    /// with the most teams going through that the size allows (and a third-place match when there
    /// are four or more), the ids, the slots and pitches, `plannedAt`, and the knockout's rounds,
    /// places and slots.
    func testEveryWholeScheduleHasItsIdsSlotsAndKnockoutInTheContractsOrder() {
        var built = 0
        for teams in 2...64 {
            for groupCount in TournamentSetup.groupCounts where teams >= groupCount * 2 {
                let smallest = teams / groupCount
                guard let advance = (1..<smallest).reversed().first(where: {
                    TournamentSetup.bracketSizes.contains(groupCount * $0)
                }) else { continue }
                for pitches in 1...16 {
                    let settings = TournamentSettings(startsAt: Self.start, pitches: Array(1...pitches).reversed(),
                                                      advance: advance, thirdPlace: groupCount * advance >= 4)
                    let matches = TournamentSchedule.matches(teamCount: teams, groupCount: groupCount, settings: settings)
                    checkWhole(matches, settings: settings, groupCount: groupCount,
                               label: "\(teams) teams, \(groupCount)×\(advance), \(pitches) pitches")
                    built += 1
                }
            }
        }
        XCTAssertEqual(problems, [])
        XCTAssertEqual(built, 4192, "every size but two teams (no valid split) and 2–3 teams in one group with none through")
        print("whole schedules built and checked: \(built)")
    }

    private func checkWhole(_ matches: [TournamentMatch], settings: TournamentSettings, groupCount: Int, label: String) {
        expect(matches.map(\.id) == Array(1...matches.count), "\(label): ids 1…n")
        // Ids by slot, then by the pitch's place in `pitches`.
        let places = matches.map { $0.slot * 16 + settings.pitches.firstIndex(of: $0.pitch)! }
        expect(zip(places, places.dropFirst()).allSatisfy { $0 < $1 }, "\(label): ids follow slot then pitch")
        expect(matches.allSatisfy {
            $0.plannedAt == settings.startsAt + Int64($0.slot) * settings.slotMs && $0.expectedAt == $0.plannedAt
                && $0.status == .scheduled
        }, "\(label): plannedAt from the slot")
        let groupStage = matches.filter { $0.stage == .group }
        let knockout = matches.filter { $0.stage.isKnockout }
        let lastGroupSlot = groupStage.map(\.slot).max()!
        expect(groupStage.allSatisfy { $0.homeFrom == nil && $0.awayFrom == nil && $0.home != nil }, "\(label): group places")
        expect(knockout.allSatisfy { $0.home == nil && $0.away == nil && $0.homeFrom != nil }, "\(label): knockout places")
        // Rounds one after another, each over ⌈its matches ÷ pitches⌉ slots, the third place before the final.
        var slot = lastGroupSlot + 1
        var size = settings.advance * groupCount / 2
        var index = 0
        var previous: [Int] = []
        while size >= 1, index + size <= knockout.count {
            if size == 1, settings.thirdPlace {
                let third = knockout[index]
                expect(third.stage == .thirdPlace && third.slot == slot
                    && [third.homeFrom, third.awayFrom] == [.loser(previous[0]), .loser(previous[1])], "\(label): third place")
                index += 1
                slot += 1
            }
            let round = Array(knockout[index..<(index + size)])
            expect(round.allSatisfy { $0.stage == round[0].stage && $0.stage != .thirdPlace }, "\(label): one stage a round")
            for (offset, match) in round.enumerated() {
                expect(match.slot == slot + offset / settings.pitches.count
                    && match.pitch == settings.pitches[offset % settings.pitches.count], "\(label): match \(match.id)'s slot")
                if previous.isEmpty {
                    if case .group = match.homeFrom!, case .group = match.awayFrom! {} else {
                        expect(false, "\(label): the first round takes group places")
                    }
                } else {
                    expect([match.homeFrom, match.awayFrom] == [.winner(previous[offset * 2]), .winner(previous[offset * 2 + 1])],
                           "\(label): match \(match.id)'s places")
                }
            }
            previous = round.map(\.id)
            slot += (size + settings.pitches.count - 1) / settings.pitches.count
            index += size
            size /= 2
        }
        expect(index == knockout.count && knockout.last?.stage == .final, "\(label): ends with the final")
        let losers = knockout.flatMap { [$0.homeFrom!, $0.awayFrom!] }.filter { if case .loser = $0 { true } else { false } }
        expect(losers.count == (settings.thirdPlace ? 2 : 0), "\(label): L places only in the third-place match")
    }

    /// With two groups of four, two going through and a third place: the contract's example, ids and slots by hand.
    func testTwoGroupsOfFourOnTwoPitchesByHand() {
        let settings = TournamentSettings(matchMinutes: 10, breakMinutes: 5, startsAt: Self.start, pitches: [1, 2],
                                          advance: 2, thirdPlace: true)
        let tournament = Tournament(id: "t", name: "Cup", teamNames: ["Reds", "Blues", "Greens", "Whites", "Blacks",
                                                                      "Golds", "Pinks", "Greys"],
                                    groupCount: 2, settings: settings)
        XCTAssertEqual(tournament.groups.map(\.teams), [[1, 3, 5, 7], [2, 4, 6, 8]])
        XCTAssertEqual(tournament.groups.map(\.name), ["A", "B"])
        XCTAssertEqual(tournament.matches.count, 12 + 4)
        // 12 group matches on 2 pitches: 6 slots (3 rounds, 4 matches each, 2 slots a round).
        XCTAssertEqual(tournament.matches.filter { $0.stage == .group }.map(\.slot), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
        let knockout = tournament.matches.filter { $0.stage.isKnockout }
        XCTAssertEqual(knockout.map(\.id), [13, 14, 15, 16])
        XCTAssertEqual(knockout.map(\.stage), [.semiFinal, .semiFinal, .thirdPlace, .final])
        XCTAssertEqual(knockout.map(\.slot), [6, 6, 7, 8])
        XCTAssertEqual(knockout.map(\.pitch), [1, 2, 1, 1])
        XCTAssertEqual(knockout.map { "\($0.homeFrom!)–\($0.awayFrom!)" }, ["A1–B2", "B1–A2", "L13–L14", "W13–W14"])
        XCTAssertEqual(knockout[3].plannedAt, Self.start + 8 * 15 * 60_000)
    }
}
