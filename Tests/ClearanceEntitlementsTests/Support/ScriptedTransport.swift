import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// A transport whose answers a test writes: per request, a response and its body chunks, an
/// error thrown before any answer, or chunks followed by an error mid-body. Records the requests.
final class ScriptedTransport: HTTPTransport {
    enum Answer: Sendable {
        case respond(status: Int, headers: HTTPFields = [:], chunks: [Data])
        case fail(any Error)
        case failMidBody(status: Int, headers: HTTPFields, chunks: [Data], error: any Error)

        static func xml(_ text: String, status: Int = 200) -> Answer {
            .respond(status: status, headers: [.contentType: "text/xml"], chunks: [Data(text.utf8)])
        }
    }

    private let script: @Sendable (HTTPRequest, Data?) -> Answer
    private let log = Locked<[(HTTPRequest, Data?)]>([])

    init(_ script: @escaping @Sendable (HTTPRequest, Data?) -> Answer) {
        self.script = script
    }

    /// Every request sent, in order, with its body.
    var requests: [(request: HTTPRequest, body: Data?)] { log.withLock { $0.map { ($0.0, $0.1) } } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await stream(request, body: body) { response, chunks in
            var data = Data()
            for try await chunk in chunks { data.append(chunk) }
            return (response, data)
        }
    }

    func stream<Result: Sendable>(_ request: HTTPRequest, body: Data?, receive: (HTTPResponse, HTTPResponseBody) async throws -> Result) async throws -> Result {
        log.withLock { $0.append((request, body)) }
        switch script(request, body) {
        case .fail(let error):
            throw error
        case .respond(let status, let headers, let chunks):
            return try await receive(HTTPResponse(status: .init(code: status), headerFields: headers), Self.body(chunks, then: nil))
        case .failMidBody(let status, let headers, let chunks, let error):
            return try await receive(HTTPResponse(status: .init(code: status), headerFields: headers), Self.body(chunks, then: error))
        }
    }

    private static func body(_ chunks: [Data], then error: (any Error)?) -> HTTPResponseBody {
        let remaining = Locked(chunks)
        return HTTPResponseBody {
            if let next = remaining.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return next }
            if let error { throw error }
            return nil
        }
    }
}
