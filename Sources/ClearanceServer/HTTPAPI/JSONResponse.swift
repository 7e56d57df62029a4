import ClearanceWire
import Hummingbird
import NIOCore

/// JSON responses for the HTTP API and the auth endpoints.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// `{"error":code,"message":message}`.
    static func error(_ status: HTTPResponse.Status, code: String, message: String) -> Response {
        var writer = JSONWriter()
        writer.string("error", code)
        writer.string("message", message)
        return make(status, writer.text)
    }
}
