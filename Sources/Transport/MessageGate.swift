import GatherDelivery

/// What one connection has spent and has waiting (service thread).
struct ConnectionBudget {
    var bucket: TokenBucket
    /// Refusals are answered from a bucket of their own: a client that keeps sending past its
    /// tokens is closed once this one is empty too.
    var refusals: TokenBucket
    /// Sizes of the messages handed to the source and not yet `handled`, oldest first.
    var waiting: [Int] = []
    var waitingBytes = 0
    /// Reading from the socket is stopped (`lws_rx_flow_control`) until the backlog drains.
    var readingPaused = false

    init(limits: MessageLimits, now: Int64) {
        bucket = TokenBucket(capacity: limits.connectionBurst, ratePerSecond: limits.connectionPerSecond, now: now)
        refusals = TokenBucket(capacity: Double(limits.refusalsBeforeClose), ratePerSecond: limits.connectionPerSecond,
                               now: now)
    }
}

/// What the Transport does with one complete text message before its source may see it, in this
/// order: the message pays (its connection's bucket and its address's budget, whatever it holds);
/// a cheap scan refuses nesting past 64 levels; a message that is not a `command` is held to
/// 4 KiB. Pure, so each rule is tested without sockets.
enum MessageGate {
    enum Verdict: Equatable {
        /// Hand it to the source.
        case pass
        /// Answer it here (the source never sees it).
        case answer(Answer)
        /// Fail the connection.
        case close(code: UInt16, reason: String)
    }

    enum Answer: Equatable {
        /// No token: `rejected` `rate_limited` for a command with an id, else `error` `rate_limited`.
        case rateLimited(isCommand: Bool, id: String?)
        /// Nested past the limit: `error` `bad_json`, never parsed.
        case tooDeep
    }

    /// A 64 KiB message costs what 17 small ones do: the work it causes grows with its size.
    static func cost(ofBytes count: Int) -> Double { Double(1 + count / 4_096) }

    static func judge(_ bytes: [UInt8], connection: inout ConnectionBudget, address: inout TokenBucket,
                      limits: MessageLimits, now: Int64) -> Verdict {
        let cost = cost(ofBytes: bytes.count)
        guard connection.bucket.take(cost, now: now), address.take(cost, now: now) else {
            guard connection.refusals.take(now: now) else {
                return .close(code: CloseCode.policyViolation, reason: "too many messages; slow down")
            }
            let scan = MessageScan(bytes)
            return .answer(.rateLimited(isCommand: scan.isCommand, id: scan.tooDeep ? nil : scan.id))
        }
        let scan = MessageScan(bytes)
        if scan.tooDeep { return .answer(.tooDeep) }
        if !scan.isCommand, bytes.count > limits.otherMessageBytes {
            return .close(code: CloseCode.messageTooBig,
                          reason: "messages other than commands are limited to \(limits.otherMessageBytes / 1_024) KiB")
        }
        return .pass
    }

    // MARK: - The backlog waiting for the source

    /// Counts a message handed to the source; true when the connection must stop being read.
    static func handedOver(bytes: Int, connection: inout ConnectionBudget, limits: MessageLimits) -> Bool {
        connection.waiting.append(bytes)
        connection.waitingBytes += bytes
        guard !connection.readingPaused,
              connection.waiting.count >= limits.waitingMessages || connection.waitingBytes >= limits.waitingBytes
        else { return false }
        connection.readingPaused = true
        return true
    }

    /// A TLS connection's backlog is bounded by refusing, not by pausing: lws 4.1.6 spins its
    /// whole loop when a TLS connection whose bytes OpenSSL already decrypted is flow-controlled.
    /// False when the message must be refused (answered `rate_limited`).
    static func admitToBacklog(bytes: Int, connection: inout ConnectionBudget, limits: MessageLimits) -> Bool {
        guard connection.waiting.count < limits.tlsWaitingMessages,
              connection.waitingBytes + bytes <= limits.tlsWaitingBytes
        else { return false }
        connection.waiting.append(bytes)
        connection.waitingBytes += bytes
        return true
    }

    /// The source is done with the oldest message; true when reading may resume.
    static func handled(connection: inout ConnectionBudget, limits: MessageLimits) -> Bool {
        guard !connection.waiting.isEmpty else { return false }
        connection.waitingBytes -= connection.waiting.removeFirst()
        guard connection.readingPaused, connection.waiting.count < limits.waitingMessages,
              connection.waitingBytes < limits.waitingBytes
        else { return false }
        connection.readingPaused = false
        return true
    }
}

/// The few protocol answers the Transport writes itself, so that what it refuses never reaches
/// the source's queue. The shapes are docs/PROTOCOL.md §13's.
enum GateAnswers {
    static func bytes(_ answer: MessageGate.Answer, version: Int) -> [UInt8] {
        switch answer {
        case .rateLimited(isCommand: true, id: let id?):
            return Array(#"{"code":"rate_limited","id":\#(jsonString(id)),"message":"Too many commands at once; wait a moment and try again.","type":"rejected","version":\#(version)}"#.utf8)
        case .rateLimited(isCommand: _, id: let id):
            let idMember = id.map { #","id":\#(jsonString($0))"# } ?? ""
            return Array(#"{"code":"rate_limited"\#(idMember),"message":"Too many messages at once; wait a moment and try again.","type":"error"}"#.utf8)
        case .tooDeep:
            return Array(#"{"code":"bad_json","message":"The message is not valid JSON (nested deeper than \#(MessageScan.maximumDepth) levels).","type":"error"}"#.utf8)
        }
    }

    /// A JSON string literal (the scan gives ids without escapes, but nothing is trusted).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
