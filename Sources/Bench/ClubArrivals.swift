import Foundation

/// When each member answers, and with how many guests: the plan of the club scenario, pure and
/// the same every run (so runs compare).
///
/// A group chat gets the "answers are open" message and most people tap at once, the rest
/// trickle in: arrivals follow a truncated exponential over `windowSeconds` whose median is
/// `medianSeconds` (half in the first 10 s of 60 with the defaults: ~34 answers a second at the
/// start, ~0.6 at the end). Member i arrives at the (i + ½)/n quantile.
struct ClubArrivals: Equatable {
    struct Answer: Equatable {
        /// Index of the member (0-based), the instance it goes to, and its guests (0–3).
        let member: Int
        let instance: Int
        let guests: Int
        /// Seconds after the date opened.
        let at: Double
    }

    let answers: [Answer]

    init(members: Int, instances: Int, windowSeconds: Double = 60, medianSeconds: Double = 10) {
        let rate = Self.rate(windowSeconds: windowSeconds, medianSeconds: medianSeconds)
        let mass = 1 - exp(-rate * windowSeconds)
        answers = (0..<members).map { index in
            let quantile = (Double(index) + 0.5) / Double(members)
            let at = -log(1 - quantile * mass) / rate
            return Answer(member: index, instance: index % max(1, instances), guests: Self.guests(member: index), at: at)
        }
    }

    /// About one member in five brings guests: 1 guest for one in ten, 2 for one in twenty-five,
    /// 3 for one in fifty.
    static func guests(member index: Int) -> Int {
        if index % 50 == 11 { return 3 }
        if index % 25 == 7 { return 2 }
        if index % 10 == 3 { return 1 }
        return 0
    }

    /// The λ of a truncated exponential on [0, window] with median `median` (< window / 2), by
    /// bisection on F(median) = ½, F(t) = (1 − e^(−λt)) / (1 − e^(−λ·window)).
    static func rate(windowSeconds: Double, medianSeconds: Double) -> Double {
        func belowMedian(_ rate: Double) -> Double {
            (1 - exp(-rate * medianSeconds)) / (1 - exp(-rate * windowSeconds))
        }
        var low = 1e-9, high = 100 / medianSeconds
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if belowMedian(middle) < 0.5 { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
