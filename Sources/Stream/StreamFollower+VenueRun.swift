/// The venue's current run, as the follower learns it (PROTOCOL.md §16.5, "The stream, against
/// its own credentials"). Whoever holds the venue's or a relay's NATS user can replay anything the
/// venue ever signed; only the numbering of the ticks subject (`seq`, signed, +1 per message) and
/// the heartbeat's epoch say what the venue says *now*. So:
/// - a ticks message acts only with a `seq` above the last acted on in its epoch, and only such a
///   message counts as hearing the venue (a replayed heartbeat keeps no dead link "live");
/// - a heartbeat of a later epoch than any held or heard makes that epoch the venue's run;
/// - a state is served only when it is of that run and at most 100 versions behind it, and, when
///   read from the stream, once the venue confirmed the run live (or after a grace: a venue that
///   is gone still leaves its last state, with `link` false).
extension StreamFollower {
    /// The state held is of an older run than the venue's newest, or too far behind it.
    public var behind: Bool {
        guard let held, let run = venueRun else { return false }
        if held.epoch != run.epoch { return true }
        guard let version = run.version else { return false }
        return version - held.version > Self.maximumVersionsBehind
    }

    /// The newest version heard of the venue's current run (its heartbeat's, or the state held).
    public var venueVersion: Int? {
        guard let run = venueRun else { return nil }
        let heldVersion = held.flatMap { $0.epoch == run.epoch ? $0.version : nil }
        switch (run.version, heldVersion) {
        case let (heard?, held?): return max(heard, held)
        case let (heard, held): return heard ?? held
        }
    }

    /// Whether the state held may reach followers now.
    var mayServeHeld: Bool {
        guard held != nil, let run = venueRun, !behind else { return false }
        return run.confirmed
    }

    /// A snapshot was taken: its epoch is the venue's run when no later one was heard.
    mutating func learnRunOfHeldState(now: Int64) {
        guard let held else { return }
        guard let run = venueRun else {
            venueRun = VenueRun(epoch: held.epoch, unconfirmedSinceMs: now)
            return
        }
        if run.epoch != held.epoch, run.epoch.admits(held.epoch) {
            // A run later than one the venue confirmed live began after it: no replay of an older
            // run can be that (the venue's current run is at least as late). Later than a run only
            // read from the stream, it waits for the venue's word like that one did.
            venueRun = VenueRun(epoch: held.epoch, confirmed: run.confirmed, unconfirmedSinceMs: run.confirmed ? nil : now)
        } else if run.epoch == held.epoch, !run.confirmed, run.unconfirmedSinceMs == nil {
            venueRun?.unconfirmedSinceMs = now
        }
    }

    /// Hands the Transport the state held when it may be served and followers do not have it.
    mutating func releaseHeld() -> [Action] {
        guard mayServeHeld, let held else { return [] }
        if let last = announced, last.epoch == held.epoch, held.version <= last.version { return [] }
        if announced?.epoch != held.epoch { lastFault = nil }
        announced = (held.epoch, held.version)
        return [.announce(Self.frames(version: held.version, state: held.state, patch: nil, epoch: held.epoch))]
    }

    /// A tick or the venue's presence: checked against the venue's run, acted on once per `seq`.
    mutating func heardNumbered(_ bytes: [UInt8], signature: String?, seq: Int, what: String, now: Int64,
                                forwarding: ([UInt8]) -> Action, rebuilt: () -> [UInt8]) -> [Action] {
        // Nothing to check it against yet: ignored, uncounted (nothing is sent either).
        guard let run = venueRun else { return [] }
        guard verifies(bytes, epoch: run.epoch.id, signature) else { return drop("a \(what) the venue did not sign") }
        guard seq > run.lastSeq else { return drop("a \(what) replayed (seq \(seq), the last acted on \(run.lastSeq))") }
        venueRun?.lastSeq = seq
        venueRun?.confirmed = true
        var actions = heard(now: now) + releaseHeld()
        // Forwarded only over the run's state: a tick ahead of its state, or of another run, is not.
        if let held, held.epoch == run.epoch, announced?.epoch == run.epoch, !behind {
            actions += forward(rebuilt(), forwarding)
        }
        return actions
    }

    /// A verified heartbeat: of the run held, numbered above the last; or of a later run.
    mutating func heardHeartbeat(_ heartbeat: StreamMessage.Heartbeat, now: Int64) -> [Action] {
        if let run = venueRun {
            if heartbeat.epoch == run.epoch {
                guard heartbeat.seq > run.lastSeq else {
                    return drop("a heartbeat replayed (seq \(heartbeat.seq), the last acted on \(run.lastSeq))")
                }
            } else if !run.epoch.admits(heartbeat.epoch) {
                return []  // an older run's heartbeat, replayed
            } else {
                venueRun = VenueRun(epoch: heartbeat.epoch)
            }
        } else {
            venueRun = VenueRun(epoch: heartbeat.epoch)
        }
        venueRun?.lastSeq = heartbeat.seq
        venueRun?.version = heartbeat.version
        venueRun?.confirmed = true
        var actions = heard(now: now)
        guard let current = held else { return actions }
        if current.epoch != heartbeat.epoch {
            if !awaitingSnapshot { actions += startReplay("the venue runs a newer epoch than the state held") }
            return actions
        }
        if let version = heartbeat.version, version > current.version, !awaitingSnapshot {
            actions += startReplay("the venue is at \(version), the stream gave \(current.version)")
        }
        return actions + releaseHeld()
    }

    /// A run read from the stream that the venue never confirmed within the grace: served anyway
    /// (the venue may be gone; its followers see its last state and `link` false).
    mutating func graceEnded(now: Int64) -> [Action] {
        guard let run = venueRun, !run.confirmed, let since = run.unconfirmedSinceMs,
              now - since >= Self.confirmationGraceMs
        else { return [] }
        venueRun?.confirmed = true
        return releaseHeld()
    }
}
