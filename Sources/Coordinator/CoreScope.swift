import GatherDelivery

/// One part of the Coordinator's core, composed the way swift-composable-architecture's `Scope`
/// composes reducers: each part owns its state and its events (named after what happened) and
/// answers one event with the effects it wants, synchronously and without Dispatch. The parent,
/// `CoordinatorCore`, routes each event to the scope it belongs to and concatenates what they
/// return, in order.
///
/// Effects are the one vocabulary the shell (`GatherCoordinator`) carries out, shared by every
/// scope the way TCA's `Effect` is one type for every feature, so concatenating needs no mapping.
///
/// A new scope (the tournament, say) is one new type conforming to this protocol, held by the
/// parent and listed once in `CoordinatorCore.scopes`: a client message reaches the first scope
/// whose `event(for:)` claims it.
protocol CoreScope: AnyObject {
    associatedtype Event

    /// The event a client's message is to this scope, or nil when the message is not for it.
    func event(for arrival: Arrival) -> Event?
    func handle(_ event: Event) -> [Effect]
}

extension CoreScope {
    /// The effects of a message this scope claims; nil when it does not claim it.
    func receive(_ arrival: Arrival) -> [Effect]? {
        event(for: arrival).map(handle)
    }
}

/// A message from a client, decoded, as every scope sees it: who sent it and as whom.
struct Arrival {
    var client: ConnectionID
    /// The envelope's `id`, echoed in the answer.
    var id: String?
    var message: ClientMessage
    /// The organiser this connection is signed in as; nil for a spectator.
    var organiser: String?
}

extension DecisionTally {
    /// The tallies of several scopes as one: counters and gauges add up, the peak is the highest.
    static func combined(_ tallies: [DecisionTally]) -> DecisionTally {
        var total = DecisionTally()
        for tally in tallies {
            total.commandsApplied += tally.commandsApplied
            total.rejectionsByCode.merge(tally.rejectionsByCode, uniquingKeysWith: +)
            total.errorsByCode.merge(tally.errorsByCode, uniquingKeysWith: +)
            total.passwordChecksPeak = max(total.passwordChecksPeak, tally.passwordChecksPeak)
            total.passwordChecksRunning += tally.passwordChecksRunning
            total.passwordChecksWaiting += tally.passwordChecksWaiting
        }
        return total
    }
}
