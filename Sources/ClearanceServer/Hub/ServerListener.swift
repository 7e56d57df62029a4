import Clearance
import NIOCore

/// The hub's listening socket and the connections it accepted: how a stopping hub stops
/// listening first and lets its last HTTP connections end, without Hummingbird's own graceful
/// shutdown (which would close every WebSocket with 1000 at once, not with the Pusher 4200 that
/// makes clients come back soon).
final class ServerListener: Sendable {
    private let channel = Locked<(any Channel)?>(nil)
    private let accepted = Locked<[ObjectIdentifier: any Channel]>([:])

    /// The server is listening on `listening`: from now on its accepted connections are tracked.
    func bound(_ listening: any Channel) async {
        channel.withLock { $0 = listening }
        try? await listening.pipeline.addHandler(Tracker(listener: self), position: .first).get()
    }

    /// Closes the listening socket (new connections are refused by the operating system from
    /// now on) and returns once it is closed; at once when it never opened.
    func close() async {
        guard let listening = channel.withLock({ $0 }) else { return }
        listening.close(promise: nil)
        try? await listening.closeFuture.get()
    }

    /// Asks every connection still open to end once idle (HTTP keep-alive connections; the
    /// WebSockets are closed by the hub before) and waits until they have, or until `timeout`.
    /// Returns whether they all ended.
    func quiesce(timeout: Duration) async -> Bool {
        for child in accepted.withLock({ Array($0.values) }) {
            child.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        let deadline = ContinuousClock.now + timeout
        while accepted.withLock({ !$0.isEmpty }) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    private func added(_ child: any Channel) {
        accepted.withLock { $0[ObjectIdentifier(child)] = child }
        child.closeFuture.whenComplete { [weak self] _ in
            self?.accepted.withLock { $0[ObjectIdentifier(child)] = nil }
        }
    }

    /// Sees every connection the listening socket accepts on its way to the server.
    private final class Tracker: ChannelInboundHandler, Sendable {
        typealias InboundIn = any Channel
        typealias InboundOut = any Channel
        let listener: ServerListener

        init(listener: ServerListener) {
            self.listener = listener
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            listener.added(unwrapInboundIn(data))
            context.fireChannelRead(data)
        }
    }
}
