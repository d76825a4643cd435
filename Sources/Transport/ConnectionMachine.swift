import GatherDelivery

/// One WebSocket connection's logic, without sockets: what it has received so far, what it has
/// to send, whether it is closing, when it was last heard and when it stopped making progress.
/// Every event returns a small action that the lws layer (`LiveConnections`) carries out, as
/// hummingbird's WebSocket state machine does; so the rules are tested without a socket.
struct ConnectionMachine {
    struct Close: Equatable {
        var code: UInt16
        var reason: String
    }

    /// One piece of a message as lws hands it over.
    struct Fragment {
        var isBinary: Bool
        var isFirst: Bool
        /// The last fragment of the message, and nothing of it left unread.
        var isLast: Bool
    }

    enum FragmentStep: Equatable {
        /// Part of a message: wait for the rest.
        case awaitMore
        /// The message is whole: `finishMessage` judges it.
        case messageComplete
        /// Fail the connection now.
        case close(Close)
    }

    enum MessageStep: Equatable {
        /// Hand the text to the source; `pauseReading`: stop reading until it catches up.
        case deliver(String, pauseReading: Bool)
        /// Answered here (a reply was queued): ask for a writable turn.
        case answered
        case close(Close)
    }

    enum WriteStep: Equatable {
        case close(Close)
        case ping
        /// One frame: the fan-out's usual write, without an array to allocate per connection.
        case frame(SharedFrame)
        /// One write of these frames (two or more), in order.
        case frames([SharedFrame])
        case nothing

        static func == (lhs: WriteStep, rhs: WriteStep) -> Bool {
            switch (lhs, rhs) {
            case (.close(let a), .close(let b)): a == b
            case (.ping, .ping), (.nothing, .nothing): true
            case (.frame(let a), .frame(let b)): a === b
            case (.frames(let a), .frames(let b)): a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
            default: false
            }
        }
    }

    /// What the fan-out may do for a connection outside its writable turn.
    enum FanOutDemand: Equatable {
        /// Nothing to write.
        case nothing
        /// A close or a ping waits: it is written in the turn, where -1 closes.
        case turn
        /// Frames only: they may be written now, if the socket can take them.
        case frames
    }

    /// One write step and what the Transport asks of the machine right after it, answered in
    /// the same call: each call on the machine a connection object holds is a checked access,
    /// and eight of them per connection per message were 1.5% of a relay's CPU.
    struct Write: Equatable {
        var step: WriteStep
        /// It brings the connection to the newest version, published after the connection
        /// opened (one that joined after the publish is catching up, not part of the fan-out).
        var reachesNewestVersion: Bool
        var wantsAnotherTurn: Bool
    }

    enum UpkeepStep: Equatable {
        case none
        /// A ping is due: ask for a writable turn.
        case ping
        /// Output waiting and no writable turn for the stall limit: drop it.
        case dropStalled
        /// A ping went unanswered for a whole interval: drop it.
        case dropSilent
    }

    let wire: WireProtocol
    let door: Door
    let remoteAddress: String
    let openedAt: UInt64
    /// Where the client said it is (`/live?epoch=E&version=V`), read once at its greeting.
    let resume: ResumePoint?
    private(set) var outbox: Outbox
    /// The message being reassembled.
    private(set) var incoming: [UInt8] = []
    private(set) var closing: Close?
    /// The close to send once the outbox has nothing more to write (`Delivery.close`).
    private(set) var closingAfterReplies: Close?
    /// Since when `upkeep` has seen it with something to write and no writable turn since.
    private(set) var waitingSince: UInt64?
    private(set) var keepAlive: KeepAlive
    /// Its tokens and its backlog waiting for the source.
    private(set) var budget: ConnectionBudget
    /// A ping goes out on the next writable turn, before any other frame.
    private(set) var pingDue = false

    init(wire: WireProtocol, door: Door, remoteAddress: String, resume: ResumePoint? = nil, replyLimit: Int,
         pingIntervalSeconds: Int, limits: MessageLimits, now: UInt64) {
        self.wire = wire
        self.door = door
        self.remoteAddress = remoteAddress
        self.resume = wire == .v2 ? resume : nil
        openedAt = now
        outbox = Outbox(replyLimit: replyLimit, readsPatches: wire == .v2, followsShared: wire != .club)
        keepAlive = KeepAlive(intervalSeconds: pingIntervalSeconds, now: now)
        budget = ConnectionBudget(limits: limits, now: Int64(now / 1_000_000))
    }

    // MARK: Receiving

    /// Any frame from the peer (a message piece or a pong) proves it is alive.
    mutating func heard(at now: UInt64) { keepAlive.heard(at: now) }

    /// Takes one piece of a message, within `maximumBytes` for the whole message.
    mutating func received(_ bytes: UnsafeRawBufferPointer, _ fragment: Fragment, maximumBytes: Int) -> FragmentStep {
        if fragment.isBinary {
            return .close(Close(code: CloseCode.unacceptableData, reason: "the gather protocols speak text frames only"))
        }
        if fragment.isFirst { dropPartial() }
        guard incoming.count + bytes.count <= maximumBytes else {
            dropPartial()
            return .close(Close(code: CloseCode.messageTooBig, reason: "messages are limited to \(maximumBytes / 1024) KiB"))
        }
        incoming.append(contentsOf: bytes)
        return fragment.isLast ? .messageComplete : .awaitMore
    }

    /// The whole message pays before anything reads it, malformed or not; then it is checked
    /// and either handed on, answered here or fatal. The partial buffer is empty afterwards.
    mutating func finishMessage(address: inout TokenBucket, limits: MessageLimits, isTLS: Bool, version: Int,
                                now: UInt64) -> MessageStep {
        defer { dropPartial() }
        let millis = Int64(now / 1_000_000)
        switch MessageGate.judge(incoming, connection: &budget, address: &address, limits: limits, now: millis) {
        case .pass:
            break
        case .answer(let answer):
            return queueAnswer(GateAnswers.bytes(answer, version: version))
        case .close(let code, let reason):
            return .close(Close(code: code, reason: reason))
        }
        guard let text = String(validating: incoming, as: UTF8.self) else {
            return .close(Close(code: CloseCode.invalidPayload, reason: "text frames must be valid UTF-8"))
        }
        if isTLS {
            guard MessageGate.admitToBacklog(bytes: incoming.count, connection: &budget, limits: limits) else {
                let scan = MessageScan(incoming)
                return queueAnswer(GateAnswers.bytes(.rateLimited(isCommand: scan.isCommand, id: scan.id), version: version))
            }
            return .deliver(text, pauseReading: false)
        }
        return .deliver(text, pauseReading: MessageGate.handedOver(bytes: incoming.count, connection: &budget, limits: limits))
    }

    private mutating func queueAnswer(_ bytes: [UInt8]) -> MessageStep {
        guard outbox.enqueue(SharedFrame(bytes)) else {
            return .close(Close(code: CloseCode.policyViolation, reason: "too many replies waiting"))
        }
        return .answered
    }

    /// Forgets the partial message (a small buffer is kept for reuse).
    mutating func dropPartial() {
        if incoming.capacity > 16_384 {
            incoming = []
        } else {
            incoming.removeAll(keepingCapacity: true)
        }
    }

    /// The source is done with one message; true when reading may resume.
    mutating func handled(limits: MessageLimits) -> Bool {
        MessageGate.handled(connection: &budget, limits: limits)
    }

    // MARK: What the source sends

    @discardableResult
    mutating func greet(_ frame: SharedFrame, shared: SharedFrames) -> CatchUp {
        outbox.greet(frame, shared: shared, resume: resume)
    }

    /// A direct reply; past the reply limit the connection is set to close instead.
    mutating func reply(_ frame: SharedFrame) {
        if !outbox.enqueue(frame) { closing = Close(code: CloseCode.policyViolation, reason: "too many replies waiting") }
    }

    /// Sets the close the next writable turn sends; `replacing`: even over one already set.
    mutating func close(_ close: Close, replacing: Bool = true) {
        if replacing || closing == nil { closing = close }
    }

    /// Sets the close sent after the frames already waiting (a refusal's reason goes first).
    mutating func closeAfterReplies(_ close: Close) {
        if closingAfterReplies == nil { closingAfterReplies = close }
    }

    // MARK: Sending

    /// Frames written together stop being added past this size (the last one may exceed it).
    static let combinedWriteBytes = 32 * 1_024

    /// What one writable turn writes: the close, else a due ping, else everything waiting (in
    /// outbox order) up to `combinedWriteBytes`, so an ack rides with the snapshot before it.
    mutating func writable(_ shared: SharedFrames) -> WriteStep {
        waitingSince = nil  // a writable turn is progress; `upkeep` restarts the clock
        if closing == nil, let after = closingAfterReplies, !outbox.hasPending(shared) { closing = after }
        if let closing { return .close(closing) }
        if pingDue {
            pingDue = false
            return .ping
        }
        guard case .frame(let first) = outbox.next(shared) else { return .nothing }
        guard first.count < Self.combinedWriteBytes, case .frame(let second) = outbox.next(shared) else {
            return .frame(first)
        }
        var frames = [first, second]
        var bytes = first.count + second.count
        while bytes < Self.combinedWriteBytes, case .frame(let more) = outbox.next(shared) {
            frames.append(more)
            bytes += more.count
        }
        return .frames(frames)
    }

    /// `writable`, with what the Transport needs after it; `publishedAt`: when the newest
    /// version was handed over.
    mutating func write(_ shared: SharedFrames, publishedAt: UInt64) -> Write {
        let versionBefore = outbox.sentVersion
        let step = writable(shared)
        let reaches = shared.state.map { versionBefore < $0.version && outbox.sentVersion == $0.version } ?? false
        return Write(step: step, reachesNewestVersion: reaches && openedAt < publishedAt,
                     wantsAnotherTurn: wantsWritable(shared))
    }

    /// What the fan-out may do now, asked in place: a non-mutating call on the machine a
    /// connection object holds copies the whole machine.
    mutating func fanOutDemand(_ shared: SharedFrames) -> FanOutDemand {
        guard wantsWritable(shared) else { return .nothing }
        return waitsForFramesOnly ? .frames : .turn
    }

    /// Whether a write outside lws's writable turn may carry what waits: frames only. A close or
    /// a ping is written in the turn (from lws's callback, where -1 closes).
    var waitsForFramesOnly: Bool { closing == nil && !pingDue && closingAfterReplies == nil }

    /// Whether another writable turn is wanted.
    func wantsWritable(_ shared: SharedFrames) -> Bool {
        closing != nil || closingAfterReplies != nil || pingDue || outbox.hasPending(shared)
    }

    // MARK: Once a second

    /// A phone that stops reading is dropped after `stallLimit` without progress; until then it
    /// holds at most one snapshot and its bounded replies. The clock starts at the first sweep
    /// that finds something to write, and every writable turn stops it. Then the keep-alive.
    mutating func upkeep(now: UInt64, shared: SharedFrames, stallLimit: UInt64) -> UpkeepStep {
        if closing != nil || outbox.hasPending(shared) {
            if let since = waitingSince {
                if now > since, now - since > stallLimit { return .dropStalled }
            } else {
                waitingSince = now
            }
        } else {
            waitingSince = nil
        }
        switch keepAlive.decide(now: now) {
        case .wait:
            return .none
        case .ping:
            keepAlive.pinged(at: now)
            pingDue = true
            return .ping
        case .giveUp:
            return .dropSilent
        }
    }
}

/// Close codes of RFC 6455 that the Transport sends by itself.
enum CloseCode {
    static let goingAway: UInt16 = 1001
    static let unacceptableData: UInt16 = 1003
    static let invalidPayload: UInt16 = 1007
    static let policyViolation: UInt16 = 1008
    static let messageTooBig: UInt16 = 1009
}
