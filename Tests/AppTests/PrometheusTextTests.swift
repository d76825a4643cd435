import GatherCoordinator
@testable import GatherApp
import GatherTransport
import XCTest

/// `/metrics` is read by Prometheus: the exposition text must name every series once with its
/// HELP and TYPE, and histogram buckets must be cumulative.
final class PrometheusTextTests: XCTestCase {
    private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    func testCountersGaugesAndConnectionsByRole() {
        var reading = CoordinatorMetrics().read()
        reading.version = 42
        reading.organisersOnline = 2
        reading.spectatorsOnline = 7
        reading.decisions.commandsApplied = 5
        reading.decisions.rejectionsByCode = ["stale": 2, "conflict": 1]
        reading.decisions.errorsByCode = ["bad_json": 4]
        let text = lines(PrometheusText.render(reading, fanOut: FanOutMetrics.Reading(), connections: 10))
        XCTAssertTrue(text.contains("gather_state_version 42"))
        XCTAssertTrue(text.contains("gather_connections{role=\"organiser\"} 3"), "connections minus spectators")
        XCTAssertTrue(text.contains("gather_connections{role=\"spectator\"} 7"))
        XCTAssertTrue(text.contains("gather_organisers_online 2"))
        XCTAssertTrue(text.contains("gather_commands_applied_total 5"))
        let rejections = text.filter { $0.hasPrefix("gather_commands_rejected_total{") }
        XCTAssertEqual(rejections, ["gather_commands_rejected_total{code=\"conflict\"} 1",
                                    "gather_commands_rejected_total{code=\"stale\"} 2"], "sorted by code")
        XCTAssertTrue(text.contains("gather_errors_total{code=\"bad_json\"} 4"))
    }

    func testOrganiserConnectionsNeverGoNegative() {
        var reading = CoordinatorMetrics().read()
        reading.spectatorsOnline = 5
        let text = lines(PrometheusText.render(reading, fanOut: FanOutMetrics.Reading(), connections: 3))
        XCTAssertTrue(text.contains("gather_connections{role=\"organiser\"} 0"))
    }

    func testTickLatenessBucketsAreCumulative() {
        var reading = CoordinatorMetrics().read()
        // Bounds 1, 2, 5, 10, 25, 50, 100, 250: 0.5 → le 1; 3 and 4 → le 5; 400 → +Inf.
        for late in [0.5, 3, 4, 400] { reading.tickLateness.observe(late) }
        let text = lines(PrometheusText.render(reading, fanOut: FanOutMetrics.Reading(), connections: 0))
        let buckets = text.filter { $0.hasPrefix("gather_tick_lateness_ms_bucket") }
        XCTAssertEqual(buckets, [
            "gather_tick_lateness_ms_bucket{le=\"1.0\"} 1", "gather_tick_lateness_ms_bucket{le=\"2.0\"} 1",
            "gather_tick_lateness_ms_bucket{le=\"5.0\"} 3", "gather_tick_lateness_ms_bucket{le=\"10.0\"} 3",
            "gather_tick_lateness_ms_bucket{le=\"25.0\"} 3", "gather_tick_lateness_ms_bucket{le=\"50.0\"} 3",
            "gather_tick_lateness_ms_bucket{le=\"100.0\"} 3", "gather_tick_lateness_ms_bucket{le=\"250.0\"} 3",
            "gather_tick_lateness_ms_bucket{le=\"+Inf\"} 4",
        ])
        XCTAssertTrue(text.contains("gather_tick_lateness_ms_sum 407.5"))
        XCTAssertTrue(text.contains("gather_tick_lateness_ms_count 4"))
    }

    func testFanOutHistogramEndsWithEverythingAndBytesByProtocol() {
        var fanOut = FanOutMetrics.Reading()
        fanOut.counts[0] = 2
        fanOut.counts[FanOutMetrics.Reading.bounds.count] = 1
        fanOut.total = 3
        fanOut.v1 = .init(bytes: 100, frames: 2)
        fanOut.v2 = .init(bytes: 40, frames: 4)
        let text = lines(PrometheusText.render(CoordinatorMetrics().read(), fanOut: fanOut, connections: 0))
        let buckets = text.filter { $0.hasPrefix("gather_fanout_latency_ms_bucket") }
        XCTAssertEqual(buckets.count, FanOutMetrics.Reading.bounds.count + 1)
        XCTAssertTrue(buckets[0].hasSuffix(" 2"))
        XCTAssertTrue(buckets[buckets.count - 2].hasSuffix(" 2"))
        XCTAssertEqual(buckets.last, "gather_fanout_latency_ms_bucket{le=\"+Inf\"} 3")
        XCTAssertTrue(text.contains("gather_ws_bytes_written_total{protocol=\"gather.v1\"} 100"))
        XCTAssertTrue(text.contains("gather_ws_frames_written_total{protocol=\"gather.v2\"} 4"))
    }

    func testEverySeriesHasHelpAndTypeOnce() {
        let text = lines(PrometheusText.render(CoordinatorMetrics().read(), fanOut: FanOutMetrics.Reading(), connections: 0))
        let types = text.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        let helps = text.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
        XCTAssertEqual(types, helps)
        XCTAssertEqual(Set(types).count, types.count, "no series declared twice")
        for line in text where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            XCTAssertTrue(types.contains { name == $0 || name.hasPrefix($0 + "_") }, "\(name) has a TYPE")
        }
    }
}
