/// Where a ``ConnectionOutbox`` puts what it is given: a connection's WebSocket
/// (``WebSocketFrameSink``), or a recorder in tests.
protocol ConnectionSink: Sendable {
    /// Sends `delivery`, unless closing or finished.
    func deliver(_ delivery: ConnectionOutbox.Delivery)
    /// Sends the close frame with `code` after what was delivered; nothing more afterwards.
    func close(_ code: HubCloseCode)
    /// Nothing more is sent.
    func finish()
}
