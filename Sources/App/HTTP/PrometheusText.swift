import GatherCoordinator
import GatherDelivery
import GatherTransport

/// `/metrics` in the Prometheus text exposition format.
enum PrometheusText {
    static func render(_ reading: CoordinatorMetrics.Reading, fanOut: FanOutMetrics.Reading, connections: Int) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        metric("gather_state_version", "gauge", "Version of the shared gather state.")
        out += "gather_state_version \(reading.version)\n"
        metric("gather_connections", "gauge", "Open WebSocket connections by role.")
        out += "gather_connections{role=\"organiser\"} \(max(0, connections - reading.spectatorsOnline))\n"
        out += "gather_connections{role=\"spectator\"} \(reading.spectatorsOnline)\n"
        metric("gather_organisers_online", "gauge", "Distinct organisers connected.")
        out += "gather_organisers_online \(reading.organisersOnline)\n"
        metric("gather_commands_applied_total", "counter", "Commands acknowledged.")
        out += "gather_commands_applied_total \(reading.decisions.commandsApplied)\n"
        metric("gather_commands_rejected_total", "counter", "Commands rejected, by code.")
        for (code, count) in reading.decisions.rejectionsByCode.sorted(by: { $0.key < $1.key }) {
            out += "gather_commands_rejected_total{code=\"\(code)\"} \(count)\n"
        }
        metric("gather_errors_total", "counter", "Messages answered with an error, by code.")
        for (code, count) in reading.decisions.errorsByCode.sorted(by: { $0.key < $1.key }) {
            out += "gather_errors_total{code=\"\(code)\"} \(count)\n"
        }
        metric("gather_password_checks_peak", "gauge",
               "Most password checks (KDF runs) ever under way at once; the server allows 2, "
                   + "and a third for an address that signed in within the hour.")
        out += "gather_password_checks_peak \(reading.decisions.passwordChecksPeak)\n"
        metric("gather_password_checks_running", "gauge", "Password checks (KDF runs) under way now.")
        out += "gather_password_checks_running \(reading.decisions.passwordChecksRunning)\n"
        metric("gather_password_checks_waiting", "gauge", "Login and register attempts waiting for a password check.")
        out += "gather_password_checks_waiting \(reading.decisions.passwordChecksWaiting)\n"
        metric("gather_coordinator_queue_depth", "gauge",
               "Events waiting for the Coordinator's queue, by lane (control, organiser, spectator).")
        for (lane, depth) in reading.queue.depth.sorted(by: { $0.key < $1.key }) {
            out += "gather_coordinator_queue_depth{lane=\"\(lane)\"} \(depth)\n"
        }
        metric("gather_coordinator_queue_oldest_wait_ms", "gauge",
               "How long the oldest event waiting in each lane of the Coordinator's queue has waited, in ms.")
        for (lane, wait) in reading.queue.oldestWaitMs.sorted(by: { $0.key < $1.key }) {
            out += "gather_coordinator_queue_oldest_wait_ms{lane=\"\(lane)\"} \(wait)\n"
        }
        metric("gather_coordinator_queue_dropped_total", "counter",
               "Messages dropped because their lane of the Coordinator's queue was full.")
        out += "gather_coordinator_queue_dropped_total \(reading.queue.dropped)\n"
        metric("gather_tick_lateness_ms", "histogram", "How late countdown wake-ups ran, in ms.")
        var cumulative = 0
        let histogram = reading.tickLateness
        for (index, bound) in histogram.bounds.enumerated() {
            cumulative += histogram.counts[index]
            out += "gather_tick_lateness_ms_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += histogram.counts[histogram.bounds.count]
        out += "gather_tick_lateness_ms_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "gather_tick_lateness_ms_sum \(histogram.sum)\n"
        out += "gather_tick_lateness_ms_count \(histogram.total)\n"
        metric("gather_fanout_latency_ms", "histogram",
               "From a state version being handed to the Transport to the write that brought each connection to it, in ms.")
        cumulative = 0
        for (index, bound) in FanOutMetrics.Reading.bounds.enumerated() {
            cumulative += fanOut.counts[index]
            out += "gather_fanout_latency_ms_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += fanOut.counts[FanOutMetrics.Reading.bounds.count]
        out += "gather_fanout_latency_ms_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "gather_fanout_latency_ms_sum \(fanOut.sumMilliseconds)\n"
        out += "gather_fanout_latency_ms_count \(fanOut.total)\n"
        metric("gather_ws_bytes_written_total", "counter",
               "WebSocket bytes handed to lws (frame headers included, before TLS; no pings), by protocol.")
        // The venue's protocols only: it never speaks club.v1, and its metrics stay as they were.
        for wire in [WireProtocol.v1, .v2] {
            out += "gather_ws_bytes_written_total{protocol=\"\(wire.rawValue)\"} \(fanOut.written(wire).bytes)\n"
        }
        metric("gather_ws_frames_written_total", "counter", "WebSocket messages written (no pings), by protocol.")
        for wire in [WireProtocol.v1, .v2] {
            out += "gather_ws_frames_written_total{protocol=\"\(wire.rawValue)\"} \(fanOut.written(wire).frames)\n"
        }
        return out
    }
}
