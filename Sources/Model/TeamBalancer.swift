/// One player that `balanceTeams` may put on either team.
public struct BalanceCandidate: Equatable, Sendable {
    public var id: Player.ID
    public var rating: Int
    public var isGoalkeeper: Bool

    public init(id: Player.ID, rating: Int, isGoalkeeper: Bool = false) {
        self.id = id
        self.rating = rating
        self.isGoalkeeper = isGoalkeeper
    }
}

/// The two teams `balanceTeams` proposes, each sorted by id.
public struct BalancedTeams: Equatable, Sendable {
    public var teamA: [Player.ID]
    public var teamB: [Player.ID]
    /// |sum of Team A's ratings − sum of Team B's|, as `difference` in `teamsBalanced`.
    public var difference: Int

    public init(teamA: [Player.ID], teamB: [Player.ID], difference: Int) {
        self.teamA = teamA
        self.teamB = teamB
        self.difference = difference
    }
}

/// Fair teams (docs/PROTOCOL.md "Fair teams"): team sizes differ by at most one, goalkeepers are
/// split so that their counts differ by at most one, and among those splits the rating sums are
/// as close as possible.
///
/// The result depends only on the SET of candidates, never on their order or on time, so the
/// same players always get the same teams and a replayed history rebuilds the same line-up:
/// - Team A is always the team of the player with the lowest id.
/// - Up to `exactLimit` players the split is optimal, and among equally close splits it is the
///   canonical one: reading the players in ascending id order and writing down each one's
///   team, the word with A before B comes first (so the lowest ids gather on Team A).
/// - Beyond, local searches with fixed budgets of starts and moves (no deadline, a fixed seed)
///   find a close split.
public enum TeamBalancer {
    /// The largest squad split exactly: C(21, 10) = 352,716 candidate teams, a few milliseconds.
    public static let exactLimit = 22

    /// The fairest split of `players`, or nil for fewer than 2. Ids are expected to be unique.
    public static func balance(_ players: [BalanceCandidate]) -> BalancedTeams? {
        balance(players, exactUpTo: exactLimit)
    }

    /// `balance` with another exact limit: lets tests run the local search on squads small
    /// enough to check against every split. Limits above 63 count as 63.
    public static func balance(_ players: [BalanceCandidate], exactUpTo limit: Int) -> BalancedTeams? {
        guard players.count >= 2 else { return nil }
        let squad = Squad(players)
        if squad.count <= min(limit, 63) {
            var exact = ExactSplit(squad)
            return squad.teams(onTeamA: exact.search())
        }
        return squad.teams(onTeamA: LocalSearchSplit.search(squad))
    }
}

// MARK: - The squad in canonical order

/// The candidates in ascending id order, with what both searches need about them.
struct Squad {
    let ids: [Player.ID]
    let ratings: [Int]
    let isKeeper: [Bool]
    let total: Int
    let keeperCount: Int

    init(_ players: [BalanceCandidate]) {
        // Rating and goalkeeper break ties only so that duplicate ids still give one order.
        let sorted = players.sorted {
            ($0.id, $0.rating, $0.isGoalkeeper ? 1 : 0) < ($1.id, $1.rating, $1.isGoalkeeper ? 1 : 0)
        }
        ids = sorted.map(\.id)
        ratings = sorted.map(\.rating)
        isKeeper = sorted.map(\.isGoalkeeper)
        total = ratings.reduce(0, +)
        keeperCount = isKeeper.lazy.filter { $0 }.count
    }

    var count: Int { ids.count }

    /// The sizes Team A may have so that the sizes differ by at most one.
    var sizeRange: ClosedRange<Int> { count / 2 ... (count + 1) / 2 }

    /// The goalkeeper counts Team A may have so that the counts differ by at most one.
    var keeperRange: ClosedRange<Int> { keeperCount / 2 ... (keeperCount + 1) / 2 }

    /// No split can do better: the difference has the parity of the total.
    var differenceLowerBound: Int { total % 2 == 0 ? 0 : 1 }

    /// The difference when Team A's ratings add up to `sumA`.
    func difference(sumA: Int) -> Int { abs(2 * sumA - total) }

    /// The teams for a split, Team A being the side of the lowest id.
    func teams(onTeamA: [Bool]) -> BalancedTeams {
        let lowestOnA = onTeamA[0]
        var teamA: [Player.ID] = []
        var teamB: [Player.ID] = []
        var sumA = 0
        for index in ids.indices {
            if onTeamA[index] == lowestOnA {
                teamA.append(ids[index])
                sumA += ratings[index]
            } else {
                teamB.append(ids[index])
            }
        }
        return BalancedTeams(teamA: teamA, teamB: teamB, difference: difference(sumA: sumA))
    }
}

// MARK: - Exact search

/// Every split with the lowest id on Team A, in the canonical order (each player on Team A
/// before Team B), keeping the first with the smallest difference; it stops as soon as a split
/// reaches the parity bound, since no later one can beat it.
struct ExactSplit {
    private let squad: Squad
    private let sizeRange: ClosedRange<Int>
    private let keeperRange: ClosedRange<Int>
    private let lowerBound: Int
    /// Ratings and goalkeepers from each index to the end, to finish a split in one step.
    private let suffixSums: [Int]
    private let suffixKeepers: [Int]

    private var bestMask: UInt64 = 0
    private var bestDifference = Int.max

    init(_ squad: Squad) {
        self.squad = squad
        sizeRange = squad.sizeRange
        keeperRange = squad.keeperRange
        lowerBound = squad.differenceLowerBound
        var sums = [Int](repeating: 0, count: squad.count + 1)
        var keepers = [Int](repeating: 0, count: squad.count + 1)
        for index in stride(from: squad.count - 1, through: 0, by: -1) {
            sums[index] = sums[index + 1] + squad.ratings[index]
            keepers[index] = keepers[index + 1] + (squad.isKeeper[index] ? 1 : 0)
        }
        suffixSums = sums
        suffixKeepers = keepers
    }

    /// Whether each player (in squad order) is on Team A.
    mutating func search() -> [Bool] {
        let first = squad.isKeeper[0] ? 1 : 0
        visit(1, mask: 1, size: 1, keepers: first, sum: squad.ratings[0])
        return (0..<squad.count).map { bestMask & (1 << UInt64($0)) != 0 }
    }

    /// Team A so far holds the players in `mask` among those before `index`.
    private mutating func visit(_ index: Int, mask: UInt64, size: Int, keepers: Int, sum: Int) {
        if bestDifference == lowerBound { return }
        let remaining = squad.count - index
        if size == sizeRange.upperBound || remaining == 0 {
            // Everyone left goes to Team B: the last split of this branch in canonical order.
            if sizeRange.contains(size), keeperRange.contains(keepers) {
                consider(mask, sum: sum)
            }
            return
        }
        if size + remaining == sizeRange.lowerBound {
            // Team A needs everyone left.
            let allKeepers = keepers + suffixKeepers[index]
            if keeperRange.contains(allKeepers) {
                let rest = (UInt64(1) << UInt64(squad.count)) - (UInt64(1) << UInt64(index))
                consider(mask | rest, sum: sum + suffixSums[index])
            }
            return
        }
        if keepers + suffixKeepers[index] < keeperRange.lowerBound { return }

        let isKeeper = squad.isKeeper[index]
        if !isKeeper || keepers < keeperRange.upperBound {
            visit(index + 1, mask: mask | (1 << UInt64(index)), size: size + 1, keepers: keepers + (isKeeper ? 1 : 0),
                  sum: sum + squad.ratings[index])
        }
        visit(index + 1, mask: mask, size: size, keepers: keepers, sum: sum)
    }

    private mutating func consider(_ mask: UInt64, sum: Int) {
        let difference = squad.difference(sumA: sum)
        if difference < bestDifference {
            bestDifference = difference
            bestMask = mask
        }
    }
}
