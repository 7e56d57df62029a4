/// Why the client itself ended a socket (thrown out of the WebSocket handler).
struct SocketEnded: Error {
    let cause: DisconnectCause
}
