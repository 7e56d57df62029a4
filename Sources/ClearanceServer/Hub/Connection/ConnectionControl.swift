import Clearance
import Logging
import NIOCore

/// What the hub does to one connection from outside its own task: the timers (pings, the pong
/// deadline, inactivity, the authorization deadline, the close handshake) and the shutdown close. The
/// hub's one ticker (``Hub/runTicker()``) ticks every connection's control; the connection's
/// task reports its client's frames and its authorization.
///
/// Keeping this out of the connection's task is what lets a connection live on one task instead
/// of four (reader, writer, ticker and the protocol loop).
final class ConnectionControl: Sendable {
    private let timers: Locked<ConnectionTimers>
    private let outbox: ConnectionOutbox
    private let channel: any Channel
    private let logger: Logger

    /// `now` is the hub's clock's (the connection's timers take every instant from their
    /// callers: a connection holds no clock of its own, which would cost each its bytes).
    init(settings: ConnectionTimers.Settings, outbox: ConnectionOutbox, channel: any Channel, logger: Logger, now: ContinuousClock.Instant) {
        timers = Locked(ConnectionTimers(settings: settings, now: now))
        self.outbox = outbox
        self.channel = channel
        self.logger = logger
    }

    /// A frame from the client arrived: it counts as activity. Returns false once the hub is
    /// closing the connection (the frame is then ignored).
    func receivedFrame(at now: ContinuousClock.Instant) -> Bool {
        timers.withLock { timers in
            timers.receivedFrame(at: now)
            return !timers.isClosing
        }
    }

    /// The connection signed in or subscribed to a private or presence channel: the
    /// authorization deadline no longer applies.
    func authorized() {
        timers.withLock { $0.authorized() }
    }

    /// Checks the timers at `now` and does what they say.
    func tick(at now: ContinuousClock.Instant) {
        switch timers.withLock({ $0.tick(at: now) }) {
        case .none:
            break
        case .sendPing:
            outbox.deliver(.frame(PusherFrame.ping))
        case let .close(code):
            close(code, at: now)
        case .abort:
            logger.debug("hub.connection.closeTimeout")
            channel.close(promise: nil)
        }
    }

    /// Closes with `code`: `pusher:error`, then the close frame, both after whatever is queued,
    /// with `reason` (default: the code's own message). Does nothing when the connection is
    /// closing already; a client that does not answer the close frame is cut after
    /// ``HubConnectionLimits/closeTimeout``.
    func close(_ code: HubCloseCode, reason: String? = nil, at now: ContinuousClock.Instant) {
        let started = timers.withLock { timers -> Bool in
            guard !timers.isClosing else { return false }
            timers.closeStarted(at: now)
            return true
        }
        guard started else { return }
        logger.info("hub.connection.closing", metadata: ["code": "\(code.rawValue)"])
        let reason = reason ?? code.message
        outbox.deliver(.frame(PusherFrame.error(code: Int(code.rawValue), message: reason)))
        outbox.close(code, reason: reason)
    }
}
