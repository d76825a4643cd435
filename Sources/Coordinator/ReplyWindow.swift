import GatherStore

/// Each organiser's last answers, held in memory so a resent command id is answered without a
/// SQLite read. It holds exactly the rows the Store's `replies` table holds: loaded from it at
/// start, added to only after the Store has written the same row, and pruned by the same rule at
/// the same moment (each organiser's newest `kept`, in the order they were given), so an answer
/// is found here exactly when the table has it — across restarts too.
struct ReplyWindow: Equatable {
    private struct Answers: Equatable {
        /// Command ids, oldest first.
        var order: [String] = []
        var byID: [String: StoredReply] = [:]
    }

    private var byOrganiser: [String: Answers] = [:]

    /// `kept`: the Store's rows, in the order they were given.
    init(_ kept: [KeptReply] = []) {
        for row in kept { remember(row.reply, organiser: row.organiser, commandID: row.commandID) }
    }

    func reply(organiser: String, commandID: String) -> StoredReply? {
        byOrganiser[organiser]?.byID[commandID]
    }

    /// Like the Store's insert, an id already answered keeps its first answer.
    mutating func remember(_ reply: StoredReply, organiser: String, commandID: String) {
        guard byOrganiser[organiser]?.byID[commandID] == nil else { return }
        byOrganiser[organiser, default: Answers()].order.append(commandID)
        byOrganiser[organiser, default: Answers()].byID[commandID] = reply
    }

    /// Keeps each organiser's newest `kept` answers, as `GatherStore.prune` does.
    mutating func prune(keeping kept: Int) {
        for (organiser, answers) in byOrganiser where answers.order.count > kept {
            var trimmed = answers
            let dropped = trimmed.order.prefix(answers.order.count - kept)
            for id in dropped { trimmed.byID[id] = nil }
            trimmed.order.removeFirst(dropped.count)
            byOrganiser[organiser] = trimmed
        }
    }

    /// Answers held (tests compare it with the table).
    var count: Int { byOrganiser.values.reduce(0) { $0 + $1.order.count } }
}
