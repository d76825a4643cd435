/// The split for squads too large to try every split: local searches from a greedy draft and
/// from a fixed number of shuffled drafts, each taking the best improving move round after
/// round. Counts rather than a deadline, and a fixed seed, so the same squad gives the same
/// teams on any machine and under any load.
struct LocalSearchSplit {
    /// Searches started: the greedy draft, then shuffled ones, which get out of the local optima
    /// that small squads just past the exact limit can fall into.
    static let starts = 16
    /// Rounds per search. A round costs about n² + n²/2·log n steps, so even 16 × 100 rounds stay
    /// far inside the protocol's 200 ms for 60 players (README: balancer timings); searches
    /// usually end, with no improving move left, within 20 rounds.
    static let roundBudget = 100
    /// Any fixed value: the shuffles only need to be the same every time.
    private static let seed: UInt64 = 0x00F0_07BA_11

    /// Whether each player (in squad order) is on Team A: the closest split found, the first
    /// found among equally close ones.
    static func search(_ squad: Squad) -> [Bool] {
        var generator = SplitMix64(seed: seed)
        var best = LocalSearchSplit(squad, onTeamA: greedyDraft(squad))
        best.improve()
        for _ in 1..<starts where best.difference > squad.differenceLowerBound {
            var candidate = LocalSearchSplit(squad, onTeamA: shuffledDraft(squad, using: &generator))
            candidate.improve()
            if candidate.difference < best.difference { best = candidate }
        }
        return best.onTeamA
    }

    private let squad: Squad
    private let sizeRange: ClosedRange<Int>
    private let keeperRange: ClosedRange<Int>
    private var onTeamA: [Bool]
    private var sumA = 0
    private var sizeA = 0
    private var keepersA = 0

    private init(_ squad: Squad, onTeamA: [Bool]) {
        self.squad = squad
        sizeRange = squad.sizeRange
        keeperRange = squad.keeperRange
        self.onTeamA = onTeamA
        for index in onTeamA.indices where onTeamA[index] {
            sizeA += 1
            keepersA += squad.isKeeper[index] ? 1 : 0
            sumA += squad.ratings[index]
        }
    }

    private var difference: Int { squad.difference(sumA: sumA) }

    private mutating func improve() {
        for _ in 0..<Self.roundBudget {
            if difference == squad.differenceLowerBound { return }
            if applyBestMoveOrSwap() || applyBestDoubleSwap() { continue }
            return
        }
    }

    // MARK: - Drafts

    /// Goalkeepers first, then the strongest first, each to the weaker team while it has room:
    /// each team may take half the players and half the goalkeepers, rounded up, which keeps
    /// both rules whatever the order.
    private static func greedyDraft(_ squad: Squad) -> [Bool] {
        let order = squad.ids.indices.sorted { left, right in
            let (keeperLeft, keeperRight) = (squad.isKeeper[left], squad.isKeeper[right])
            if keeperLeft != keeperRight { return keeperLeft }
            if squad.ratings[left] != squad.ratings[right] { return squad.ratings[left] > squad.ratings[right] }
            return left < right
        }
        let sizeCap = squad.sizeRange.upperBound
        let keeperCap = squad.keeperRange.upperBound
        var onTeamA = [Bool](repeating: false, count: squad.count)
        var sizes = (a: 0, b: 0), keepers = (a: 0, b: 0), sums = (a: 0, b: 0)
        for index in order {
            let keeper = squad.isKeeper[index] ? 1 : 0
            let roomOnA = sizes.a < sizeCap && keepers.a + keeper <= keeperCap
            let roomOnB = sizes.b < sizeCap && keepers.b + keeper <= keeperCap
            if roomOnA && (!roomOnB || sums.a <= sums.b) {
                onTeamA[index] = true
                sizes.a += 1
                keepers.a += keeper
                sums.a += squad.ratings[index]
            } else {
                sizes.b += 1
                keepers.b += keeper
                sums.b += squad.ratings[index]
            }
        }
        return onTeamA
    }

    /// Goalkeepers, then the others, in shuffled order, dealt to A, B, A, B…: both rules hold.
    private static func shuffledDraft(_ squad: Squad, using generator: inout SplitMix64) -> [Bool] {
        var order = Array(squad.ids.indices)
        // Fisher–Yates by hand: the standard library's shuffle may change between releases.
        for last in stride(from: order.count - 1, to: 0, by: -1) {
            let pick = Int(generator.next() % UInt64(last + 1))
            order.swapAt(last, pick)
        }
        let dealt = order.filter { squad.isKeeper[$0] } + order.filter { !squad.isKeeper[$0] }
        var onTeamA = [Bool](repeating: false, count: squad.count)
        for (turn, index) in dealt.enumerated() { onTeamA[index] = turn % 2 == 0 }
        return onTeamA
    }

    // MARK: - Moves

    /// One player to the other team (possible when the sizes differ), or one player of each team
    /// exchanged: the move that lowers the difference most, the first such in index order.
    private mutating func applyBestMoveOrSwap() -> Bool {
        var best = (difference: difference, first: -1, second: -1)
        for first in squad.ids.indices {
            let sign = onTeamA[first] ? -1 : 1
            let keeperFirst = squad.isKeeper[first] ? 1 : 0
            // A move alone.
            if isAllowed(sizeA: sizeA + sign, keepersA: keepersA + sign * keeperFirst) {
                let moved = squad.difference(sumA: sumA + sign * squad.ratings[first])
                if moved < best.difference { best = (moved, first, -1) }
            }
            // An exchange with each player of the other team after it, so each pair counts once.
            for second in (first + 1)..<squad.count where onTeamA[second] != onTeamA[first] {
                let keeperSecond = squad.isKeeper[second] ? 1 : 0
                guard isAllowed(sizeA: sizeA, keepersA: keepersA + sign * (keeperFirst - keeperSecond)) else {
                    continue
                }
                let swapped = squad.difference(sumA: sumA + sign * (squad.ratings[first] - squad.ratings[second]))
                if swapped < best.difference { best = (swapped, first, second) }
            }
        }
        guard best.first >= 0 else { return false }
        flip(best.first)
        if best.second >= 0 { flip(best.second) }
        return true
    }

    /// Two players of each team exchanged, with as many goalkeepers going each way so both rules
    /// still hold: for when no single exchange helps any more. Pairs of Team B are sorted by
    /// rating sum so that each pair of Team A finds its best partner by bisection.
    private mutating func applyBestDoubleSwap() -> Bool {
        let teamA = squad.ids.indices.filter { onTeamA[$0] }
        let teamB = squad.ids.indices.filter { !onTeamA[$0] }
        // Pairs of Team B by how many goalkeepers they hold (0, 1 or 2), each sorted by sum.
        var pairsB: [[Pair]] = [[], [], []]
        for pair in pairs(of: teamB) { pairsB[pair.keepers].append(pair) }
        for keepers in pairsB.indices {
            pairsB[keepers].sort { ($0.sum, $0.first, $0.second) < ($1.sum, $1.first, $1.second) }
        }

        let gap = 2 * sumA - squad.total
        var best: (difference: Int, pairA: Pair, pairB: Pair)?
        for pairA in pairs(of: teamA) {
            let candidates = pairsB[pairA.keepers]
            guard !candidates.isEmpty else { continue }
            // Exchanging makes the gap `gap - 2 * (pairA.sum - pairB.sum)`: best near zero.
            let target = 2 * pairA.sum - gap // the ideal 2 * pairB.sum
            let above = firstIndex(in: candidates) { 2 * $0.sum >= target }
            for index in [above - 1, above] where candidates.indices.contains(index) {
                let pairB = candidates[index]
                let exchanged = abs(gap - 2 * (pairA.sum - pairB.sum))
                if exchanged < (best?.difference ?? difference) { best = (exchanged, pairA, pairB) }
            }
        }
        guard let best else { return false }
        for index in [best.pairA.first, best.pairA.second, best.pairB.first, best.pairB.second] {
            flip(index)
        }
        return true
    }

    // MARK: - Bookkeeping

    private struct Pair {
        var first: Int
        var second: Int
        var sum: Int
        var keepers: Int
    }

    private func pairs(of team: [Int]) -> [Pair] {
        var result: [Pair] = []
        result.reserveCapacity(team.count * (team.count - 1) / 2)
        for (position, first) in team.enumerated() {
            for second in team[(position + 1)...] {
                let keepers = (squad.isKeeper[first] ? 1 : 0) + (squad.isKeeper[second] ? 1 : 0)
                result.append(Pair(first: first, second: second, sum: squad.ratings[first] + squad.ratings[second],
                                   keepers: keepers))
            }
        }
        return result
    }

    /// The first index whose pair satisfies `isAtOrAbove`, which must hold for a suffix.
    private func firstIndex(in pairs: [Pair], where isAtOrAbove: (Pair) -> Bool) -> Int {
        var low = 0, high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAbove(pairs[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private func isAllowed(sizeA: Int, keepersA: Int) -> Bool {
        sizeRange.contains(sizeA) && keeperRange.contains(keepersA)
    }

    private mutating func flip(_ index: Int) {
        let sign = onTeamA[index] ? -1 : 1
        onTeamA[index].toggle()
        sizeA += sign
        keepersA += sign * (squad.isKeeper[index] ? 1 : 0)
        sumA += sign * squad.ratings[index]
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a few lines, and the same numbers on every platform
/// and Swift release, unlike the standard library's unspecified default generator. Public so
/// every test that needs seeded data uses this one.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
