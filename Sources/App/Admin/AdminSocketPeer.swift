import Foundation

/// What the laptop's CLI checks about whoever listens on `admin.sock` before it sends anything: a
/// reset carries a new password, so a listener that is not the folder's server must hear nothing.
enum AdminSocketPeer {
    /// Throws, having sent nothing, unless the listener is the data folder's owner (`SO_PEERCRED`)
    /// and, when the kernel names the process holding the database's lock, that very process: in a
    /// folder others could write, anyone could have put a socket in the server's place, and a
    /// socket of the same user that is not the serving process is the wrong server.
    static func requireServer(listeningOn connection: Int32, socketPath: String, dataFolder: String) throws {
        guard let owner = DataFolderOwner.uid(of: dataFolder) else {
            throw AdminFailure("cannot look at the data folder \(dataFolder) (\(UnixSocket.errnoText())); nothing was sent")
        }
        guard let peer = UnixSocket.peer(connection) else {
            throw AdminFailure("cannot tell who listens on \(socketPath) (\(UnixSocket.errnoText())); nothing was sent")
        }
        guard peer.uid == owner else {
            throw AdminFailure("""
                the admin socket \(socketPath) is held by \(DataFolderOwner.describe(peer.uid)), not by the data folder's \
                owner \(DataFolderOwner.describe(owner)), so it is not the server; nothing was sent. Stop that \
                process, remove the socket, and keep the folder to its owner (`chmod 700 \(dataFolder)`).
                """)
        }
        // PID 0: the listener is outside this PID namespace, and only the uid can be checked.
        if peer.pid != 0, let serving = DataFolderLock.holder(dataFolder: dataFolder), serving != peer.pid {
            throw AdminFailure("""
                the admin socket \(socketPath) is answered by PID \(peer.pid), but the data folder \(dataFolder) is \
                served by PID \(serving); nothing was sent. Stop PID \(peer.pid) and remove the socket, or restart \
                the server (it makes its socket again).
                """)
        }
    }
}
