/// The latest frames that every connection shares: a slow connection skips to the newest.
struct SharedFrames {
    var snapshot: (version: Int, frame: SharedFrame)?
    /// The latest tick of each pitch's countdown; `serial` counts every tick of every pitch.
    var ticks: [Int: (serial: Int, frame: SharedFrame)] = [:]
    var presence: (serial: Int, frame: SharedFrame)?

    /// The pitch gather.v1 clients know: the first release had only that one.
    static let firstPitch = 1
}

/// What one connection still has to send, and in which order. Pure: the service thread asks it
/// for the next frame on every writable callback.
///
/// Order: the greeting first, then (once greeted) the newest snapshot not yet sent, then direct
/// replies in order, then the newest presence and each pitch's newest tick. The Coordinator
/// publishes a snapshot before the `ack` it makes possible, so a sender always sees version ≥ V
/// no later than ack V.
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
    /// gather.v2 connections follow every pitch's countdown; gather.v1 ones only pitch 1's.
    let followsEveryPitch: Bool
    private var greeting: SharedFrame?
    private(set) var greeted = false
    private var replies: [SharedFrame] = []
    private var replyHead = 0
    private(set) var sentSnapshotVersion = Int.min
    private var sentTickSerials: [Int: Int] = [:]
    private var sentPresenceSerial = 0

    init(replyLimit: Int, followsEveryPitch: Bool = false) {
        self.replyLimit = replyLimit
        self.followsEveryPitch = followsEveryPitch
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
        if let snapshot = shared.snapshot, snapshot.version > sentSnapshotVersion {
            sentSnapshotVersion = snapshot.version
            return .frame(snapshot.frame)
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
        for (pitch, tick) in shared.ticks.sorted(by: { $0.key < $1.key })
        where (followsEveryPitch || pitch == SharedFrames.firstPitch) && tick.serial > sentTickSerials[pitch, default: 0] {
            sentTickSerials[pitch] = tick.serial
            return .frame(tick.frame)
        }
        return .nothing
    }
}
