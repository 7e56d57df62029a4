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
}

extension ConnectionSink {
    /// Sinks that send no reason close with the code alone.
    func close(_ code: HubCloseCode, reason: String) {
        close(code)
    }
}
