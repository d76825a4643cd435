// The C maths library only for 10^x: the Swift standard library has no exponential, and
// Foundation would be a whole framework for one function.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a gather ended for one team.
public enum MatchOutcome: Sendable, CaseIterable {
    case win, draw, loss

    /// The Elo score `S`: what the team actually got out of the match.
    var score: Double {
        switch self {
        case .win: return 1
        case .draw: return 0.5
        case .loss: return 0
        }
    }
}

/// The players' ratings of docs/PROTOCOL.md "Players' records": a team-level Elo in which every
/// player of a team moves by the same amount, so a newcomer on a strong team is judged by the
/// team's result rather than by goals, which depend on position.
public enum Elo {
    /// The largest move one gather can make (a sure loss turned into a win).
    public static let kFactor = 32

    /// Where a player starts, so that the first balanced teams already respect the organiser's
    /// own judgement of skill; no skill counts as the middle one.
    public static func initialRating(for skill: Skill?) -> Int {
        switch skill {
        case .beginner: return 1000
        case .amateur, nil: return 1200
        case .professional: return 1400
        }
    }

    /// What every player of team `us` gains (or, negative, loses) from a gather with `outcome`.
    ///
    /// Teams are compared by their MEAN ratings so that a team playing one short is not judged
    /// stronger or weaker for its size. An empty team means there was no real match: 0.
    public static func teamDelta(us: [Int], them: [Int], outcome: MatchOutcome) -> Int {
        guard let ours = mean(us), let theirs = mean(them) else { return 0 }
        let expected = 1 / (1 + pow(10, (theirs - ours) / 400))
        return roundedHalfAwayFromZero(Double(kFactor) * (outcome.score - expected))
    }

    /// The protocol's `round`: halves go away from zero, symmetric around zero, so the winners'
    /// gain and the losers' loss come out the same size.
    public static func roundedHalfAwayFromZero(_ value: Double) -> Int {
        Int(value.rounded(.toNearestOrAwayFromZero))
    }

    // MARK: - Private

    private static func mean(_ ratings: [Int]) -> Double? {
        guard !ratings.isEmpty else { return nil }
        return Double(ratings.reduce(0, +)) / Double(ratings.count)
    }
}
