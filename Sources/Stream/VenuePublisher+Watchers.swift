import CNats

/// The relays' watcher reports on `gather.VENUE.watchers`, summed into `presence.remote` (the
/// publisher's queue). Untrusted counts: `WatcherTally` caps them.
extension VenuePublisher {
    func subscribeToWatchers() {
        guard local.value.watcherSubscription == nil, let handles = link.handles else { return }
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, handles.connection, venue.watchersSubject,
                                              natsMessageThunk, watcherSubscriber.context)
        guard status == NATS_OK else {
            logger.warning("cannot hear the relays' watcher counts", metadata: ["nats.status": "\(String(cString: natsStatus_GetText(status)))"])
            return
        }
        // Bounded: relays report every 5 s; a flood beyond this is dropped by libnats, not queued.
        _ = natsSubscription_SetPendingLimits(subscription, 1_000, 1 << 20)
        local.value.watcherSubscription = subscription
    }

    func heardWatchers(_ message: NATSMessage) {
        if local.value.tally.record(message.data, now: Self.nowMs()) { reportRemoteWatchers() }
    }

    func reportRemoteWatchers() {
        let total = local.value.tally.total
        shared.withLock { $0.remoteWatchers = total }
        onRemoteWatchers(total)
    }
}
