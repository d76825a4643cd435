/// Percentiles of a sample, in milliseconds (nearest rank: every value reported was observed).
struct Distribution: Sendable {
    let count: Int
    let p50: Double
    let p90: Double
    let p95: Double
    let p99: Double
    let max: Double

    init?(milliseconds samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ fraction: Double) -> Double {
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(0.50)
        p90 = rank(0.90)
        p95 = rank(0.95)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
    }

    init?(nanoseconds samples: [UInt64]) {
        self.init(milliseconds: samples.map { Double($0) / 1_000_000 })
    }

    var json: [String: Any] {
        ["count": count, "p50": rounded(p50), "p90": rounded(p90), "p95": rounded(p95), "p99": rounded(p99), "max": rounded(max)]
    }
}

/// Two decimals are plenty for milliseconds and keep the JSON readable.
func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
