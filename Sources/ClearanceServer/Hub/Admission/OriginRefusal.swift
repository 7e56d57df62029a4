import ClearanceWire
import NIOCore
import NIOHTTP1

/// The answer to a WebSocket upgrade refused for its origin (see
/// ``HubAppConfiguration/allowedOrigins``): `403 Forbidden` with a JSON body saying why, and
/// `Connection: close`.
///
/// It is written by ``HubChildChannel`` while deciding the upgrade, on the connection's HTTP/1
/// pipeline, and the connection is closed once it is sent. It cannot be left to the router: when
/// no upgrader takes a request that asked for an upgrade, NIO's upgrade handler has not kept
/// its head (it buffers only once it knows the request is not an upgrade), so the request never
/// reaches Hummingbird.
enum OriginRefusal {
    /// Writes the 403 on `channel` (on its event loop, before any upgrade) and closes it once sent.
    static func respond(on channel: any Channel, appID: String) {
        var body = JSONWriter()
        body.string("error", "origin_not_allowed")
        body.string("message", "The app \(appID) does not accept connections from pages of this origin (allowedOrigins).")
        let buffer = channel.allocator.buffer(string: body.text)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        let pipeline = channel.pipeline.syncOperations
        pipeline.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .forbidden, headers: headers))), promise: nil)
        pipeline.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        let written = channel.eventLoop.makePromise(of: Void.self)
        pipeline.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: written)
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }
}
