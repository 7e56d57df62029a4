import Clearance
import ClearanceHTTP
import ClearanceWire
import Foundation
import HTTPTypes

/// A JSON document a provider publishes (its discovery document, its key set), fetched with a
/// `GET` under the transport rules, bounded, and read with `JSONScanner` (hostile input never
/// traps). Redirects are not followed: a provider's documents live at their URLs.
struct ProviderDocument: Sendable {
    /// The largest document accepted.
    static let maximumSize = 512 * 1024

    /// What went wrong, for the caller to turn into its own error.
    enum Failure: Error {
        /// The request did not get an answer.
        case unreachable(any Error)
        /// The answer is not a JSON object under 512 KiB with status 200.
        case unusable(reason: String, response: HTTPErrorResponse?)
        /// The URL may not be fetched under the transport rules.
        case insecure(reason: String)
    }

    /// The document's members.
    let members: [String: JSONValue]

    /// Fetches the JSON object at `url`.
    static func fetch(_ url: URL, transport: any HTTPTransport, transportSecurity: TransportSecurity) async throws(Failure) -> ProviderDocument {
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields[.accept] = "application/json"
        do {
            try transportSecurity.check(request)
        } catch {
            throw .insecure(reason: error.message)
        }
        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(request, body: nil)
        } catch {
            throw .unreachable(error)
        }
        guard response.status.code == 200 else {
            throw .unusable(reason: "the answer is not HTTP 200", response: HTTPErrorResponse(response, body: body))
        }
        guard body.count <= maximumSize else {
            throw .unusable(reason: "the document is larger than \(maximumSize / 1024) KiB", response: nil)
        }
        guard let text = String(data: body, encoding: .utf8), case .object(let members)? = try? JSONScanner.parse(text) else {
            throw .unusable(reason: "the answer is not a JSON object", response: HTTPErrorResponse(response, body: body))
        }
        return ProviderDocument(members: members)
    }
}
