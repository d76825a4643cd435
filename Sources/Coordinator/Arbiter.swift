import GatherModel
import GatherStore

/// Decides whether a command from an old `base` may land: it conflicts when a change after
/// `base`, made by someone else, touched one of its subjects.
///
/// An organiser's own earlier changes never conflict with their later commands: they are not
/// someone else's work being overwritten unseen (a quick double "+1" from one phone is two goals).
struct Arbiter {
    /// The most recent journal entries, oldest first; older ones are read from the Store.
    private(set) var window: [JournalEntry]
    let windowLimit: Int

    init(recent: [JournalEntry], windowLimit: Int) {
        self.window = Array(recent.suffix(windowLimit))
        self.windowLimit = windowLimit
    }

    mutating func remember(_ entry: JournalEntry) {
        window.append(entry)
        if window.count > windowLimit { window.removeFirst(window.count - windowLimit) }
    }

    enum Verdict: Equatable {
        case clear
        /// The newest change after `base` by someone else that touched one of the subjects.
        case conflict(JournalEntry, Subject)
        /// The journal no longer reaches back to `base` (it is pruned), so no one can say.
        case tooOld
    }

    /// Judges a command from `base` (older than `version`, the current one) by `organiser`.
    func judge(after base: Int, version: Int, subjects: Set<Subject>, organiser: String, store: GatherStore) throws
        -> Verdict
    {
        let entries: [JournalEntry]
        if let oldest = window.first, oldest.version <= base + 1 {
            entries = window.filter { $0.version > base }
        } else {
            entries = try store.journal(after: base)
        }
        guard base >= version || entries.first?.version == base + 1 else { return .tooOld }
        for entry in entries.reversed() where entry.organiser != organiser {
            if let subject = entry.subjects.intersection(subjects).sorted(by: { $0.description < $1.description }).first {
                return .conflict(entry, subject)
            }
        }
        return .clear
    }

    /// "Bob changed Team A's score 12 s ago." — who, what and how long ago.
    static func conflictMessage(entry: JournalEntry, subject: Subject, state: GatherState, now: Int64) -> String {
        let ago = describeAge(now - entry.at)
        let what = subject.phrase(in: state)
        guard let organiser = entry.organiser else {
            return "The timer ran out \(ago), which changed \(what). Check the screen and try again."
        }
        return "\(organiser) changed \(what) \(ago). Check the screen and try again."
    }

    static func describeAge(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds) / 1000
        if seconds < 2 { return "just now" }
        if seconds < 120 { return "\(seconds) s ago" }
        if seconds < 7200 { return "\(seconds / 60) min ago" }
        return "\(seconds / 3600) h ago"
    }
}
