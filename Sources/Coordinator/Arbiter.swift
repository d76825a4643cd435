import GatherModel
import GatherStore

/// Decides whether a command from an old `base` may land: it conflicts when a change after
/// `base`, made by someone else, touched one of its subjects.
///
/// An organiser's own earlier changes never conflict with their later commands: they are not
/// someone else's work being overwritten unseen (a quick double "+1" from one phone is two goals).
///
/// Judged from memory in time proportional to the command's subjects, whatever the age of
/// `base` (an old base once cost up to 10,000 journal rows read per command). For each
/// subject it keeps the newest change and the newest change by someone other than that change's
/// author, which is exactly enough to answer "the newest change after `base` by anyone but X":
/// the newest one if X did not make it, else the other. Bounded by the subjects changed within
/// the versions kept (`journalKept`); a `base` before those is `tooOld` at once.
struct Arbiter {
    /// The newest change to one subject, and the newest one by someone other than its author.
    struct Changes: Equatable {
        var newest: JournalEntry
        var newestByAnother: JournalEntry?
    }

    private(set) var bySubject: [Subject: Changes] = [:]
    /// Every change from this version on is known; a `base` below `horizon - 1` cannot be judged.
    private(set) var horizon: Int

    /// `journal`: every change after `version - kept` (oldest first), as the Store keeps them.
    init(journal: [JournalEntry], version: Int) {
        horizon = journal.first?.version ?? version + 1
        for entry in journal { remember(entry) }
    }

    mutating func remember(_ entry: JournalEntry) {
        for subject in entry.subjects {
            guard var changes = bySubject[subject] else {
                bySubject[subject] = Changes(newest: entry, newestByAnother: nil)
                continue
            }
            if changes.newest.organiser != entry.organiser { changes.newestByAnother = changes.newest }
            changes.newest = entry
            bySubject[subject] = changes
        }
    }

    /// Forgets changes before `version` (the Store's journal no longer keeps them either).
    mutating func forget(before version: Int) {
        guard version > horizon else { return }
        horizon = version
        bySubject = bySubject.compactMapValues { changes in
            guard changes.newest.version >= version else { return nil }
            var kept = changes
            if let other = kept.newestByAnother, other.version < version { kept.newestByAnother = nil }
            return kept
        }
    }

    enum Verdict: Equatable {
        case clear
        /// The newest change after `base` by someone else that touched one of the subjects.
        case conflict(JournalEntry, Subject)
        /// The changes since `base` are no longer kept, so no one can say.
        case tooOld
    }

    /// Judges a command from `base` (older than `version`, the current one) by `organiser`,
    /// before reading anything: the age of `base` is compared with what is kept first.
    func judge(after base: Int, version: Int, subjects: Set<Subject>, organiser: String) -> Verdict {
        guard base < version else { return .clear }
        guard base >= horizon - 1 else { return .tooOld }
        var found: JournalEntry?
        for subject in subjects {
            guard let changes = bySubject[subject] else { continue }
            let candidate = changes.newest.organiser != organiser ? changes.newest : changes.newestByAnother
            if let candidate, candidate.version > base, candidate.version > found?.version ?? .min { found = candidate }
        }
        guard let entry = found,
              let subject = entry.subjects.intersection(subjects).sorted(by: { $0.description < $1.description }).first
        else { return .clear }
        return .conflict(entry, subject)
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

    /// The same as a key and params: who (none for the timer) and how many seconds ago.
    static func conflictSentence(entry: JournalEntry, now: Int64) -> Sentence {
        let seconds = SentenceParam.number(Int(max(0, now - entry.at) / 1000))
        guard let organiser = entry.organiser else { return Sentence(.timerChangedMeanwhile, ["seconds": seconds]) }
        return Sentence(.changedMeanwhile, ["organiser": .text(organiser), "seconds": seconds])
    }

    static func describeAge(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds) / 1000
        if seconds < 2 { return "just now" }
        if seconds < 120 { return "\(seconds) s ago" }
        if seconds < 7200 { return "\(seconds / 60) min ago" }
        return "\(seconds / 3600) h ago"
    }
}
