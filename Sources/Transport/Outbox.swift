/// What one connection still has to send, and in which order. Pure: the service thread asks it
/// for the next frame on every writable callback.
///
/// Order: the greeting first, then (once greeted) the state — for gather.v1 the newest snapshot
/// not yet sent; for gather.v2 the patches since the version it holds, or the newest snapshot when
/// it is further behind than the shared window — then direct replies in order, then the newest
/// presence and each pitch's newest tick. The Coordinator publishes a version before the `ack`
/// it makes possible, so a sender always has version ≥ V no later than ack V.
///
/// A connection's whole memory of the state is one version number (and the timeline it belongs
/// to): the frames are shared, so a stalled phone costs the same as a reading one.
///
/// A gather.v2 client that reconnects saying which version it holds (`CatchUp`) is, once
/// greeted, treated as holding that version: it is sent the patches after it, or nothing.
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
    /// The state version this connection has been sent (snapshot or patches), or holds.
    private(set) var sentVersion = Int.min
    /// The `SharedState.timeline` of `sentVersion` (0: none yet).
    private(set) var sentTimeline = 0
    /// While catching up, the version the catch-up reaches: patches until then, however far the
    /// connection is behind.
    private(set) var catchingUpThrough = Int.min
    private var sentTickSerials: [Int: Int] = [:]
    private var sentPresenceSerial = 0

    /// False for a club.v1 connection: it follows nothing shared (no state, ticks or presence)
    /// and needs no greeting; it is sent its direct replies in order, and nothing else.
    let followsShared: Bool

    init(replyLimit: Int, readsPatches: Bool = false, followsShared: Bool = true) {
        self.replyLimit = replyLimit
        self.readsPatches = readsPatches
        self.followsShared = followsShared
        greeted = !followsShared
    }

    var queuedReplies: Int { replies.count - replyHead }

    /// The ticks already published are history to a new connection: its snapshot carries each
    /// running timer's `endsAt`, and a stopped timer's last tick would only mislead it.
    /// `resume` is where a reconnecting gather.v2 client says it is; the decision is taken now,
    /// against the state the greeting goes out with, and is undone by itself (a snapshot) when
    /// the patches it needs leave the window or the epoch changes before they are written.
    @discardableResult
    mutating func greet(_ frame: SharedFrame, shared: SharedFrames, resume: ResumePoint? = nil) -> CatchUp {
        guard followsShared else {
            // Nothing to catch up with: a greeting is just the first reply.
            _ = enqueue(frame)
            return .snapshot
        }
        guard !greeted, greeting == nil else { return .snapshot }
        greeting = frame
        sentTickSerials = shared.ticks.mapValues(\.serial)
        guard readsPatches, let state = shared.state else { return .snapshot }
        let decision = CatchUp.decide(resume, state: state, window: shared.window)
        switch decision {
        case .snapshot:
            break
        case .upToDate(let version):
            sentVersion = version
            sentTimeline = state.timeline
        case .patches(let after, let through):
            sentVersion = after
            sentTimeline = state.timeline
            catchingUpThrough = through
        }
        return decision
    }

    /// False when the queue is full: the caller closes the connection.
    mutating func enqueue(_ frame: SharedFrame) -> Bool {
        guard queuedReplies < replyLimit else { return false }
        replies.append(frame)
        return true
    }

    /// Whether `next` has a frame, without copying the outbox to ask it (asked of every
    /// connection after every write); `OutboxTests` hold the two to the same answers.
    func hasPending(_ shared: SharedFrames) -> Bool {
        if greeting != nil { return true }
        guard greeted else { return false }
        guard followsShared else { return replyHead < replies.count }
        if let state = shared.state, state.timeline != sentTimeline || state.version > sentVersion { return true }
        if replyHead < replies.count { return true }
        if let presence = shared.presence, presence.serial > sentPresenceSerial { return true }
        if readsPatches {
            return shared.ticks.contains { pitch, tick in tick.serial > sentTickSerials[pitch, default: 0] }
        }
        guard let tick = shared.ticks[SharedFrames.firstPitch] else { return false }
        return tick.serial > sentTickSerials[SharedFrames.firstPitch, default: 0]
    }

    /// The frame to write now, marked as sent.
    mutating func next(_ shared: SharedFrames) -> Next {
        if let greeting {
            self.greeting = nil
            greeted = true
            return .frame(greeting)
        }
        guard greeted else { return .nothing }
        guard followsShared else { return nextReply() }
        if let state = shared.state, state.timeline != sentTimeline || state.version > sentVersion {
            if readsPatches, state.timeline == sentTimeline, sentVersion != .min,
               state.version - sentVersion <= SharedFrames.patchWindow || sentVersion < catchingUpThrough,
               let patch = shared.patch(to: sentVersion + 1) {
                sentVersion += 1
                return .frame(patch)
            }
            sentVersion = state.version
            sentTimeline = state.timeline
            catchingUpThrough = .min
            return .frame(readsPatches ? state.v2Snapshot : state.v1Snapshot)
        }
        if replyHead < replies.count { return nextReply() }
        if let presence = shared.presence, presence.serial > sentPresenceSerial {
            sentPresenceSerial = presence.serial
            return .frame(presence.frame)
        }
        if readsPatches {
            // The lowest pitch with a newer tick, found without sorting (asked after every write).
            var due: (pitch: Int, serial: Int, frame: SharedFrame)?
            for (pitch, tick) in shared.ticks where tick.serial > sentTickSerials[pitch, default: 0] {
                if due.map({ pitch < $0.pitch }) ?? true { due = (pitch, tick.serial, tick.frame) }
            }
            if let due {
                sentTickSerials[due.pitch] = due.serial
                return .frame(due.frame)
            }
        } else if let tick = shared.ticks[SharedFrames.firstPitch],
                  tick.serial > sentTickSerials[SharedFrames.firstPitch, default: 0] {
            sentTickSerials[SharedFrames.firstPitch] = tick.serial
            return .frame(tick.frame)
        }
        return .nothing
    }

    /// The oldest direct reply not yet sent.
    private mutating func nextReply() -> Next {
        guard replyHead < replies.count else { return .nothing }
        let frame = replies[replyHead]
        replyHead += 1
        if replyHead > 32, replyHead * 2 > replies.count {
            replies.removeFirst(replyHead)
            replyHead = 0
        }
        return .frame(frame)
    }
}
