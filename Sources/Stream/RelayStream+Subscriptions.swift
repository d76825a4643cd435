import CNats
import Foundation
import GatherDelivery

/// The relay's NATS subscriptions (the relay's queue): the ticks subject, the state subject read
/// again from its snapshot on every replay, and the watcher reports it publishes.
extension RelayStream {
    func subscribeToTicks() {
        guard local.value.ticksSubscription == nil, let handles = link.handles else { return }
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, handles.connection, configuration.venue.ticksSubject,
                                              natsMessageThunk, ticksSubscriber.context)
        guard status == NATS_OK else { return }
        _ = natsSubscription_SetPendingLimits(subscription, 10_000, 8 << 20)
        local.value.ticksSubscription = subscription
    }

    /// Reads the state subject again from its snapshot (an ordered consumer over everything the
    /// stream holds for it: one snapshot and the patches after it), at most as often as `replay(Waiting)IntervalMs`.
    func replay() {
        let now = Self.nowMs()
        guard link.isConnected, let handles = link.handles else { return }
        let started: (generation: Int, subscriber: NATSSubscriber)? = local.withValue { local in
            let interval = local.stateSubscription == nil ? Self.waitingIntervalMs : Self.replayIntervalMs
            guard local.lastReplayAt == .min || now - local.lastReplayAt >= interval else { return nil }
            local.lastReplayAt = now
            local.replayWanted = false
            if let subscription = local.stateSubscription {
                _ = natsSubscription_Unsubscribe(subscription)
                natsSubscription_Destroy(subscription)
                local.stateSubscription = nil
            }
            local.generation += 1
            let generation = local.generation
            let subscriber = NATSSubscriber(queue: queue) { [owner] in owner.target?.heardState($0, generation: generation) }
            local.retiredSubscribers.append(subscriber)
            if local.retiredSubscribers.count > 4 { local.retiredSubscribers.removeFirst() }
            local.follower.replayStarted()
            return (generation, subscriber)
        }
        guard let started else { return }

        // Heartbeats every second: when the hub node holding the consumer dies the relay resumes
        // in seconds, not 10-20 s.
        let subscription: OpaquePointer
        switch subscribeOrderedFromStart(jetStream: handles.jetStream, stream: configuration.streamName,
                                         subject: configuration.venue.stateSubject, subscriber: started.subscriber) {
        case .success(let made): subscription = made
        case .failure(let failure):
            sayWaiting("the stream \(configuration.streamName) is not there yet (JetStream error \(failure.errorCode))")
            local.value.replayWanted = true
            return
        }
        _ = natsSubscription_SetPendingLimits(subscription, 100_000, 64 << 20)
        local.withValue { local in
            local.stateSubscription = subscription
            local.saidWaiting = false
        }
    }

    func reportWatchers() {
        guard link.isConnected, let connection = link.handles?.connection else { return }
        let bytes = Array("{\"relay\":\"\(configuration.relayID)\",\"spectators\":\(local.value.spectators.count)}".utf8)
        _ = bytes.withUnsafeBufferPointer {
            natsConnection_Publish(connection, configuration.venue.watchersSubject, $0.baseAddress, Int32($0.count))
        }
    }

    func sayWaiting(_ why: String) {
        let first = local.withValue { local in
            defer { local.saidWaiting = true }
            return !local.saidWaiting
        }
        if first { logger.warning("waiting for the venue: \(why); serving the pages meanwhile") }
    }

    /// libnats re-creates an ordered consumer whose hub node died only after missed heartbeats,
    /// and on a hub of three that took over 10 s while the mirror elected its new leader. Asked
    /// every 2 s (at most 0.5 s on this queue), the hub says as soon as it can that the consumer
    /// is gone, and the relay replays at once.
    func checkConsumer() {
        guard let stateSubscription = local.value.stateSubscription, link.isConnected else { return }
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = 500
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var errorCode = jsErrCode(0)
        let status = natsSubscription_GetConsumerInfo(&info, stateSubscription, &options, &errorCode)
        jsConsumerInfo_Destroy(info)
        guard status != NATS_OK, errorCode == JSConsumerNotFoundErr else { return }
        logger.info("replaying the venue's stream", metadata: ["relay.reason": "the hub no longer has its consumer"])
        local.value.replayWanted = true
        replay()
    }
}
