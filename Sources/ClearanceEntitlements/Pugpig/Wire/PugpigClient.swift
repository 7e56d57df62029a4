import Clearance
import ClearanceHTTP
import ClearanceWire
import Foundation
import HTTPTypes
import Logging

/// Sends one call to a Pugpig endpoint and reads its XML answer, mapping every failure to an
/// ``EntitlementError``: a transport failure is `networkFailure`; an HTTP status other than 200,
/// or a 200 whose document is unparsable or hostile, is `unknown` with the answer kept.
///
/// Redirects are not followed (a token may be in the query). Parameters go in the query string
/// or a form body; tokens and passwords never reach a log line.
struct PugpigClient: Sendable {
    let method: PugpigRequestMethod
    let transport: any HTTPTransport
    let transportSecurity: TransportSecurity
    let logger: Logger

    /// The root element of the answer of `url` to `fields`.
    /// - Parameter secrets: Values masked should the server echo them in an error body.
    /// - Parameter answerHoldsSecrets: True for answers that carry a token or a password: an
    ///   unparsable one keeps no body snippet.
    func call(_ url: URL, endpoint: String, fields: [(name: String, value: String)], secrets: [String], answerHoldsSecrets: Bool) async throws(EntitlementError) -> PugpigXMLElement {
        let (request, body) = try makeRequest(url, fields: fields)
        logger.debug("pugpig call", metadata: ["endpoint": "\(endpoint)", "method": "\(method.rawValue)", "url": "\(Self.printable(url))"])
        let response: HTTPResponse
        let data: Data
        do {
            (response, data) = try await transport.send(request, body: body)
        } catch {
            if error is CancellationError || Task.isCancelled { throw .networkFailure(underlying: CancellationError()) }
            logger.debug("pugpig call failed", metadata: ["endpoint": "\(endpoint)", "error": "\(Redactor.describe(error))"])
            throw .networkFailure(underlying: error)
        }
        guard response.status.code == 200 else {
            throw .unknown(reason: "the \(endpoint) endpoint failed", response: HTTPErrorResponse(response, body: data, masking: secrets, keepsBody: false))
        }
        do {
            return try PugpigXMLDocument.parse(data)
        } catch {
            throw .unknown(
                reason: "the \(endpoint) answer is refused: \(error)",
                response: HTTPErrorResponse(response, body: answerHoldsSecrets ? Data() : data, masking: secrets, keepsBody: false))
        }
    }

    /// The error for an answer that parsed as XML but is not what the endpoint answers.
    static func unexpected(_ root: PugpigXMLElement, endpoint: String) -> EntitlementError {
        .unknown(reason: "the \(endpoint) answer is not a Pugpig answer (root element <\(root.name)>)")
    }

    private func makeRequest(_ url: URL, fields: [(name: String, value: String)]) throws(EntitlementError) -> (HTTPRequest, Data?) {
        let encoded = FormFields.encode(fields)
        var target = url
        var body: Data?
        if method == .get, !fields.isEmpty {
            let text = url.absoluteString
            guard let withQuery = URL(string: text + (url.query == nil ? "?" : "&") + encoded) else {
                throw .unknown(reason: "cannot add the parameters to \(Self.printable(url))")
            }
            target = withQuery
        }
        var request = HTTPRequest(method: method == .get ? .get : .post, url: target)
        request.headerFields[.accept] = "text/xml, application/xml"
        request.headerFields[.cacheControl] = "no-cache, no-store"
        if method == .post {
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            body = Data(encoded.utf8)
        }
        do {
            try transportSecurity.check(request)
        } catch {
            throw .unknown(reason: error.message, underlying: error)
        }
        return (request, body)
    }

    /// `scheme://host:port/path`, without the query (it may carry a token).
    static func printable(_ url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\(url.path)"
    }
}
