import AsyncHTTPClient
import ClearanceSigning
import Foundation
import NIOCore

/// Sends one batch of webhook events to its target: a POST of the signed JSON body, redirects not
/// followed, an answer expected within the attempt timeout.
struct WebhookSender: Sendable {
    /// Why an attempt failed (no secret, header value or body in it).
    enum Failure: Error, Sendable, CustomStringConvertible {
        case status(Int)
        case noAnswer(String)

        var description: String {
            switch self {
            case let .status(code): "the receiver answered \(code)"
            case let .noAnswer(reason): "no answer: \(reason)"
            }
        }
    }

    let client: HTTPClient
    let timeout: Duration

    /// Posts `events` to `target`, signed by `signer`; returns once the receiver answered 2xx.
    /// - Throws: ``Failure``.
    func send(_ events: [WebhookEvent], to target: WebhookTarget, signer: WebhookSigner, now: Date = Date()) async throws(Failure) {
        let body = WebhookPayload(timeMilliseconds: Int64((now.timeIntervalSince1970 * 1_000).rounded(.down)), events: events).encoded()
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        for (name, value) in target.headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        for (name, value) in signer.headers(body: body) { request.headers.replaceOrAdd(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let status: Int
        do {
            let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            let response = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
            status = Int(response.status.code)
            // The answer's body means nothing to the hub: read a little, so the connection can be reused.
            _ = try? await response.body.collect(upTo: 65_536)
        } catch {
            throw .noAnswer(Self.describe(error))
        }
        guard (200..<300).contains(status) else { throw .status(status) }
    }

    /// A short reason, without the URL (which may hold a token in its query).
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "timed out"
            default: return "\(error)".split(separator: "(").first.map(String.init) ?? "failed"
            }
        }
        return "\(type(of: error))"
    }
}
