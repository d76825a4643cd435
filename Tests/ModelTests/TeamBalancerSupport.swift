import GatherModel
import GatherModelTestSupport
import XCTest

enum SquadFactory {
    /// `count` players with distinct, scattered ids, ratings 800–1600 and up to `maxKeepers`
    /// goalkeepers.
    static func squad(count: Int, maxKeepers: Int, using random: inout SplitMix64) -> [BalanceCandidate] {
        var ids = Set<Int>()
        while ids.count < count { ids.insert(Int.random(in: 1...500, using: &random)) }
        let keepers = Int.random(in: 0...min(maxKeepers, count), using: &random)
        return ids.sorted().shuffled(using: &random).enumerated().map { position, id in
            BalanceCandidate(id: id, rating: Int.random(in: 800...1600, using: &random), isGoalkeeper: position < keepers)
        }
    }
}

/// The protocol's definition of fair teams, applied literally to every one of the 2^n splits:
/// the reference the balancer is checked against.
enum BruteForceBalancer {
    static func balance(_ players: [BalanceCandidate]) -> BalancedTeams {
        let sorted = players.sorted { $0.id < $1.id }
        let count = sorted.count
        var best: (difference: Int, word: String, mask: Int)?
        for mask in 0..<(1 << count) {
            // Team A is the side of the lowest id, whichever bit that is.
            let lowestOnA = mask & 1 != 0
            var sizes = (a: 0, b: 0), keepers = (a: 0, b: 0), sums = (a: 0, b: 0)
            for index in 0..<count {
                let player = sorted[index]
                if (mask >> index & 1 != 0) == lowestOnA {
                    sizes.a += 1
                    keepers.a += player.isGoalkeeper ? 1 : 0
                    sums.a += player.rating
                } else {
                    sizes.b += 1
                    keepers.b += player.isGoalkeeper ? 1 : 0
                    sums.b += player.rating
                }
            }
            guard abs(sizes.a - sizes.b) <= 1, abs(keepers.a - keepers.b) <= 1 else { continue }
            let difference = abs(sums.a - sums.b)
            if let current = best, current.difference < difference { continue }
            let word = String((0..<count).map { (mask >> $0 & 1 != 0) == lowestOnA ? "A" : "B" })
            if let current = best, (current.difference, current.word) <= (difference, word) { continue }
            best = (difference, word, mask)
        }
        let word = Array(best!.word)
        return BalancedTeams(teamA: sorted.indices.filter { word[$0] == "A" }.map { sorted[$0].id },
                             teamB: sorted.indices.filter { word[$0] == "B" }.map { sorted[$0].id },
                             difference: best!.difference)
    }
}

/// Asserts the rules any split must keep: every candidate on exactly one team, each team
/// sorted, Team A holding the lowest id, sizes and goalkeepers within one, and the reported
/// difference the true one.
func assertKeepsTheRules(_ teams: BalancedTeams?, of players: [BalanceCandidate], _ message: String = "",
                         file: StaticString = #filePath, line: UInt = #line) {
    guard let teams else { return XCTFail("no teams \(message)", file: file, line: line) }
    let byID = Dictionary(uniqueKeysWithValues: players.map { ($0.id, $0) })
    XCTAssertEqual((teams.teamA + teams.teamB).sorted(), players.map(\.id).sorted(), message, file: file, line: line)
    XCTAssertEqual(teams.teamA, teams.teamA.sorted(), message, file: file, line: line)
    XCTAssertEqual(teams.teamB, teams.teamB.sorted(), message, file: file, line: line)
    XCTAssertEqual(teams.teamA.first, players.map(\.id).min(), message, file: file, line: line)
    XCTAssertLessThanOrEqual(abs(teams.teamA.count - teams.teamB.count), 1, message, file: file, line: line)
    let keepersA = teams.teamA.filter { byID[$0]!.isGoalkeeper }.count
    let keepersB = teams.teamB.filter { byID[$0]!.isGoalkeeper }.count
    XCTAssertLessThanOrEqual(abs(keepersA - keepersB), 1, message, file: file, line: line)
    let sumA = teams.teamA.map { byID[$0]!.rating }.reduce(0, +)
    let sumB = teams.teamB.map { byID[$0]!.rating }.reduce(0, +)
    XCTAssertEqual(teams.difference, abs(sumA - sumB), message, file: file, line: line)
}
