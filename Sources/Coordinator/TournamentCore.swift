import GatherDelivery
import GatherModel

/// The day's tournament: `createTournament`, `setTournamentTeam`, `startMatch`, `correctResult`
/// and `cancelTournament` (docs/PROTOCOL.md §17). One scope of `CoordinatorCore`.
///
/// The tournament lives in the venue's state, beside the gathers its matches are played as, so
/// its changes go through the same ledger as every gather's (`MatchCore`: one version sequence,
/// one journal, one Store commit, exactly-once answers): a match's result lands in the same
/// commit as its gather's history entry, and an ack always means both are saved. What this scope
/// adds is the judging: each match, each team and the settings are subjects of their own, and
/// every tournament action also reads the settings, so one sent from a screen that still showed
/// another tournament (cancelled or replaced since) is a `conflict`, not applied to the new one.
/// The rules themselves are pure (`GatherRules+Tournament`, `Tournament`).
final class TournamentCore: CoreScope {
    enum Event: Equatable {
        /// A tournament action from an organiser's connection (nil: a spectator's).
        case commandReceived(Command, from: ConnectionID, organiser: String?)
    }

    /// The ledger the tournament's changes are committed through.
    let ledger: MatchCore

    init(ledger: MatchCore) {
        self.ledger = ledger
    }

    var tournament: Tournament? { ledger.state.tournament }

    func event(for arrival: Arrival) -> Event? {
        guard case .command(let command) = arrival.message, case .success(.tournament) = command.action else { return nil }
        return .commandReceived(command, from: arrival.client, organiser: arrival.organiser)
    }

    func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .commandReceived(let command, let client, let organiser):
            ledger.handleCommand(command, from: client, organiser: organiser, judgedAlso: [.tournamentSettings],
                                 into: &effects)
        }
        return effects
    }
}
