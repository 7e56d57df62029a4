/// Where a ``ConnectionOutbox`` puts what it is given: a connection's WebSocket
/// (``WebSocketFrameSink``), or a recorder in tests.
protocol ConnectionSink: Sendable {
    /// Sends `delivery`, unless closing or finished.
    func deliver(_ delivery: ConnectionOutbox.Delivery)
    /// Sends the close frame with `code` after what was delivered; nothing more afterwards.
    func close(_ code: HubCloseCode)
    /// As ``close(_:)``, with `reason` instead of the code's own message.
    func close(_ code: HubCloseCode, reason: String)
    /// Nothing more is sent.
    func finish()
    /// Bytes delivered and not yet taken by the client's socket (what counts against
    /// ``HubConnectionLimits/maxOutboundBytes``).
    var unsentBytes: Int { get }
}

extension ConnectionSink {
    /// Sinks that hold nothing unsent (tests' recorders) say 0.
    var unsentBytes: Int { 0 }

    /// Sinks that send no reason close with the code alone.
    func close(_ code: HubCloseCode, reason: String) {
        close(code)
    }
}
