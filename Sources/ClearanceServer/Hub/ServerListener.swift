import Clearance
import NIOCore

/// The hub's listening socket, once bound: a stopping hub waits until it is closed before it
/// closes its connections, so that no client is accepted (only to be closed again) meanwhile.
final class ServerListener: Sendable {
    private let channel = Locked<(any Channel)?>(nil)

    /// The server is listening on `listening`.
    func bound(_ listening: any Channel) {
        channel.withLock { $0 = listening }
    }

    /// Returns once the listening socket is closed; at once when it never opened.
    func closed() async {
        guard let listening = channel.withLock({ $0 }) else { return }
        try? await listening.closeFuture.get()
    }
}
