import Foundation

/// Who the data folder belongs to, which decides who may answer on its admin socket.
///
/// Whoever can write the folder can replace `admin.sock` with a listener of their own and read the
/// new passwords the laptop's CLI sends, or swap the database. So the server refuses a folder that
/// another user owns or that other users can write (the group's or everyone's write bit), and the
/// CLI talks only to a socket whose peer is the folder's owner (`SO_PEERCRED`). A folder others can
/// only read is left to the store's warning: it may be shared on purpose.
enum DataFolderOwner {
    /// The owner's uid; nil when the folder cannot be looked at (missing: the store makes it, 0700).
    static func uid(of folder: String) -> uid_t? {
        var info = stat()
        return stat(folder, &info) == 0 ? info.st_uid : nil
    }

    /// Why `gather serve` must not use `folder` (one sentence saying how to fix it), or nil. A
    /// missing folder is fine: the store makes it, the server's own, mode 0700.
    static func refusal(serving folder: String, as user: uid_t = geteuid()) -> String? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        if info.st_uid != user {
            return "the data folder \(folder) belongs to \(describe(info.st_uid)), not to \(describe(user)) who runs "
                + "the server; whoever owns it can replace its admin socket and database. Run the server as that user, "
                + "or give the folder to this one: `chown -R \(name(of: user) ?? String(user)) \(folder)`"
        }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return "other users of this computer can write to the data folder \(folder) (mode \(mode)), so they could "
                + "replace its admin socket or database; run `chmod 700 \(folder)` and start again"
        }
        return nil
    }

    /// "user nobody (uid 65534)", or "uid 1234" for a uid with no name.
    static func describe(_ uid: uid_t) -> String {
        name(of: uid).map { "user \($0) (uid \(uid))" } ?? "uid \(uid)"
    }

    static func name(of uid: uid_t) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name
        else { return nil }
        return String(cString: name)
    }
}
