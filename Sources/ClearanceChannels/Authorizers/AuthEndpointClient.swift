import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// POSTs a form to an auth endpoint through `AuthorizedClient`, with the app's headers, header
/// providers, request hook and credential, under a deadline; returns status and body, or a
/// ``ChannelAuthorizationError`` saying exactly what happened.
struct AuthEndpointClient: Sendable {
    let endpoint: URL
    let parameters: [(String, String)]
    let headers: HTTPFields
    let headerProviders: [ServerChannelAuthorizer.HeaderProvider]
    let requestAuthorizer: RequestAuthorizer
    let transport: any HTTPTransport
    let hook: AuthorizedClient.RequestHook?
    let timeout: Duration

    /// Sends `fields` (plus the app's parameters) and returns what the endpoint answered.
    func post(_ fields: [(String, String)]) async throws -> (status: Int, body: Data) {
        var request = HTTPRequest(method: .post, url: endpoint)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        for field in headers { request.headerFields.append(field) }
        for provider in headerProviders {
            let provided: HTTPFields
            do {
                provided = try await provider()
            } catch {
                if error is CancellationError { throw error }
                throw ChannelAuthorizationError.credential(.missingCredential(source: "header provider", underlying: error))
            }
            for field in provided { request.headerFields[field.name] = field.value }
        }
        let body = Data(FormBody.encode(fields + parameters).utf8)
        let recorder = ResponseRecorder()
        let client = AuthorizedClient(
            authorizer: requestAuthorizer,
            transport: RecordingTransport(base: transport, recorder: recorder),
            willSend: hook
        )
        let timeout = timeout
        let outgoing = request
        do {
            return try await Deadline.run(timeout, timeoutError: { ChannelAuthorizationError.timedOut(after: timeout) }) {
                let (response, data) = try await client.send(outgoing, body: body)
                return (response.status.code, data)
            }
        } catch let error as AuthorizationError {
            switch error {
            case .cancelled:
                throw CancellationError()
            case .networkFailure(let underlying):
                throw ChannelAuthorizationError.transport(underlying: underlying)
            case .unauthorized(let status, _), .forbidden(let status, _):
                let recorded = recorder.last
                throw ChannelAuthorizationError.httpStatus(status: status, body: recorded.map { String(decoding: $0.body, as: UTF8.self) } ?? "")
            default:
                throw ChannelAuthorizationError.credential(error)
            }
        }
    }
}
