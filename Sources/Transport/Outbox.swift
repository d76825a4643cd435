/// What one connection still has to send, and in which order. Pure: the service thread asks it
/// for the next frame on every writable callback.
///
/// Order: the greeting first, then (once greeted) the state — for gather.v1 the newest snapshot
/// not yet sent; for gather.v2 the patches since the version it holds, or the newest snapshot when
/// it is further behind than the shared window — then direct replies in order, then the newest
/// presence and each pitch's newest tick. The Coordinator publishes a version before the `ack`
/// it makes possible, so a sender always has version ≥ V no later than ack V.
///
/// A connection's whole memory of the state is one version number: the frames are shared, so a
/// stalled phone costs the same as a reading one.
struct Outbox {
    enum Next: Equatable {
        case frame(SharedFrame)
        case nothing

        static func == (lhs: Next, rhs: Next) -> Bool {
            switch (lhs, rhs) {
            case (.nothing, .nothing): true
            case (.frame(let a), .frame(let b)): a === b
            default: false
            }
        }
    }

    let replyLimit: Int
    /// gather.v2 connections get patches and follow every pitch's countdown; gather.v1 ones get
    /// snapshots and pitch 1's countdown.
    let readsPatches: Bool
    private var greeting: SharedFrame?
    private(set) var greeted = false
    private var replies: [SharedFrame] = []
    private var replyHead = 0
    /// The state version this connection has been sent (snapshot or patches).
    private(set) var sentVersion = Int.min
    /// The epoch of `sentVersion`: a state of another epoch is sent whole, whatever its version.
    private(set) var sentEpoch: String?
    private var sentTickSerials: [Int: Int] = [:]
    private var sentPresenceSerial = 0

    init(replyLimit: Int, readsPatches: Bool = false) {
        self.replyLimit = replyLimit
        self.readsPatches = readsPatches
    }

    var queuedReplies: Int { replies.count - replyHead }

    /// The ticks already published are history to a new connection: its snapshot carries each
    /// running timer's `endsAt`, and a stopped timer's last tick would only mislead it.
    mutating func greet(_ frame: SharedFrame, shared: SharedFrames) {
        guard !greeted, greeting == nil else { return }
        greeting = frame
        sentTickSerials = shared.ticks.mapValues(\.serial)
    }

    /// False when the queue is full: the caller closes the connection.
    mutating func enqueue(_ frame: SharedFrame) -> Bool {
        guard queuedReplies < replyLimit else { return false }
        replies.append(frame)
        return true
    }

    func hasPending(_ shared: SharedFrames) -> Bool {
        var copy = self
        return copy.next(shared) != .nothing
    }

    /// The frame to write now, marked as sent.
    mutating func next(_ shared: SharedFrames) -> Next {
        if let greeting {
            self.greeting = nil
            greeted = true
            return .frame(greeting)
        }
        guard greeted else { return .nothing }
        if let state = shared.state, state.version > sentVersion || state.epoch != sentEpoch {
            if readsPatches, sentVersion != .min, state.epoch == sentEpoch, let patch = shared.patch(to: sentVersion + 1) {
                sentVersion += 1
                return .frame(patch)
            }
            sentVersion = state.version
            sentEpoch = state.epoch
            return .frame(readsPatches ? state.v2Snapshot : state.v1Snapshot)
        }
        if replyHead < replies.count {
            let frame = replies[replyHead]
            replyHead += 1
            if replyHead > 32, replyHead * 2 > replies.count {
                replies.removeFirst(replyHead)
                replyHead = 0
            }
            return .frame(frame)
        }
        if let presence = shared.presence, presence.serial > sentPresenceSerial {
            sentPresenceSerial = presence.serial
            return .frame(presence.frame)
        }
        if readsPatches {
            for (pitch, tick) in shared.ticks.sorted(by: { $0.key < $1.key })
            where tick.serial > sentTickSerials[pitch, default: 0] {
                sentTickSerials[pitch] = tick.serial
                return .frame(tick.frame)
            }
        } else if let tick = shared.ticks[SharedFrames.firstPitch],
                  tick.serial > sentTickSerials[SharedFrames.firstPitch, default: 0] {
            sentTickSerials[SharedFrames.firstPitch] = tick.serial
            return .frame(tick.frame)
        }
        return .nothing
    }
}
