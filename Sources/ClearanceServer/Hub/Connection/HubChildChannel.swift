import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// What each connection accepted by the hub's server becomes: HTTP/1.1 for the HTTP API and the
/// mounted routes (Hummingbird's own handling), or, on a WebSocket upgrade, a
/// ``PusherChannelHandler`` on the bare channel. An open WebSocket costs no task at all: no
/// writer task, no inbound stream, no per-connection WebSocket machinery, and the server's task
/// for the connection ends once it is upgraded.
///
/// Every socket is counted the moment it is accepted (``SocketBudget``): past the descriptor
/// budget, ``HubHTTPAPILimits/maxHTTPConnections`` or ``HubConnectionLimits/maxConnectionsPerIP`` it is closed
/// at once, counted and logged (throttled), so that the process never runs out of descriptors.
///
/// A browser's upgrade from an origin its app does not allow (``HubAppConfiguration/allowedOrigins``)
/// is not upgraded: it is counted, logged (throttled), answered 403 and closed (``OriginRefusal``),
/// before any WebSocket exists.
///
/// No connection may stall: until its first request head is read (the upgrade decision), a
/// connection has ``HubHTTPAPILimits/httpIdleTimeout`` in all; every HTTP request must arrive whole
/// within ``HubHTTPAPILimits/httpRequestTimeout`` of its first byte (the first one: of the accept;
/// ``RequestDeadline``, which a connection that becomes a WebSocket never costs); between
/// requests Hummingbird's connection state handler closes a connection idle for the idle
/// timeout; WebSockets are held to the Pusher timers.
struct HubChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum Negotiated: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case webSocket(any Channel)
        /// Closed at accept (a socket limit).
        case refused
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
        /// The peer's address, as counted by the hub's ``SocketBudget``.
        let address: String?
    }

    /// What the server's connections use of the hub, and nothing else (the hub makes it:
    /// ``Hub/childChannelDependencies``). A class: every accepted connection's handlers capture
    /// one reference to it, not a copy of the limits and the rest (a struct here cost each open
    /// WebSocket about 450 bytes, `clearance bench --only hub`).
    final class Dependencies: Sendable {
        /// Every accepted socket, against the descriptor budget and the socket limits.
        let sockets: SocketBudget
        /// The hub's limits (a reload does not change them).
        let limits: HubLimits
        /// Where refused and cut sockets are counted.
        let counters: HubCounters
        /// Sockets closed at accept, throttled.
        let socketRefusalLog: ThrottledLog
        /// Requests cut at their deadline, throttled.
        let requestDeadlineLog: ThrottledLog
        /// Upgrades refused for their origin, throttled.
        let originRefusalLog: ThrottledLog
        /// The app whose allowed origins refuse an upgrade from `origin` to `path` (``Hub/appRefusing(origin:path:)``).
        let appRefusing: @Sendable (_ origin: String?, _ path: String) -> HubApp?
        /// How an upgraded WebSocket starts (``Hub/admission(path:channel:)``).
        let admission: @Sendable (_ path: String, _ channel: any Channel) -> PusherChannelHandler.Admission

        init(
            sockets: SocketBudget, limits: HubLimits, counters: HubCounters, socketRefusalLog: ThrottledLog, requestDeadlineLog: ThrottledLog,
            originRefusalLog: ThrottledLog, appRefusing: @escaping @Sendable (_ origin: String?, _ path: String) -> HubApp?,
            admission: @escaping @Sendable (_ path: String, _ channel: any Channel) -> PusherChannelHandler.Admission
        ) {
            self.sockets = sockets
            self.limits = limits
            self.counters = counters
            self.socketRefusalLog = socketRefusalLog
            self.requestDeadlineLog = requestDeadlineLog
            self.originRefusalLog = originRefusalLog
            self.appRefusing = appRefusing
            self.admission = admission
        }
    }

    let hub: Dependencies
    let responder: HTTPChannelHandler.Responder
    /// Behind TLS (requests are `https`).
    var secure = false

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let hub = hub
            let address = channel.remoteAddress?.ipAddress
            if let refusal = hub.sockets.admit(address: address) {
                // Counted before the client can see the close.
                hub.counters.increment(refusal.counter)
                hub.socketRefusalLog.record(["reason": "\(refusal.reason)", "open": "\(hub.sockets.openSockets)"])
                channel.close(promise: nil)
                return Value(negotiated: channel.eventLoop.makeSucceededFuture(.refused), channel: channel, address: address)
            }
            do {
                return Value(negotiated: try negotiation(channel: channel, accepted: .now(), logger: logger), channel: channel, address: address)
            } catch {
                hub.sockets.released(address: address, upgraded: false)
                throw error
            }
        }
    }

    /// Sets up the pipeline that reads the first request and then becomes HTTP/1.1 or, on an
    /// upgrade, a WebSocket.
    private func negotiation(channel: any Channel, accepted: NIODeadline, logger: Logger) throws -> EventLoopFuture<Negotiated> {
        let hub = hub
        let secure = secure
        let idleTimeout = Duration.seconds(hub.limits.httpAPI.httpIdleTimeout)  // at most an hour: validated
        let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
            maxFrameSize: hub.limits.connections.maxMessageBytes,
            enableAutomaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                // A page of an origin its app does not allow: no upgrade, a 403 (written
                // here: see OriginRefusal), counted before the client can read it.
                if let app = hub.appRefusing(head.headers.first(name: "origin"), head.uri) {
                    hub.counters.increment(.webSocketsRefusedAtOrigin)
                    hub.originRefusalLog.record([
                        "app_id": "\(app.id)", "origin": "\(head.headers.first(name: "origin")?.prefix(200) ?? "")",
                    ])
                    OriginRefusal.respond(on: channel, appID: app.id)
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    // No longer a plain HTTP socket: counted so before the handler can send the
                    // client anything (its `connection_established` goes out from another task,
                    // and the client may open its next socket as soon as it reads it).
                    hub.sockets.upgraded()
                    do {
                        try channel.pipeline.syncOperations.addHandler(PusherChannelHandler(
                            admission: hub.admission(head.uri, channel), maxMessageBytes: hub.limits.connections.maxMessageBytes))
                    } catch {
                        hub.sockets.upgradeFailed()
                        throw error
                    }
                    return .webSocket(channel)
                }
            }
        )
        let upgrade = NIOTypedHTTPServerUpgradeConfiguration(upgraders: [upgrader]) { channel in
            channel.eventLoop.makeCompletedFuture {
                // Plain HTTP: the whole-request deadline from here on (a WebSocket never costs
                // one). The first request's head is in: its deadline counts from the accept.
                let deadline = RequestDeadline(timeout: .seconds(hub.limits.httpAPI.httpRequestTimeout)) { _ in
                    hub.counters.increment(.requestsCutAtDeadline)
                    hub.requestDeadlineLog.record(["timeout": "\(hub.limits.httpAPI.httpRequestTimeout)"])
                }
                try channel.pipeline.syncOperations.addHandler(deadline.makeFirstByteHandler(), position: .first)
                deadline.requestBegan(on: channel, at: accepted)
                try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
                try channel.pipeline.syncOperations.addHandler(deadline.makeRequestEndHandler())
                try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
                return .http(try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
            }
        }
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrade)
        configuration.enablePipelining = false  // NIOAsyncChannel reads one request at a time
        configuration.enableErrorHandling = false  // Hummingbird answers malformed requests
        configuration.enableResponseHeaderValidation = false  // swift-http-types validates them
        let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        // A first request that does not parse: 400 and closed at once (nothing else answers it yet).
        let malformed = NegotiationErrorHandler { _ = hub.counters.increment(.malformedRequestsRefused) }
        try channel.pipeline.syncOperations.addHandler(malformed, name: NegotiationErrorHandler.name)
        let stalled = channel.eventLoop.scheduleTask(in: TimeAmount(idleTimeout)) {
            channel.close(promise: nil)
        }
        negotiated.whenComplete { _ in
            stalled.cancel()
            channel.pipeline.removeHandler(name: NegotiationErrorHandler.name, promise: nil)
        }
        return negotiated
    }

    /// Runs an HTTP connection to its end, then gives its socket back to the hub's budget. A
    /// WebSocket is not waited for: its task ends at once and the socket is given back when the
    /// channel closes. A task parked for the life of every WebSocket held about 2 KB of
    /// task-allocator slabs each (measured with heaptrack); the server's graceful shutdown waits
    /// for the channels themselves (its quiescing helper), and the hub closes its WebSockets in
    /// its own order.
    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case let .http(asyncChannel):
                await handleHTTP(asyncChannel: asyncChannel, logger: logger)
            case let .webSocket(channel):
                let (hub, address) = (hub, value.address)
                channel.closeFuture.whenComplete { _ in hub.sockets.released(address: address, upgraded: true) }
                return
            case .refused:
                return  // never counted
            }
        } catch {
            logger.debug("hub.connection.negotiationFailed", metadata: ["error": "\(String(describing: type(of: error)))"])
        }
        // The descriptor is counted until it is closed.
        value.channel.close(promise: nil)
        try? await value.channel.closeFuture.get()
        hub.sockets.released(address: value.address, upgraded: false)
    }
}
