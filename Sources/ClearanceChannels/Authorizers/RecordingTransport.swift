import ClearanceHTTP
import Foundation
import HTTPTypes

/// A transport that records what its base returns.
struct RecordingTransport: HTTPTransport {
    let base: any HTTPTransport
    let recorder: ResponseRecorder

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await base.send(request, body: body)
        recorder.record(status: response.status.code, body: data)
        return (response, data)
    }
}
