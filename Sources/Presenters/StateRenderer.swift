import GatherDelivery
import GatherModel

/// The gather.v2 rendering of one published version, kept to patch the next version from.
public struct StateRendering: Equatable, Sendable {
    public let version: Int
    /// The v2 `state` object as it was sent.
    public let v2State: JSONValue

    public init(version: Int, v2State: JSONValue) {
        self.version = version
        self.v2State = v2State
    }
}

/// One version for every audience, decided without I/O: the gather.v1 snapshot, the gather.v2
/// snapshot, and the gather.v2 patch from the previous rendering when it is the version just
/// before (a gap means a client holding the older version could not apply it, so none is made).
/// Pure, so the Coordinator only interprets its result and tests can hold every case.
public enum StateRenderer {
    /// `epoch`: the venue server's run, carried by every gather.v2 snapshot and by the frames
    /// (a catch-up names it); nil renders snapshots without it.
    ///
    /// `extra`: members added to the `state` object of both protocols, for an audience that may see
    /// more than the rest (organisers' `referees`, docs/PROTOCOL.md §20); empty for the shared frames.
    public static func render(version: Int, state: GatherState, now: Int64, after previous: StateRendering?,
                              epoch: StreamEpoch? = nil, extra: [String: JSONValue] = [:])
        -> (frames: StateFrames, rendering: StateRendering)
    {
        let v2 = adding(extra, to: StatePresenter.json(state, now: now, protocol: .v2))
        var patch: [UInt8]?
        if let previous, previous.version == version - 1 {
            patch = MessagePresenter.bytes(.patch(from: previous.version, version: version,
                                                  operations: JSONPatch.diff(from: previous.v2State, to: v2)))
        }
        let v1 = extra.isEmpty
            ? MessagePresenter.bytes(.snapshot(version: version, state: state, now: now))
            : JSONWriter.bytes(MessagePresenter.snapshot(
                version: version, state: adding(extra, to: StatePresenter.json(state, now: now, protocol: .v1))))
        let frames = StateFrames(
            version: version, v1Snapshot: v1,
            v2Snapshot: JSONWriter.bytes(MessagePresenter.snapshot(version: version, state: v2, epoch: epoch)),
            v2Patch: patch, epoch: epoch?.id)
        return (frames, StateRendering(version: version, v2State: v2))
    }

    private static func adding(_ extra: [String: JSONValue], to state: JSONValue) -> JSONValue {
        guard !extra.isEmpty, case .object(var members) = state else { return state }
        members.merge(extra) { _, added in added }
        return .object(members)
    }
}
